/* SPDX-License-Identifier: MIT */
/*
 * Workloads and metrics: rw validated against every
 * reader-writer lock at 2 and 8 threads (and an exclusive lock, and the
 * busted negative control), torture and layout runs, the layout
 * variants' structure offsets, handover counting, per-run fairness and
 * trend, latency percentiles on known data, the 1.2 JSON members read
 * back, and --resume's merge and refusal.
 *
 * Environment: LB_VALIDATE_SECONDS (window, default 0.15).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../locks/registry.h"
#include "../output/results/json_read.h"
#include "../output/results/json_write.h"
#include "../output/render/render.h"
#include "../output/results/resume.h"
#include "../topology/mem.h"
#include "../workloads/layout.h"
#include "../workloads/loop.h"
#include "../workloads/loops/loops.h"
#include "../workloads/runner.h"

static double window_s = 0.15;
static struct topo topo;

/* The parameters most tests use: a short CS on 2 lines, 50% reads. */
static struct wl_params params(uint64_t cs_ns)
{
	struct wl_params wp = {
		.cs_lines = 2, .cs_write_lines = 2, .cs_ns = cs_ns, .ncs_ns = 50,
		.read_pct = 50, .lat_sample = 16,
	};

	return wp;
}

/* One run of `ops` with workload `wl` at n threads. */
static int run_wl(const char *lock, const char *wl, const struct wl_params *wp,
		  unsigned n, unsigned fake_nodes, struct run_sample *s)
{
	const struct lock_entry *e = lock_registry_find(lock);
	const struct lock_ops *ops = e->ops;
	struct placement_policy p;
	struct thread_place *pl = calloc(n, sizeof(*pl));
	uint64_t *opt = calloc(ops->nopts + 1, sizeof(*opt));
	char err[512] = "";
	struct run_spec sp;
	int rc;

	assert_non_null(pl);
	assert_non_null(opt);
	for (unsigned i = 0; i < ops->nopts; i++)
		opt[i] = ops->opts[i].def;
	assert_int_equal(placement_parse("cores", &p, err, sizeof(err)), 0);
	assert_int_equal(placement_assign(&topo, &p, n, pl, err, sizeof(err)), 0);
	sp = (struct run_spec){
		.ops = ops, .loops = wl_loops_find(ops), .lock_opt = opt,
		.wl = workload_find(wl), .params = wp,
		.nthreads = n, .place = pl, .fake_nodes = fake_nodes,
		.mem_node = MEM_NODE_LOCAL, .warmup_s = 0.03, .duration_s = window_s,
		.interval_s = window_s, .watchdog_s = 20,
	};
	assert_non_null(sp.wl);
	rc = runner_run(&sp, s, err, sizeof(err));
	if (rc != RUN_OK)
		fail_msg("%s/%s at %u threads: %s", lock, wl, n, err);
	free(pl);
	free(opt);
	placement_policy_free(&p);
	return rc;
}

static void expect_ok(const char *lock, const struct run_sample *s)
{
	if (!s->exclusion_ok)
		fail_msg("%s: exclusion violated: counter %llu, ops %llu, violations %llu",
			 lock, (unsigned long long)s->counter,
			 (unsigned long long)s->total_ops,
			 (unsigned long long)s->violations);
	assert_true(s->exclusion_checked);
}

