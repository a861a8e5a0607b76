/* SPDX-License-Identifier: MIT */
/*
 * JSON results reader: the inverse of results_to_json() (render_json.c),
 * schema documented in docs/json.md.  Every field is type-checked; a
 * file that does not fit gets one line naming the file and the field,
 * never a crash.  Unknown fields of a run are kept (run_sample.extra);
 * unknown fields elsewhere are ignored, so 1.x files of a later minor
 * version still read.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json_read.h"
#include "json_spans.h"

#define SCHEMA_NAME "lockbench-results"
#define MAX_VARIANTS 4096
#define MAX_ROWS 4096
#define MAX_POINTS (1u << 20)

/* Where we are, for messages. */
struct rd {
	const char *name;
	char *err;
	size_t errlen;
	const struct results *r;   /* the results being read (perf names) */
	/* Read in two passes (results_from_json_stream): the runs are not
	 * in the document but at these places of src. */
	const struct json_spans *spans;
	FILE *src;
	char *buf;                 /* one run's text */
	size_t bufcap;
};

static int __attribute__((format(printf, 2, 3))) fail(struct rd *d, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (!d->errlen)
		return -EINVAL;
	k = snprintf(d->err, d->errlen, "cannot read results (%s): ", d->name);
	va_start(ap, fmt);
	if (k >= 0 && (size_t)k < d->errlen)
		vsnprintf(d->err + k, d->errlen - (size_t)k, fmt, ap);
	va_end(ap);
	/* One line: jansson's message quotes the text near the error, which
	 * may hold a newline or another control character. */
	for (char *c = d->err; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return -EINVAL;
}

/*
 * Bounds of a plausible run, to refuse corrupt or forged files rather
 * than print "-100%" or "+inf%": no lock is taken 10^12 times a second
 * (a few GHz of cores each taking it once a cycle stay far below), and
 * no window lasts longer than --duration's own limit of a day.
 */
#define MAX_OPS_PER_SEC 1e12
#define MAX_WINDOW_S 86400.0

static int oom(struct rd *d)
{
	fail(d, "out of memory");
	return -ENOMEM;
}

/* Copy an optional string member: 0 (NULL when absent or null), or error.
 * A name or heading with a control character (a newline, an escape
 * sequence) would break a table's lines or reach the terminal: refused,
 * as the command line refuses it; a point's error text and a plugin's
 * path are printed inside notes, never as headings. */
static int get_str(struct rd *d, json_t *o, const char *key, const char *where,
		   char **out)
{
	json_t *v = json_object_get(o, key);
	bool text = strcmp(key, "error") && strcmp(key, "plugin");

	*out = NULL;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return fail(d, "%s.%s: expected a string", where, key);
	for (const char *c = json_string_value(v); text && *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return fail(d, "%s.%s: a control character (0x%02x); it names a "
				    "table column or row", where, key, (unsigned char)*c);
	*out = strdup(json_string_value(v));
	return *out ? 0 : oom(d);
}

/* Optional non-negative integer member, default `def`, at most `max`. */
static int get_uint(struct rd *d, json_t *o, const char *key, const char *where,
		    uint64_t max, uint64_t def, uint64_t *out)
{
	json_t *v = json_object_get(o, key);

	*out = def;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v) || json_integer_value(v) < 0 ||
	    (uint64_t)json_integer_value(v) > max)
		return fail(d, "%s.%s: expected a whole number in [0, %llu]", where,
			    key, (unsigned long long)max);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* Optional number member (null: NAN), default `def`. */
static int get_num(struct rd *d, json_t *o, const char *key, const char *where,
		   double def, double *out)
{
	json_t *v = json_object_get(o, key);

	*out = def;
	if (!v)
		return 0;
	if (json_is_null(v)) {
		*out = NAN;
		return 0;
	}
	if (!json_is_number(v))
		return fail(d, "%s.%s: expected a number", where, key);
	*out = json_number_value(v);
	return 0;
}

static bool get_bool(json_t *o, const char *key, bool def)
{
	json_t *v = json_object_get(o, key);

	return json_is_boolean(v) ? json_is_true(v) : def;
}

/* Array member (required when `need`), NULL when absent. */
static int get_array(struct rd *d, json_t *o, const char *key, const char *where,
		     bool need, json_t **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if ((!v || json_is_null(v)) && !need)
		return 0;
	if (!json_is_array(v))
		return fail(d, "%s%s%s: expected an array", where, *where ? "." : "", key);
	*out = v;
	return 0;
}

/* Object member, NULL when absent or null; its path "where.key" into
 * w[wlen] either way. */
static int get_object(struct rd *d, json_t *o, const char *key, const char *where,
		      char *w, size_t wlen, json_t **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	snprintf(w, wlen, "%s.%s", where, key);
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return fail(d, "%s: expected an object", w);
	*out = v;
	return 0;
}

/*
 * Parse the text; tell apart "not JSON", "truncated" and other syntax
 * errors.  Returns the document (new reference) or NULL with err set.
 */
static json_t *load(struct rd *d, const char *buf, size_t len)
{
	json_error_t e;
	json_t *doc;
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", buf[i]))
		i++;
	if (i == len) {
		fail(d, "empty file, not JSON");
		return NULL;
	}
	if (buf[i] != '{' && buf[i] != '[') {
		fail(d, "not JSON (it starts with neither '{' nor '[')");
		return NULL;
	}
	doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &e);
	if (doc)
		return doc;
	if (json_error_code(&e) == json_error_premature_end_of_input)
		fail(d, "truncated JSON (it ends at line %d inside a value)", e.line);
	else
		fail(d, "not valid JSON (line %d, column %d: %s)", e.line, e.column, e.text);
	return NULL;
}

