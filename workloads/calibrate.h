/* SPDX-License-Identifier: MIT */
/*
 * Busy-delay calibration: how many cpu_relax() iterations make a
 * nanosecond on this CPU, measured once at start against
 * CLOCK_MONOTONIC and recorded in the output.
 */
#ifndef LOCKBENCH_CALIBRATE_H
#define LOCKBENCH_CALIBRATE_H

#include <stdint.h>

struct calibration {
	double loops_per_ns;   /* median of the trials */
	double ns_per_loop;
	double spread;         /* (max - min) / median over the trials */
	unsigned trials;
	uint64_t loops_per_trial;
};

/* Measure; takes ~20 ms. */
void calibrate_delay(struct calibration *c);
/* Loop count for `ns` nanoseconds (0 for 0). */
uint64_t calibrate_loops(const struct calibration *c, uint64_t ns);

#endif
