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
 * between runs that moved under 1.3%.  Used only where the point has no
 * fit of its own (noise_core_fit()), whose sensitivity replaces it.
 */
#define ISSUE_TOLERANCE 0.035

void noise_opts_default(struct noise_opts *o)
{
	*o = (struct noise_opts){
		.probe = true, .probe_factor = 1.5, .steal_max = 0.01,
		.cs_tolerance = 0.10, .speed_tolerance = 0.02,
		.issue_tolerance = ISSUE_TOLERANCE, .fit_tolerance = 0.01,
		.cs_min_ns = 50, .ci_target = 0.01,
		.min_runs = 3, .max_runs = 30,
	};
}

const char *noise_flag_name(unsigned i)
{
	static const char *const names[NOISE_NFLAGS] = {
		"placement_changed", "steal", "migrated", "cs_length_off",
		"core_speed_moved", "window_stretched",
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

double noise_run_speed(const struct run_noise *n)
{
	double b, a;

	noise_core_speed(n, &b, &a);
	return b > 0 && a > 0 ? (b + a) / 2 : 0;
}

bool noise_speed_off(double speed, double typical, double core_share,
		     const struct noise_opts *o)
{
	if (!(o->speed_tolerance > 0 && speed > 0 && typical > 0 && core_share > 0))
		return false;
	return fabs(speed / typical - 1) * fmin(core_share, 1) > o->speed_tolerance;
}

/* Solve the 3x3 system a x = b by Gauss-Jordan with partial pivoting;
 * false when singular. */
static bool solve3(double a[3][3], double b[3], double x[3])
{
	for (unsigned i = 0; i < 3; i++) {
		unsigned p = i;
		double t;

		for (unsigned r = i + 1; r < 3; r++)
			if (fabs(a[r][i]) > fabs(a[p][i]))
				p = r;
		if (fabs(a[p][i]) < 1e-12)
			return false;
		for (unsigned c = 0; c < 3; c++) {
			t = a[i][c];
			a[i][c] = a[p][c];
			a[p][c] = t;
		}
		t = b[i];
		b[i] = b[p];
		b[p] = t;
		for (unsigned r = 0; r < 3; r++) {
			double f;

			if (r == i)
				continue;
			f = a[r][i] / a[i][i];
			for (unsigned c = 0; c < 3; c++)
				a[r][c] -= f * a[i][c];
			b[r] -= f * b[i];
		}
	}
	for (unsigned i = 0; i < 3; i++)
		x[i] = b[i] / a[i][i];
	return true;
}

/* ln ns/op the fit c gives for these probes. */
static double fit_at(const double c[3], double speed, double issue)
{
	return c[0] + c[1] * log(speed) + c[2] * log(issue);
}

/* Run i can be fitted: all three values known. */
static bool fit_ok(const double *ns, const double *speed, const double *issue, unsigned i)
{
	return ns[i] > 0 && speed[i] > 0 && issue[i] > 0;
}

/*
 * Least squares of ln ns on 1, ln speed, ln issue over the runs with
 * in[i]: coefficients into c, the share of the spread explained (NAN
 * when there is none) into *r2, the residuals' standard deviation into
 * *sd; false when under NOISE_FIT_MIN_RUNS or singular.
 */
static bool fit_once(const double *ns, const double *speed, const double *issue,
		     unsigned n, const bool *in, double c[3], double *r2, double *sd)
{
	double a[3][3] = {{0}}, b[3] = {0}, ym = 0, sst = 0, sse = 0;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		double x[3] = {1, log(speed[i]), log(issue[i])};

		if (!in[i])
			continue;
		for (unsigned r = 0; r < 3; r++) {
			for (unsigned q = 0; q < 3; q++)
				a[r][q] += x[r] * x[q];
			b[r] += x[r] * log(ns[i]);
		}
		ym += log(ns[i]);
		k++;
	}
	if (k < NOISE_FIT_MIN_RUNS || !solve3(a, b, c))
		return false;
	ym /= k;
	for (unsigned i = 0; i < n; i++) {
		double y = log(ns[i]), e = y - fit_at(c, speed[i], issue[i]);

		if (!in[i])
			continue;
		sst += (y - ym) * (y - ym);
		sse += e * e;
	}
	*r2 = sst > 0 ? 1 - sse / sst : NAN;
	*sd = sqrt(sse / (k - 3));
	return true;
}

/*
 * A run the probes cannot explain (a slow round no probe saw) would tilt
 * the slopes for the others, and a least-squares fit bends towards it
 * when its probes are far out too, which hides it from its own residual.
 * So each run is judged by its deleted residual: how far it is from the
 * fit of the others.  The worst is left out when that is more than
 * FIT_OUTLIER_SD standard deviations of the others' fit, and more than
 * FIT_OUTLIER_MIN; then again, up to a quarter of the runs.
 */
#define FIT_OUTLIER_SD 3
#define FIT_OUTLIER_MIN 0.01

static void fit_trim(const double *ns, const double *speed, const double *issue,
		     unsigned n, bool *in, unsigned k)
{
	for (unsigned drop = 0; drop < k / 4; drop++) {
		double worst = 0, cut = 0;
		unsigned w = n;

		for (unsigned i = 0; i < n; i++) {
			double c[3], r2, sd, d;

			if (!in[i])
				continue;
			in[i] = false;
			if (fit_once(ns, speed, issue, n, in, c, &r2, &sd)) {
				d = fabs(log(ns[i]) - fit_at(c, speed[i], issue[i]));
				if (d > worst) {
					worst = d;
					w = i;
					cut = fmax(FIT_OUTLIER_SD * sd, FIT_OUTLIER_MIN);
				}
			}
			in[i] = true;
		}
		if (w == n || worst <= cut)
			return;
		in[w] = false;
	}
}

bool noise_core_fit(const double *ns, const double *speed, const double *issue,
		    unsigned n, struct core_fit *fit, double *off)
{
	double c[3], r2 = NAN, sd, *x = malloc((n + 1) * sizeof(*x)), m;
	bool *in = calloc(n + 1, sizeof(*in)), ok;
	unsigned k = 0;

	*fit = (struct core_fit){.r2 = NAN, .p = NAN};
	for (unsigned i = 0; i < n; i++)
		off[i] = NAN;
	if (!x || !in)
		goto out;
	for (unsigned i = 0; i < n; i++)
		k += in[i] = fit_ok(ns, speed, issue, i);
	fit_trim(ns, speed, issue, n, in, k);
	for (unsigned i = 0; i < n; i++)
		fit->runs += in[i];
	if (!fit_once(ns, speed, issue, n, in, c, &r2, &sd))
		goto out;
	fit->b_speed = c[1];
	fit->b_issue = c[2];
	fit->r2 = r2;
	/* F test of the two slopes, F(2, runs - 3): its tail has the
	 * closed form (1 - r2)^((runs - 3) / 2). */
	fit->p = isfinite(r2) ? pow(fmax(1 - r2, 0), (fit->runs - 3) / 2.0) : NAN;
	fit->used = fit->p < NOISE_FIT_P &&
		    c[1] >= NOISE_FIT_MIN_SLOPE && c[1] <= NOISE_FIT_MAX_SLOPE &&
		    c[2] >= NOISE_FIT_MIN_SLOPE && c[2] <= NOISE_FIT_MAX_SLOPE;
	if (!fit->used)
		goto out;
	k = 0;
	for (unsigned i = 0; i < n; i++)
		if (fit_ok(ns, speed, issue, i))
			x[k++] = fit_at(c, speed[i], issue[i]);
	m = noise_median(x, k);
	for (unsigned i = 0; i < n; i++)
		if (fit_ok(ns, speed, issue, i))
			off[i] = exp(fit_at(c, speed[i], issue[i]) - m) - 1;
out:
	ok = fit->used;
	free(x);
	free(in);
	return ok;
}

/* The core speed moved by more than `tol` (either way) over the run. */
static bool speed_moved(const struct run_noise *n, double tol)
{
	double b, a;

	noise_core_speed(n, &b, &a);
	return b > 0 && a > 0 && fabs(a / b - 1) > tol;
}

bool noise_window_stretched(double asked, double got)
{
	return asked > 0 && got > asked * 1.1 + 0.05;
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
	if (noise_window_stretched(n->window_req_s, n->window_s))
		f |= NOISE_STRETCHED;
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
