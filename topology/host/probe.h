/* SPDX-License-Identifier: MIT */
/*
 * The core-to-core probe: the round trip of one 128-byte-aligned cache
 * line bounced between two pinned threads with release stores and
 * acquire loads, in ns: `lockbench topo --c2c` over every pair of the
 * machine, and `lockbench system check` (hostcheck.h).
 *
 * The calling thread takes one end of every pair: its CPU affinity is
 * changed for the duration of a call and restored before it returns.
 */
#ifndef LOCKBENCH_PROBE_H
#define LOCKBENCH_PROBE_H

#include <stddef.h>

/* Pin the calling thread to `cpu`, a CPU set sized for it (cpu_set_t
 * stops at CPU_SETSIZE, CPU_ALLOC(3)): 0 or an errno value. */
int probe_pin_self(int cpu);

/* How hard to probe one pair: `rounds` rounds of `trips` round trips;
 * the pair's value is the median round's mean round trip. */
struct probe_cfg {
	unsigned rounds;
	unsigned trips;
};

/* Defaults for one probe of a pair (a fraction of a millisecond). */
#define PROBE_RUN_ROUNDS 7
#define PROBE_RUN_TRIPS 64

/*
 * Probe npairs pairs (pair_cpu: a0, b0, a1, b1, ...) into ns[0..npairs-1]; a pair
 * whose CPUs cannot be pinned gets NAN.  Returns 0, or -errno when the
 * helper thread cannot be started (every value is then NAN).
 */
int probe_run(const int *pair_cpu, unsigned npairs, const struct probe_cfg *cfg,
	      double *ns);

/*
 * The core-to-core matrix of `lockbench topo --c2c`: every pair of the
 * n distinct CPUs probed `reps` times (at most 64); m[i * n + j] gets the
 * median in ns (NAN on the diagonal and for pairs that failed).
 * Returns 0 or -errno.
 */
int probe_matrix(const int *cpus, unsigned n, unsigned reps, double *m);

#endif
