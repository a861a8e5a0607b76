/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results.h"

static const char *const status_names[] = {
	[POINT_MISSING] = "missing", [POINT_OK] = "ok",
	[POINT_FAILED] = "failed", [POINT_HUNG] = "hung",
	[POINT_ERROR] = "error",
};

const char *point_status_name(enum point_status s)
{
	return (unsigned)s < sizeof(status_names) / sizeof(status_names[0])
		       ? status_names[s] : "?";
}

int point_status_parse(const char *name)
{
	for (unsigned i = 0; name && i < sizeof(status_names) / sizeof(status_names[0]); i++)
		if (!strcmp(status_names[i], name))
			return (int)i;
	return -1;
}

int results_init(struct results *r, unsigned nvariants, unsigned nrows)
{
	memset(r, 0, sizeof(*r));
	r->variants = calloc(nvariants ? nvariants : 1, sizeof(*r->variants));
	r->rows = calloc(nrows ? nrows : 1, sizeof(*r->rows));
	r->points = calloc((size_t)(nvariants ? nvariants : 1) * (nrows ? nrows : 1),
			   sizeof(*r->points));
	if (!r->variants || !r->rows || !r->points) {
		results_free(r);
		return -ENOMEM;
	}
	r->nvariants = nvariants;
	r->nrows = nrows;
	r->cv_flag = 0.10;
	r->alpha = 0.05;
	noise_opts_default(&r->noise.opts);
	return 0;
}

void run_sample_free(struct run_sample *s)
{
	free(s->thread_ops);
	free(s->series);
	free(s->counters);
	free(s->thread_reads);
	free(s->thread_kind);
	free(s->lat);
	free(s->extra);
	free(s->perf);
	noise_run_free(&s->noise);
	memset(s, 0, sizeof(*s));
}

static void variant_free(struct variant *v)
{
	free(v->name);
	free(v->lock);
	free(v->label);
	free(v->origin);
	free(v->sha256);
	free(v->loop);
	json_decref(v->params);
	json_decref(v->source);
	for (unsigned i = 0; i < v->ncounters; i++)
		free(v->counter_names[i]);
	free(v->counter_names);
}

void results_free(struct results *r)
{
	for (unsigned i = 0; r->points && i < r->nvariants * r->nrows; i++) {
		for (unsigned k = 0; k < r->points[i].nruns; k++)
			run_sample_free(&r->points[i].runs[k]);
		free(r->points[i].runs);
		free(r->points[i].error);
		free(r->points[i].lat);
		free(r->points[i].perf_sum);
	}
	for (unsigned i = 0; r->variants && i < r->nvariants; i++)
		variant_free(&r->variants[i]);
	free(r->variants);
	for (unsigned i = 0; r->row_desc && i < r->nrows; i++) {
		free(r->row_desc[i].label);
		free(r->row_desc[i].metric);
	}
	free(r->row_desc);
	free(r->base_of);
	free(r->rows);
	free(r->points);
	free(r->variant_heading);
	free(r->row_heading);
	free(r->label);
	free(r->workload);
	json_decref(r->machine);
	json_decref(r->config);
	json_decref(r->placement);
	json_decref(r->calibration);
	json_decref(r->inv_floor);
	json_decref(r->env_diffs);
	json_decref(r->provenance);
	json_decref(r->run_order);
	results_noise_free(&r->noise);
	for (unsigned i = 0; i < r->nperf; i++)
		free(r->perf_names[i]);
	free(r->perf_names);
	memset(r, 0, sizeof(*r));
}

static void *dup_mem(const void *p, size_t n)
{
	void *q;

	if (!p || !n)
		return NULL;
	q = malloc(n);
	if (q)
		memcpy(q, p, n);
	return q;
}

int results_extra_set(struct run_sample *s, const json_t *obj)
{
	free(s->extra);
	s->extra = NULL;
	if (!json_is_object(obj) || !json_object_size(obj))
		return 0;
	s->extra = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
	return s->extra ? 0 : -ENOMEM;
}

json_t *results_extra_get(const struct run_sample *s)
{
	return s->extra ? json_loads(s->extra, JSON_DECODE_ANY, NULL) : NULL;
}

