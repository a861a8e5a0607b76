/* SPDX-License-Identifier: MIT */
/*
 * Noise flags, the points' typical probe values, --exclude-flagged and
 * the -r auto stopping rule (see noise.h).  Pure functions of the
 * results model.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

void noise_opts_default(struct noise_opts *o)
{
	*o = (struct noise_opts){
		.probe = true, .probe_factor = 1.5, .steal_max = 0.01,
		.cs_tolerance = 0.10, .cs_min_ns = 50, .ci_target = 0.01,
		.min_runs = 3, .max_runs = 30,
	};
}

const char *noise_flag_name(unsigned i)
{
	static const char *const names[NOISE_NFLAGS] = {
		"placement_changed", "steal", "migrated", "cs_length_off",
	};
	return i < NOISE_NFLAGS ? names[i] : "?";
}

const char *adapt_stop_name(enum adapt_stop s)
{
	static const char *const names[] = {
		[ADAPT_MORE] = "not_finished", [ADAPT_MET] = "ci_target_met",
		[ADAPT_MAX_RUNS] = "max_runs", [ADAPT_BUDGET] = "time_budget",
	};
	return s <= ADAPT_BUDGET ? names[s] : "?";
}

static void *dup_array(const void *p, size_t n, size_t size, int *err)
{
	void *q;

	if (!p || !n)
		return NULL;
	q = malloc(n * size);
	if (!q) {
		*err = -ENOMEM;
		return NULL;
	}
	memcpy(q, p, n * size);
	return q;
}

int noise_run_dup(struct run_noise *dst, const struct run_noise *src)
{
	int err = 0;

	*dst = *src;
	dst->pair_cpu = dup_array(src->pair_cpu, 2 * src->npairs, sizeof(int), &err);
	dst->probe_before = dup_array(src->probe_before, src->npairs, sizeof(double), &err);
	dst->probe_after = dup_array(src->probe_after, src->npairs, sizeof(double), &err);
	dst->w = dup_array(src->w, src->nworkers, sizeof(*src->w), &err);
	return err;
}

void noise_run_free(struct run_noise *n)
{
	free(n->pair_cpu);
	free(n->probe_before);
	free(n->probe_after);
	free(n->w);
	memset(n, 0, sizeof(*n));
}

void point_noise_free(struct point_noise *pn)
{
	free(pn->typical);
	memset(pn, 0, sizeof(*pn));
}

void results_noise_free(struct results_noise *rn)
{
	free(rn->row_stop);
	rn->row_stop = NULL;
}

double noise_steal_frac(const struct run_noise *n)
{
	if (!n->steal_known || n->steal_window_s <= 0 || !n->steal_ncpus)
		return NAN;
	return n->steal_s / (n->steal_window_s * n->steal_ncpus);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double noise_median(double *x, unsigned n)
{
	if (!n)
		return NAN;
	qsort(x, n, sizeof(*x), cmp_double);
	return n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
}

/* a and b differ by more than `factor` (either way); false if unknown. */
static bool ratio_above(double a, double b, double factor)
{
	if (!isfinite(a) || !isfinite(b) || a <= 0 || b <= 0)
		return false;
	return a / b > factor || b / a > factor;
}

static bool placement_changed(const struct run_noise *n, const double *typical,
			      double factor)
{
	for (unsigned i = 0; i < n->npairs; i++) {
		double b = n->probe_before[i], a = n->probe_after[i];
		double t = typical ? typical[i] : NAN;

		if (ratio_above(a, b, factor) || ratio_above(b, t, factor) ||
		    ratio_above(a, t, factor))
			return true;
	}
	return false;
}

bool noise_length_off(double req, double actual, const struct noise_opts *o)
{
	if (req < (double)o->cs_min_ns || !isfinite(actual))
		return false;
	return fabs(actual - req) > o->cs_tolerance * req;
}

unsigned noise_run_flags(const struct run_noise *n, const double *typical,
			 const struct noise_opts *o)
{
	unsigned f = 0;
	double steal = noise_steal_frac(n);

	if (!n->present)
		return n->recorded;
	if (n->npairs && n->probe_before && n->probe_after &&
	    placement_changed(n, typical, o->probe_factor))
		f |= NOISE_PLACEMENT;
	if (isfinite(steal) && steal > o->steal_max)
		f |= NOISE_STEAL;
	for (unsigned i = 0; i < n->nworkers && n->w; i++)
		if (n->w[i].cpu >= 0 && n->w[i].cpu_end >= 0 &&
		    n->w[i].cpu_end != n->w[i].cpu)
			f |= NOISE_MIGRATED;
	if (noise_length_off(n->cs_requested, n->cs_actual, o) ||
	    noise_length_off(n->ncs_requested, n->ncs_actual, o))
		f |= NOISE_CS_OFF;
	return f;
}

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

void noise_point_update(const struct results *r, struct point *p)
{
	const struct noise_opts *o = &r->noise.opts;
	bool adaptive = p->noise.adaptive, warned = p->noise.cs_warned;

	point_typical(p);
	p->noise.adaptive = adaptive;
	p->noise.cs_warned = warned;
	for (unsigned j = 0; j < p->nruns; j++) {
		struct run_noise *n = &p->runs[j].noise;
		bool same = n->npairs == p->noise.npairs;

		n->flags = noise_run_flags(n, same ? p->noise.typical : NULL, o);
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

/* The relative 95% CI half-width of a summary; NAN when undefined. */
static double ci_rel(const struct summary *s)
{
	if (s->n < 2 || !isfinite(s->ci95_half))
		return NAN;
	if (s->mean == 0)
		return s->ci95_half == 0 ? 0 : INFINITY;
	return s->ci95_half / fabs(s->mean);
}

void noise_finalize_adaptive(struct results *r)
{
	r->noise.not_reached = 0;
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		struct point *p = &r->points[i];

		p->noise.adaptive = r->noise.opts.adaptive;
		p->noise.ci_rel = ci_rel(&p->sum);
		p->noise.reached = isfinite(p->noise.ci_rel) &&
				   p->noise.ci_rel <= r->noise.opts.ci_target;
		if (p->noise.adaptive && p->status == POINT_OK && !p->noise.reached)
			r->noise.not_reached++;
	}
}

enum adapt_stop adapt_decide(const struct noise_opts *o, const double *const *x,
			     const unsigned *n, unsigned nvar, unsigned rounds,
			     double elapsed_s, double round_s, double budget_s)
{
	bool met = true;

	if (rounds < o->min_runs && rounds < o->max_runs)
		return ADAPT_MORE;
	for (unsigned v = 0; v < nvar && met; v++) {
		struct summary s;
		double rel;

		if (!x[v])
			continue;
		stats_summarize(x[v], n[v], &s);
		rel = ci_rel(&s);
		met = isfinite(rel) && rel <= o->ci_target;
	}
	if (met)
		return ADAPT_MET;
	if (rounds >= o->max_runs)
		return ADAPT_MAX_RUNS;
	if (budget_s > 0 && elapsed_s + round_s > budget_s)
		return ADAPT_BUDGET;
	return ADAPT_MORE;
}
