/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "../../output/stats/median.h"
#include "clock.h"

bool lb_ticks_hw;

static struct lb_tick_rate rate;
static pthread_once_t rate_once = PTHREAD_ONCE_INIT;

#if defined(__x86_64__) || defined(__i386__)
/* Invariant TSC: CPUID 0x80000007, EDX bit 8. */
static bool tsc_invariant(void)
{
	unsigned a, b, c, d;

	if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return false;
	__cpuid(0x80000007u, a, b, c, d);
	(void)a, (void)b, (void)c;
	return d & (1u << 8);
}

/* One edge of tsc_per_ns(): the counter read between two monotonic
 * reads, three times; the tightest bracket's midpoint and counter. */
static void tsc_edge(uint64_t *m, uint64_t *t)
{
	uint64_t best = UINT64_MAX;

	for (unsigned i = 0; i < 3; i++) {
		uint64_t a = lb_mono_ns(), c = __rdtsc(), b = lb_mono_ns();

		if (b - a < best) {
			best = b - a;
			*m = a + (b - a) / 2;
			*t = c;
		}
	}
}

/* TSC ticks per ns: the counter against CLOCK_MONOTONIC over ~2 ms,
 * each edge bracketed by two monotonic reads so a preemption between
 * the reads cannot skew it (tsc_edge()). */
static double tsc_per_ns(void)
{
	uint64_t m0 = 0, t0 = 0, m1 = 0, t1 = 0;

	tsc_edge(&m0, &t0);
	while (lb_mono_ns() - m0 < 2000000)
		;
	tsc_edge(&m1, &t1);
	return m1 > m0 && t1 > t0 ? (double)(t1 - t0) / (double)(m1 - m0) : 0;
}
#endif

/* The simulated host's extra cost of a read and of a relax, in ticks
 * of the real counter (0: off). */
static uint64_t sim_read_ticks, sim_relax_ticks;

/* The real counter, whatever lb_ticks_hw says. */
static uint64_t raw_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (rate.source == LB_TICKS_TSC)
		return __rdtsc();
#elif defined(__aarch64__)
	if (rate.source == LB_TICKS_CNTVCT) {
		uint64_t v;

		__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
		return v;
	}
#endif
	return lb_mono_ns();
}

/* Spin until `t` ticks after t0 (the spin's own reads add about one
 * read: a simulated read costs the real one and `t`). */
static void raw_spin(uint64_t t0, uint64_t t)
{
	while (raw_ticks() - t0 < t)
		;
}

uint64_t lb_ticks_slow(bool ordered)
{
	uint64_t t0;

	if (!sim_read_ticks)
		return lb_mono_ns();
	if (ordered) /* as lb_ticks_ordered() orders the real read */
#if defined(__x86_64__) || defined(__i386__)
		_mm_lfence();
#elif defined(__aarch64__)
		__asm__ __volatile__("isb" ::: "memory");
#else
		atomic_thread_fence(memory_order_seq_cst);
#endif
	/* a read that costs sim_read_ticks more, the counter sampled half
	 * way through it */
	t0 = raw_ticks();
	raw_spin(t0, sim_read_ticks);
	return t0 + sim_read_ticks / 2;
}

bool lb_relax_sim;

void lb_relax_slow(void)
{
	raw_spin(raw_ticks(), sim_relax_ticks);
}

/* A simulated host's extra cost (ns) from the environment: 0 when unset;
 * a value that is not a number from 0 to 1 ms is ignored, with a line. */
static double sim_env(const char *name)
{
	const char *s = getenv(name);
	char *end;
	double v;

	if (!s || !*s)
		return 0;
	v = strtod(s, &end);
	if (*end || !(v >= 0 && v <= 1e6)) {
		fprintf(stderr, "lockbench: %s (%s): not a number of ns from 0 to "
			"1000000, ignored\n", name, s);
		return 0;
	}
	return v;
}

/* Ticks per call of `fn` in a loop: one trial, as many calls as fit in
 * ~20 us (at least 64), timed at both ends. */