bool results_lt_basis(const struct point *p, unsigned *runs, unsigned *intervals,
		      unsigned *totals, double *secs)
{
	*runs = *intervals = *totals = 0;
	*secs = 0;
	for (unsigned i = 0; i < p->nruns; i++) {
		json_t *x = results_extra_get(&p->runs[i]);
		json_t *lt = json_object_get(x, "locktorture");
		const char *from = json_string_value(json_object_get(lt, "rate_from"));

		if (json_is_object(lt)) {
			(*runs)++;
			if (from && strcmp(from, "intervals")) {
				(*totals)++;
				*secs += json_number_value(json_object_get(lt, "seconds"));
			} else {
				*intervals += (unsigned)json_integer_value(
					json_object_get(lt, "intervals"));
			}
		}
		json_decref(x);
	}
	return *runs > 0;
}

/* Room for `more` runs past p->nruns, doubling: a point of n runs is
 * built in O(n) copies, not O(n^2).  0 or -ENOMEM. */
static int runs_reserve(struct point *p, size_t more)
{
	size_t need = (size_t)p->nruns + more, cap = p->runs_cap;
	struct run_sample *runs;

	if (need <= cap && p->runs)
		return 0;
	if (need > UINT_MAX)
		return -ENOMEM;
	cap = cap < 4 ? 4 : cap;
	while (cap < need)
		cap *= 2;
	cap = cap > UINT_MAX ? UINT_MAX : cap;
	runs = realloc(p->runs, cap * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	p->runs = runs;
	p->runs_cap = (unsigned)cap;
	return 0;
}

int results_take_run(struct results *r, unsigned v, unsigned row,
		     struct run_sample *s)
{
	struct point *p = results_point(r, v, row);

	if (runs_reserve(p, 1))
		return -ENOMEM;
	p->runs[p->nruns++] = *s;
	memset(s, 0, sizeof(*s));
	return 0;
}

int results_move_runs(struct results *r, unsigned v, unsigned row,
		      struct point *src, unsigned *first)
{
	struct point *p = results_point(r, v, row);

	*first = p->nruns;
	if (!src->nruns)
		return 0;
	if (!p->nruns) {
		/* The whole array changes hands. */
		free(p->runs);
		p->runs = src->runs;
		p->runs_cap = src->runs_cap > src->nruns ? src->runs_cap : src->nruns;
	} else {
		if (runs_reserve(p, src->nruns))
			return -ENOMEM;
		memcpy(p->runs + p->nruns, src->runs, src->nruns * sizeof(*src->runs));
		free(src->runs);
	}
	p->nruns += src->nruns;
	src->runs = NULL;
	src->nruns = 0;
	src->runs_cap = 0;
	return 0;
}

int results_add_run(struct results *r, unsigned v, unsigned row,
		    const struct run_sample *s)
{
	struct point *p = results_point(r, v, row);
	struct run_sample *d;

	if (runs_reserve(p, 1))
		return -ENOMEM;
	d = &p->runs[p->nruns];
	*d = *s;
	d->thread_ops = dup_mem(s->thread_ops, s->nthreads * sizeof(uint64_t));
	d->series = dup_mem(s->series, s->nseries * sizeof(double));
	d->counters = dup_mem(s->counters, s->ncounters * sizeof(uint64_t));
	d->extra = s->extra ? strdup(s->extra) : NULL;
	d->thread_reads = dup_mem(s->thread_reads, s->nthreads * sizeof(uint64_t));
	d->thread_kind = dup_mem(s->thread_kind, s->nthreads);
	d->lat = dup_mem(s->lat, s->lat ? sizeof(*s->lat) : 0);
	d->perf = dup_mem(s->perf, s->nperf * sizeof(double));
	if (noise_run_dup(&d->noise, &s->noise) |
	    ((s->nthreads && s->thread_reads && !d->thread_reads) ||
	     (s->nthreads && s->thread_kind && !d->thread_kind) ||
	     (s->lat && !d->lat) ||
	     (s->nthreads && s->thread_ops && !d->thread_ops) ||
	     (s->nseries && s->series && !d->series) ||
	     (s->ncounters && s->counters && !d->counters) ||
	     (s->nperf && s->perf && !d->perf) ||
	     (s->extra && !d->extra))) {
		run_sample_free(d);
		return -ENOMEM;
	}
	p->nruns++;
	return 0;
}

int results_set_perf_names(struct results *r, const char *const *names, unsigned n)
{
	char **v = calloc(n ? n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		if (!(v[i] = strdup(names[i]))) {
			while (i--)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
	}
	for (unsigned i = 0; i < r->nperf; i++)
		free(r->perf_names[i]);
	free(r->perf_names);
	r->perf_names = v;
	r->nperf = n;
	return 0;
}

int results_alloc_row_desc(struct results *r)
{
	if (r->row_desc)
		return 0;
	r->row_desc = calloc(r->nrows ? r->nrows : 1, sizeof(*r->row_desc));
	return r->row_desc ? 0 : -ENOMEM;
}

const char *results_row_name(const struct results *r, unsigned row,
			     char *buf, size_t len)
{
	if (r->row_desc && r->row_desc[row].label)
		snprintf(buf, len, "%s", r->row_desc[row].label);
	else
		snprintf(buf, len, "%u", r->rows[row]);
	return buf;
}

/* Throughputs of a point's included runs (run_included()) into x
 * (caller-sized); returns the count. */
static unsigned point_rates(const struct point *p, double *x)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nruns; i++)
		if (run_included(&p->runs[i]))
			x[n++] = p->runs[i].ops_per_sec;
	return n;
}

