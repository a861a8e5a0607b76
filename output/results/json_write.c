/* SPDX-License-Identifier: MIT */
/*
 * The results model as one JSON document, documented in docs/json.md
 * (json_read.c reads it back).  Throughputs are in ops/s: the unit
 * only changes the text formats.  NaN (undefined statistics) is
 * written as null.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"
#include "noise_json.h"

#define LOCKBENCH_JSON_NAME "lockbench-results"

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *u64_array(const uint64_t *v, unsigned n)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

/* Copy the members of the run's extra that `o` does not already have. */
static void add_extra(json_t *o, const struct run_sample *s)
{
	json_t *extra = o ? results_extra_get(s) : NULL, *val;
	const char *key;

	if (!json_is_object(extra)) {
		json_decref(extra);
		return;
	}
	json_object_foreach(extra, key, val)
		if (!json_object_get(o, key))
			json_object_set(o, key, val);
	json_decref(extra);
}

/* ---- workload metrics (schema 1.2) ----------------------------------- */

/* The histogram's non-empty buckets: [lo, hi, count] each (hi: null for
 * the open last bucket). */
static json_t *hist_buckets_json(const struct hist *h)
{
	json_t *a = json_array();

	for (unsigned b = 0; b < HIST_BUCKETS; b++)
		if (h->count[b])
			json_array_append_new(a, json_pack("[I, o, I]",
				(json_int_t)hist_bucket_lo(b),
				b == HIST_BUCKETS - 1 ? json_null()
						      : json_integer((json_int_t)hist_bucket_hi(b)),
				(json_int_t)h->count[b]));
	return a;
}

/* Sampled acquisition latency: percentiles in ns and the buckets. */
static json_t *latency_json(const struct hist *h, unsigned every,
			    const unsigned long long q[3], bool buckets)
{
	json_t *o;

	if (!h)
		return json_null();
	o = json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:o}",
		      "sample_every", every, "samples", (json_int_t)h->n,
		      "sum_ns", (json_int_t)h->sum,
		      "p50_ns", (json_int_t)q[0], "p99_ns", (json_int_t)q[1],
		      "p999_ns", (json_int_t)q[2],
		      "max_ns", (json_int_t)h->max,
		      "mean_ns", h->n ? json_real((double)h->sum / (double)h->n) : json_null());
	if (o && buckets)
		json_object_set_new(o, "buckets", hist_buckets_json(h));
	return o;
}

static json_t *frac(uint64_t a, uint64_t n)
{
	return n ? json_real((double)a / (double)n) : json_null();
}

/* Reads and writes of an rw run, with each thread's kind. */
static json_t *rw_json(const struct run_sample *s)
{
	json_t *kind = json_array();

	if (!s->has_rw) {
		json_decref(kind);
		return json_null();
	}
	for (unsigned t = 0; s->thread_kind && t < s->nthreads; t++)
		json_array_append_new(kind, json_string(run_thread_kind(s, t)));
	return json_pack("{s:I, s:I, s:o, s:o, s:o}",
			 "read_ops", (json_int_t)s->read_ops,
			 "write_ops", (json_int_t)(s->ops - s->read_ops),
			 "thread_reads", u64_array(s->thread_reads,
						   s->thread_reads ? s->nthreads : 0),
			 "thread_kind", kind,
			 "reads_per_sec", num(s->window_s > 0 ? (double)s->read_ops / s->window_s
							     : NAN));
}

/* The handovers proper (lock from one thread to another, docs/method.md,
 * "Handovers") into o: their count, per second of the window and ns per
 * handover (null without any, or when the source did not count them). */
static void xfer_json(json_t *o, const struct run_sample *s)
{
	bool known = s->hand_xfer != UINT64_MAX && s->window_s > 0;

	if (!o)
		return;
	json_object_set_new(o, "handovers", s->hand_xfer != UINT64_MAX ?
			    json_integer((json_int_t)s->hand_xfer) : json_null());
	json_object_set_new(o, "handovers_per_sec",
			    num(known ? (double)s->hand_xfer / s->window_s : NAN));
	json_object_set_new(o, "ns_per_handover",
			    num(known && s->hand_xfer ? s->window_s * 1e9 / (double)s->hand_xfer
						      : NAN));
}

