/* SPDX-License-Identifier: MIT */
/*
 * The sweep's noise step, called between the plan's steps:
 * warns once per point whose measured section lengths are off the
 * request, and with -r auto ends a thread count's rounds as soon as the
 * stopping rule (adapt_decide in output/stats/noise.h) says so.
 */
#ifndef LOCKBENCH_ADAPTIVE_H
#define LOCKBENCH_ADAPTIVE_H

#include "sweep.h"

/* Between-steps state of one sweep; zero-initialise. */
struct sweep_noise {
	bool begun;
	double t_sweep0;         /* first call */
	double t_row0;           /* the current thread count's first step */
	double row_budget;       /* its share of --time-budget (0: none) */
};

/*
 * The index of the next step to run, given that the steps before `i`
 * are done (i == total after the last one).  Returns i, or with -r auto
 * at a round boundary the first step of the next thread count when the
 * current one is finished (r->noise.row_stop records why).
 */
unsigned sweep_noise_next(const struct config *c, struct results *r,
			  const struct plan_step *plan, unsigned total,
			  unsigned i, struct sweep_noise *sn);

#endif