/* Warm-up still trending: a window whose series moves by more than this. */
#define TREND_THRESH 0.10

/* One run's per-thread fairness and its trend flag. */
void run_sample_derive(struct run_sample *s)
{
	double *x = malloc((s->nthreads + 1) * sizeof(*x));

	s->trending = stats_trend(s->series, s->nseries, TREND_THRESH, &s->trend_pct);
	s->lat_p50 = s->lat ? hist_quantile(s->lat, 0.5) : 0;
	s->lat_p99 = s->lat ? hist_quantile(s->lat, 0.99) : 0;
	s->lat_p999 = s->lat ? hist_quantile(s->lat, 0.999) : 0;
	s->fair_jain = NAN;
	s->fair_min = s->fair_max = 0;
	s->fair_lt_unfair = s->unfair_reported;
	if (!x || !s->thread_ops || !s->nthreads) {
		free(x);
		return;
	}
	s->fair_min = UINT64_MAX;
	for (unsigned t = 0; t < s->nthreads; t++) {
		x[t] = (double)s->thread_ops[t];
		s->fair_min = s->thread_ops[t] < s->fair_min ? s->thread_ops[t] : s->fair_min;
		s->fair_max = s->thread_ops[t] > s->fair_max ? s->thread_ops[t] : s->fair_max;
	}
	s->fair_jain = stats_jain(x, s->nthreads);
	s->fair_lt_unfair |= s->nthreads > 1 &&
			     stats_lt_unfair((double)s->fair_min, (double)s->fair_max);
	free(x);
}

const char *run_thread_kind(const struct run_sample *s, unsigned t)
{
	if (!s->thread_kind || t >= s->nthreads)
		return "mixed";
	return s->thread_kind[t] == 'r' ? "reader" : s->thread_kind[t] == 'w' ? "writer"
									       : "mixed";
}

/* Fairness: mean Jain index over runs; locktorture's flag if any run. */
static void point_fairness(struct point *p)
{
	double sum = 0;
	unsigned n = 0;

	p->lt_unfair = false;
	for (unsigned i = 0; i < p->nruns; i++) {
		struct run_sample *s = &p->runs[i];

		run_sample_derive(s);
		if (!run_included(s))
			continue;
		p->lt_unfair |= s->fair_lt_unfair;
		if (isnan(s->fair_jain))
			continue;
		sum += s->fair_jain;
		n++;
	}
	p->jain = n ? sum / n : NAN;
}

/* Handovers per second of the included runs that counted them: their
 * mean and std (NAN: none; docs/method.md, "Handovers"). */
static void point_xfer(struct point *p)
{
	double sum = 0, sq = 0, x;
	unsigned n = 0;

	for (unsigned i = 0; i < p->nruns; i++) {
		const struct run_sample *s = &p->runs[i];

		if (!run_included(s) || !s->has_hand || s->hand_xfer == UINT64_MAX ||
		    !(s->window_s > 0))
			continue;
		x = (double)s->hand_xfer / s->window_s;
		sum += x;
		sq += x * x;
		n++;
	}
	p->xfer_rate = n ? sum / n : NAN;
	x = n > 1 ? (sq - sum * sum / n) / (n - 1) : 0;
	p->xfer_std = n ? sqrt(x > 0 ? x : 0) : NAN;
	p->xfer_rel = NAN;
}