static json_t *handover_json(const struct run_sample *s)
{
	json_t *o;

	if (!s->has_hand)
		return json_null();
	o = json_pack("{s:I, s:I, s:I, s:I, s:o, s:o, s:o}",
		      "acquisitions", (json_int_t)s->hand_n,
		      "same_node", (json_int_t)s->hand_node,
		      "same_l3", (json_int_t)s->hand_l3,
		      "same_core", (json_int_t)s->hand_core,
		      "same_node_frac", frac(s->hand_node, s->hand_n),
		      "same_l3_frac", frac(s->hand_l3, s->hand_n),
		      "same_core_frac", frac(s->hand_core, s->hand_n));
	xfer_json(o, s);
	return o;
}

/* A point's handover object: the same-X shares and the handovers per
 * second over its runs (null when it has neither). */
static json_t *point_handover_json(const struct point *p)
{
	if (isnan(p->hand_node) && isnan(p->xfer_rate))
		return json_null();
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}",
			 "same_node_frac", num(p->hand_node),
			 "same_l3_frac", num(p->hand_l3),
			 "same_core_frac", num(p->hand_core),
			 "handovers_per_sec", num(p->xfer_rate),
			 "handovers_per_sec_std", num(p->xfer_std),
			 "ns_per_handover", num(p->xfer_rate > 0 ? 1e9 / p->xfer_rate : NAN));
}

/* The 1.2 members of a run. */
static void run_metrics_json(json_t *o, const struct run_sample *s)
{
	unsigned long long q[3] = {s->lat_p50, s->lat_p99, s->lat_p999};

	if (!o)
		return;
	json_object_set_new(o, "rw", rw_json(s));
	json_object_set_new(o, "latency", latency_json(s->lat, s->lat_sample, q, true));
	json_object_set_new(o, "handover", handover_json(s));
	json_object_set_new(o, "fairness", s->thread_ops && s->nthreads ?
		json_pack("{s:I, s:I, s:o, s:b}", "min", (json_int_t)s->fair_min,
			  "max", (json_int_t)s->fair_max, "jain", num(s->fair_jain),
			  "lt_unfair", s->fair_lt_unfair) : json_null());
	json_object_set_new(o, "trend", json_pack("{s:b, s:o}", "trending", s->trending,
						  "change_pct", num(s->trend_pct)));
}

/* The 1.2 members of a point: over its runs. */
static void point_metrics_json(json_t *o, const struct point *p)
{
	unsigned every = p->nruns ? p->runs[0].lat_sample : 0;
	unsigned long long q[3] = {p->lat_p50, p->lat_p99, p->lat_p999};

	if (!o)
		return;
	json_object_set_new(o, "latency", latency_json(p->lat, every, q, false));
	json_object_set_new(o, "handover", point_handover_json(p));
	json_object_set_new(o, "rw", isnan(p->read_rate) ? json_null() :
		json_pack("{s:o, s:o}", "reads_per_sec", num(p->read_rate),
			  "writes_per_sec", num(p->write_rate)));
	json_object_set_new(o, "trending_runs", json_integer(p->trending_runs));
}

/* ---- end of workload metrics ----------------------------------------- */

/* ---- perf counters (schema 1.3) --------------------------------------- */

/* A run's counters: {name: {"total", "per_op"}}, null when none. */
static json_t *run_perf_json(const struct results *r, const struct run_sample *s)
{
	json_t *o;

	if (!s->nperf || !s->perf)
		return json_null();
	o = json_object();
	for (unsigned i = 0; i < s->nperf && i < r->nperf; i++)
		json_object_set_new(o, r->perf_names[i],
			json_pack("{s:o, s:o}", "total", num(s->perf[i]),
				  "per_op", num(s->ops ? s->perf[i] / (double)s->ops : NAN)));
	return json_pack("{s:o, s:b}", "events", o, "scaled", s->perf_scaled);
}