/* The "schema" and "schema_version" members; 0 or error. */
static int check_schema(struct rd *d, json_t *doc)
{
	json_t *s = json_object_get(doc, "schema");
	const char *v;
	unsigned long major;
	char *end;

	if (!json_is_object(doc) || !json_is_string(s) ||
	    strcmp(json_string_value(s), SCHEMA_NAME))
		return fail(d, "not lockbench results (no \"schema\": \"%s\")", SCHEMA_NAME);
	v = json_string_value(json_object_get(doc, "schema_version"));
	if (!v)
		return fail(d, "no schema_version string");
	errno = 0;
	major = strtoul(v, &end, 10);
	if (errno || end == v || (*end && *end != '.') || *v == '-')
		return fail(d, "schema_version (%s): expected MAJOR.MINOR", v);
	if (major > RESULTS_SCHEMA_MAJOR)
		return fail(d, "written by a newer lockbench (schema %s); this one reads %d.x",
			    v, RESULTS_SCHEMA_MAJOR);
	if (major < RESULTS_SCHEMA_MAJOR)
		return fail(d, "schema %s is older than this lockbench reads (%d.x)",
			    v, RESULTS_SCHEMA_MAJOR);
	return 0;
}

/* A variant's "params" (1.4): null, or an object of numbers. */
static int read_params(struct rd *d, json_t *p, const char *where, struct variant *v)
{
	const char *key;
	json_t *x;

	if (!p || json_is_null(p))
		return 0;
	if (!json_is_object(p))
		return fail(d, "%s.params: expected an object", where);
	json_object_foreach(p, key, x)
		if (!json_is_number(x) || !*key)
			return fail(d, "%s.params.%s: expected a number", where, key);
	v->params = json_incref(p);
	return 0;
}

static int read_variant(struct rd *d, json_t *o, unsigned i, struct variant *v)
{
	char where[64];
	json_t *names;
	int rc;

	snprintf(where, sizeof(where), "variants[%u]", i);
	if (!json_is_object(o) || !json_is_string(json_object_get(o, "name")))
		return fail(d, "%s: expected an object with a \"name\" string", where);
	if ((rc = get_str(d, o, "name", where, &v->name)) ||
	    (rc = get_str(d, o, "lock", where, &v->lock)) ||
	    (rc = get_str(d, o, "label", where, &v->label)) ||
	    (rc = get_str(d, o, "plugin", where, &v->origin)) ||
	    (rc = get_str(d, o, "plugin_sha256", where, &v->sha256)) ||
	    (rc = get_str(d, o, "loop", where, &v->loop)) ||
	    (rc = get_array(d, o, "counters", where, false, &names)))
		return rc;
	if (json_object_get(o, "kernel") && !json_is_boolean(json_object_get(o, "kernel")))
		return fail(d, "%s.kernel: expected true or false", where);
	v->kernel = json_is_true(json_object_get(o, "kernel"));
	if ((rc = read_params(d, json_object_get(o, "params"), where, v)))
		return rc;
	if (json_object_get(o, "source") && !json_is_object(json_object_get(o, "source")))
		return fail(d, "%s.source: expected an object", where);
	v->source = json_incref(json_object_get(o, "source"));
	if (!names || !json_array_size(names))
		return 0;
	v->counter_names = calloc(json_array_size(names), sizeof(char *));
	if (!v->counter_names)
		return oom(d);
	for (size_t k = 0; k < json_array_size(names); k++) {
		const char *s = json_string_value(json_array_get(names, k));

		if (!s)
			return fail(d, "%s.counters[%zu]: expected a string", where, k);
		if (!(v->counter_names[k] = strdup(s)))
			return oom(d);
		v->ncounters = (unsigned)k + 1;
	}
	return 0;
}

static int read_row_desc(struct rd *d, json_t *a, struct results *r)
{
	if (!a)
		return 0;
	if (json_array_size(a) != r->nrows)
		return fail(d, "row_desc: %zu entries for %u rows", json_array_size(a),
			    r->nrows);
	if (results_alloc_row_desc(r))
		return oom(d);
	for (unsigned i = 0; i < r->nrows; i++) {
		json_t *o = json_array_get(a, i), *b;
		struct row_desc *rd = &r->row_desc[i];
		char where[32];
		int rc;

		snprintf(where, sizeof(where), "row_desc[%u]", i);
		if (!json_is_object(o))
			return fail(d, "%s: expected an object", where);
		if ((rc = get_str(d, o, "label", where, &rd->label)) ||
		    (rc = get_str(d, o, "metric", where, &rd->metric)))
			return rc;
		b = json_object_get(o, "better");
		if (b && !(json_is_string(b) && (!strcmp(json_string_value(b), "lower") ||
						 !strcmp(json_string_value(b), "higher"))))
			return fail(d, "%s.better: expected \"higher\" or \"lower\"", where);
		rd->lower_better = b && !strcmp(json_string_value(b), "lower");
	}
	return 0;
}

/* A row is named by its label when rows are described, else its number:
 * two rows with the same name could not be told apart. */