/* rw on every reader-writer lock, per-op and fixed roles, 2 and 8 threads. */
static void test_rw_every_rwlock(void **state)
{
	unsigned counts[] = {2, 8}, nrw = 0;

	(void)state;
	for (unsigned i = 0; i < lock_registry_count(); i++) {
		const struct lock_ops *o = lock_registry_at(i)->ops;

		if (!(o->caps & LOCK_CAP_RW) || (o->caps & (LOCK_CAP_NOLOCK | LOCK_CAP_BROKEN)))
			continue;
		nrw++;
		for (unsigned k = 0; k < 2; k++) {
			struct wl_params wp = params(100);
			struct run_sample s;

			run_wl(o->name, "rw", &wp, counts[k], 0, &s);
			expect_ok(o->name, &s);
			assert_true(s.has_rw && s.thread_reads);
			assert_true(s.read_ops <= s.ops && s.counter <= s.total_ops);
			/* A loaded 2-CPU machine may run few operations in the
			 * window: only a busy window must show both kinds. */
			if (s.ops >= 1000)
				assert_true(s.read_ops > 0 && s.read_ops < s.ops);
			run_sample_free(&s);
			/* Fixed roles: thread 0 writes, the others read. */
			wp.fixed_roles = wp.writers_set = true;
			wp.writers = 1;
			run_wl(o->name, "rw", &wp, counts[k], 0, &s);
			expect_ok(o->name, &s);
			assert_int_equal(s.thread_reads[0], 0);
			assert_string_equal(run_thread_kind(&s, 0), "writer");
			assert_string_equal(run_thread_kind(&s, 1), "reader");
			run_sample_free(&s);
		}
	}
	assert_true(nrw >= 4); /* qrwlock, pthread_rwlock, ... */
}

/* An exclusive lock runs rw with every operation exclusive. */
static void test_rw_exclusive_lock(void **state)
{
	struct wl_params wp = params(50);
	struct run_sample s;

	(void)state;
	run_wl("pthread_mutex", "rw", &wp, 4, 0, &s);
	expect_ok("pthread_mutex", &s);
	assert_true(s.read_ops <= s.ops && s.counter <= s.total_ops);
	run_sample_free(&s);
}

/* busted under rw: a reader beside a writer, or two writers, is seen. */
static void test_rw_catches_busted(void **state)
{
	struct wl_params wp = params(500);
	struct run_sample s;

	(void)state;
	run_wl("busted", "rw", &wp, 2, 0, &s);
	assert_true(s.exclusion_checked);
	assert_false(s.exclusion_ok);
	assert_true(s.violations > 0);
	run_sample_free(&s);
}

/* torture: exclusive and checked; stutter stands the threads still. */
static void test_torture(void **state)
{
	struct wl_params wp = params(0);
	struct run_sample s;

	(void)state;
	wp.long_hold_ms = 1;
	run_wl("ticket", "torture", &wp, 2, 0, &s);
	expect_ok("ticket", &s);
	assert_true(s.has_hand && !s.has_rw);
	run_sample_free(&s);
	wp.stutter_s = 0.04;
	run_wl("tas", "torture", &wp, 2, 0, &s);
	expect_ok("tas", &s);
	run_sample_free(&s);
}

/* cs: sampled latency and handovers arrive in the run. */
static void test_cs_metrics(void **state)
{
	struct wl_params wp = params(0);
	struct run_sample s;

	(void)state;
	wp.cs_write_lines = 1; /* one line written, one read */
	run_wl("mcs", "cs", &wp, 2, 2, &s);
	expect_ok("mcs", &s);
	assert_non_null(s.lat);
	assert_int_equal(s.lat_sample, 16);
	assert_true(s.lat->n <= s.total_ops / 16 + 2);
	assert_true(s.has_hand && s.hand_n <= s.ops);
	if (s.ops >= 1000) /* a busy window (not a starved, loaded machine) */
		assert_true(s.lat->n > 0 && s.hand_n > 0);
	assert_true(s.hand_node <= s.hand_n && s.hand_core <= s.hand_l3 + s.hand_n);
	/* the handovers proper: from another thread, so at most the
	 * acquisitions that followed one and, with 2 threads taking turns,
	 * at most one more than the other thread's operations */
	assert_true(s.hand_xfer <= s.hand_n);
	assert_true(s.hand_xfer <= 2 * (s.thread_ops[0] < s.thread_ops[1] ? s.thread_ops[0]
									 : s.thread_ops[1]) + 2 * 16);
	run_sample_free(&s);
	run_wl("mcs", "cs", &wp, 1, 2, &s);
	assert_true(s.has_hand && s.hand_xfer == 0); /* alone: never handed over */
	run_sample_free(&s);
	wp.lat_sample = 0;
	run_wl("mcs", "cs", &wp, 2, 0, &s);
	assert_null(s.lat);
	run_sample_free(&s);
}

