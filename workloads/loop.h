/* SPDX-License-Identifier: MIT */
/*
 * The worker loops of the cs, rw and torture workloads, written once as
 * always-inline templates over the lock's lock and unlock functions.
 *
 * Each built-in lock has them instantiated in workloads/loops/ with
 * LB_LOOPS(name, lock, unlock, read_lock, read_unlock), in a file that
 * includes the lock's body (locks/<name>.h): the compiler sees the
 * lock's static functions and inlines them into the loop, so
 * the timed loop is the lock plus a handful of instructions, as in ARM's
 * lockhammer (one binary per lock there).  A plugin built with
 * LOCKBENCH_PLUGIN_LOOPS (<lockbench/loops.h>, generated from this file;
 * loop_api.h) carries the same loops over its own lock and unlock; any
 * other plugin runs the template through the ops table's function
 * pointers (the generic loop of workloads/cs.c, rw.c, torture.c).
 *
 * What the common path of an operation does beyond the lock (an empty
 * section: --cs-lines 0, no delays):
 *   - the unprotected counter word (a count and the id of the thread
 *     that stored it) loaded on entry and compared with the word we
 *     left: another word means another thread held the lock since (a
 *     handover, counted in a cold function, the previous holder's id
 *     taken from the word);
 *   - the word stored on entry (the count plus one, our id) and checked
 *     on leave to be still ours (rw stores it on leave and checks the
 *     owner word instead, which it takes on entry and gives back on
 *     leave, for the readers' check);
 *   - one countdown to the next sampled operation, and the stop flag
 *     (with empty sections only on the sampled operation).
 * Everything else happens on the sampled operation, one in
 * `worker.every` (256, or --lat-sample when that is smaller), out of
 * line: latency timing, section length samples, and publishing the
 * counters.  In the empty cs loop the operation count too reaches the
 * slot only there (elsewhere every operation stores it), so each edge of
 * the window sees a count that lags the true one by less than `every`
 * operations per thread (the handover counters: the same bound; rw
 * stores its read count on every read, so that a short window's split
 * of reads and writes is exact); the final counts, which the exclusion
 * check sums, are exact.
 * Parameters that cannot change during the run are
 * copied into locals (struct wl_env) before the loop.
 *
 * A lock whose per-thread context is private (no other thread reads or
 * writes it: clh's node pointers, anderson's slot) has its loops
 * instantiated with LB_LOOPS_PRIVATE (a plugin's with
 * LOCKBENCH_PLUGIN_LOOPS_PRIVATE, <lockbench/loops.h>): the loop then
 * runs the lock on a copy of the context in a local, which the
 * compiler keeps in registers as a peer keeps its queue node in a local
 * variable (Concurrency Kit's clh benchmark), and hands it back to the
 * worker around the sampled operation and at the end.
 */
#ifndef LOCKBENCH_LOOP_H
#define LOCKBENCH_LOOP_H

#include "sample.h"
#include "workload.h"

#define WL_INLINE static inline __attribute__((always_inline))

#include <string.h>

typedef void (*wl_lock_fn)(void *lock, void *ctx);

/* The loop's read-only view of the worker, in locals. */
struct wl_env {
	struct wl_shared *sh;
	void *lock, *ctx;
	uint64_t me;                   /* our owner word: tid + 1 */
	unsigned wlines, lines;        /* --cs-lines written / in all */
	uint64_t cs_t, ncs_t;          /* delays in sub-ticks (0: none) */
	/* wl_delay()'s terms: the worker's own, which the sampled
	 * operations correct as the run goes (workloads/loop.c) */
	const struct wl_delay_cal *cs_dc, *ncs_dc;
	struct wl_spin_cal spin;       /* wl_spin()'s calibration */
	bool ncs_fixed;
	const _Atomic uint32_t *stop;
	_Atomic uint64_t *ops;         /* our slot's operation count */
	_Atomic uint64_t *reads;       /* and its read count (rw) */
};