static int check_rows_unique(struct rd *d, const struct results *r)
{
	for (unsigned i = 0; i < r->nrows; i++)
		for (unsigned k = 0; k < i; k++) {
			char a[256], b[256];

			if (!strcmp(results_row_name(r, i, a, sizeof(a)),
				    results_row_name(r, k, b, sizeof(b))))
				return fail(d, "rows: row %s listed twice", a);
		}
	return 0;
}

static int read_rows(struct rd *d, json_t *doc, struct results *r)
{
	json_t *rows = json_object_get(doc, "rows"), *desc;
	int rc;

	for (unsigned i = 0; i < r->nrows; i++) {
		json_t *v = json_array_get(rows, i);

		if (!json_is_integer(v) || json_integer_value(v) < 0 ||
		    json_integer_value(v) > INT_MAX)
			return fail(d, "rows[%u]: expected a thread count", i);
		r->rows[i] = (unsigned)json_integer_value(v);
	}
	if ((rc = get_array(d, doc, "row_desc", "", false, &desc)) ||
	    (rc = read_row_desc(d, desc, r)))
		return rc;
	return check_rows_unique(d, r);
}

static int read_u64_array(struct rd *d, json_t *a, const char *where,
			  uint64_t **out, unsigned *n)
{
	size_t len = json_array_size(a);

	*out = NULL;
	*n = 0;
	if (!len)
		return 0;
	if (len > UINT_MAX / 2)
		return fail(d, "%s: too long", where);
	*out = calloc(len, sizeof(uint64_t));
	if (!*out)
		return oom(d);
	for (size_t i = 0; i < len; i++) {
		json_t *v = json_array_get(a, i);

		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return fail(d, "%s[%zu]: expected a whole number", where, i);
		(*out)[i] = (uint64_t)json_integer_value(v);
	}
	*n = (unsigned)len;
	return 0;
}

static int read_series(struct rd *d, json_t *a, const char *where,
		       struct run_sample *s)
{
	size_t len = json_array_size(a);

	if (!len)
		return 0;
	if (len > UINT_MAX / 2)
		return fail(d, "%s.series: too long", where);
	s->series = calloc(len, sizeof(double));
	if (!s->series)
		return oom(d);
	for (size_t i = 0; i < len; i++) {
		json_t *v = json_array_get(a, i);

		if (!json_is_number(v) && !json_is_null(v))
			return fail(d, "%s.series[%zu]: expected a number", where, i);
		s->series[i] = json_is_null(v) ? NAN : json_number_value(v);
		if (!isnan(s->series[i]) &&
		    !(s->series[i] >= 0 && s->series[i] <= MAX_OPS_PER_SEC))
			return fail(d, "%s.series[%zu] (%g): impossible, expected a rate "
				    "in [0, %g]", where, i, s->series[i], MAX_OPS_PER_SEC);
	}
	s->nseries = (unsigned)len;
	return 0;
}

/* Counters are stored by name; put them in the variant's order. */
static int read_counters(struct rd *d, json_t *o, const char *where,
			 const struct variant *var, struct run_sample *s)
{
	if (!o || json_is_null(o) || !var->ncounters)
		return 0;
	if (!json_is_object(o))
		return fail(d, "%s.counters: expected an object", where);
	s->counters = calloc(var->ncounters, sizeof(uint64_t));
	if (!s->counters)
		return oom(d);
	s->ncounters = var->ncounters;
	for (unsigned i = 0; i < var->ncounters; i++) {
		json_t *v = json_object_get(o, var->counter_names[i]);

		if (v && (!json_is_integer(v) || json_integer_value(v) < 0))
			return fail(d, "%s.counters.%s: expected a whole number", where,
				    var->counter_names[i]);
		s->counters[i] = v ? (uint64_t)json_integer_value(v) : 0;
	}
	return 0;
}

/* Members of a run object the model has fields for. */
static bool run_key_known(const char *k)
{
	static const char *const known[] = {
		"seq", "invocation", "window_s", "ops", "ops_per_sec", "thread_ops",
		"exclusion", "series", "counters", "lock_node",
		"rw", "latency", "handover", "fairness", "trend", "unfair_reported",
		"perf", NULL,
	};

	for (unsigned i = 0; known[i]; i++)
		if (!strcmp(known[i], k))
			return true;
	return false;
}

static int read_extra(struct rd *d, json_t *o, struct run_sample *s)
{
	json_t *keep = json_object(), *val;
	const char *key;
	int rc = keep ? 0 : -ENOMEM;

	json_object_foreach(o, key, val)
		if (!rc && !run_key_known(key))
			rc = json_object_set(keep, key, val) ? -ENOMEM : 0;
	if (!rc)
		rc = results_extra_set(s, keep);
	json_decref(keep);
	return rc ? oom(d) : 0;
}

static int read_exclusion(struct rd *d, json_t *o, const char *where,
			  struct run_sample *s)
{
	json_t *e;
	char w[128];
	int rc = get_object(d, o, "exclusion", where, w, sizeof(w), &e);

	if (rc || !e)
		return rc;
	s->exclusion_checked = get_bool(e, "checked", false);
	s->exclusion_ok = get_bool(e, "ok", true);
	if ((rc = get_uint(d, e, "total_ops", w, UINT64_MAX, 0, &s->total_ops)) ||
	    (rc = get_uint(d, e, "counter", w, UINT64_MAX, 0, &s->counter)) ||
	    (rc = get_uint(d, e, "violations", w, UINT64_MAX, 0, &s->violations)))
		return rc;
	return 0;
}

/* ---- workload metrics (1.2) ------------------------------------------ */