/* layout: no lock, no exclusion check, the variants all run. */
static void test_layout_runs(void **state)
{
	(void)state;
	for (unsigned l = 0; l < WL_NLAYOUTS; l++) {
		struct wl_params wp = params(0);
		struct run_sample s;

		wp.layout = l;
		run_wl("null", "layout", &wp, 2, 2, &s);
		assert_false(s.exclusion_checked);
		assert_true(s.total_ops > 0 && s.has_rw && !s.has_hand);
		run_sample_free(&s);
	}
}

/* The layouts share lines as designed (64-byte lines; 128-byte units). */
static void test_layout_offsets(void **state)
{
	size_t ro, hot;

	(void)state;
	ro = layout_ro_offset(WL_LAYOUT_PACKED);
	hot = layout_hot_offset(WL_LAYOUT_PACKED, 0);
	assert_int_equal(ro / 64, hot / 64);          /* same cache line */
	assert_true(ro + LAYOUT_RO_FIELDS * 8 <= 64);
	ro = layout_ro_offset(WL_LAYOUT_ALIGNED);
	hot = layout_hot_offset(WL_LAYOUT_ALIGNED, 0);
	assert_true(ro / LB_CACHELINE != hot / LB_CACHELINE);
	assert_int_equal(hot % LB_CACHELINE, 0);
	ro = layout_ro_offset(WL_LAYOUT_PER_NODE);
	for (unsigned n = 0; n < LAYOUT_MAX_NODES; n++) {
		hot = layout_hot_offset(WL_LAYOUT_PER_NODE, n);
		assert_int_equal(hot % LB_CACHELINE, 0);
		assert_true(hot / LB_CACHELINE != ro / LB_CACHELINE);
		if (n)
			assert_true(hot / LB_CACHELINE !=
				    layout_hot_offset(WL_LAYOUT_PER_NODE, n - 1) / LB_CACHELINE);
		assert_true(hot + 8 <= layout_size(WL_LAYOUT_PER_NODE));
	}
	for (unsigned l = 0; l < WL_NLAYOUTS; l++)
		assert_int_equal(layout_size(l) % LB_CACHELINE, 0);
}

/* The loop's cold entry path counts handovers against the last holder
 * (the counter word's id; rw: the owner word), and wl_publish() turns them into the slot's counts:
 * re-acquisitions by the same thread are same node, L3 and core. */
static void test_handover_counting(void **state)
{
	static struct wl_shared sh;
	static struct worker_slot slot;
	uint64_t ids[3] = {wl_holder_id(0, 0, 0), wl_holder_id(1, 2, 3),
			   wl_holder_id(1, 2, 4)};
	struct worker a = {.sh = &sh, .slot = &slot, .tid = 0, .nthreads = 3,
			   .holder_ids = ids};
	struct worker b = a, c = a;

	(void)state;
	b.tid = 1;
	c.tid = 2;
	wl_enter_cold(&a, 0, false);           /* first: nobody before */
	/* a after a: the common path, nothing on the cold one */
	wl_enter_cold(&b, 1, false);           /* b after a: different everything */
	/* b after b: common path */
	wl_publish(&a, 2, 0);                  /* a: 2 ops, 1 handover (to itself) */
	assert_int_equal(slot.hand_n, 1);
	assert_int_equal(slot.same_node, 1);
	assert_int_equal(slot.same_core, 1);
	wl_publish(&b, 2, 0);                  /* b: 2 handovers, 1 from a */
	assert_int_equal(slot.hand_n, 2);
	assert_int_equal(slot.same_node, 1);
	assert_int_equal(slot.same_l3, 1);
	assert_int_equal(slot.same_core, 1);
	wl_enter_cold(&c, 2, false);           /* c after b: same node and L3, other core */
	wl_publish(&c, 1, 0);
	assert_int_equal(slot.hand_n, 1);
	assert_int_equal(slot.same_node, 1);
	assert_int_equal(slot.same_l3, 1);
	assert_int_equal(slot.same_core, 0);
	/* Reads are not exclusive acquisitions. */
	wl_publish(&c, 5, 4);
	assert_int_equal(slot.hand_n, 1);
	assert_int_equal(slot.reads, 4);
	/* Somebody inside (WL_HELD) is a violation, and a reader too. */
	wl_enter_cold(&a, 2 | WL_HELD, false);
	assert_int_equal(sh.violations, 1);
	wl_enter_cold(&a, 1, true);
	assert_int_equal(sh.violations, 2);
}

