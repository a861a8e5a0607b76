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

#include "lockbench/atomics.h"

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

/*
 * The clock and what this host's timing primitives cost, measured once
 * at start-up (lb_clock_rate()).  Every cost is the least of nine
 * trials (the empty loop's turn: their median; clock.c says why), each
 * a long loop of the primitive timed by the clock at both ends
 * (total / count): a loop of reads, not the difference of two
 * back-to-back reads, which can be a single tick when the two overlap
 * in the pipeline.  So the figures come out the same from one
 * invocation to the next (docs/method.md, "Calibration").  The costs in
 * ticks are fractions: on a counter that ticks every 10-40 ns (arm64 at
 * 25-100 MHz) a read costs well under one tick.
 */
struct lb_tick_rate {
	enum lb_tick_source source;
	double per_ns;        /* ticks per nanosecond */
	double ns_per_tick;
	double read_ticks;    /* one lb_ticks() in a loop of reads */
	double ordered_ticks; /* one lb_ticks_ordered() in a loop of them */
	/* What an empty interval reads, timed as the section samples time
	 * one (lb_ticks_ordered(), then lb_ticks()): the least of nine
	 * groups' means of 512 pairs, which the samples subtract.  Each a
	 * mean, not the least pair: unbiased on a coarse counter. */
	double span_ticks;
	double step_ticks;    /* the counter's step between two reads that differ */
	double relax_ns;      /* one lb_relax() (cpu_relax() and a simulated host's) */
	double turn_ns;       /* one turn of the empty loop, lb_turns() */
	/* the core's clock in GHz as the calibration's rounds found it (the
	 * core-speed chain, clock.c, in the fastest round): what the
	 * costs above are in cycles when the host runs the vCPU slower */
	double core_ghz;
	double sim_clock_ns;  /* LOCKBENCH_SIM_CLOCK_NS (0: off) */
	double sim_pause_ns;  /* LOCKBENCH_SIM_PAUSE_NS (0: off) */
	const char *name;     /* "tsc", "cntvct" or "vdso" (JSON) */
};

/*
 * The tick source, its rate and the costs above, measured once (about
 * 25 ms: 2 ms the TSC against CLOCK_MONOTONIC, arm64 reads its rate
 * from CNTFRQ_EL0; the costs' nine rounds, topology/host/clock.c).  Thread
 * safe; call it before the workers start so they only read the result.
 * The simulated-host test knobs (LOCKBENCH_SIM_CLOCK_NS,
 * LOCKBENCH_SIM_PAUSE_NS: lockbench.1, ENVIRONMENT) are read here,
 * once.
 */
const struct lb_tick_rate *lb_clock_rate(void);

/* The shortest interval the clock can tell apart, in ns: a read's cost
 * or the counter's step, whichever is longer. */
double lb_clock_resolution_ns(const struct lb_tick_rate *r);

/*
 * Whether lb_ticks() reads a hardware counter inline (set by
 * lb_clock_rate()); false: lb_ticks_slow() (CLOCK_MONOTONIC, or a
 * simulated host), so a simulated host costs the real one nothing but
 * the branch every read already had.
 */
extern bool lb_ticks_hw;
/* A read the slow way; `ordered` as lb_ticks_ordered(). */
uint64_t lb_ticks_slow(bool ordered);

/* Whether lb_relax() adds a simulated host's pause cost
 * (LOCKBENCH_SIM_PAUSE_NS; set by lb_clock_rate()). */
extern bool lb_relax_sim;
void lb_relax_slow(void);

/*
 * The harness's pause in a spin on a deadline (workloads/loop.h):
 * cpu_relax(), and on a simulated host its extra cost.  Only the delays
 * call it, never the loop without delays; the locks' own spin loops
 * call cpu_relax() and are not slowed by the knob.
 */
static inline void lb_relax(void)
{
	/* (cpu_relax)(): the harness's own pause, never a lock's macro of
	 * that name (a kernel tree's layer makes cpu_relax() yield with
	 * its spin_yield option; docs/kernel-tree.md). */
	(cpu_relax)();
	if (__builtin_expect(lb_relax_sim, 0))
		lb_relax_slow();
}

/* `n` turns of the empty loop: the finest delay there is, below one
 * read of the clock (its cost: lb_tick_rate.turn_ns).  Written out and
 * aligned to 32 bytes, so that a turn costs the same wherever the loop
 * is inlined: the compiler's loop at another address and alignment ran
 * at another speed (calibrated in a cold function, ~12% long in the
 * worker loop on x86). */
static inline __attribute__((always_inline)) void lb_turns(uint64_t n)
{
	if (!n)
		return;
#if defined(__x86_64__)
	__asm__ __volatile__(".p2align 5\n1:\tsubq $1, %0\n\tjnz 1b" : "+r"(n) : : "cc");
#elif defined(__aarch64__)
	__asm__ __volatile__(".p2align 5\n1:\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	while (n--)
		__asm__ __volatile__("");
#endif
}

/* Wait until every instruction before has completed, and start none
 * after until then (x86 LFENCE, arm64 ISB: as lb_ticks_ordered(), without
 * the read).  Around a delay made of loop turns, so that the turns are
 * neither overlapped with a cache miss ahead of them nor read short by a
 * read of the counter after them. */
static inline __attribute__((always_inline)) void lb_order(void)
{
#if defined(__x86_64__) || defined(__i386__)
	_mm_lfence();
#elif defined(__aarch64__)
	__asm__ __volatile__("isb" : : : "memory");
#else
	atomic_thread_fence(memory_order_seq_cst);
#endif
}

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
	return lb_ticks_slow(false);
}

/*
 * Read the tick counter once every instruction before it has completed
 * (x86 LFENCE: Intel SDM vol. 2, RDTSC; arm64 ISB: Arm ARM D11.2.2).
 * For the start of a delay or of a timed interval: the plain read may
 * execute before the cache misses just ahead of it have been served, so
 * the wait for a miss that the section took on a shared line just
 * before a delay would count as part of the delay, and the sampled
 * section lengths would read long by it.  Costs a few cycles when
 * nothing is outstanding; delays and sampled timings only, never the
 * bare loop.
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
	return lb_ticks_slow(true);
}

#endif
