/* SPDX-License-Identifier: MIT */
/*
 * The core-speed probe: a short chain of dependent additions, one per
 * core cycle on every x86_64 and arm64 core, timed on the tick clock.
 * Its rate is the core's clock as the run saw it (boost, host
 * frequency changes on a VM), measured by each worker on its own CPU
 * before and after its loop: a run whose core speed moved is flagged
 * like a placement change (output/results/noise.h, NOISE_CORE_SPEED).
 */
#ifndef LOCKBENCH_CORESPEED_H
#define LOCKBENCH_CORESPEED_H

#include <stdint.h>

/* Dependent additions per ns (about the core clock in GHz): the fastest
 * of a few ~15 us trials, so an interrupt does not count.  Call it where
 * the tick rate is known (lb_clock_rate()); 0 if it could not be timed. */
double core_speed_probe(void);

/* The same chain's additions per tick of the counter, the fastest of a
 * few trials (0 if it could not be timed), without lb_clock_rate(): for
 * the clock's own calibration (clock.c). */
double core_speed_per_tick(void);

/*
 * The core's issue rate, for the probes inside the window: CORE_ISSUE_ADDS
 * additions in six independent chains (the core issues several a cycle
 * when it has itself to itself, fewer when an SMT sibling - another
 * thread, another guest's on a VM - takes issue slots, none while an
 * interrupt runs), timed on the tick clock.  Returns the ticks taken.
 * About 0.1 us: workloads/loop.c runs one per millisecond of the window.
 */
#define CORE_ISSUE_ADDS (64 * 12)
uint64_t core_issue_probe(void);

#endif