static json_t *summary_json(const struct summary *s);

/* A point's counters per operation over its runs, null when none. */
static json_t *point_perf_json(const struct results *r, const struct point *p)
{
	json_t *o;

	if (!r->nperf || !p->perf_sum)
		return json_null();
	o = json_object();
	for (unsigned i = 0; i < r->nperf; i++)
		json_object_set_new(o, r->perf_names[i], summary_json(&p->perf_sum[i]));
	return o;
}

static json_t *run_json(const struct results *r, const struct variant *var,
			const struct run_sample *s)
{
	json_t *series = json_array(), *counters = json_object(), *o;

	for (unsigned i = 0; i < s->nseries; i++)
		json_array_append_new(series, num(s->series[i]));
	for (unsigned i = 0; i < s->ncounters && i < var->ncounters; i++)
		json_object_set_new(counters, var->counter_names[i],
				    json_integer((json_int_t)s->counters[i]));
	o = json_pack("{s:i, s:o, s:I, s:o, s:o, s:{s:b, s:b, s:I, s:I, s:I}, s:o, s:o}",
			 "seq", s->seq, "window_s", num(s->window_s),
			 "ops", (json_int_t)s->ops, "ops_per_sec", num(s->ops_per_sec),
			 "thread_ops", u64_array(s->thread_ops, s->thread_ops ? s->nthreads : 0),
			 "exclusion", "checked", s->exclusion_checked, "ok", s->exclusion_ok,
			 "total_ops", (json_int_t)s->total_ops,
			 "counter", (json_int_t)s->counter,
			 "violations", (json_int_t)s->violations,
			 "series", series, "counters", counters);
	noise_run_add_json(o, &s->noise);
	/* A kernel tree's own lock event counters (--lock-events,
	 * docs/kernel-tree.md): the lock's counters, by the tree's names. */
	if (o && json_is_true(json_object_get(var->source, "lock_events")))
		json_object_set(o, "lock_events", counters);
	if (o && s->invocation)
		json_object_set_new(o, "invocation", json_integer(s->invocation));
	if (o)
		json_object_set_new(o, "lock_node", s->lock_node >= 0
						    ? json_integer(s->lock_node) : json_null());
	run_metrics_json(o, s);
	if (o)
		json_object_set_new(o, "perf", run_perf_json(r, s));
	if (o && s->unfair_reported)
		json_object_set_new(o, "unfair_reported", json_true());
	add_extra(o, s);
	/* A run read from a file keeps the exclusion it was written with. */
	if (o && !s->noise.present && json_object_get(o, "excluded"))
		json_object_set_new(o, "excluded", json_boolean(s->noise.excluded));
	return o;
}

/* A statistic over the runs kept: over none (every run left out) there
 * is no mean, median, least or most: null, never a 0 that reads as a
 * measured rate. */
static json_t *kept_num(const struct summary *s, double x)
{
	return num(s->n ? x : NAN);
}

static json_t *summary_json(const struct summary *s)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:[o, o], s:o}",
			 "n", s->n, "mean", kept_num(s, s->mean), "hmean", kept_num(s, s->hmean),
			 "std", num(s->std),
			 "median", kept_num(s, s->median), "min", kept_num(s, s->min),
			 "max", kept_num(s, s->max), "cv", num(s->cv),
			 "ci95", num(s->ci95_lo), num(s->ci95_hi),
			 "ci95_half", num(s->ci95_half));
}

static json_t *test_json(const struct sigtest *t, const char *stat)
{
	if (!t->valid)
		return json_null();
	return json_pack("{s:o, s:o, s:o}", stat, num(t->stat), "df", num(t->df),
			 "p", num(t->p));
}

static const char *const sig_method_names[] = {
	[SIG_NONE] = "none",
	[SIG_ROUNDS] = "rounds",
	[SIG_INVOC_PAIRED] = "invocations-paired",
	[SIG_INVOC] = "invocations",
	[SIG_ONE_INVOC] = "one-invocation",
	[SIG_TOO_FEW] = "too-few",
	[SIG_FLOOR] = "invocation-floor",
};

