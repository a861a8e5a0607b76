/* SPDX-License-Identifier: MIT */
#include <pthread.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "clock.h"

bool lb_ticks_hw;

static struct lb_tick_rate rate;
static pthread_once_t rate_once = PTHREAD_ONCE_INIT;

/* Invariant TSC: CPUID 0x80000007, EDX bit 8. */
static bool tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return false;
	__cpuid(0x80000007u, a, b, c, d);
	(void)a, (void)b, (void)c;
	return d & (1u << 8);
#else
	return false;
#endif
}

/* TSC ticks per ns: the counter against CLOCK_MONOTONIC over ~2 ms,
 * each edge bracketed by two monotonic reads so a preemption between
 * the reads cannot skew it (the tighter bracket of three is kept). */
static double tsc_per_ns(void)
{
#if defined(__x86_64__) || defined(__i386__)
	uint64_t m0 = 0, t0 = 0, best = UINT64_MAX, m1, t1;

	for (unsigned i = 0; i < 3; i++) {
		uint64_t a = lb_mono_ns(), t = __rdtsc(), b = lb_mono_ns();

		if (b - a < best) {
			best = b - a;
			m0 = a + (b - a) / 2;
			t0 = t;
		}
	}
	while (lb_mono_ns() - m0 < 2000000)
		;
	best = UINT64_MAX;
	m1 = t1 = 0;
	for (unsigned i = 0; i < 3; i++) {
		uint64_t a = lb_mono_ns(), t = __rdtsc(), b = lb_mono_ns();

		if (b - a < best) {
			best = b - a;
			m1 = a + (b - a) / 2;
			t1 = t;
		}
	}
	return m1 > m0 && t1 > t0 ? (double)(t1 - t0) / (double)(m1 - m0) : 0;
#else
	return 0;
#endif
}

static void rate_init(void)
{
	uint64_t best = UINT64_MAX;

	rate = (struct lb_tick_rate){LB_TICKS_VDSO, 1, 1, 0, "vdso"};
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
#else
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
	for (unsigned i = 0; i < 16; i++) {
		uint64_t t0 = lb_ticks(), t1 = lb_ticks();

		if (t1 - t0 < best)
			best = t1 - t0;
	}
	rate.read_ticks = best;
}

const struct lb_tick_rate *lb_clock_rate(void)
{
	pthread_once(&rate_once, rate_init);
	return &rate;
}
