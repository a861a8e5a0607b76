/* SPDX-License-Identifier: MIT */
/*
 * The core-speed chain: a short chain of dependent additions, one per
 * core cycle on every x86_64 and arm64 core, timed on the tick clock.
 * The clock's calibration times it (calibration.core_speed_ghz).
 */
#ifndef LOCKBENCH_CORESPEED_H
#define LOCKBENCH_CORESPEED_H

#include <stdint.h>

/* The chain's additions per tick of the counter, the fastest of a few
 * trials (0 if it could not be timed), without lb_clock_rate(): for the
 * clock's own calibration (clock.c). */
double core_speed_per_tick(void);

#endif