/* vs_baseline.test.unjudged: why the point is marked `_` (results.h). */
static const char *const unjudged_names[] = {
	[UNJ_NONE] = NULL,
	[UNJ_RUNS] = "runs",
	[UNJ_LEFT_OUT] = "left-out",
	[UNJ_INVOCATIONS] = "invocations",
	[UNJ_ONE_INVOC] = "one-invocation",
	[UNJ_POWER] = "power",
};

/* vs_baseline.test: how the mark was decided. */
static json_t *sig_json(const struct point *p)
{
	const struct sigtest *t = &p->test;

	return json_pack("{s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o}",
			 "method", sig_method_names[p->method], "n", p->test_n,
			 "stat", t->valid ? num(t->stat) : json_null(),
			 "df", t->valid ? num(t->df) : json_null(),
			 "p", t->valid ? num(t->p) : json_null(),
			 "p_holm", t->valid ? num(p->p_adj) : json_null(),
			 "mde_pct", num(p->mde_pct),
			 "too_few_runs", p->unjudged && p->why != UNJ_POWER,
			 "runs_needed", p->runs_needed ? json_integer(p->runs_needed)
						       : json_null(),
			 "unjudged", str_or_null(p->unjudged ? unjudged_names[p->why] : NULL));
}

/* Point (v, row) with `runs` as its runs (a reference is taken over). */
static json_t *point_json_with(const struct results *r, unsigned v, unsigned row,
			       json_t *runs)
{
	const struct point *p = results_point(r, v, row);
	json_t *o;

	o = json_pack("{s:s, s:i, s:i, s:i, s:s, s:o, s:b, s:o, s:o, s:b, s:{s:o, s:b}}",
		      "variant", r->variants[v].name, "variant_index", v,
		      "threads", r->rows[row], "row_index", row,
		      "status", point_status_name(p->status),
		      "error", str_or_null(p->error),
		      "oversubscribed", r->ncpus && r->rows[row] > r->ncpus,
		      "runs", runs, "summary", summary_json(&p->sum),
		      "high_cv", p->high_cv,
		      "fairness", "jain", num(p->jain), "lt_unfair", p->lt_unfair);
	point_metrics_json(o, p);
	if (o)
		json_object_set_new(o, "perf_per_op", point_perf_json(r, p));
	if (p->has_rel)
		json_object_set_new(o, "vs_baseline",
				    json_pack("{s:s, s:o, s:o, s:o, s:o, s:b}",
					      "baseline", r->variants[results_base(r, v)].name,
					      "rel_pct", num(p->rel),
					      "welch", test_json(&p->welch, "t"),
					      "mann_whitney", test_json(&p->mwu, "u"),
					      "test", sig_json(p),
					      "significant", p->significant));
	else
		json_object_set_new(o, "vs_baseline", json_null());
	noise_point_add_json(o, r, p);
	return o;
}

static json_t *point_json(const struct results *r, unsigned v, unsigned row)
{
	const struct point *p = results_point(r, v, row);
	json_t *runs = json_array();

	for (unsigned i = 0; i < p->nruns; i++)
		json_array_append_new(runs, run_json(r, &r->variants[v], &p->runs[i]));
	return point_json_with(r, v, row, runs);
}

static json_t *variant_json(const struct variant *v)
{
	json_t *names = json_array();

	for (unsigned i = 0; i < v->ncounters; i++)
		json_array_append_new(names, json_string(v->counter_names[i]));
	json_t *o = json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:b}", "name", v->name,
			      "lock", str_or_null(v->lock), "label", str_or_null(v->label),
			      "plugin", str_or_null(v->origin), "plugin_sha256",
			      str_or_null(v->sha256), "counters", names,
			      "geomean_rel_pct", num(v->geo_rel), "geomean_points", v->geo_n,
			      "geomean_oversubscribed_left_out", v->geo_over,
			      "geomean_one_row_decides", v->geo_one_row);

	if (o && v->kernel)
		json_object_set_new(o, "kernel", json_true());
	if (o && v->loop)
		json_object_set_new(o, "loop", json_string(v->loop));
	if (o && v->params)
		json_object_set(o, "params", v->params);
	if (o && v->source)
		json_object_set(o, "source", v->source);
	return o;
}