/* Latency merged over runs; handover shares; read/write rates; trends. */
static void point_metrics(struct point *p)
{
	uint64_t hn = 0, hnode = 0, hl3 = 0, hcore = 0;
	double rd = 0, wr = 0;
	unsigned nrw = 0;

	free(p->lat);
	p->lat = NULL;
	p->trending_runs = 0;
	for (unsigned i = 0; i < p->nruns; i++) {
		const struct run_sample *s = &p->runs[i];

		p->trending_runs += s->trending;
		if (s->lat && (p->lat || (p->lat = calloc(1, sizeof(*p->lat)))))
			hist_merge(p->lat, s->lat);
		if (s->has_hand) {
			hn += s->hand_n;
			hnode += s->hand_node;
			hl3 += s->hand_l3;
			hcore += s->hand_core;
		}
		if (s->has_rw && s->window_s > 0) {
			rd += (double)s->read_ops / s->window_s;
			wr += (double)(s->ops - s->read_ops) / s->window_s;
			nrw++;
		}
	}
	p->lat_p50 = p->lat ? hist_quantile(p->lat, 0.5) : 0;
	p->lat_p99 = p->lat ? hist_quantile(p->lat, 0.99) : 0;
	p->lat_p999 = p->lat ? hist_quantile(p->lat, 0.999) : 0;
	p->hand_node = hn ? (double)hnode / (double)hn : NAN;
	p->hand_l3 = hn ? (double)hl3 / (double)hn : NAN;
	p->hand_core = hn ? (double)hcore / (double)hn : NAN;
	p->read_rate = nrw ? rd / nrw : NAN;
	p->write_rate = nrw ? wr / nrw : NAN;
	point_xfer(p);
}

/* A run usable in a test: its invocation, round and log rate. */
struct obs {
	unsigned inv, seq;
	double lx;
};

static int cmp_obs(const void *pa, const void *pb)
{
	const struct obs *a = pa, *b = pb;

	if (a->inv != b->inv)
		return (a->inv > b->inv) - (a->inv < b->inv);
	return (a->seq > b->seq) - (a->seq < b->seq);
}

/* p's runs (not excluded, rate > 0) into o[], sorted; returns how many.
 * The one accessor every test takes a point's runs through: a run the
 * harness left out (run_sample.noise.excluded) never enters a test. */
static unsigned point_obs(const struct point *p, struct obs *o)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nruns; i++) {
		const struct run_sample *s = &p->runs[i];

		if (run_included(s) && s->ops_per_sec > 0)
			o[n++] = (struct obs){s->invocation, s->seq, log(s->ops_per_sec)};
	}
	qsort(o, n, sizeof(*o), cmp_obs);
	return n;
}

/* Per-invocation mean log rate of sorted o[0..n-1] into inv[]/m[];
 * returns how many invocations. */
static unsigned inv_means(const struct obs *o, unsigned n, unsigned *inv, double *m)
{
	unsigned k = 0;

	for (unsigned i = 0, j; i < n; i = j) {
		double sum = 0;

		for (j = i; j < n && o[j].inv == o[i].inv; j++)
			sum += o[j].lx;
		inv[k] = o[i].inv;
		m[k++] = sum / (j - i);
	}
	return k;
}

/*
 * Log ratios of the runs of a and b made in the same invocation and
 * round, into d[]; with by_inv, one value per invocation instead: the
 * mean of its rounds' log ratios (or of the difference of its means
 * when no round pairs).  Returns how many values.
 */