/*
 * The counter word on the common path (cs and torture), step by step:
 * a re-acquisition stays off the cold path, a handover names the
 * previous holder, a thread that comes in while another is inside is
 * caught when the other leaves, and two that read the same count lose
 * one, which the final count shows.
 */
static void test_counter_word(void **state)
{
	static struct wl_shared sh;
	static struct worker_slot slot;
	uint64_t ids[2] = {wl_holder_id(0, 0, 0), wl_holder_id(0, 0, 1)};
	struct worker a = {.sh = &sh, .slot = &slot, .tid = 0, .nthreads = 2,
			   .holder_ids = ids};
	struct worker b = a;
	struct wl_env ea = {.sh = &sh, .me = 1}, eb = {.sh = &sh, .me = 2};
	uint64_t la = WL_NONE, lb = WL_NONE, ca, cb, before;

	(void)state;
	b.tid = 1;
	ca = wl_enter(&a, &ea, false, la);      /* first: nobody before */
	assert_int_equal(a.hand.nobody, 1);
	assert_int_equal(WL_SEQ(atomic_load(&sh.counter)), 1);
	assert_int_equal(WL_WHO(atomic_load(&sh.counter)), 1);
	la = wl_leave(&a, &ea, false, ca);
	ca = wl_enter(&a, &ea, false, la);      /* a again: common path */
	la = wl_leave(&a, &ea, false, ca);
	assert_int_equal(a.hand.nobody + a.hand.other, 1);
	cb = wl_enter(&b, &eb, false, lb);      /* b after a: from a, same node, other core */
	lb = wl_leave(&b, &eb, false, cb);
	assert_int_equal(b.hand.other, 1);
	assert_int_equal(b.hand.node, 1);
	assert_int_equal(b.hand.core, 0);
	assert_int_equal(WL_SEQ(lb), 3);
	assert_int_equal(atomic_load(&sh.violations), 0);
	/* b comes in while a is inside: a sees it on leaving */
	ca = wl_enter(&a, &ea, false, la);
	cb = wl_enter(&b, &eb, false, lb);
	lb = wl_leave(&b, &eb, false, cb);
	la = wl_leave(&a, &ea, false, ca);
	assert_int_equal(atomic_load(&sh.violations), 1);
	/* a and b read the same count (b's load before a's store): b's
	 * store wins, a is caught, and one of the two sections is lost */
	before = atomic_load(&sh.counter);
	ca = wl_enter(&a, &ea, false, la);
	atomic_store(&sh.counter, before);
	cb = wl_enter(&b, &eb, false, lb);
	lb = wl_leave(&b, &eb, false, cb);
	la = wl_leave(&a, &ea, false, ca);
	assert_int_equal(atomic_load(&sh.violations), 2);
	assert_int_equal(WL_SEQ(atomic_load(&sh.counter)), WL_SEQ(before) + 1);
}

/* Per-run fairness from known per-thread counts. */
static void test_run_fairness(void **state)
{
	uint64_t ops[] = {10, 4};
	struct run_sample s = {.nthreads = 2, .thread_ops = ops};

	(void)state;
	run_sample_derive(&s);
	assert_int_equal(s.fair_min, 4);
	assert_int_equal(s.fair_max, 10);
	assert_true(s.fair_lt_unfair);               /* 10/2 > 4 */
	assert_true(fabs(s.fair_jain - 196.0 / 232) < 1e-12);
	ops[1] = 5;
	run_sample_derive(&s);
	assert_false(s.fair_lt_unfair);              /* 10/2 == 5 */
	ops[0] = 5;
	run_sample_derive(&s);
	assert_true(s.fair_jain == 1);
}

/*
 * wl_delay() carries what a delay ran over into the next one.  What is
 * owed is paid first: a request no longer than the debt spins nothing
 * and takes it off the debt, exactly.  The debt stays within [0, cap].
 * And since time only adds (a preempted delay is long, never short),
 * with extra = 0 a batch of delays never takes less than its requests
 * in all.  A cap of 0 (below the floor) leaves the debt alone:
 * calibrated turns.  Requests, debt and cap are in sub-ticks.
 */