/* The mutable state the sampled operation carries over. */
struct wl_state {
	uint64_t n, reads, rng, last;
	int64_t cs_debt, ncs_debt;     /* wl_delay()'s carried error */
};

/* ---- out of line (workloads/loop.c) ---------------------------------- */

/* Before the loop: tick rate, delays in ticks, the sampling period. */
void wl_loop_begin(struct worker *w);
/* After it: publish every counter. */
void wl_loop_end(struct worker *w, uint64_t n, uint64_t reads);
/* The owner word was not ours on entry: a violation (somebody inside, or
 * a reader), or a handover to count. */
void wl_enter_cold(struct worker *w, uint64_t seen, bool readers);
/* Somebody else was inside with us. */
void wl_violation(struct worker *w);
/* A sampled delay of `t` sub-ticks spanned `span` ticks between the
 * reads around it (of which `empty`, ticks, are the reads' own: struct
 * lb_tick_rate.span_ticks) while wl_delay() counted t + `moved` (the
 * debt's move): correct the section's term by its error, as
 * workloads/loop.c's constants say: a fixed length's dc->extra by a
 * step of 1/16 of a tick, a drawn length's by 1/64 of the error, and
 * below the floor (cap 0) the turns a tick, dc->fine, by 1/128 of it
 * relative to the mean.  An interrupted delay corrects nothing. */
void wl_delay_learn(struct wl_delay_cal *dc, uint64_t span, uint64_t t,
		    int64_t moved, double empty);

/*
 * The delays this host holds, for the sweep's note, `system check` and
 * the run's JSON; each measured once on the calling thread as a worker
 * measures its own before its loop (lb_clock_rate() is called first),
 * and cached (thread safe).
 *
 * wl_delay_floor_ns(): what one delay of nothing costs here, its
 * ordered read and the call (the least of nine batches timed from
 * outside): the shortest mean --cs-ns / --ncs-ns that wl_delay() holds;
 * a shorter one is made of calibrated loop turns, untimed.
 *
 * wl_delay_overhead_ns(): what a fixed 100 ns delay costs beyond its
 * own reads as a worker calibrates it (wl_delay_cal.extra, ns), the
 * median of three calibrations.
 */
double wl_delay_floor_ns(void);
double wl_delay_overhead_ns(void);

/* One sampled operation of each workload: the same work as the common
 * path, timed, then the counters published.  Return the countdown to the
 * next one. */
unsigned wl_cs_sampled(struct worker *w, struct wl_state *st, wl_lock_fn lk,
		       wl_lock_fn ul);
unsigned wl_rw_sampled(struct worker *w, struct wl_state *st, wl_lock_fn lk,
		       wl_lock_fn ul, wl_lock_fn rlk, wl_lock_fn rul);
unsigned wl_torture_sampled(struct worker *w, struct wl_state *st,
			    wl_lock_fn lk, wl_lock_fn ul);

/* ---- the pieces of an operation --------------------------------------- */

WL_INLINE struct wl_env wl_env_get(const struct worker *w)
{
	return (struct wl_env){
		.sh = w->sh, .lock = w->lock, .ctx = w->ctx, .me = w->tid + 1,
		.wlines = w->p->cs_write_lines, .lines = w->p->cs_lines,
		.cs_t = w->cs_ticks, .ncs_t = w->ncs_ticks, .spin = w->spin,
		.cs_dc = &w->cs_dc, .ncs_dc = &w->ncs_dc,
		.ncs_fixed = w->p->ncs_fixed, .stop = w->stop, .ops = &w->slot->ops,
		.reads = &w->slot->reads,
	};
}

