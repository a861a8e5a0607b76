/* SPDX-License-Identifier: MIT */
/*
 * The clocks of the measuring side, in one place.
 *
 * lb_mono_ns()/lb_mono_s(): CLOCK_MONOTONIC through the vDSO (no
 * syscall), for wall-clock windows, progress and watchdogs.
 *
 * lb_ticks(): the cheapest correct clock for timing inside the worker
 * loop (sampled acquisition latency, sampled section lengths, delays
 * spun on a deadline).  The x86 time-stamp counter when the CPU says it
 * is invariant (CPUID 0x80000007 EDX bit 8: constant rate, runs in deep
 * C-states; Intel SDM vol. 3 17.17), the arm64 virtual counter
 * (CNTVCT_EL0, fixed frequency CNTFRQ_EL0; Arm ARM D11), else the vDSO.
 * lb_clock_rate() says which, and how many ticks make a nanosecond.
 */
#ifndef LOCKBENCH_CLOCK_H
#define LOCKBENCH_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

static inline uint64_t lb_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline double lb_mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

enum lb_tick_source {
	LB_TICKS_VDSO,  /* CLOCK_MONOTONIC: 1 tick = 1 ns */
	LB_TICKS_TSC,   /* x86 invariant TSC */
	LB_TICKS_CNTVCT,/* arm64 virtual counter */
};

struct lb_tick_rate {
	enum lb_tick_source source;
	double per_ns;      /* ticks per nanosecond */
	double ns_per_tick;
	uint64_t read_ticks;/* cost of one lb_ticks() read (least of a few) */
	const char *name;   /* "tsc", "cntvct" or "vdso" (JSON) */
};

/*
 * The tick source and its rate, measured once (about 2 ms against
 * CLOCK_MONOTONIC for the TSC; read from CNTFRQ_EL0 on arm64).  Thread
 * safe; call it before the workers start so they only read the result.
 */
const struct lb_tick_rate *lb_clock_rate(void);

/* Whether lb_ticks() reads a hardware counter (set by lb_clock_rate()). */
extern bool lb_ticks_hw;

/* Read the tick counter: a handful of instructions, no fence.  The read
 * may execute ahead of the instructions before it, by as much as a cache
 * miss outstanding there: where an interval starts right after shared
 * memory was touched, start it with lb_ticks_ordered(). */
static inline uint64_t lb_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(lb_ticks_hw, 1))
		return __rdtsc();
#elif defined(__aarch64__)
	if (__builtin_expect(lb_ticks_hw, 1)) {
		uint64_t v;

		__asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
		return v;
	}
#endif
	return lb_mono_ns();
}

/*
 * Read the tick counter once every instruction before it has completed
 * (x86 LFENCE: Intel SDM vol. 2, RDTSC; arm64 ISB: Arm ARM D11.2.2).
 * For the start of a delay or of a timed interval: the plain read may
 * execute before the cache misses just ahead of it have been served, so
 * the wait for a miss that the section took on a shared line just
 * before a delay would count as part of the delay (at 2 threads on a
 * 2-vCPU VM, parallel and critical sections sampled 10-30% long).
 * Costs a few cycles when nothing is outstanding; delays and sampled
 * timings only, never the bare loop.
 */
static inline uint64_t lb_ticks_ordered(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(lb_ticks_hw, 1)) {
		_mm_lfence();
		return __rdtsc();
	}
#elif defined(__aarch64__)
	if (__builtin_expect(lb_ticks_hw, 1)) {
		uint64_t v;

		__asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
		return v;
	}
#endif
	return lb_mono_ns();
}

#endif
