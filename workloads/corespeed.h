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

/* Dependent additions per ns (about the core clock in GHz): the fastest
 * of a few ~15 us trials, so an interrupt does not count.  Call it where
 * the tick rate is known (lb_clock_rate()); 0 if it could not be timed. */
double core_speed_probe(void);

#endif
