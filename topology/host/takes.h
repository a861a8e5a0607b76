/* SPDX-License-Identifier: MIT */
/*
 * Host takes: the time a hypervisor takes a vCPU away for without
 * reporting it as steal (docs/method.md, "What this machine can
 * measure").  The guest counts that time as the running thread's, so
 * neither /proc/stat's steal column nor a worker's CPU share shows it;
 * only a clock that keeps running does.  One thread pinned on each CPU
 * reads the tick counter (topology/host/clock.h) in a tight loop; an
 * interval between two reads far longer than a read is time the thread
 * did not run.  An interval in which the guest's own scheduler ran
 * something else (the thread's CPU time did not advance across it) is
 * the guest's, not the host's, and is left out.
 *
 * The counting is a pure function of the stamps read (ht_count_*), so
 * that it can be fed synthetic gaps; ht_measure() is the live loop.
 */
#ifndef LOCKBENCH_TAKES_H
#define LOCKBENCH_TAKES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * What makes an interval a take: longer than HT_FLOOR_NS, than
 * HT_READ_FACTOR reads of the clock and than HT_TICK_FACTOR ticks of the
 * counter, whichever is longest.  Nothing a loop of reads does on its
 * own (a cache miss, a branch mispredicted, a counter step) lasts a
 * microsecond; an interrupt or the host does.  The factors on a read
 * and a tick make the rule hold where a read costs 40 ns (the vDSO, a
 * simulated host) or the counter ticks every 40 ns (arm64 at 25 MHz).
 */
#define HT_FLOOR_NS 1000.0
#define HT_READ_FACTOR 50.0
#define HT_TICK_FACTOR 3.0

/* Takes above this fraction of a CPU get a verdict of their own. */
#define HT_LEVEL 0.005

/* The read interval's calibration: HT_CAL_BLOCKS blocks of HT_CAL_BLOCK
 * intervals, HT_CAL_STAMPS stamps in all. */
#define HT_CAL_BLOCKS 63
#define HT_CAL_BLOCK 64
#define HT_CAL_STAMPS (HT_CAL_BLOCKS * HT_CAL_BLOCK + 1)

/* The histogram of take lengths: bucket i counts takes of
 * [2^i, 2^(i+1)) us, the first from the threshold, the last open. */
#define HT_NHIST 8

/*
 * The interval between two reads of a tight loop, in ticks (a
 * fraction): the median over blocks of HT_CAL_BLOCK intervals of each
 * block's mean.  A block's mean resolves a counter coarser than a read
 * (consecutive reads that return the same value), and the median leaves
 * out a block a take fell in.  NAN when n < HT_CAL_STAMPS.
 */
double ht_read_ticks(const uint64_t *stamps, size_t n);

/* The threshold of a take, in ns, from a read's cost and a tick. */
double ht_threshold_ns(double read_ns, double tick_ns);

/* The takes counted over a run of stamps. */
struct ht_count {
	uint64_t thr_ticks;        /* an interval longer than this is a take */
	uint64_t edge[HT_NHIST];   /* the histogram's lower edges, in ticks */
	uint64_t span_ticks;       /* the intervals seen, takes included */
	uint64_t takes, lost_ticks, longest_ticks;
	uint64_t hist[HT_NHIST];
};

/* Start counting with the threshold thr_ns on a counter of ns_per_tick. */
void ht_count_init(struct ht_count *c, double thr_ns, double ns_per_tick);

/* One take of d ticks (out of line: the loop of reads stays small). */
void ht_count_take(struct ht_count *c, uint64_t d);

/* The interval from prev to now (a counter that steps back: none). */
static inline void ht_count_step(struct ht_count *c, uint64_t prev, uint64_t now)
{
	uint64_t d = now > prev ? now - prev : 0;

	c->span_ticks += d;
	if (__builtin_expect(d > c->thr_ticks, 0))
		ht_count_take(c, d);
}

/* Every interval between consecutive stamps[0..n-1]. */
void ht_count_scan(struct ht_count *c, const uint64_t *stamps, size_t n);

/* What one CPU lost. */
struct ht_cpu {
	int cpu;
	int err;                   /* 0, or the errno of pinning or starting */
	double read_ns;            /* a read, as ht_read_ticks() finds it */
	double threshold_ns;
	double run_ns;             /* the time counted: window less the guest's */
	double guest_ns;           /* gaps in which the guest ran something else */
	uint64_t guest_gaps;
	uint64_t takes;
	double lost_ns, fraction, per_s, longest_ns;
	uint64_t hist[HT_NHIST];
};

/* The figures of c, guest_ns of its span the guest's own: fraction of
 * the rest lost, takes per second of it, the longest. */
void ht_result(const struct ht_count *c, double ns_per_tick, double guest_ns,
	       struct ht_cpu *out);

/*
 * Read the counter on cpus[0..n-1] at once, one pinned thread each, for
 * `seconds`; out[i] gets cpus[i]'s figures (out[i].err when its thread
 * could not be pinned).  The calling thread's affinity is not touched.
 * Returns 0, or -errno when no thread could be started.
 */
int ht_measure(const int *cpus, unsigned n, double seconds, struct ht_cpu *out);

/* The lower edge of histogram bucket i, in us. */
double ht_hist_edge_us(unsigned i);

#endif
