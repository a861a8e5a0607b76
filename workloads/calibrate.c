/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "calibrate.h"
#include "workload.h"

#define TRIALS 7

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void calibrate_delay(struct calibration *c)
{
	double rate[TRIALS];
	uint64_t loops = 1 << 14;

	/* Grow the trial until it lasts about 2 ms, so clock granularity
	 * and the call overhead are noise. */
	for (;;) {
		double t0 = (double)lb_mono_ns();

		lb_delay(loops);
		if ((double)lb_mono_ns() - t0 > 2e6 || loops >= (1ull << 32))
			break;
		loops *= 2;
	}
	for (unsigned i = 0; i < TRIALS; i++) {
		double t0 = (double)lb_mono_ns(), dt;

		lb_delay(loops);
		dt = (double)lb_mono_ns() - t0;
		rate[i] = (double)loops / (dt > 1 ? dt : 1);
	}
	qsort(rate, TRIALS, sizeof(rate[0]), cmp_double);
	c->loops_per_ns = rate[TRIALS / 2];
	c->ns_per_loop = 1 / c->loops_per_ns;
	c->spread = (rate[TRIALS - 1] - rate[0]) / c->loops_per_ns;
	c->trials = TRIALS;
	c->loops_per_trial = loops;
}

uint64_t calibrate_loops(const struct calibration *c, uint64_t ns)
{
	double l = (double)ns * c->loops_per_ns;

	if (!ns)
		return 0;
	return l < 1 ? 1 : (uint64_t)(l + 0.5);
}