static unsigned paired_logs(const struct obs *a, unsigned na, const struct obs *b,
			    unsigned nb, bool by_inv, double *d)
{
	unsigned n = 0, i = 0, j = 0;

	while (i < na && j < nb) {
		unsigned inv = a[i].inv, i1 = i, j1 = j, k = 0;
		double sum = 0, ma = 0, mb = 0;

		if (a[i].inv != b[j].inv) {
			if (a[i].inv < b[j].inv)
				i++;
			else
				j++;
			continue;
		}
		while (i1 < na && a[i1].inv == inv)
			ma += a[i1++].lx;
		while (j1 < nb && b[j1].inv == inv)
			mb += b[j1++].lx;
		for (unsigned x = i, y = j; x < i1 && y < j1;) {
			if (a[x].seq == b[y].seq) {
				if (by_inv)
					sum += a[x].lx - b[y].lx, k++;
				else
					d[n++] = a[x].lx - b[y].lx;
				x++, y++;
			} else if (a[x].seq < b[y].seq) {
				x++;
			} else {
				y++;
			}
		}
		if (by_inv)
			d[n++] = k ? sum / k : ma / (i1 - i) - mb / (j1 - j);
		i = i1;
		j = j1;
	}
	return n;
}

static bool same_set(const unsigned *a, unsigned na, const unsigned *b, unsigned nb)
{
	return na == nb && !memcmp(a, b, na * sizeof(*a));
}

/* The log rates of sorted o[0..n-1] into x[] and the runs of each of
 * its invocations into sizes[]; returns how many invocations. */
static unsigned inv_sizes(const struct obs *o, unsigned n, double *x, unsigned *sizes)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		x[i] = o[i].lx;
		if (!i || o[i].inv != o[i - 1].inv)
			sizes[k++] = 0;
		sizes[k - 1]++;
	}
	return k;
}

/* The log-scale smallest detectable difference `d` as a change in
 * percent: NAN when there is none, or when nothing varies (any change
 * then shows). */
static double mde_pct_of(double d)
{
	return isnan(d) || d == 0 ? NAN : (exp(d) - 1) * 100;
}

/*
 * The smallest change in percent a Welch test on the invocation means
 * of a and b could have detected with 80% power at r->alpha, from the
 * variances at both levels (stats_mde_two_level); NAN when a side has
 * fewer than 2 invocations, neither side varies, or memory runs out.
 */
static double point_mde(const struct results *r, const struct obs *a, unsigned na,
			const struct obs *b, unsigned nb)
{
	double *x = malloc((na + nb + 1) * sizeof(*x));
	unsigned *sz = malloc((na + nb + 1) * sizeof(*sz));
	struct two_level la, lb;
	double d = NAN;

	if (x && sz) {
		unsigned k = inv_sizes(a, na, x, sz);

		stats_two_level(x, sz, k, &la);
		k = inv_sizes(b, nb, x, sz);
		stats_two_level(x, sz, k, &lb);
		d = stats_mde_two_level(&la, &lb, r->alpha, RESULTS_MDE_POWER);
	}
	free(x);
	free(sz);
	/* No spread at all (e.g. a file of imported means): nothing to
	 * state a power from. */
	return mde_pct_of(d);
}

/* Welch on the log rates of the runs of a and b (SIG_FLOOR). */
static void runs_welch(const struct obs *a, unsigned na, const struct obs *b,
		       unsigned nb, double *x, double *y, struct sigtest *t)
{
	for (unsigned i = 0; i < na; i++)
		x[i] = a[i].lx;
	for (unsigned i = 0; i < nb; i++)
		y[i] = b[i].lx;
	stats_welch(x, na, y, nb, t);
}

/*
 * The paired tests' smallest detectable mean log ratio: from the
 * standard error the test used (the mean over t; below ten values,
 * nothing trimmed, sd / sqrt(n)), n - 1 degrees of freedom.
 */
static double paired_mde(const struct results *r, const double *d, unsigned n,
			 const struct sigtest *t, double tmean)
{
	double se, s = 0, m = 0;

	if (n < 2 || !t->valid)
		return NAN;
	if (isfinite(t->stat) && t->stat != 0 && isfinite(tmean) && tmean != 0) {
		se = fabs(tmean / t->stat);
	} else {
		for (unsigned i = 0; i < n; i++)
			m += d[i] / n;
		for (unsigned i = 0; i < n; i++)
			s += (d[i] - m) * (d[i] - m);
		se = sqrt(s / (n - 1) / n);
	}
	return mde_pct_of(stats_mde(se, isfinite(t->df) ? t->df : n - 1, r->alpha,
				    RESULTS_MDE_POWER));
}

/* SIG_FLOOR: the runs' Welch test's smallest detectable difference of
 * the mean log rates, never below the floor (a change must exceed it). */
