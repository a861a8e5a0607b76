/* SPDX-License-Identifier: MIT */
/*
 * The noise pass over the results model: each point's typical probe
 * values, its runs' flags, --exclude-flagged, the sweep-wide counts and
 * the -r auto CI verdict (declared in results.h).  The per-run rules
 * are noise.c's; this file applies them to points and sweeps.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

/* Median over the point's runs of pair i's probe values, before and
 * after, for runs probing the same pairs as the first one. */
static void point_typical(struct point *p)
{
	const struct run_noise *first = p->nruns ? &p->runs[0].noise : NULL;
	unsigned np = first && first->present ? first->npairs : 0;
	double *x = malloc((2 * (size_t)p->nruns + 1) * sizeof(*x));

	point_noise_free(&p->noise);
	p->noise.typical = np ? calloc(np, sizeof(double)) : NULL;
	if (!x || !p->noise.typical) {
		free(x);
		return;
	}
	p->noise.npairs = np;
	for (unsigned i = 0; i < np; i++) {
		unsigned k = 0;

		for (unsigned j = 0; j < p->nruns; j++) {
			const struct run_noise *n = &p->runs[j].noise;

			if (!n->present || n->npairs != np)
				continue;
			if (isfinite(n->probe_before[i]))
				x[k++] = n->probe_before[i];
			if (isfinite(n->probe_after[i]))
				x[k++] = n->probe_after[i];
		}
		p->noise.typical[i] = noise_median(x, k);
	}
	free(x);
}

/* Median over the point's runs of a probe value `get` reads (the
 * window issue rate, the core speed); runs without it (0) left out, 0
 * when none has it. */
static double point_median(const struct point *p, double (*get)(const struct run_noise *))
{
	double *x = malloc(((size_t)p->nruns + 1) * sizeof(*x)), m = 0;
	unsigned k = 0;

	for (unsigned j = 0; x && j < p->nruns; j++) {
		double v = p->runs[j].noise.present ? get(&p->runs[j].noise) : 0;

		if (v > 0)
			x[k++] = v;
	}
	if (k)
		m = noise_median(x, k);
	free(x);
	return m;
}

/* The share of a 1-thread run's operations not spent in its delays
 * (sampled lengths against ns per operation); 0 at more threads or
 * when unknown: the issue rate and the speed against the point's flag
 * 1-thread runs only. */
static double core_share(const struct run_sample *s)
{
	const struct run_noise *n = &s->noise;
	double op_ns, d = 0;

	if (s->nthreads != 1 || !(s->ops_per_sec > 0))
		return 0;
	op_ns = 1e9 / s->ops_per_sec;
	if (n->cs_requested > 0 && isfinite(n->cs_actual))
		d += n->cs_actual;
	if (n->ncs_requested > 0 && isfinite(n->ncs_actual))
		d += n->ncs_actual;
	return d < op_ns ? 1 - d / op_ns : 0;
}

/*
 * A 1-thread point's runs whose core moved under them.  When the point
 * has a fit of ns/op on its probes (noise_core_fit()), the fit decides:
 * it holds each run's clock (the mean of its before and after values)
 * and its issue rate at the weight this point showed them to have, so
 * it replaces the clock's before/after rule as well.  Without one, each
 * probe against its point's typical value with a fixed tolerance, on top
 * of that rule.  Sets the fit and each run's fit_off.
 */
static void point_core_flags(const struct results *r, struct point *p)
{
	const struct noise_opts *o = &r->noise.opts;
	unsigned n = p->nruns;
	double *ns = malloc((3 * (size_t)n + 1) * sizeof(*ns));
	double *speed = ns + n, *issue = ns + 2 * n, *off = malloc((n + 1) * sizeof(*off));
	bool fit = false;

	p->noise.fit = (struct core_fit){.r2 = NAN, .p = NAN};
	for (unsigned j = 0; j < n; j++)
		p->runs[j].noise.fit_off = NAN;
	if (!ns || !off || !n || p->runs[0].nthreads != 1)
		goto out;
	for (unsigned j = 0; j < n; j++) {
		const struct run_sample *s = &p->runs[j];
		bool ok = s->noise.present && s->ops_per_sec > 0;

		ns[j] = ok ? 1e9 / s->ops_per_sec : 0;
		speed[j] = ok ? noise_run_speed(&s->noise) : 0;
		issue[j] = ok ? noise_core_issue(&s->noise) : 0;
	}
	fit = noise_core_fit(ns, speed, issue, n, &p->noise.fit, off);
	for (unsigned j = 0; j < n; j++) {
		struct run_noise *rn = &p->runs[j].noise;
		double share = core_share(&p->runs[j]);

		rn->fit_off = off[j];
		if (!rn->present)
			continue;
		if (fit) {
			rn->flags &= ~(unsigned)NOISE_CORE_SPEED;
			if (fabs(off[j]) > o->fit_tolerance)
				rn->flags |= NOISE_CORE_SPEED;
		} else if (noise_issue_moved(issue[j], p->noise.issue_typical, share, o) ||
			   noise_speed_off(speed[j], p->noise.speed_typical, share, o)) {
			rn->flags |= NOISE_CORE_SPEED;
		}
	}
out:
	free(ns);
	free(off);
}

void noise_point_update(const struct results *r, struct point *p)
{
	const struct noise_opts *o = &r->noise.opts;
	bool adaptive = p->noise.adaptive, warned = p->noise.cs_warned;

	point_typical(p);
	p->noise.issue_typical = point_median(p, noise_core_issue);
	p->noise.speed_typical = point_median(p, noise_run_speed);
	p->noise.adaptive = adaptive;
	p->noise.cs_warned = warned;
	for (unsigned j = 0; j < p->nruns; j++) {
		struct run_noise *n = &p->runs[j].noise;
		bool same = n->npairs == p->noise.npairs;

		n->flags = noise_run_flags(n, same ? p->noise.typical : NULL, o);
	}
	point_core_flags(r, p);
	for (unsigned j = 0; j < p->nruns; j++) {
		struct run_noise *n = &p->runs[j].noise;

		n->excluded = false;
		p->noise.flagged += !!(n->flags & NOISE_NOISY);
		p->noise.cs_off += !!(n->flags & NOISE_CS_OFF);
	}
	if (!o->exclude_flagged || p->noise.flagged == p->nruns)
		return;
	for (unsigned j = 0; j < p->nruns; j++) {
		struct run_noise *n = &p->runs[j].noise;

		n->excluded = n->flags & NOISE_NOISY;
		p->noise.excluded += n->excluded;
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