/* runs[].rw.thread_kind: "reader", "writer" or "mixed" per thread. */
static int read_kinds(struct rd *d, json_t *a, const char *w, struct run_sample *s)
{
	size_t n = json_array_size(a);

	if (!n)
		return 0;
	if (n != s->nthreads)
		return fail(d, "%s.thread_kind: %zu entries for %u threads", w, n, s->nthreads);
	if (!(s->thread_kind = malloc(n)))
		return oom(d);
	for (size_t i = 0; i < n; i++) {
		const char *k = json_string_value(json_array_get(a, i));

		if (!k || (strcmp(k, "reader") && strcmp(k, "writer") && strcmp(k, "mixed")))
			return fail(d, "%s.thread_kind[%zu]: expected reader, writer or mixed",
				    w, i);
		s->thread_kind[i] = k[0] == 'r' ? 'r' : k[0] == 'w' ? 'w' : 'm';
	}
	return 0;
}

/* runs[].rw: reads of an rw run (writes are ops - reads). */
static int read_rw(struct rd *d, json_t *o, const char *where, struct run_sample *s)
{
	json_t *rw, *a;
	unsigned n = 0;
	char w[128];
	int rc = get_object(d, o, "rw", where, w, sizeof(w), &rw);

	if (rc || !rw)
		return rc;
	s->has_rw = true;
	if ((rc = get_uint(d, rw, "read_ops", w, s->ops, 0, &s->read_ops)) ||
	    (rc = get_array(d, rw, "thread_reads", w, false, &a)) ||
	    (rc = read_u64_array(d, a, "thread_reads", &s->thread_reads, &n)))
		return rc;
	if (n && n != s->nthreads)
		return fail(d, "%s.thread_reads: %u entries for %u threads", w, n, s->nthreads);
	return read_kinds(d, json_object_get(rw, "thread_kind"), w, s);
}

/* runs[].latency: the histogram back from its [lo, hi, count] buckets. */
static int read_latency(struct rd *d, json_t *o, const char *where,
			struct run_sample *s)
{
	json_t *l, *a, *b;
	uint64_t every, max, sum;
	size_t i;
	char w[128];
	int rc = get_object(d, o, "latency", where, w, sizeof(w), &l);

	if (rc || !l)
		return rc;
	if ((rc = get_uint(d, l, "sample_every", w, UINT_MAX, 0, &every)) ||
	    (rc = get_uint(d, l, "max_ns", w, UINT64_MAX, 0, &max)) ||
	    (rc = get_uint(d, l, "sum_ns", w, UINT64_MAX, 0, &sum)) ||
	    (rc = get_array(d, l, "buckets", w, false, &a)))
		return rc;
	if (!(s->lat = calloc(1, sizeof(*s->lat))))
		return oom(d);
	s->lat_sample = (unsigned)every;
	json_array_foreach(a, i, b) {
		json_t *lo = json_array_get(b, 0), *n = json_array_get(b, 2);
		unsigned k;

		if (!json_is_integer(lo) || json_integer_value(lo) < 0 ||
		    !json_is_integer(n) || json_integer_value(n) < 0)
			return fail(d, "%s.buckets[%zu]: expected [lo, hi, count]", w, i);
		k = hist_bucket((unsigned long long)json_integer_value(lo));
		s->lat->count[k] += (unsigned long long)json_integer_value(n);
		s->lat->n += (unsigned long long)json_integer_value(n);
	}
	s->lat->max = max;
	s->lat->sum = sum;
	return 0;
}

/* runs[].handover: the counts (the fractions are derived). */
static int read_handover(struct rd *d, json_t *o, const char *where,
			 struct run_sample *s)
{
	json_t *h;
	char w[128];
	int rc = get_object(d, o, "handover", where, w, sizeof(w), &h);

	if (rc || !h)
		return rc;
	s->has_hand = true;
	if ((rc = get_uint(d, h, "acquisitions", w, UINT64_MAX, 0, &s->hand_n)) ||
	    (rc = get_uint(d, h, "same_node", w, s->hand_n, 0, &s->hand_node)) ||
	    (rc = get_uint(d, h, "same_l3", w, s->hand_n, 0, &s->hand_l3)) ||
	    (rc = get_uint(d, h, "same_core", w, s->hand_n, 0, &s->hand_core)) ||
	    (rc = get_uint(d, h, "handovers", w, s->hand_n, UINT64_MAX, &s->hand_xfer)))
		return rc;
	return 0;
}

/* ---- end of workload metrics ------------------------------------------ */

/*
 * The noise flags the writer recorded ("flags": names), so that compare
 * carries the `!` of a run through without its measurements.  Unknown
 * names (a newer writer) are ignored.
 */
static int read_recorded_flags(struct rd *d, json_t *o, const char *where,
			       struct run_sample *s)
{
	json_t *a = json_object_get(o, "flags"), *e;
	size_t i;

	if (!a || json_is_null(a))
		return 0;
	if (!json_is_array(a))
		return fail(d, "%s.flags: expected an array of names", where);
	s->noise.recorded_set = true;
	s->noise.recorded_excluded = json_is_true(json_object_get(o, "excluded"));
	json_array_foreach(a, i, e) {
		if (!json_is_string(e))
			return fail(d, "%s.flags: expected an array of names", where);
		for (unsigned b = 0; b < NOISE_NFLAGS; b++)
			if (!strcmp(json_string_value(e), noise_flag_name(b)))
				s->noise.recorded |= 1u << b;
	}
	return 0;
}