static double floor_mde(const struct results *r, const double *x, unsigned na,
			const double *y, unsigned nb, const struct sigtest *t)
{
	struct summary a, b;
	double d;

	if (!t->valid)
		return NAN;
	stats_summarize(x, na, &a);
	stats_summarize(y, nb, &b);
	d = mde_pct_of(stats_mde(sqrt(a.std * a.std / na + b.std * b.std / nb), t->df,
				 r->alpha, RESULTS_MDE_POWER));
	return isnan(d) || d < r->floor_pct ? r->floor_pct : d;
}

/*
 * No test in use can reach alpha with the runs given: the t tests need
 * 2 values a side (Welch) or 2 pairs, and with one invocation a side
 * and no floor nothing varies between processes to test against.
 * runs_needed is the -r that lets the within-invocation tests reach it
 * (0 when runs are not what is missing); `left` says runs of either
 * point were left out for a busy machine, so that more were asked for
 * and the cause is the machine, not -r (why: UNJ_LEFT_OUT).
 */
static void point_unjudged(struct point *p, unsigned ka, unsigned kb, bool left)
{
	p->unjudged = p->method == SIG_TOO_FEW || p->method == SIG_ONE_INVOC;
	p->runs_needed = p->method == SIG_TOO_FEW && (ka == 1 || kb == 1) && !left ? 2 : 0;
	p->why = !p->unjudged ? UNJ_NONE : p->method == SIG_ONE_INVOC ? UNJ_ONE_INVOC :
		 left ? UNJ_LEFT_OUT : p->runs_needed ? UNJ_RUNS : UNJ_INVOCATIONS;
}

/*
 * The test of p against the baseline b follows how the runs were made
 * (Kalibera & Jones, "Rigorous benchmarking in reasonable time", ISMM
 * 2013: the replicate is the highest level that varies).  Rounds are
 * blocks: the runs of one round ran back to back, interleaved, in one
 * process, so within an invocation the runs are paired by round and
 * the per-round log ratios tested with a t test, trimmed from ten
 * rounds on (one wild round of ten is cut; below ten every pair is
 * kept, so that 5 rounds keep 4 degrees of freedom: docs/method.md,
 * "Statistics", has the figures that chose it).  Across invocations the runs of one process are not
 * independent replicates: one value per invocation is tested.  With
 * one invocation on a side the variation between processes is not
 * estimated: without an invocation floor nothing can be said; with
 * one, the runs are tested (Welch on their log rates) and the floor
 * stands for the variation between processes (results_holm).
 */
static void point_test(const struct results *r, struct point *p, const struct point *b)
{
	unsigned n = p->nruns + b->nruns + 2;
	struct obs *oa = malloc(n * sizeof(*oa)), *ob = malloc(n * sizeof(*ob));
	unsigned *ia = malloc(n * sizeof(*ia)), *ib = malloc(n * sizeof(*ib));
	double *ma = malloc(n * sizeof(*ma)), *mb = malloc(n * sizeof(*mb));
	double *d = malloc(n * sizeof(*d)), tmean = NAN;
	unsigned na, nb, ka, kb;

	p->method = SIG_TOO_FEW;
	p->test = (struct sigtest){.valid = false, .stat = NAN, .df = NAN, .p = NAN};
	p->test_n = 0;
	p->mde_pct = NAN;
	if (!oa || !ob || !ia || !ib || !ma || !mb || !d)
		goto out;
	na = point_obs(p, oa);
	nb = point_obs(b, ob);
	ka = inv_means(oa, na, ia, ma);
	kb = inv_means(ob, nb, ib, mb);
	if (same_set(ia, ka, ib, kb)) {
		p->method = ka == 1 ? SIG_ROUNDS : SIG_INVOC_PAIRED;
		p->test_n = paired_logs(oa, na, ob, nb, ka > 1, d);
		stats_trimmed_t1(d, p->test_n, sig_trim(p->test_n), &p->test, &tmean);
		p->mde_pct = paired_mde(r, d, p->test_n, &p->test, tmean);
	} else if ((ka < 2 || kb < 2) && isnan(r->floor_pct)) {
		p->method = SIG_ONE_INVOC;
		p->test_n = ka < kb ? ka : kb;
	} else if (ka < 2 || kb < 2) {
		p->method = SIG_FLOOR;
		p->test_n = na < nb ? na : nb;
		runs_welch(oa, na, ob, nb, ma, mb, &p->test);
		p->mde_pct = floor_mde(r, ma, na, mb, nb, &p->test);
	} else {
		p->method = SIG_INVOC;
		p->test_n = ka < kb ? ka : kb;
		stats_welch(ma, ka, mb, kb, &p->test);
		p->mde_pct = point_mde(r, oa, na, ob, nb);
	}
	if (!p->test.valid && p->method != SIG_ONE_INVOC)
		p->method = SIG_TOO_FEW;
	point_unjudged(p, ka, kb, p->noise.excluded || b->noise.excluded);
out:
	free(oa);
	free(ob);
	free(ia);
	free(ib);
	free(ma);
	free(mb);
	free(d);
}