static double per_call(void (*fn)(void *), void *arg)
{
	uint64_t span = (uint64_t)(20000 * rate.per_ns) + 1;
	uint64_t t0 = lb_ticks(), t, n = 0;

	do {
		for (unsigned k = 0; k < 64; k++)
			fn(arg);
		n += 64;
	} while ((t = lb_ticks()) - t0 < span);
	return (double)(t - t0) / (double)n;
}

static void call_read(void *sink)
{
	*(volatile uint64_t *)sink = lb_ticks();
}

static void call_ordered(void *sink)
{
	*(volatile uint64_t *)sink = lb_ticks_ordered();
}

static void call_relax(void *arg)
{
	(void)arg;
	lb_relax();
}

static void call_turns(void *arg)
{
	(void)arg;
	lb_turns(64);
}

/* The counter's step: the median of the nonzero differences between
 * consecutive reads in a loop of 1024 reads.  On a counter that ticks
 * slower than it is read, the tick; else about a read's cost.  (Not the
 * least difference, nor their gcd: one pair that overlapped in the
 * pipeline would make either a single tick.) */
static double counter_step(void)
{
	uint64_t prev = lb_ticks(), now;
	double d[1024];
	unsigned n = 0;

	for (unsigned i = 0; i < 1024; i++) {
		now = lb_ticks();
		if (now != prev)
			d[n++] = (double)(now - prev);
		prev = now;
	}
	if (!n)
		return 1;
	return stats_median(d, n);
}

/* An empty interval as the samples time it: the mean of 512 pairs, a
 * pair over 8 reads long (preempted) left out. */
static double empty_span(double lim)
{
	double sum = 0;
	unsigned n = 0;

	for (unsigned k = 0; k < 512; k++) {
		uint64_t a = lb_ticks_ordered(), b = lb_ticks(), d = b - a;

		if ((double)d > lim)
			continue;
		sum += (double)d;
		n++;
	}
	return n ? sum / n : 0;
}

/* The core-speed chain: CHAIN_TURNS x 8 dependent additions, each
 * needing the one before, so it runs at one addition per core cycle
 * whatever the core's width (every x86_64 and arm64 core): ~33k cycles,
 * ~8-16 us. */
#define CHAIN_TURNS 4096

static void chain(void)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < CHAIN_TURNS; i++) {
#if defined(__x86_64__)
		__asm__ __volatile__("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
				     "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
				     "add $1, %0\n\tadd $1, %0"
				     : "+r"(x));
#elif defined(__aarch64__)
		__asm__ __volatile__("add %0, %0, #1\n\tadd %0, %0, #1\n\t"
				     "add %0, %0, #1\n\tadd %0, %0, #1\n\t"
				     "add %0, %0, #1\n\tadd %0, %0, #1\n\t"
				     "add %0, %0, #1\n\tadd %0, %0, #1"
				     : "+r"(x));
#else
		x = x * 3 + 1, x = x * 3 + 1, x = x * 3 + 1, x = x * 3 + 1;
		x = x * 3 + 1, x = x * 3 + 1, x = x * 3 + 1, x = x * 3 + 1;
		__asm__ __volatile__("" : "+r"(x));
#endif
	}
}

/* The chain's additions per tick of the counter, the fastest of a few
 * trials (0 if it could not be timed). */
static double core_speed_per_tick(void)
{
	uint64_t best = UINT64_MAX;

	chain(); /* warm the code and the branch predictor */
	for (unsigned i = 0; i < 7; i++) {
		uint64_t t0 = lb_ticks(), t;

		chain();
		t = lb_ticks() - t0;
		if (t < best)
			best = t;
	}
	if (!best || best == UINT64_MAX)
		return 0;
	return (double)CHAIN_TURNS * 8 / (double)best;
}