/*
 * Busy-wait `t` ticks on a deadline of the tick counter.  Far from the
 * deadline each turn pauses (lb_relax()); within `tail` ticks of it (a
 * pause and a read, measured) the loop reads only the counter, so the
 * overshoot is not one pause; and the last step, shorter than one
 * counter read, is a calibrated count of empty loop turns (`fine`:
 * turns per tick, 16.16 fixed point).  A delay shorter than two reads is
 * all turns.  `cost` is what a delay of nothing costs (the reads
 * themselves): the deadline starts that much earlier.  `tail`, `step`,
 * `cost` and `fine` are measured by each worker before its loop
 * (wl_loop_begin()), so the calibration is re-checked every run.
 * For locktorture's rare long holds; the sections' delays are
 * wl_delay()'s.
 */
WL_INLINE void wl_turns(uint64_t n)
{
	lb_turns(n);
}

WL_INLINE void wl_spin(uint64_t t, const struct wl_spin_cal *c)
{
	uint64_t t0, d;

	if (t < c->cost + c->step) {  /* below what the counter can time */
		wl_turns(t * c->fine >> 16);
		return;
	}
	t0 = lb_ticks_ordered() - c->cost;
	while ((d = lb_ticks() - t0) + c->tail < t)
		lb_relax();
	while (d + c->step < t)
		d = lb_ticks() - t0;
	if (d < t)
		wl_turns((t - d) * c->fine >> 16);
}

/*
 * Section delays count in sub-ticks, 1/256 of a tick (WL_SUB bits), so
 * that a request, the carried error and `extra` keep their fractions on
 * a counter that ticks every 10-40 ns (arm64 at 25-100 MHz): 100 ns is
 * 2.5 ticks of a 25 MHz counter, not 2 or 3.
 */
#define WL_SUB 8

/*
 * A section delay that holds its mean, whatever a read of the clock and
 * a pause cost on this host.  Each delay of `t` sub-ticks is timed by
 * its own reads of the tick counter, from the first (ordered: not before
 * the section's cache misses ahead of it were served) to the last, and
 * costs that plus `dc->extra`: what its own reads do not see (the part
 * of the first read before it samples the counter, the part of the last
 * after, the call and the draw), measured before the loop from outside,
 * as batches of delays timed at both ends (wl_loop_begin(), so its cost
 * is held however many draws there are), and corrected along the run by
 * the sampled delays (wl_delay_learn()).  What a delay ran over its
 * request, its last read's overshoot included, is carried in *debt and
 * taken off the next delay of the same section: a draw shorter than what
 * is owed costs one read and pays its share.  So the delays of a run
 * average their request, however coarse the counter or slow the pause,
 * as long as the mean is above what a delay of nothing costs here
 * (wl_delay_floor_ns()).  The debt is never negative and is capped at
 * `dc->cap` (a few means and reads): a preempted delay must not eat the
 * sections of the next thousand operations.
 *
 * A section whose mean is below the floor (cap 0) reads no clock: it is
 * `dc->fine` loop turns a tick, fenced on both sides (lb_order()) so
 * that the turns neither overlap the section's cache misses before them
 * nor run past the read that times a sampled one.  A count of turns is
 * not a length of time (a busy SMT sibling halves a core's speed), so
 * `fine` is calibrated from outside before the loop and then learnt
 * again from the sampled delays all along the run (wl_delay_learn()).
 */
WL_INLINE void wl_delay(uint64_t t, const struct wl_spin_cal *c,
			const struct wl_delay_cal *dc, int64_t *debt)
{
	int64_t want, d = 0, owed, tail = (int64_t)c->tail << WL_SUB;
	uint64_t t0;

	if (!dc->cap) {
		lb_order();
		wl_turns(t * dc->fine >> (16 + WL_SUB));
		lb_order();
		return;
	}
	want = (int64_t)t - *debt - dc->extra;
	t0 = lb_ticks_ordered();
	if (want > 0) {
		while ((d = (int64_t)(lb_ticks() - t0)) * (1 << WL_SUB) + tail < want)
			lb_relax();
		while (d * (1 << WL_SUB) < want)
			d = (int64_t)(lb_ticks() - t0);
	}
	owed = *debt + d * (1 << WL_SUB) + dc->extra - (int64_t)t;
	*debt = owed < 0 ? 0 : owed < (int64_t)dc->cap ? owed : (int64_t)dc->cap;
}