/* Each perf counter per operation, summarised over the runs that have
 * it (a run without the counter or with no operations is left out). */
static void point_perf(const struct results *r, struct point *p)
{
	double *x = malloc((p->nruns + 1) * sizeof(*x));

	free(p->perf_sum);
	p->perf_sum = r->nperf ? calloc(r->nperf, sizeof(*p->perf_sum)) : NULL;
	for (unsigned e = 0; x && p->perf_sum && e < r->nperf; e++) {
		unsigned n = 0;

		for (unsigned i = 0; i < p->nruns; i++) {
			const struct run_sample *s = &p->runs[i];

			if (e < s->nperf && s->ops && !isnan(s->perf[e]))
				x[n++] = s->perf[e] / (double)s->ops;
		}
		stats_summarize(x, n, &p->perf_sum[e]);
	}
	free(x);
}

static void point_versus(const struct results *r, struct point *p, const struct point *b)
{
	double *x = malloc((p->nruns + 1) * sizeof(*x));
	double *y = malloc((b->nruns + 1) * sizeof(*y));

	p->has_rel = false;
	p->significant = false;
	p->unjudged = false;
	p->runs_needed = 0;
	p->why = UNJ_NONE;
	p->method = SIG_NONE;
	p->p_adj = NAN;
	p->mde_pct = NAN;
	if (x && y && p->status == POINT_OK && b->status == POINT_OK &&
	    p->sum.n && b->sum.n && b->sum.mean != 0) {
		p->has_rel = true;
		p->rel = stats_rel_pct(p->sum.mean, b->sum.mean);
		if (b->xfer_rate > 0)
			p->xfer_rel = stats_rel_pct(p->xfer_rate, b->xfer_rate);
		stats_welch(x, point_rates(p, x), y, point_rates(b, y), &p->welch);
		stats_mann_whitney(x, point_rates(p, x), y, point_rates(b, y), &p->mwu);
		point_test(r, p, b);
	}
	free(x);
	free(y);
}

/*
 * Does one of the log ratios q[0..n-1] (sum `sum`, n >= 2) decide their
 * mean: left out, the others' mean has the other sign (or is 0), or,
 * from three rows, it outweighs all the others together (|q_i| > the
 * sum of the other |q_j|)?  Then a summary would report that row, not
 * the rows.
 */
static bool one_row_decides(const double *q, unsigned n, double sum)
{
	double all = 0;

	for (unsigned i = 0; i < n; i++)
		all += fabs(q[i]);
	for (unsigned i = 0; n >= 2 && i < n; i++)
		if ((sum - q[i]) * sum <= 0 || (n >= 3 && fabs(q[i]) > all - fabs(q[i])))
			return true;
	return false;
}

/*
 * Each variant's geometric mean of its ratios to its baseline, over the
 * rows that are not oversubscribed (geo_over counts those left out: a
 * spin lock at more threads than CPUs can fall by orders of magnitude
 * and would decide the mean alone).  None (geo_n 0, geo_one_row) where
 * one row outweighs the others.
 */
