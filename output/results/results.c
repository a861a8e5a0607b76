/* SPDX-License-Identifier: MIT */
#include <errno.h>
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
	json_decref(s->extra);
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
		point_noise_free(&r->points[i].noise);
	}
	for (unsigned i = 0; r->variants && i < r->nvariants; i++)
		variant_free(&r->variants[i]);
	free(r->variants);
	for (unsigned i = 0; r->row_desc && i < r->nrows; i++) {
		free(r->row_desc[i].label);
		free(r->row_desc[i].metric);
	}
	free(r->row_desc);
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
	json_decref(r->run_order);
	results_noise_free(&r->noise);
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

int results_add_run(struct results *r, unsigned v, unsigned row,
		    const struct run_sample *s)
{
	struct point *p = results_point(r, v, row);
	struct run_sample *runs, *d;

	runs = realloc(p->runs, (p->nruns + 1) * sizeof(*runs));
	if (!runs)
		return -ENOMEM;
	p->runs = runs;
	d = &runs[p->nruns];
	*d = *s;
	d->thread_ops = dup_mem(s->thread_ops, s->nthreads * sizeof(uint64_t));
	d->series = dup_mem(s->series, s->nseries * sizeof(double));
	d->counters = dup_mem(s->counters, s->ncounters * sizeof(uint64_t));
	d->extra = s->extra ? json_deep_copy(s->extra) : NULL;
	d->thread_reads = dup_mem(s->thread_reads, s->nthreads * sizeof(uint64_t));
	d->thread_kind = dup_mem(s->thread_kind, s->nthreads);
	d->lat = dup_mem(s->lat, s->lat ? sizeof(*s->lat) : 0);
	if (noise_run_dup(&d->noise, &s->noise) |
	    ((s->nthreads && s->thread_reads && !d->thread_reads) ||
	     (s->nthreads && s->thread_kind && !d->thread_kind) ||
	     (s->lat && !d->lat) ||
	     (s->nthreads && s->thread_ops && !d->thread_ops) ||
	     (s->nseries && s->series && !d->series) ||
	     (s->ncounters && s->counters && !d->counters) ||
	     (s->extra && !d->extra))) {
		run_sample_free(d);
		return -ENOMEM;
	}
	p->nruns++;
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

/* Throughputs of a point's runs into x (caller-sized), leaving out the
 * runs --exclude-flagged excluded; returns the count. */
static unsigned point_rates(const struct point *p, double *x)
{
	unsigned n = 0;

	for (unsigned i = 0; i < p->nruns; i++)
		if (!p->runs[i].noise.excluded)
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
		if (s->noise.excluded)
			continue;
		p->lt_unfair |= s->fair_lt_unfair;
		if (isnan(s->fair_jain))
			continue;
		sum += s->fair_jain;
		n++;
	}
	p->jain = n ? sum / n : NAN;
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
}

static void point_versus(struct results *r, struct point *p,
			 const struct point *b)
{
	double *x = malloc((p->nruns + 1) * sizeof(*x));
	double *y = malloc((b->nruns + 1) * sizeof(*y));

	p->has_rel = false;
	if (x && y && p->status == POINT_OK && b->status == POINT_OK &&
	    p->sum.n && b->sum.n && b->sum.mean != 0) {
		p->has_rel = true;
		p->rel = stats_rel_pct(p->sum.mean, b->sum.mean);
		stats_welch(x, point_rates(p, x), y, point_rates(b, y), &p->welch);
		stats_mann_whitney(x, point_rates(p, x), y, point_rates(b, y), &p->mwu);
		p->significant = p->welch.valid && p->welch.p < r->alpha;
	}
	free(x);
	free(y);
}

void results_finalize(struct results *r)
{
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
			free(x);
		}
	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned row = 0; row < r->nrows; row++)
			if (v != r->baseline)
				point_versus(r, results_point(r, v, row),
					     results_point(r, r->baseline, row));
	noise_finalize_adaptive(r);
}