static void test_delay_carry(void **state)
{
	const struct lb_tick_rate *r = lb_clock_rate();
	uint64_t rd = (uint64_t)ceil(r->read_ticks), base = (8 * rd) << WL_SUB;
	const struct wl_spin_cal c = {.tail = 4 * rd, .step = rd};
	const struct wl_delay_cal dc = {.cap = base + ((4 * rd) << WL_SUB), .extra = 0};
	const struct wl_delay_cal off = {.cap = 0, .extra = 0};
	int64_t debt = (int64_t)dc.cap;
	uint64_t asked = 0, t0;

	(void)state;
	wl_delay(base / 2, &c, &dc, &debt);
	assert_int_equal(debt, (int64_t)(dc.cap - base / 2));
	debt = 0;
	t0 = lb_ticks();
	for (unsigned i = 0; i < 3000; i++) {
		/* a fraction of a tick too: it is kept, not rounded away */
		uint64_t t = base * (i % 3 == 0 ? 1 : i % 3 == 1 ? 3 : 0) + 77;

		wl_delay(t, &c, &dc, &debt);
		asked += t;
		assert_true(debt >= 0 && debt <= (int64_t)dc.cap);
	}
	assert_true((lb_ticks() - t0) << WL_SUB >= asked);
	debt = 5;
	wl_delay(2 << WL_SUB, &c, &off, &debt);
	assert_int_equal(debt, 5);
}

/* The sampled delays' correction of `extra` (sub-ticks).  A delay spins
 * what it counts less `extra`, and its true cost beyond its own reads is
 * `gap` ticks: the samples make `extra` settle on `gap`, by steps that
 * follow the errors' median through the noise around it; an interrupted delay teaches nothing, `extra` never
 * goes negative, turns (cap 0) have none.  Returns extra in ticks. */
static double learn_run(struct wl_delay_cal *dc, int64_t gap, int64_t moved,
			unsigned n)
{
	const int64_t rd = 20, t = 400;

	for (unsigned i = 0; i < n; i++) {
		int64_t spun = (((t + moved) << WL_SUB) - dc->extra) >> WL_SUB;
		int64_t noise = (int64_t)(i % 19) - 9;

		wl_delay_learn(dc, (uint64_t)(spun + gap + rd + noise), (uint64_t)t << WL_SUB,
			       moved * (1 << WL_SUB), (double)rd);
	}
	return (double)dc->extra / (1 << WL_SUB);
}

static void test_delay_learn(void **state)
{
	struct wl_delay_cal dc = {.cap = 480 << WL_SUB, .extra = 5 << WL_SUB};
	struct wl_delay_cal off = {.cap = 0, .extra = 0};
	double e;
	int64_t x;

	(void)state;
	e = learn_run(&dc, 30, 0, 2000);
	assert_true(e >= 29 && e <= 31);
	e = learn_run(&dc, 12, -50, 2000); /* the debt moved: counted t - 50 */
	assert_true(e >= 11 && e <= 13);
	x = dc.extra;
	wl_delay_learn(&dc, 400 + 20 + 8 * 20 + 12, 400 << WL_SUB, 0, 20); /* preempted */
	assert_int_equal(dc.extra, x);
	assert_true(learn_run(&dc, -40, 0, 2000) == 0);
	wl_delay_learn(&off, 400 + 20 + 50, 400 << WL_SUB, 0, 20);
	assert_int_equal(off.extra, 0);

	/* A counter coarser than a read (arm64's 10-40 ns ticks: an empty
	 * interval reads 0): errors within eight ticks still teach; an
	 * interrupted delay still does not. */
	{
		struct wl_delay_cal coarse = {.cap = 10 << WL_SUB, .extra = 0};

		for (unsigned i = 0; i < 800; i++)
			wl_delay_learn(&coarse, (uint64_t)(6 + 3 + (i % 2 ? 1 : -1) -
							   (coarse.extra >> WL_SUB)),
				       6 << WL_SUB, 0, 0);
		assert_true(coarse.extra >= 2 << WL_SUB && coarse.extra <= 4 << WL_SUB);
		x = coarse.extra;
		wl_delay_learn(&coarse, 6 + 40, 6 << WL_SUB, 0, 0);
		assert_int_equal(coarse.extra, x);
	}
}