/*
 * Enter the section: read the counter word (workloads/workload.h).  A
 * word other than the one we left (`last`) means another thread held
 * the lock since our last operation, a handover (or the first
 * operation, `last` = WL_NONE): the cold function takes who it was from
 * the word (rw: from the owner word).  cs and torture then store the
 * count plus one with our id; rw takes the owner word instead and checks
 * no reader is inside (and, since its writers clear WL_HELD on leave, no
 * writer either).  Returns the word to leave (count plus one, our id).
 */
#define WL_NONE UINT64_MAX

WL_INLINE uint64_t wl_enter(struct worker *w, const struct wl_env *e, const bool rw,
			    uint64_t last)
{
	struct wl_shared *sh = e->sh;
	uint64_t c = atomic_load_explicit(&sh->counter, lb_rlx);
	bool rd = rw && atomic_load_explicit(&sh->readers, lb_rlx) != 0;

	if (__builtin_expect(c != last || rd, 0))
		wl_enter_cold(w, rw ? atomic_load_explicit(&sh->owner, lb_rlx) : WL_WHO(c), rd);
	c = (c & ~WL_WHO(~0ull)) + (1ull << WL_SEQ_SHIFT) + e->me;
	if (rw)
		atomic_store_explicit(&sh->owner, e->me | WL_HELD, lb_rlx);
	else
		atomic_store_explicit(&sh->counter, c, lb_rlx);
	return c;
}

/*
 * Leave it.  cs and torture: check the counter word is still the one we
 * stored on entry.  rw: store it, check the owner word is still ours and
 * no reader came in, and give the owner word back (WL_HELD clear:
 * readers test it).  The words are relaxed atomics accessed with
 * separate loads and stores (never an atomic RMW): if the lock fails to
 * exclude, a thread that came in while we were inside stored its own
 * word (another id, or a count we did not store), and two that read the
 * same count leave one section uncounted, so that the final count ends
 * below the operation count.  Returns the word as we left it (the next
 * wl_enter()'s `last`).
 */
WL_INLINE uint64_t wl_leave(struct worker *w, const struct wl_env *e, const bool rw,
			    uint64_t c)
{
	struct wl_shared *sh = e->sh;

	if (!rw) {
		if (__builtin_expect(atomic_load_explicit(&sh->counter, lb_rlx) != c, 0))
			wl_violation(w);
		return c;
	}
	atomic_store_explicit(&sh->counter, c, lb_rlx);
	if (__builtin_expect(atomic_load_explicit(&sh->owner, lb_rlx) != (e->me | WL_HELD) ||
			     atomic_load_explicit(&sh->readers, lb_rlx) != 0, 0))
		wl_violation(w);
	atomic_store_explicit(&sh->owner, e->me, lb_rlx);
	return c;
}

/* Write the first --cs-write-pct of the --cs-lines lines, read the rest.
 * The lines are plain memory on purpose, so that ThreadSanitizer checks
 * the lock's happens-before edges. */
WL_INLINE void wl_cs_data(const struct wl_env *e)
{
	uint64_t sum = 0;
	unsigned i;

	for (i = 0; i < e->wlines; i++)
		e->sh->lines[i].w[0]++;
	for (; i < e->lines; i++)
		sum += e->sh->lines[i].w[0];
	lb_sink(sum);
}

/* The NCS length of this operation in sub-ticks: the mean, or an exponential
 * draw around it (*mult: the draw, 256 = the mean). */
WL_INLINE uint64_t wl_ncs_len(const struct wl_env *e, uint64_t *rng, unsigned *mult)
{
	*mult = 256;
	if (e->ncs_fixed)
		return e->ncs_t;
	*mult = lb_exp_table[lb_rand(rng) & 255];
	/* rounded: truncating biased short delays low */
	return (e->ncs_t * *mult + 128) / 256;
}