/* (1.3) runs[].perf: each of the results' perf events by name; null or
 * a missing event reads as NAN (not measured). */
static int read_perf(struct rd *d, json_t *o, const char *where, struct run_sample *s)
{
	json_t *p = json_object_get(o, "perf"), *ev;
	char w[160];

	if (!p || json_is_null(p) || !d->r->nperf)
		return 0;
	snprintf(w, sizeof(w), "%s.perf", where);
	ev = json_object_get(p, "events");
	if (!json_is_object(p) || !json_is_object(ev))
		return fail(d, "%s: expected an object with \"events\"", w);
	s->perf = calloc(d->r->nperf, sizeof(*s->perf));
	if (!s->perf)
		return oom(d);
	s->nperf = d->r->nperf;
	s->perf_scaled = json_is_true(json_object_get(p, "scaled"));
	for (unsigned i = 0; i < s->nperf; i++) {
		json_t *t = json_object_get(json_object_get(ev, d->r->perf_names[i]), "total");

		if (t && !json_is_null(t) && !json_is_number(t))
			return fail(d, "%s.events.%s.total: expected a number or null", w,
				    d->r->perf_names[i]);
		s->perf[i] = json_is_number(t) ? json_number_value(t) : NAN;
	}
	return 0;
}

/* A JSON string equal to s (false for anything else). */
static bool same_text(const json_t *j, const char *s)
{
	return json_is_string(j) && !strcmp(json_string_value(j), s);
}

/* (1.3) The perf event names of config.counters.events, if any. */
static int read_perf_names(struct rd *d, json_t *doc, struct results *r)
{
	json_t *ev = json_object_get(json_object_get(json_object_get(doc, "config"),
						     "counters"), "events"), *x;
	const char *names[64];
	size_t i, n = 0;

	if (!json_is_array(ev))
		return 0;
	r->perf_named = !same_text(json_object_get(json_object_get(json_object_get(doc,
		"config"), "counters"), "requested"), "auto");
	json_array_foreach(ev, i, x) {
		if (!json_is_string(x) || n == 64)
			return fail(d, "config.counters.events: expected at most 64 names");
		names[n++] = json_string_value(x);
	}
	return results_set_perf_names(r, names, (unsigned)n) ? oom(d) : 0;
}

/* One run into s (owned by the caller, freed by it on error too). */
static int read_run(struct rd *d, json_t *o, const char *where,
		    const struct variant *var, struct run_sample *s)
{
	json_t *a;
	uint64_t seq, inv = 0;
	int rc;

	if (!json_is_object(o))
		return fail(d, "%s: expected an object", where);
	if (!json_is_number(json_object_get(o, "ops_per_sec")))
		return fail(d, "%s.ops_per_sec: expected a number", where);
	s->ops_per_sec = json_number_value(json_object_get(o, "ops_per_sec"));
	if (!(s->ops_per_sec >= 0 && s->ops_per_sec <= MAX_OPS_PER_SEC))
		return fail(d, "%s.ops_per_sec (%g): impossible, expected a rate in [0, %g]",
			    where, s->ops_per_sec, MAX_OPS_PER_SEC);
	s->lock_node = json_is_integer(json_object_get(o, "lock_node"))
			       ? (int)json_integer_value(json_object_get(o, "lock_node"))
			       : -1;
	if ((rc = get_uint(d, o, "seq", where, UINT_MAX, 0, &seq)) ||
	    (rc = get_uint(d, o, "invocation", where, UINT_MAX, 0, &inv)) ||
	    (rc = get_num(d, o, "window_s", where, NAN, &s->window_s)) ||
	    (rc = get_uint(d, o, "ops", where, UINT64_MAX, 0, &s->ops)) ||
	    (rc = get_array(d, o, "thread_ops", where, false, &a)) ||
	    (rc = read_u64_array(d, a, "thread_ops", &s->thread_ops, &s->nthreads)) ||
	    (rc = read_exclusion(d, o, where, s)) ||
	    (rc = get_array(d, o, "series", where, false, &a)) ||
	    (rc = read_series(d, a, where, s)) ||
	    (rc = read_counters(d, json_object_get(o, "counters"), where, var, s)) ||
	    (rc = read_rw(d, o, where, s)) || (rc = read_latency(d, o, where, s)) ||
	    (rc = read_handover(d, o, where, s)) || (rc = read_perf(d, o, where, s)))
		return rc;
	if (!isnan(s->window_s) && !(s->window_s > 0 && s->window_s <= MAX_WINDOW_S))
		return fail(d, "%s.window_s (%g): impossible, expected seconds in (0, %g]",
			    where, s->window_s, MAX_WINDOW_S);
	s->seq = (unsigned)seq;
	a = json_object_get(o, "unfair_reported");
	if (a && !json_is_boolean(a))
		return fail(d, "%s.unfair_reported: expected true or false", where);
	s->unfair_reported = json_is_true(a);
	s->invocation = (unsigned)inv;
	if ((rc = read_extra(d, o, s)))
		return rc;
	return read_recorded_flags(d, o, where, s);
}