/*
 * The costs of struct lb_tick_rate.  Nine rounds, each one trial of
 * every figure, 2 ms apart after 2 ms of spinning (a core that slept is
 * slow for its first milliseconds; 20 ms in all, so that a slow phase
 * of the host a few milliseconds long does not slow every round): a
 * figure is the least of its nine trials.  Each trial is a long loop,
 * so the least is not a pair that overlapped but the cost when the
 * core was not shared; a slow phase of the host (a busy sibling
 * thread, a preempted vCPU) inflates a round, never shrinks it.  The
 * turn is the median: an empty loop runs at one, one and a half or two
 * turns a cycle depending on how the core's loop and micro-op caches
 * take it, a mode that holds for a whole invocation and may change at
 * the next, and the figure reports this loop's mode (the turns inlined
 * in a worker's loop may run in another: delays made of them, below
 * the floor, are approximate; docs/method.md).  And floors: nothing
 * timed in a loop costs less than the loop's own turn.  Each round also
 * times the core-speed chain (chain()): the fastest round's is the
 * core's clock the costs were measured at.
 */
static void costs_init(void)
{
	double turns[9], turn, rd = HUGE_VAL, ord = HUGE_VAL, rlx = HUGE_VAL;
	double span = HUGE_VAL, step = HUGE_VAL, speed = 0;
	uint64_t sink, t0 = lb_mono_ns();

	while (lb_mono_ns() - t0 < 2000000)
		;
	for (unsigned i = 0; i < 9; i++) {
		turns[i] = per_call(call_turns, NULL) / 64;
		rd = fmin(rd, per_call(call_read, &sink));
		ord = fmin(ord, per_call(call_ordered, &sink));
		rlx = fmin(rlx, per_call(call_relax, NULL));
		span = fmin(span, empty_span(8 * (rd + ord) + 8));
		step = fmin(step, counter_step());
		speed = fmax(speed, core_speed_per_tick());
		for (t0 = lb_mono_ns(); lb_mono_ns() - t0 < 2000000;)
			;
	}
	turn = stats_median(turns, 9);
	rate.turn_ns = turn * rate.ns_per_tick;
	rate.read_ticks = fmax(rd, turn);
	rate.ordered_ticks = fmax(ord, rate.read_ticks);
	rate.relax_ns = fmax(rlx, turn) * rate.ns_per_tick;
	rate.span_ticks = span;
	rate.step_ticks = step;
	rate.core_ghz = speed * rate.per_ns;
}

static void sim_init(void)
{
	rate.sim_clock_ns = sim_env("LOCKBENCH_SIM_CLOCK_NS");
	rate.sim_pause_ns = sim_env("LOCKBENCH_SIM_PAUSE_NS");
	sim_read_ticks = (uint64_t)(rate.sim_clock_ns * rate.per_ns + 0.5);
	sim_relax_ticks = (uint64_t)(rate.sim_pause_ns * rate.per_ns + 0.5);
	if (sim_read_ticks)
		lb_ticks_hw = false;
	lb_relax_sim = sim_relax_ticks != 0;
}

static void rate_init(void)
{
	rate = (struct lb_tick_rate){.source = LB_TICKS_VDSO, .per_ns = 1, .name = "vdso"};
#if defined(__aarch64__)
	{
		uint64_t f;

		__asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
		if (f) {
			rate.source = LB_TICKS_CNTVCT;
			rate.per_ns = (double)f * 1e-9;
			rate.name = "cntvct";
		}
	}
#elif defined(__x86_64__) || defined(__i386__)
	if (tsc_invariant()) {
		double r = tsc_per_ns();

		if (r > 0) {
			rate.source = LB_TICKS_TSC;
			rate.per_ns = r;
			rate.name = "tsc";
		}
	}
#endif
	rate.ns_per_tick = 1 / rate.per_ns;
	lb_ticks_hw = rate.source != LB_TICKS_VDSO;
	sim_init();
	costs_init();
}

const struct lb_tick_rate *lb_clock_rate(void)
{
	pthread_once(&rate_once, rate_init);
	return &rate;
}

double lb_clock_resolution_ns(const struct lb_tick_rate *r)
{
	return fmax(r->read_ticks, r->step_ticks) * r->ns_per_tick;
}