static void results_geomean(struct results *r)
{
	double *q = malloc((r->nrows + 1) * sizeof(*q));

	for (unsigned v = 0; q && v < r->nvariants; v++) {
		struct variant *var = &r->variants[v];
		double sum = 0;

		var->geo_n = var->geo_over = 0;
		var->geo_one_row = false;
		var->geo_rel = NAN;
		for (unsigned row = 0; row < r->nrows && !results_is_base(r, v); row++) {
			const struct point *p = results_point(r, v, row);
			const struct point *b = results_point(r, results_base(r, v), row);

			if (!p->has_rel || !(p->sum.mean > 0) || !(b->sum.mean > 0))
				continue;
			if (r->ncpus && r->rows[row] > r->ncpus) {	/* the `*` rows */
				var->geo_over++;
				continue;
			}
			q[var->geo_n] = log(p->sum.mean / b->sum.mean);
			if (r->row_desc && r->row_desc[row].lower_better)
				q[var->geo_n] = -q[var->geo_n];
			sum += q[var->geo_n++];
		}
		var->geo_one_row = one_row_decides(q, var->geo_n, sum);
		if (var->geo_n && !var->geo_one_row)
			var->geo_rel = (exp(sum / var->geo_n) - 1) * 100;
		if (var->geo_one_row)
			var->geo_n = 0;
	}
	free(q);
}

/*
 * Holm's correction over every test of the results (a sweep makes one
 * per point), then the mark: adjusted p below alpha and a change at
 * least min_effect percent.
 */
static void results_holm(struct results *r)
{
	unsigned n = r->nvariants * r->nrows;
	double *pv = malloc((n + 1) * sizeof(*pv));
	int m;

	r->ntests = 0;
	if (!pv)
		return;
	for (unsigned i = 0; i < n; i++) {
		const struct point *p = &r->points[i];

		pv[i] = p->has_rel && p->test.valid ? p->test.p : NAN;
	}
	m = stats_holm(pv, n, pv);
	r->ntests = m > 0 ? (unsigned)m : 0;
	for (unsigned i = 0; m >= 0 && i < n; i++) {
		struct point *p = &r->points[i];

		p->p_adj = pv[i];
		p->significant = p->has_rel && !isnan(pv[i]) && pv[i] < r->alpha &&
				 fabs(p->rel) >= r->min_effect &&
				 (p->method != SIG_FLOOR || fabs(p->rel) > r->floor_pct);
	}
	free(pv);
}

/*
 * A verdict that knows its power: with a threshold (results.gate_pct),
 * a point tested and not significant whose test could not have seen a
 * change of that size (mde_pct above it) is not called "not
 * significant" but unjudged (UNJ_POWER, the `_` mark): "no difference
 * found" would claim what the test could not see (docs/method.md,
 * "Statistics").
 */
static void results_power(struct results *r)
{
	for (unsigned i = 0; r->gate_pct > 0 && i < r->nvariants * r->nrows; i++) {
		struct point *p = &r->points[i];

		if (p->has_rel && !p->significant && !p->unjudged && p->test.valid &&
		    p->mde_pct > r->gate_pct) {
			p->unjudged = true;
			p->why = UNJ_POWER;
		}
	}
}

void results_mde_range(struct results *r)
{
	r->mde_n = 0;
	r->mde_min = r->mde_max = NAN;
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		double m = r->points[i].mde_pct;

		if (!r->points[i].has_rel || isnan(m))
			continue;
		r->mde_min = r->mde_n && r->mde_min < m ? r->mde_min : m;
		r->mde_max = r->mde_n && r->mde_max > m ? r->mde_max : m;
		r->mde_n++;
	}
}

/* The floor's rel_pct, NAN when there is none (or it is not a number). */
static double floor_of(const json_t *f)
{
	const json_t *v = json_object_get(f, "rel_pct");

	return json_is_number(v) && json_number_value(v) >= 0 ? json_number_value(v) : NAN;
}

void results_finalize(struct results *r)
{
	r->floor_pct = floor_of(r->inv_floor);
	noise_finalize(r);
	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned row = 0; row < r->nrows; row++) {
			struct point *p = results_point(r, v, row);
			double *x = malloc((p->nruns + 1) * sizeof(*x));

			if (!x)
				continue;
			stats_summarize(x, point_rates(p, x), &p->sum);
			p->high_cv = p->sum.n > 1 && p->sum.cv > r->cv_flag;
			point_fairness(p);
			point_metrics(p);
			point_perf(r, p);
			free(x);
		}
	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned row = 0; row < r->nrows; row++)
			if (!results_is_base(r, v))
				point_versus(r, results_point(r, v, row),
					     results_point(r, results_base(r, v), row));
	results_holm(r);
	results_power(r);
	results_mde_range(r);
	results_geomean(r);
	noise_finalize_adaptive(r);
}