/* Which variant and row a point is: by index, else by name/number. */
static int point_where(struct rd *d, json_t *o, unsigned i,
		       const struct results *r, unsigned *v, unsigned *row)
{
	uint64_t x;
	int rc;

	if ((rc = get_uint(d, o, "variant_index", "point", UINT_MAX, UINT_MAX, &x)))
		return rc;
	*v = (unsigned)x;
	for (unsigned k = 0; x == UINT_MAX && k < r->nvariants; k++)
		if (json_is_string(json_object_get(o, "variant")) &&
		    !strcmp(json_string_value(json_object_get(o, "variant")),
			    r->variants[k].name))
			*v = k;
	if ((rc = get_uint(d, o, "row_index", "point", UINT_MAX, UINT_MAX, &x)))
		return rc;
	*row = (unsigned)x;
	if (x == UINT_MAX && !(rc = get_uint(d, o, "threads", "point", UINT_MAX,
					     UINT_MAX, &x)))
		for (unsigned k = 0; k < r->nrows && *row == UINT_MAX; k++)
			if (r->rows[k] == x)
				*row = k;
	if (rc)
		return rc;
	if (*v >= r->nvariants || *row >= r->nrows)
		return fail(d, "points[%u]: names no listed variant and row", i);
	return 0;
}

