/* SPDX-License-Identifier: MIT */
/*
 * The noise pass over the results model: its runs' flags, the runs left
 * out of the statistics, the sweep-wide counts and the -r auto CI
 * verdict (declared in results.h).  The per-run rules are noise.c's;
 * this file applies them to points and sweeps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

/*
 * One rule for every point (docs/method.md, "Noise"): a run whose
 * worker lost a quarter of the window or more (noise_run_excluded())
 * is left out, even when that leaves its point no run (the table then
 * shows -! and no verdict: a machine busy throughout measured nothing
 * this harness can stand behind).
 */
void noise_point_update(const struct results *r, struct point *p)
{
	const struct noise_opts *o = &r->noise.opts;

	p->noise.flagged = p->noise.excluded = p->noise.cs_off = 0;
	for (unsigned j = 0; j < p->nruns; j++) {
		struct run_noise *n = &p->runs[j].noise;

		n->flags = noise_run_flags(n, o);
		n->excluded = noise_run_excluded(n);
		p->noise.flagged += !!(n->flags & NOISE_NOISY) || n->excluded;
		p->noise.excluded += n->excluded;
		p->noise.cs_off += !!(n->flags & NOISE_CS_OFF);
	}
}

void noise_finalize(struct results *r)
{
	struct results_noise *rn = &r->noise;

	rn->runs = rn->flagged = rn->excluded = 0;
	memset(rn->by_flag, 0, sizeof(rn->by_flag));
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		struct point *p = &r->points[i];

		noise_point_update(r, p);
		rn->flagged += p->noise.flagged;
		rn->excluded += p->noise.excluded;
		for (unsigned j = 0; j < p->nruns; j++) {
			const struct run_noise *n = &p->runs[j].noise;

			rn->measured |= n->present || n->recorded_set;
			rn->runs += n->present || n->recorded_set;
			for (unsigned b = 0; b < NOISE_NFLAGS; b++)
				rn->by_flag[b] += !!(n->flags & (1u << b));
		}
	}
}

void noise_finalize_adaptive(struct results *r)
{
	r->noise.not_reached = 0;
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		struct point *p = &r->points[i];

		p->noise.adaptive = r->noise.opts.adaptive;
		p->noise.ci_rel = stats_ci_rel(&p->sum);
		p->noise.reached = isfinite(p->noise.ci_rel) &&
				   p->noise.ci_rel <= r->noise.opts.ci_target;
		if (p->noise.adaptive && p->status == POINT_OK && !p->noise.reached)
			r->noise.not_reached++;
	}
}