/*
 * Below the floor (cap 0) a section's samples scale its turns a tick,
 * `fine` (16.16), towards the length asked.  The model: a delay of `t`
 * sub-ticks runs t * fine >> (16 + WL_SUB) turns, and the core makes
 * `real` turns a tick (16.16), so the sample spans that many ticks plus
 * the reads' own `rd`.  The turns follow the core when it slows (a busy
 * SMT sibling halves `real`); samples that read `extra` beyond the
 * turns (the model adds it) are held to it; on a counter coarser than the delay (half
 * a tick: a sample reads 0 or 1 tick as the counter's phase falls) they
 * settle on the mean; an interrupted sample moves nothing.  Each run
 * returns the mean `fine` over its second half (what the delays made).
 */
static uint64_t turns_run(struct wl_delay_cal *dc, uint64_t t, double real, double rd,
			  double tick, unsigned n)
{
	uint64_t rng = 12345;
	double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		double turns = (double)(t * dc->fine >> (16 + WL_SUB));
		double len = turns * 65536 / real / tick, phase;
		uint64_t span;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		phase = (double)(rng >> 11) / 9007199254740992.0;
		span = (uint64_t)floor(phase + len + rd / tick);
		wl_delay_learn(dc, span + (uint64_t)(dc->extra >> WL_SUB), t, 0, rd / tick);
		if (i >= n / 2)
			sum += (double)dc->fine;
	}
	return (uint64_t)(sum / (n - n / 2)); /* the turns of the second half */
}

static void test_delay_learn_turns(void **state)
{
	const uint64_t t = 100 << WL_SUB;  /* 100 ticks */
	struct wl_delay_cal dc = {.cap = 0, .extra = 0, .fine = 200000, .mean = t};
	uint64_t f, x;

	(void)state;
	f = turns_run(&dc, t, 150000, 20, 1, 3000);
	assert_true(f > 150000 * 0.98 && f < 150000 * 1.02);
	f = turns_run(&dc, t, 75000, 20, 1, 3000); /* the sibling got busy */
	assert_true(f > 75000 * 0.98 && f < 75000 * 1.02);
	assert_int_equal(dc.extra, 0); /* learning moves the turns, not extra */
	x = dc.fine;
	wl_delay_learn(&dc, 100 + 20 + 8 * 20 + 5, t, 0, 20); /* interrupted */
	assert_int_equal(dc.fine, x);
	/* samples that read 10 ticks beyond the turns' cost from outside
	 * (the fence waiting for the read before it): held to that */
	dc.extra = 10 << WL_SUB;
	f = turns_run(&dc, t, 150000, 20, 1, 3000);
	assert_true(f > 150000 * 0.98 && f < 150000 * 1.02);
	dc.extra = 0;

	/* a tick of 40 ns, a delay of 20, reads that see no tick; 133
	 * turns a tick (0.3 ns a turn) */
	{
		struct wl_delay_cal coarse = {.cap = 0, .fine = 12000000, .mean = 128};

		f = turns_run(&coarse, 128, 8716288, 0, 1, 20000);
		assert_true(f > 8716288 * 0.95 && f < 8716288 * 1.05);
	}
}

/*
 * Drawn (exponential) lengths: a delay's cost beyond its reads is one
 * of two (a short draw that only pays its debt, 2 ticks; a long one
 * that spins and leaves its spin, 26 ticks, three in ten): `extra`
 * follows their mean (9.2 ticks), which is what the section's length
 * rests on; a fixed section's step settles on their median (2).
 */