WL_INLINE void wl_ncs(const struct wl_env *e, uint64_t *rng, int64_t *debt)
{
	unsigned mult;

	if (e->ncs_t)
		wl_delay(wl_ncs_len(e, rng, &mult), &e->spin, e->ncs_dc, debt);
}

/* A reader's section (rw): count ourselves in (an atomic RMW: readers
 * are concurrent by design), check no writer is inside on entry and on
 * exit, read the lines, wait --cs-ns. */
WL_INLINE void wl_read_body(struct worker *w, const struct wl_env *e, int64_t *debt)
{
	struct wl_shared *sh = e->sh;
	uint64_t sum = 0;

	atomic_fetch_add_explicit(&sh->readers, 1, lb_rlx);
	if (__builtin_expect(atomic_load_explicit(&sh->owner, lb_rlx) & WL_HELD, 0))
		wl_violation(w);
	for (unsigned i = 0; i < e->lines; i++)
		sum += sh->lines[i].w[0];
	lb_sink(sum);
	if (e->cs_t)
		wl_delay(e->cs_t, &e->spin, e->cs_dc, debt);
	if (__builtin_expect(atomic_load_explicit(&sh->owner, lb_rlx) & WL_HELD, 0))
		wl_violation(w);
	atomic_fetch_sub_explicit(&sh->readers, 1, lb_rlx);
}

/* Is this rw operation a read? */
WL_INLINE bool wl_pick_read(const struct worker *w, uint64_t *rng)
{
	if (w->p->fixed_roles)
		return wl_is_reader(w->p, w->tid, w->nthreads);
	return lb_rand(rng) % 100 < w->p->read_pct;
}

/* torture: the rare delays inside the critical section
 * (kernel/locking/locktorture.c, torture_spin_lock_write_delay()). */
WL_INLINE void wl_torture_delay(const struct worker *w, uint64_t *rng)
{
	const struct wl_params *p = w->p;
	uint64_t n = w->nthreads;

	if (p->long_hold_ms && !(lb_rand(rng) % (n * 2000 * p->long_hold_ms)))
		wl_spin(w->long_ticks, &w->spin);
	if (!(lb_rand(rng) % (n * 200 * 2)))
		wl_spin(w->short_ticks, &w->spin);
}

/* torture --stutter: wait outside the lock while the pause flag is up. */
WL_INLINE void wl_stutter(const struct worker *w)
{
	while (atomic_load_explicit(w->pause, lb_rlx) &&
	       !atomic_load_explicit(w->stop, lb_rlx))
		(cpu_relax)(); /* the harness's pause (lb_relax()) */
}

/* ---- the loops --------------------------------------------------------- */

/* The locals every loop keeps, which WL_SAMPLED() hands over: the
 * read-only view `e`, the counts, the random state, the counter as we
 * left it, the delays' carried errors and the countdown.  Call after
 * wl_loop_begin(). */
#define WL_LOOP_LOCALS(w)                                                      \
	const struct wl_env e = wl_env_get(w);                                 \
	uint64_t n = 0, reads = 0, rng = (w)->rng, last = WL_NONE, c;         \
	int64_t csd = 0, ncsd = 0;                                             \
	unsigned left = (w)->every;                                            \
	void *const ctx = lc ? lc : e.ctx;                                     \
	if (lc)                                                                \
		memcpy(lc, e.ctx, lcsz)

/* A private context's copy back to the worker (for the sampled
 * operation, which runs on w->ctx, and at the end) and from it. */
#define WL_CTX_OUT()                                                           \
	do {                                                                   \
		if (lc)                                                        \
			memcpy(e.ctx, lc, lcsz);                               \
	} while (0)
#define WL_CTX_IN()                                                            \
	do {                                                                   \
		if (lc)                                                        \
			memcpy(lc, e.ctx, lcsz);                               \
	} while (0)