static json_t *keep(json_t *j)
{
	return j ? json_incref(j) : json_null();
}

/* Row descriptions, or null for plain thread-count rows. */
static json_t *row_desc_json(const struct results *r)
{
	json_t *a;

	if (!r->row_desc)
		return json_null();
	a = json_array();
	for (unsigned i = 0; i < r->nrows; i++) {
		const struct row_desc *d = &r->row_desc[i];

		json_array_append_new(a, json_pack("{s:o, s:o, s:s}",
			"label", str_or_null(d->label), "metric", str_or_null(d->metric),
			"better", d->lower_better ? "lower" : "higher"));
	}
	return a;
}

/* The document with `points` as its points (a reference is taken over). */
static json_t *doc_json_with(const struct results *r, json_t *points)
{
	json_t *doc, *variants = json_array(), *rows = json_array();

	for (unsigned v = 0; v < r->nvariants; v++)
		json_array_append_new(variants, variant_json(&r->variants[v]));
	for (unsigned row = 0; row < r->nrows; row++)
		json_array_append_new(rows, json_integer(r->rows[row]));
	doc = json_pack("{s:s, s:s, s:{s:s, s:s}, s:o, s:b, s:s, s:s, s:s, s:s, s:s, s:s,"
			" s:i, s:f, s:f}",
			"schema", LOCKBENCH_JSON_NAME, "schema_version", RESULTS_SCHEMA_VERSION,
			"tool", "name", "lockbench", "version", LOCKBENCH_VERSION,
			"label", str_or_null(r->label), "incomplete", r->incomplete,
			"workload", r->workload ? r->workload : "cs",
			"variant_heading", r->variant_heading,
			"row_heading", r->row_heading, "unit", "ops/s", "std", "sample",
			"baseline", r->variants[r->baseline].name, "ncpus", r->ncpus,
			"cv_flag", r->cv_flag, "alpha", r->alpha);
	if (!doc) {
		json_decref(variants);
		json_decref(rows);
		json_decref(points);
		return NULL;
	}
	json_object_set_new(doc, "significance", json_pack("{s:s, s:f, s:f, s:o, s:i, s:o}",
		"correction", "holm", "trim", SIG_TRIM, "min_effect_pct", r->min_effect,
		"threshold_pct", r->gate_pct > 0 ? json_real(r->gate_pct) : json_null(),
		"tests", r->ntests, "mde_pct", r->mde_n ? json_pack("{s:o, s:o, s:i, s:f}",
			"min", num(r->mde_min), "max", num(r->mde_max), "points", r->mde_n,
			"power", RESULTS_MDE_POWER) : json_null()));
	json_object_set_new(doc, "invocation_floor", keep(r->inv_floor));
	if (r->env_diffs)
		json_object_set_new(doc, "environment_differences", keep(r->env_diffs));
	json_object_set_new(doc, "provenance", keep(r->provenance));
	json_object_set_new(doc, "machine", keep(r->machine));
	json_object_set_new(doc, "config", keep(r->config));
	json_object_set_new(doc, "calibration", keep(r->calibration));
	json_object_set_new(doc, "placement", keep(r->placement));
	json_object_set_new(doc, "run_order", keep(r->run_order));
	json_object_set_new(doc, "noise", noise_results_json(r));
	json_object_set_new(doc, "variants", variants);
	json_object_set_new(doc, "rows", rows);
	json_object_set_new(doc, "row_desc", row_desc_json(r));
	json_object_set_new(doc, "points", points);
	return doc;
}

json_t *results_to_json(const struct results *r)
{
	json_t *points = json_array();

	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned row = 0; row < r->nrows; row++)
			json_array_append_new(points, point_json(r, v, row));
	return doc_json_with(r, points);
}