/* One run's text from its place in the file, parsed. */
static json_t *load_span(struct rd *d, const struct run_span *sp, const char *where)
{
	json_error_t e;
	json_t *o;

	if (sp->len + 1 > d->bufcap) {
		char *b = realloc(d->buf, sp->len + 1);

		if (!b) {
			oom(d);
			return NULL;
		}
		d->buf = b;
		d->bufcap = sp->len + 1;
	}
	if (fseeko(d->src, (off_t)sp->off, SEEK_SET) ||
	    fread(d->buf, 1, sp->len, d->src) != sp->len) {
		fail(d, "%s: the file changed while it was read", where);
		return NULL;
	}
	o = json_loadb(d->buf, sp->len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
	if (!o)
		fail(d, "%s: not valid JSON (%s)", where, e.text);
	return o;
}

/* Point i's runs from their places in the file (the two-pass read). */
static int read_spanned_runs(struct rd *d, unsigned i, unsigned v, unsigned row,
			     struct results *r)
{
	const struct json_spans *sp = d->spans;
	char where[64];
	int rc = 0;

	for (size_t k = sp->first[i]; i < sp->npoints && k < sp->first[i + 1] && !rc; k++) {
		struct run_sample s = {0};
		json_t *o;

		snprintf(where, sizeof(where), "points[%u].runs[%zu]", i, k - sp->first[i]);
		o = load_span(d, &sp->span[k], where);
		rc = o ? read_run(d, o, where, &r->variants[v], &s) : -EINVAL;
		/* Freed before the run is kept: one run's tree at a time. */
		json_decref(o);
		if (!rc && results_take_run(r, v, row, &s))
			rc = oom(d);
		run_sample_free(&s);
	}
	return rc;
}

static int read_point(struct rd *d, json_t *o, unsigned i, struct results *r)
{
	unsigned v, row;
	struct point *p;
	json_t *runs;
	char where[64];
	int rc, st;

	if (!json_is_object(o))
		return fail(d, "points[%u]: expected an object", i);
	if ((rc = point_where(d, o, i, r, &v, &row)))
		return rc;
	p = results_point(r, v, row);
	if (p->status != POINT_MISSING || p->nruns)
		return fail(d, "points[%u]: point (%s, %u) listed twice", i,
			    r->variants[v].name, r->rows[row]);
	st = point_status_parse(json_string_value(json_object_get(o, "status")));
	if (st < 0)
		return fail(d, "points[%u].status: expected ok, failed, hung, error or missing", i);
	p->status = (enum point_status)st;
	snprintf(where, sizeof(where), "points[%u]", i);
	if ((rc = get_str(d, o, "error", where, &p->error)) ||
	    (rc = get_array(d, o, "runs", where, false, &runs)))
		return rc;
	for (size_t k = 0; k < json_array_size(runs); k++) {
		struct run_sample s = {0};

		snprintf(where, sizeof(where), "points[%u].runs[%zu]", i, k);
		rc = read_run(d, json_array_get(runs, k), where, &r->variants[v], &s);
		if (!rc && results_take_run(r, v, row, &s))
			rc = oom(d);
		run_sample_free(&s);
		if (rc)
			return rc;
	}
	rc = d->spans ? read_spanned_runs(d, i, v, row, r) : 0;
	/* "ok" says measured: with no run to show, its figure would read
	 * as a measured 0 (docs/json.md, points). */
	if (!rc && p->status == POINT_OK && !p->nruns)
		rc = fail(d, "points[%u] (%s, %u): status ok with no runs (a file cut "
			  "or edited); a point not measured is \"missing\"", i,
			  r->variants[v].name, r->rows[row]);
	return rc;
}

static int read_top(struct rd *d, json_t *doc, struct results *r)
{
	const char *unit = json_string_value(json_object_get(doc, "unit"));
	char *base = NULL;
	uint64_t ncpus;
	int rc;

	if (unit && strcmp(unit, "ops/s"))
		return fail(d, "unit (%s): this lockbench reads throughputs in ops/s", unit);
	if ((rc = get_str(d, doc, "label", "", &r->label)) ||
	    (rc = get_str(d, doc, "workload", "", &r->workload)) ||
	    (rc = get_str(d, doc, "variant_heading", "", &r->variant_heading)) ||
	    (rc = get_str(d, doc, "row_heading", "", &r->row_heading)) ||
	    (rc = get_uint(d, doc, "ncpus", "", UINT_MAX, 0, &ncpus)) ||
	    (rc = get_num(d, doc, "cv_flag", "", 0.10, &r->cv_flag)) ||
	    (rc = get_num(d, doc, "alpha", "", 0.05, &r->alpha)) ||
	    (rc = get_str(d, doc, "baseline", "", &base)))
		return rc;
	r->ncpus = (unsigned)ncpus;
	r->incomplete = get_bool(doc, "incomplete", false);
	if (!isfinite(r->cv_flag) || r->cv_flag < 0)
		r->cv_flag = 0.10;
	if (!isfinite(r->alpha) || r->alpha <= 0 || r->alpha >= 1)
		r->alpha = 0.05;
	for (unsigned i = 0; base && i < r->nvariants; i++)
		if (!strcmp(base, r->variants[i].name))
			r->baseline = i;
	free(base);
	if ((!r->variant_heading && !(r->variant_heading = strdup("Lock"))) ||
	    (!r->row_heading && !(r->row_heading = strdup("threads"))))
		return oom(d);
	return 0;
}

static void keep_opaque(json_t *doc, struct results *r)
{
	json_t **dst[] = {&r->machine, &r->config, &r->placement, &r->calibration,
			  &r->run_order, &r->provenance, &r->inv_floor};
	const char *key[] = {"machine", "config", "placement", "calibration",
			     "run_order", "provenance", "invocation_floor"};

	for (unsigned i = 0; i < 7; i++) {
		json_t *v = json_object_get(doc, key[i]);

		*dst[i] = v && !json_is_null(v) ? json_incref(v) : NULL;
	}
}

/* Sizes of the grid, refusing empty and absurd results. */
static int read_sizes(struct rd *d, json_t *doc, size_t *nv, size_t *nr,
		      json_t **points)
{
	json_t *variants, *rows;
	int rc;

	if ((rc = get_array(d, doc, "variants", "", false, &variants)) ||
	    (rc = get_array(d, doc, "rows", "", false, &rows)) ||
	    (rc = get_array(d, doc, "points", "", false, points)))
		return rc;
	*nv = json_array_size(variants);
	*nr = json_array_size(rows);
	if (!*nv || !*nr || !json_array_size(*points))
		return fail(d, "empty results (no %s)", !*nv ? "variants" :
			    !*nr ? "rows" : "points");
	if (*nv > MAX_VARIANTS || *nr > MAX_ROWS || *nv * *nr > MAX_POINTS)
		return fail(d, "%zu variants x %zu rows: more than this lockbench reads",
			    *nv, *nr);
	return 0;
}

static int read_doc(struct rd *d, json_t *doc, struct results *r)
{
	json_t *points, *variants = json_object_get(doc, "variants");
	size_t nv, nr;
	int rc;

	if ((rc = check_schema(d, doc)) || (rc = read_sizes(d, doc, &nv, &nr, &points)))
		return rc;
	if (results_init(r, (unsigned)nv, (unsigned)nr))
		return oom(d);
	for (unsigned v = 0; v < nv; v++) {
		if ((rc = read_variant(d, json_array_get(variants, v), v, &r->variants[v])))
			return rc;
		for (unsigned k = 0; k < v; k++)
			if (!strcmp(r->variants[k].name, r->variants[v].name))
				return fail(d, "variants: %s listed twice", r->variants[v].name);
	}
	d->r = r;
	if ((rc = read_rows(d, doc, r)) || (rc = read_top(d, doc, r)) ||
	    (rc = read_perf_names(d, doc, r)))
		return rc;
	for (unsigned i = 0; i < json_array_size(points); i++)
		if ((rc = read_point(d, json_array_get(points, i), i, r)))
			return rc;
	keep_opaque(doc, r);
	return 0;
}

int results_from_json_buf(const char *buf, size_t len, const char *name,
			  struct results *r, char *err, size_t errlen)
{
	struct rd d = {.name = name, .err = err, .errlen = errlen};
	json_t *doc;
	int rc;

	memset(r, 0, sizeof(*r));
	if (errlen)
		err[0] = 0;
	doc = load(&d, buf, len);
	if (!doc)
		return -EINVAL;
	rc = read_doc(&d, doc, r);
	json_decref(doc);
	if (rc)
		results_free(r);
	return rc;
}

/*
 * path opened for reading and kept only when it is a regular file
 * (a directory: EISDIR; a FIFO, device or socket: EINVAL): a FIFO with
 * no writer would block open() forever, so it is opened without
 * blocking, and blocking again once known to be a file.  NULL with
 * errno set otherwise.
 */
static FILE *open_regular(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), fl, e;
	struct stat st;
	FILE *f = NULL;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st))
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	else if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK))
		e = errno;
	else if (!(f = fdopen(fd, "rb")))
		e = errno;
	else
		return f;
	close(fd);
	errno = e;
	return NULL;
}

int file_slurp(const char *path, size_t max, char **buf, size_t *len)
{
	FILE *f = open_regular(path);
	size_t cap = 1 << 16, n = 0;
	char *b = NULL, *nb;
	struct stat st;
	int rc = 0;

	if (!f)
		return -errno;
	/* A regular file: its size (and one byte to see the end) at once,
	 * not twice the size a doubling buffer may reach. */
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size >= 0 &&
	    (uint64_t)st.st_size < SIZE_MAX / 2 && (size_t)st.st_size + 1 > cap)
		cap = (size_t)st.st_size + 1;
	errno = 0;
	for (;;) {
		if (max && n > max) {
			rc = -EFBIG;
			break;
		}
		if (max && cap > max + 1)
			cap = max + 1;
		if (!(nb = realloc(b, cap))) {
			rc = -ENOMEM;
			break;
		}
		b = nb;
		n += fread(b + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
	}
	if (!rc && ferror(f))
		rc = errno ? -errno : -EIO;
	fclose(f);
	if (rc) {
		free(b);
		return rc;
	}
	*buf = b;
	*len = n;
	return 0;
}