/* Entering the cold branch: hand the loop's state (and a private
 * context) to the sampled operation and take it back. */
#define WL_SAMPLED(call)                                                       \
	do {                                                                   \
		struct wl_state st_ = {n, reads, rng, last, csd, ncsd};       \
		WL_CTX_OUT();                                                  \
		left = (call);                                                 \
		WL_CTX_IN();                                                   \
		n = st_.n;                                                     \
		reads = st_.reads;                                             \
		rng = st_.rng;                                                 \
		last = st_.last;                                               \
		csd = st_.cs_debt;                                             \
		ncsd = st_.ncs_debt;                                           \
	} while (0)

/* cs; `empty` (a constant) drops the section's data and delays when the
 * run has none, so the loop is only the lock and the checks: then the
 * stop flag, like the operation count, waits for the sampled operation
 * (a worker stops fewer than `every` operations late; without delays
 * those are short), and the operations count themselves there, a
 * period at a time, not each one. */
WL_INLINE void wl_cs_run(struct worker *w, wl_lock_fn lk, wl_lock_fn ul,
			 void *lc, const size_t lcsz, const bool empty)
{
	WL_LOOP_LOCALS(w);
	unsigned per = left;

	for (;;) {
		if (!empty && atomic_load_explicit(e.stop, lb_rlx))
			break;
		if (__builtin_expect(--left == 0, 0)) {
			if (empty) {
				/* the per - 1 operations since the last
				 * sampled one, which do not count themselves */
				n += per - 1;
				if (atomic_load_explicit(e.stop, lb_rlx))
					break;
			}
			WL_SAMPLED(wl_cs_sampled(w, &st_, lk, ul));
			per = left;
			continue;
		}
		lk(e.lock, ctx);
		c = wl_enter(w, &e, false, last);
		if (!empty) {
			wl_cs_data(&e);
			if (e.cs_t)
				wl_delay(e.cs_t, &e.spin, e.cs_dc, &csd);
		}
		last = wl_leave(w, &e, false, c);
		ul(e.lock, ctx);
		if (!empty) {
			n++;
			wl_ncs(&e, &rng, &ncsd);
			atomic_store_explicit(e.ops, n, lb_rlx);
		}
	}
	WL_CTX_OUT();
	w->rng = rng;
	wl_loop_end(w, n, reads);
}

/* `lc`: a local of the lock's context type, `lcsz` bytes, for a private
 * context (LB_LOOPS_PRIVATE); NULL, 0 runs on w->ctx. */
WL_INLINE void wl_cs_loop_t(struct worker *w, wl_lock_fn lk, wl_lock_fn ul,
			    void *lc, const size_t lcsz)
{
	wl_loop_begin(w);
	if (!w->p->cs_lines && !w->cs_ticks && !w->ncs_ticks)
		wl_cs_run(w, lk, ul, lc, lcsz, true);
	else
		wl_cs_run(w, lk, ul, lc, lcsz, false);
}

WL_INLINE void wl_rw_loop_t(struct worker *w, wl_lock_fn lk, wl_lock_fn ul,
			    wl_lock_fn rlk, wl_lock_fn rul, void *lc, const size_t lcsz)
{
	wl_loop_begin(w);
	WL_LOOP_LOCALS(w);

	while (!atomic_load_explicit(e.stop, lb_rlx)) {
		if (__builtin_expect(--left == 0, 0)) {
			WL_SAMPLED(wl_rw_sampled(w, &st_, lk, ul, rlk, rul));
			continue;
		}
		if (wl_pick_read(w, &rng)) {
			rlk(e.lock, ctx);
			wl_read_body(w, &e, &csd);
			rul(e.lock, ctx);
			/* exact at the window's edges, like the operations */
			atomic_store_explicit(e.reads, ++reads, lb_rlx);
		} else {
			lk(e.lock, ctx);
			c = wl_enter(w, &e, true, last);
			wl_cs_data(&e);
			if (e.cs_t)
				wl_delay(e.cs_t, &e.spin, e.cs_dc, &csd);
			last = wl_leave(w, &e, true, c);
			ul(e.lock, ctx);
		}
		wl_ncs(&e, &rng, &ncsd);
		atomic_store_explicit(e.ops, ++n, lb_rlx);
	}
	WL_CTX_OUT();
	w->rng = rng;
	wl_loop_end(w, n, reads);
}

