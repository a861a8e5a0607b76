/* SPDX-License-Identifier: MIT */
/*
 * Noise flags of one run and the -r auto stopping rule (see noise.h).
 * Pure functions of the noise data; the pass over a whole results
 * model (typical probe values, --exclude-flagged, counts) is in
 * results_noise.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "stats.h"

/*
 * How far a 1-thread run's window issue rate may be off its point's,
 * weighted by the share of the operation its delays leave to the core,
 * before it is flagged (NOISE_CORE_SPEED).  Set on a 2-vCPU AMD EPYC
 * VM: over 1-thread runs of tas and ticket with empty sections a run's
 * ns/op moved by about -0.45 times its issue rate's move (correlation
 * -0.6 to -0.8 over 10 runs), so 3.5% catches the runs that moved by
 * about 1.6% or more.  A delay held on a deadline does not slow when a
 * sibling takes issue slots: with --ncs-ns 100 the rate swung by 13%
 * between runs that moved under 1.3%.
 */
#define ISSUE_TOLERANCE 0.035

void noise_opts_default(struct noise_opts *o)
{
	*o = (struct noise_opts){
		.probe = true, .probe_factor = 1.5, .steal_max = 0.01,
		.cs_tolerance = 0.10, .speed_tolerance = 0.02,
		.issue_tolerance = ISSUE_TOLERANCE, .cs_min_ns = 50, .ci_target = 0.01,
		.min_runs = 3, .max_runs = 30,
	};
}

const char *noise_flag_name(unsigned i)
{
	static const char *const names[NOISE_NFLAGS] = {
		"placement_changed", "steal", "migrated", "cs_length_off",
		"core_speed_moved",
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

void noise_core_speed(const struct run_noise *n, double *before, double *after)
{
	double *b = malloc((n->nworkers + 1) * sizeof(*b));
	double *a = malloc((n->nworkers + 1) * sizeof(*a));
	unsigned k = 0;

	*before = *after = 0;
	for (unsigned i = 0; a && b && n->w && i < n->nworkers; i++)
		if (n->w[i].speed_before > 0 && n->w[i].speed_after > 0) {
			b[k] = n->w[i].speed_before;
			a[k++] = n->w[i].speed_after;
		}
	if (k) {
		*before = noise_median(b, k);
		*after = noise_median(a, k);
	}
	free(a);
	free(b);
}

double noise_core_issue(const struct run_noise *n)
{
	double *x = malloc((n->nworkers + 1) * sizeof(*x)), m = 0;
	unsigned k = 0;

	for (unsigned i = 0; x && n->w && i < n->nworkers; i++)
		if (n->w[i].issue_n && n->w[i].issue_rate > 0)
			x[k++] = n->w[i].issue_rate;
	if (k)
		m = noise_median(x, k);
	free(x);
	return m;
}

bool noise_issue_moved(double issue, double typical, double core_share,
		       const struct noise_opts *o)
{
	if (!(o->issue_tolerance > 0 && issue > 0 && typical > 0 && core_share > 0))
		return false;
	return fabs(issue / typical - 1) * fmin(core_share, 1) > o->issue_tolerance;
}

/* The core speed moved by more than `tol` (either way) over the run. */
static bool speed_moved(const struct run_noise *n, double tol)
{
	double b, a;

	noise_core_speed(n, &b, &a);
	return b > 0 && a > 0 && fabs(a / b - 1) > tol;
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
	if (o->speed_tolerance > 0 && speed_moved(n, o->speed_tolerance))
		f |= NOISE_CORE_SPEED;
	return f;
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
		rel = stats_ci_rel(&s);
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