int input_limit_parse(const char *text, size_t *bytes)
{
	char *end;
	unsigned long long v;

	errno = 0;
	if (!text || *text < '0' || *text > '9')
		return -EINVAL;
	v = strtoull(text, &end, 10);
	if (!strcmp(end, "K") || !strcmp(end, "KiB"))
		v = v > ULLONG_MAX >> 10 ? ULLONG_MAX : v << 10;
	else if (!strcmp(end, "M") || !strcmp(end, "MiB"))
		v = v > ULLONG_MAX >> 20 ? ULLONG_MAX : v << 20;
	else if (!strcmp(end, "G") || !strcmp(end, "GiB"))
		v = v > ULLONG_MAX >> 30 ? ULLONG_MAX : v << 30;
	else if (*end)
		return -EINVAL;
	if (errno || v < 1024 || v > (unsigned long long)SIZE_MAX / 2)
		return -ERANGE;
	*bytes = (size_t)v;
	return 0;
}

size_t input_limit(size_t def)
{
	size_t v;

	return input_limit_parse(getenv("LOCKBENCH_MAX_INPUT"), &v) ? def : v;
}

int results_from_json_stream(const char *path, struct results *r, char *err,
			     size_t errlen)
{
	struct json_spans sp;
	struct rd d = {.name = path, .err = err, .errlen = errlen, .spans = &sp};
	size_t max = input_limit(RESULTS_MAX_BYTES);
	char why[160];
	json_t *doc;
	int rc;

	memset(r, 0, sizeof(*r));
	if (errlen)
		err[0] = 0;
	d.src = open_regular(path);
	if (!d.src) {
		snprintf(err, errlen, "cannot read results (%s): %s", path, strerror(errno));
		return -ENOENT;
	}
	rc = json_spans_scan(d.src, max, &sp, why, sizeof(why));
	if (rc == -EFBIG) {
		snprintf(err, errlen, "cannot read results (%s): its runs apart, or one of "
			 "its runs, larger than the input limit of %zu bytes "
			 "(LOCKBENCH_MAX_INPUT raises it)", path, max);
		rc = -EINVAL;
	} else if (rc == -EINVAL) {
		fail(&d, "%s", why);
	} else if (rc == -ENOMEM) {
		oom(&d);
	} else if (rc) {
		snprintf(err, errlen, "cannot read results (%s): %s", path, strerror(-rc));
		rc = -ENOENT;
	}
	if (!rc) {
		doc = load(&d, sp.skel, sp.skel_len);
		rc = doc ? read_doc(&d, doc, r) : -EINVAL;
		json_decref(doc);
		json_spans_free(&sp);
		if (rc)
			results_free(r);
	}
	free(d.buf);
	fclose(d.src);
	return rc;
}

int results_from_json(const char *path, struct results *r, char *err,
		      size_t errlen)
{
	size_t len = 0, max = input_limit(RESULTS_MAX_BYTES);
	char *buf = NULL;
	struct stat st;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!stat(path, &st) && S_ISREG(st.st_mode) && (uint64_t)st.st_size > RESULTS_STREAM_BYTES)
		return results_from_json_stream(path, r, err, errlen);
	rc = file_slurp(path, max, &buf, &len);
	if (rc == -EFBIG) {
		snprintf(err, errlen, "cannot read results (%s): larger than the input "
			 "limit of %zu bytes (LOCKBENCH_MAX_INPUT raises it)", path, max);
		return -EINVAL;
	}
	if (rc) {
		snprintf(err, errlen, "cannot read results (%s): %s", path, strerror(-rc));
		return rc == -ENOMEM ? rc : -ENOENT;
	}
	rc = results_from_json_buf(buf, len, path, r, err, errlen);
	free(buf);
	return rc;
}

json_t *results_json_skeleton(const char *path, char *err, size_t errlen)
{
	struct json_spans sp;
	struct rd d = {.name = path, .err = err, .errlen = errlen};
	size_t max = input_limit(RESULTS_MAX_BYTES);
	FILE *f = open_regular(path);
	json_t *doc = NULL;
	char why[160];
	int rc;

	if (errlen)
		err[0] = 0;
	if (!f) {
		snprintf(err, errlen, "cannot read results (%s): %s", path, strerror(errno));
		return NULL;
	}
	rc = json_spans_scan(f, max, &sp, why, sizeof(why));
	fclose(f);
	if (rc == -EFBIG)
		snprintf(err, errlen, "cannot read results (%s): its runs apart, or one of "
			 "its runs, larger than the input limit of %zu bytes "
			 "(LOCKBENCH_MAX_INPUT raises it)", path, max);
	else if (rc == -EINVAL)
		fail(&d, "%s", why);
	else if (rc == -ENOMEM)
		oom(&d);
	else if (rc)
		snprintf(err, errlen, "cannot read results (%s): %s", path, strerror(-rc));
	if (rc)
		return NULL;
	doc = load(&d, sp.skel, sp.skel_len);
	json_spans_free(&sp);
	return doc;
}