/*
 * Streaming.  The document of a long sweep or of a large imported log
 * does not fit in memory as one jansson tree (about twenty times its
 * text), so results_write_json() writes it piece by piece: the document
 * with a mark where the points go, each point with a mark where its
 * runs go, each run on its own, and splices them in the layout
 * json_dumpf() would give the whole (JSON_INDENT(1): an array's
 * elements one level below the line of its member, "," between them,
 * "[]" when empty).  The output is byte for byte that of dumping
 * results_to_json().
 */
#define STREAM_MARK "\001lockbench-stream\001"
#define STREAM_MARK_DUMPED "\"\\u0001lockbench-stream\\u0001\""
#define DUMP_FLAGS (JSON_INDENT(1) | JSON_PRESERVE_ORDER)

/* The elements of a streamed array: element i, a new reference, whose
 * own streamed array (if any) *inner describes. */
struct stream {
	const struct results *r;
	unsigned n, v, row;
	json_t *(*elem)(const struct stream *st, unsigned i, struct stream *inner);
};

/* n bytes of text with `pad` spaces after every newline. */
static void put_padded(FILE *f, const char *text, size_t n, unsigned pad)
{
	const char *nl;

	while (n && (nl = memchr(text, '\n', n))) {
		fwrite(text, 1, (size_t)(nl + 1 - text), f);
		fprintf(f, "%*s", (int)pad, "");
		n -= (size_t)(nl + 1 - text);
		text = nl + 1;
	}
	fwrite(text, 1, n, f);
}

static int dump_streamed(json_t *o, FILE *f, unsigned pad, const struct stream *st)
{
	char *txt = o ? json_dumps(o, DUMP_FLAGS) : NULL, *at, *line;
	unsigned ind;
	int rc = 0;

	if (!txt)
		return -1;
	at = st ? strstr(txt, STREAM_MARK_DUMPED) : NULL;
	if (!at) {
		put_padded(f, txt, strlen(txt), pad);
		free(txt);
		return 0;
	}
	put_padded(f, txt, (size_t)(at - txt), pad);
	for (line = at; line > txt && line[-1] != '\n'; line--)
		;
	ind = pad + (unsigned)strspn(line, " ");
	if (!st->n)
		fputs("[]", f);
	for (unsigned i = 0; i < st->n && !rc; i++) {
		struct stream inner = {0};
		json_t *e = st->elem(st, i, &inner);

		fprintf(f, "%s\n%*s", i ? "," : "[", (int)ind + 1, "");
		rc = dump_streamed(e, f, ind + 1, inner.elem ? &inner : NULL);
		json_decref(e);
	}
	if (st->n && !rc)
		fprintf(f, "\n%*s]", (int)ind, "");
	if (!rc)
		put_padded(f, at + strlen(STREAM_MARK_DUMPED), strlen(at + strlen(STREAM_MARK_DUMPED)),
			   pad);
	free(txt);
	return rc;
}

static json_t *stream_run(const struct stream *st, unsigned i, struct stream *inner)
{
	const struct point *p = results_point(st->r, st->v, st->row);

	(void)inner;
	return run_json(st->r, &st->r->variants[st->v], &p->runs[i]);
}

static json_t *stream_point(const struct stream *st, unsigned i, struct stream *inner)
{
	unsigned v = i / st->r->nrows, row = i % st->r->nrows;

	*inner = (struct stream){.r = st->r, .n = results_point(st->r, v, row)->nruns,
				 .v = v, .row = row, .elem = stream_run};
	return point_json_with(st->r, v, row, json_string(STREAM_MARK));
}

int results_write_json(const struct results *r, FILE *f)
{
	struct stream points = {.r = r, .n = r->nvariants * r->nrows, .elem = stream_point};
	json_t *doc = doc_json_with(r, json_string(STREAM_MARK));
	int rc = dump_streamed(doc, f, 0, &points);

	json_decref(doc);
	if (!rc && fputc('\n', f) == EOF)
		rc = -1;
	return rc || ferror(f) ? -1 : 0;
}