static double mixed_run(bool drawn)
{
	struct wl_delay_cal dc = {.cap = 480 << WL_SUB, .extra = 5 << WL_SUB, .drawn = drawn};
	const int64_t rd = 20, t = 400;
	double sum = 0;

	for (unsigned i = 0; i < 6000; i++) {
		int64_t gap = i % 10 < 3 ? 26 : 2;
		int64_t spun = ((t << WL_SUB) - dc.extra) >> WL_SUB;

		wl_delay_learn(&dc, (uint64_t)(spun + gap + rd), (uint64_t)t << WL_SUB, 0,
			       (double)rd);
		if (i >= 3000)
			sum += (double)dc.extra / (1 << WL_SUB);
	}
	return sum / 3000;
}

static void test_delay_learn_drawn(void **state)
{
	double e;

	(void)state;
	e = mixed_run(true);
	assert_true(e > 8.2 && e < 10.2);
	e = mixed_run(false);
	assert_true(e > 1 && e < 3);
}

static void test_trend(void **state)
{
	const double rising[] = {100, 110, 120, 130, 140, 150};
	const double falling[] = {150, 140, 135, 120, 110, 100};
	const double noisy[] = {100, 120, 90, 110, 100, 105};
	const double spike[] = {100, 100, 100, 100, 100, 130};
	const double flat[] = {100, 101, 100, 99, 100, 101};
	double pct;

	(void)state;
	assert_true(stats_trend(rising, 6, 0.10, &pct));
	assert_true(pct > 39 && pct < 41);
	assert_true(stats_trend(falling, 6, 0.10, &pct) && pct < 0);
	assert_false(stats_trend(noisy, 6, 0.10, &pct));
	assert_false(stats_trend(spike, 6, 0.10, &pct));
	assert_false(stats_trend(flat, 6, 0.10, &pct));
	assert_false(stats_trend(rising, 3, 0.10, &pct));  /* too few intervals */
}

/* A results model with one run carrying every 1.2 member. */
static void one_run_results(struct results *r, json_t *config)
{
	static uint64_t tops[] = {600, 400}, treads[] = {0, 400};
	static char kinds[] = {'w', 'r'};
	struct run_sample s = {
		.window_s = 1, .ops = 1000, .ops_per_sec = 1000, .nthreads = 2,
		.thread_ops = tops, .total_ops = 1100, .counter = 650,
		.exclusion_checked = true, .exclusion_ok = true,
		.has_rw = true, .read_ops = 400, .thread_reads = treads,
		.thread_kind = kinds,
		.lat_sample = 64, .has_hand = true, .hand_n = 500, .hand_node = 250,
		.hand_l3 = 200, .hand_core = 100, .hand_xfer = 400,
	};
	static struct hist h;

	memset(&h, 0, sizeof(h));
	/* 1000 samples of 10 ns and 10 of 1000 ns: p50 = p99 = 10,
	 * p99.9 (rank 1009 of 1010) and max = 1000. */
	for (unsigned i = 0; i < 1000; i++)
		hist_add(&h, 10);
	for (unsigned i = 0; i < 10; i++)
		hist_add(&h, 1000);
	s.lat = &h;
	assert_int_equal(results_init(r, 1, 1), 0);
	r->variants[0].name = strdup("qrwlock");
	r->variants[0].lock = strdup("qrwlock");
	r->rows[0] = 2;
	r->variant_heading = strdup("Lock");
	r->row_heading = strdup("threads");
	r->workload = strdup("rw");
	r->config = config;
	assert_int_equal(results_add_run(r, 0, 0, &s), 0);
	results_point(r, 0, 0)->status = POINT_OK;
	results_finalize(r);
}