WL_INLINE void wl_torture_loop_t(struct worker *w, wl_lock_fn lk, wl_lock_fn ul,
				 void *lc, const size_t lcsz)
{
	wl_loop_begin(w);
	WL_LOOP_LOCALS(w);

	while (!atomic_load_explicit(e.stop, lb_rlx)) {
		if (__builtin_expect(--left == 0, 0)) {
			WL_SAMPLED(wl_torture_sampled(w, &st_, lk, ul));
			continue;
		}
		wl_stutter(w);
		lk(e.lock, ctx);
		c = wl_enter(w, &e, false, last);
		wl_torture_delay(w, &rng);
		if (e.cs_t)
			wl_delay(e.cs_t, &e.spin, e.cs_dc, &csd);
		last = wl_leave(w, &e, false, c);
		ul(e.lock, ctx);
		wl_ncs(&e, &rng, &ncsd);
		atomic_store_explicit(e.ops, ++n, lb_rlx);
	}
	WL_CTX_OUT();
	w->rng = rng;
	wl_loop_end(w, n, reads);
}

/*
 * Instantiate the loops for one built-in lock and define
 * `lock_<name>_loops` (workloads/loops/loops.def pairs it with
 * lock_<name>_ops).  An exclusive-only lock passes its lock/unlock as
 * rlk/rul: rw then runs every operation exclusive, as the generic loop
 * does.
 */
#define LB_LOOPS(name, lk, ul, rlk, rul)                                        \
	static void name##_cs_loop(struct worker *w)                           \
	{                                                                      \
		wl_cs_loop_t(w, lk, ul, NULL, 0);                              \
	}                                                                      \
	static void name##_rw_loop(struct worker *w)                           \
	{                                                                      \
		wl_rw_loop_t(w, lk, ul, rlk, rul, NULL, 0);                    \
	}                                                                      \
	static void name##_torture_loop(struct worker *w)                      \
	{                                                                      \
		wl_torture_loop_t(w, lk, ul, NULL, 0);                         \
	}                                                                      \
	LB_LOOPS_SHARED(name, name)

/* The same for a lock whose context (`type`) is private to the thread:
 * the loops run it in a local (see the top of this file). */
#define LB_LOOPS_PRIVATE(name, type, lk, ul, rlk, rul)                          \
	static void name##_cs_loop(struct worker *w)                           \
	{                                                                      \
		type lc_;                                                      \
		wl_cs_loop_t(w, lk, ul, &lc_, sizeof(lc_));                    \
	}                                                                      \
	static void name##_rw_loop(struct worker *w)                           \
	{                                                                      \
		type lc_;                                                      \
		wl_rw_loop_t(w, lk, ul, rlk, rul, &lc_, sizeof(lc_));          \
	}                                                                      \
	static void name##_torture_loop(struct worker *w)                      \
	{                                                                      \
		type lc_;                                                      \
		wl_torture_loop_t(w, lk, ul, &lc_, sizeof(lc_));               \
	}                                                                      \
	LB_LOOPS_SHARED(name, name)

/* `lock_<name>_loops` made of the loops LB_LOOPS instantiated as `of`
 * (locks that differ only in their init share them). */
#define LB_LOOPS_SHARED(name, of)                                              \
	const struct lock_loops lock_##name##_loops = {{                       \
		[WL_LOOP_CS] = of##_cs_loop,                                   \
		[WL_LOOP_RW] = of##_rw_loop,                                   \
		[WL_LOOP_TORTURE] = of##_torture_loop,                         \
	}}

#endif