static void test_json_metrics_round_trip(void **state)
{
	struct results r, back;
	json_t *doc, *run, *lat;
	char *txt, err[256];
	const struct run_sample *s;

	(void)state;
	one_run_results(&r, json_pack("{s:s}", "workload", "rw"));
	doc = results_to_json(&r);
	run = json_array_get(json_object_get(json_array_get(json_object_get(doc, "points"),
							    0), "runs"), 0);
	lat = json_object_get(run, "latency");
	assert_int_equal(json_integer_value(json_object_get(lat, "p50_ns")), 10);
	assert_int_equal(json_integer_value(json_object_get(lat, "p99_ns")), 10);
	assert_int_equal(json_integer_value(json_object_get(lat, "p999_ns")), 1000);
	assert_int_equal(json_integer_value(json_object_get(lat, "max_ns")), 1000);
	assert_int_equal(json_array_size(json_object_get(lat, "buckets")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(run, "rw"),
							    "write_ops")), 600);
	assert_true(json_real_value(json_object_get(json_object_get(run, "handover"),
						    "same_node_frac")) == 0.5);
	/* 400 handovers from another thread in a 1 s window: 2.5 us each */
	assert_int_equal(json_integer_value(json_object_get(json_object_get(run, "handover"),
							    "handovers")), 400);
	assert_true(json_real_value(json_object_get(json_object_get(run, "handover"),
						    "ns_per_handover")) == 2.5e6);
	assert_true(json_real_value(json_object_get(json_object_get(json_array_get(
		json_object_get(doc, "points"), 0), "handover"), "handovers_per_sec")) == 400);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(run, "fairness"),
							    "min")), 400);
	txt = json_dumps(doc, 0);
	assert_int_equal(results_from_json_buf(txt, strlen(txt), "t", &back, err,
					       sizeof(err)), 0);
	results_finalize(&back);
	s = &results_point(&back, 0, 0)->runs[0];
	assert_true(s->has_rw && s->read_ops == 400 && s->thread_reads[1] == 400);
	assert_string_equal(run_thread_kind(s, 0), "writer");
	assert_string_equal(run_thread_kind(s, 1), "reader");
	assert_non_null(s->lat);
	assert_memory_equal(s->lat, results_point(&r, 0, 0)->runs[0].lat, sizeof(struct hist));
	assert_true(s->has_hand && s->hand_n == 500 && s->hand_core == 100);
	assert_true(s->hand_xfer == 400);
	assert_true(results_point(&back, 0, 0)->xfer_rate == 400);
	assert_null(s->extra); /* every 1.2 member is known to the reader */
	free(txt);
	json_decref(doc);
	results_free(&back);
	results_free(&r);
}

/* --resume: same config keeps the runs; another one is refused. */
static void test_resume(void **state)
{
	struct results old, r;
	char err[256] = "";

	(void)state;
	one_run_results(&old, json_pack("{s:s, s:i, s:s}", "workload", "rw",
					"runs", 3, "created", "then"));
	assert_int_equal(results_init(&r, 1, 1), 0);
	r.variants[0].name = strdup("qrwlock");
	r.rows[0] = 2;
	r.config = json_pack("{s:s, s:i, s:s}", "workload", "rw", "runs", 3,
			     "created", "now");
	assert_int_equal(results_resume(&r, &old, "old.json", err, sizeof(err)), 0);
	assert_int_equal(results_point(&r, 0, 0)->nruns, 1);
	assert_int_equal(results_point(&r, 0, 0)->status, POINT_OK);
	json_object_set_new(r.config, "runs", json_integer(5));
	assert_int_equal(results_resume_check(r.config, &old, "old.json", err,
					      sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "runs is 5 here, 3 in the file"));
	results_free(&r);
	results_free(&old);
}

int main(void)
{
	const char *ws = getenv("LB_VALIDATE_SECONDS");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_offsets),
		cmocka_unit_test(test_handover_counting),
		cmocka_unit_test(test_counter_word),
		cmocka_unit_test(test_run_fairness),
		cmocka_unit_test(test_trend),
		cmocka_unit_test(test_delay_carry),
		cmocka_unit_test(test_delay_learn),
		cmocka_unit_test(test_delay_learn_turns),
		cmocka_unit_test(test_delay_learn_drawn),
		cmocka_unit_test(test_json_metrics_round_trip),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_cs_metrics),
		cmocka_unit_test(test_rw_every_rwlock),
		cmocka_unit_test(test_rw_exclusive_lock),
		cmocka_unit_test(test_rw_catches_busted),
		cmocka_unit_test(test_torture),
		cmocka_unit_test(test_layout_runs),
	};
	char err[256];

	if (topo_load(&topo, NULL, NULL, err, sizeof(err))) {
		fprintf(stderr, "test_work: setup failed: %s\n", err);
		return 1;
	}
	if (ws)
		window_s = atof(ws);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
