/* SPDX-License-Identifier: MIT */
/*
 * The compare/merge model (merge.h): saved results files joined into
 * one results model; every statistic is recomputed from the raw runs
 * afterwards (results_finalize).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "envdiff.h"
#include "json_read.h"
#include "merge.h"

/* The refusal: its line into m->err, then back to merge_load(). */
static __attribute__((noreturn, format(printf, 2, 3)))
void fail(struct merge *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&m->err, fmt, ap) < 0)
		m->err = NULL;        /* merge_load() says "out of memory" */
	va_end(ap);
	longjmp(m->fail, 1);
}

/* asprintf() that refuses when out of memory. */
static __attribute__((format(printf, 2, 3)))
char *fmt(struct merge *m, const char *f, ...)
{
	va_list ap;
	char *out;
	int rc;

	va_start(ap, f);
	rc = vasprintf(&out, f, ap);
	va_end(ap);
	if (rc < 0)
		fail(m, "out of memory");
	return out;
}

/* A warning line (freed) to m->warn. */
static void warn(struct merge *m, char *msg)
{
	m->warn(msg);
	free(msg);
}

static void *zalloc(struct merge *m, size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		fail(m, "out of memory");
	return p;
}

/* strdup() that refuses when out of memory; NULL stays NULL. */
static char *sdup(struct merge *m, const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		fail(m, "out of memory");
	return d;
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* Row index of `key` in r, or -1. */
static int row_in(const struct results *r, const char *key)
{
	char buf[256];

	for (unsigned k = 0; k < r->nrows; k++)
		if (!strcmp(results_row_name(r, k, buf, sizeof(buf)), key))
			return (int)k;
	return -1;
}

static bool is_dim(const struct merge *m, const char *key)
{
	for (unsigned i = 0; i < m->ndims; i++)
		if (!strcmp(m->dims[i], key))
			return true;
	return false;
}

/*
 * Files of a sweep carry their parameters per variant; a file that did
 * not sweep a parameter another file swept gets it from its config (the
 * value every variant of it ran with), so its columns pair and cut like
 * the others.  A file without either leaves the parameter unknown.
 */
static void fill_params(struct merge *m)
{
	for (unsigned i = 0; i < m->nin; i++) {
		const char *keys[32];
		unsigned n = results_dims(&m->in[i].r, keys, 32);

		for (unsigned k = 0; k < n && m->ndims < 32; k++)
			if (!is_dim(m, keys[k]))
				m->dims[m->ndims++] = sdup(m, keys[k]);
	}
	for (unsigned i = 0; m->ndims && i < m->nin; i++) {
		struct results *r = &m->in[i].r;

		for (unsigned v = 0; v < r->nvariants; v++)
			for (unsigned k = 0; k < m->ndims; k++) {
				json_t *c = json_object_get(r->config, m->dims[k]);

				if (json_object_get(r->variants[v].params, m->dims[k]) ||
				    !json_is_number(c))
					continue;
				if (!r->variants[v].params)
					r->variants[v].params = json_object();
				json_object_set(r->variants[v].params, m->dims[k], c);
			}
	}
}

static char *file_label(struct merge *m, const char *path, const struct results *r)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(base);
	char *out;

	if (r->label && *r->label)
		return sdup(m, r->label);
	out = sdup(m, base);
	if (n > 5 && !strcmp(base + n - 5, ".json"))
		out[n - 5] = 0;
	return out;
}

static void load_inputs(struct merge *m, unsigned n, char **paths)
{
	char err[512];

	m->in = zalloc(m, n, sizeof(*m->in));
	m->nin = n;
	for (unsigned i = 0; i < n; i++) {
		char *ri = realpath(paths[i], NULL);

		for (unsigned j = 0; ri && j < i; j++) {
			char *rj = realpath(paths[j], NULL);
			bool dup = rj && !strcmp(ri, rj);

			free(rj);
			if (dup) {
				free(ri);
				fail(m, "cannot %s (%s): given twice (its runs would count "
				     "as another invocation)", m->verb, paths[i]);
			}
		}
		free(ri);
		m->in[i].path = paths[i];
		if (results_from_json(paths[i], &m->in[i].r, err, sizeof(err)))
			fail(m, "%s", err);
		m->in[i].label = file_label(m, paths[i], &m->in[i].r);
	}
}

/* Whether every run of a is in b, in the same place, with the same
 * operation counts and windows. */
static bool same_samples(const struct results *a, const struct results *b)
{
	if (a->nvariants != b->nvariants || a->nrows != b->nrows)
		return false;
	for (unsigned i = 0; i < a->nvariants * a->nrows; i++) {
		const struct point *p = &a->points[i], *q = &b->points[i];

		if (p->nruns != q->nruns || p->status != q->status)
			return false;
		for (unsigned k = 0; k < p->nruns; k++)
			if (p->runs[k].ops != q->runs[k].ops ||
			    p->runs[k].window_s != q->runs[k].window_s)
				return false;
	}
	return true;
}

/* Whether two loaded files hold the same runs: byte-identical files, or
 * one run's record (its configuration, with the time it was created, its
 * provenance and every run's counts) in both, e.g. a copy re-indented by
 * jq. */
static bool same_runs(const struct merge_input *a, const char *sha_a, const struct merge_input *b,
		      const char *sha_b)
{
	const json_t *ca = a->r.config, *cb = b->r.config;

	if (*sha_a && !strcmp(sha_a, sha_b))
		return true;
	return ca && cb && json_object_get(ca, "created") &&
	       json_equal((json_t *)ca, (json_t *)cb) && a->r.provenance &&
	       b->r.provenance && json_equal(a->r.provenance, b->r.provenance) &&
	       same_str(a->label, b->label) && same_samples(&a->r, &b->r);
}

/* A copy of a file given beside it would count its runs twice (as two
 * invocations agreeing perfectly): refused. */
static void check_copies(struct merge *m)
{
	char (*sha)[65] = zalloc(m, m->nin, sizeof(*sha));

	for (unsigned i = 0; i < m->nin; i++)
		if (m->hash(m->in[i].path, sha[i]))
			sha[i][0] = '\0';
	for (unsigned i = 1; i < m->nin; i++)
		for (unsigned j = 0; j < i; j++)
			if (same_runs(&m->in[j], sha[j], &m->in[i], sha[i])) {
				bool copy = *sha[i] && !strcmp(sha[i], sha[j]);

				free(sha);
				fail(m, "cannot %s (%s): the same runs as %s (%s); give "
					"each once", m->verb, m->in[i].path, m->in[j].path,
					copy ? "an identical copy"
					: "same configuration, creation time, provenance and runs");
			}
	free(sha);
}

/*
 * Do two workloads measure comparable things?  The same workload, or the
 * kernel's locktorture next to lockbench's torture workload (its writer
 * loop in userspace): two different measurements of one lock family,
 * shown side by side with the kernel columns marked.
 */
static bool same_workload(const char *a, const char *b)
{
	bool ka = same_str(a, "locktorture"), kb = same_str(b, "locktorture");

	return same_str(a, b) || (ka && same_str(b, "torture")) ||
	       (kb && same_str(a, "torture"));
}

/* Append " KEY (A, B)" for each of keys whose values differ in a and b:
 * by value (1.0 is 1; a list is a set: the order of its elements does
 * not matter), so that only real differences are named. */
static void differing(json_t *a, json_t *b, const char *const *keys, char *out,
		      size_t len, const struct merge *m)
{
	for (unsigned k = 0; keys[k]; k++) {
		json_t *x = json_object_get(a, keys[k]), *y = json_object_get(b, keys[k]);
		char *sx, *sy;

		if (results_json_same(x, y, true))
			continue;
		/* A swept parameter travels with each column (pair_params). */
		if (m && is_dim(m, keys[k]))
			continue;
		sx = x ? json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
		sy = y ? json_dumps(y, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
		snprintf(out + strlen(out), len - strlen(out), "%s %s (%s, %s)",
			 *out ? "," : "", keys[k], sx ? sx : "none", sy ? sy : "none");
		free(sx);
		free(sy);
	}
}

/* The settings of a run that change what it measures (compared, named
 * in a warning, or for --rows PARAM refused, when files differ). */
static const char *const conf[] = {
	"warmup_s", "duration_s", "stat_interval_s", "cs_ns", "ncs_ns",
	"ncs_dist", "cs_lines", "cs_write_lines", "read_pct", "readers",
	"writers", "long_hold_ms", "stutter_s", "lat_sample", "placement",
	"mem_node", "fake_nodes", "map_topology", "order", NULL,
};

/*
 * Files measured on different machines or with different settings can
 * still be compared, but the user must know: one warning per file that
 * differs from the first, naming the fields.  The kernel may differ
 * (that is usually the point).
 */
static void warn_differences(struct merge *m)
{
	static const char *const mach[] = {
		"cpu_model", "arch", "pus", "cores", "numa_nodes", "packages", NULL,
	};
	const struct merge_input *a = &m->in[0];

	for (unsigned i = 1; i < m->nin; i++) {
		const struct merge_input *b = &m->in[i];
		char md[1024] = "", cd[1024] = "";

		differing(a->r.machine, b->r.machine, mach, md, sizeof(md), NULL);
		differing(a->r.config, b->r.config, conf, cd, sizeof(cd), m);
		if (*md || *cd)
			warn(m, fmt(m, "warning: compare (%s, %s):%s%s%s%s%s", a->path, b->path,
				    *md ? " machine differs:" : "", md, *md && *cd ? ";" : "",
				    *cd ? " configuration differs:" : "", cd));
	}
}

static void check_inputs(struct merge *m)
{
	const struct merge_input *a = &m->in[0];

	for (unsigned i = 1; i < m->nin; i++) {
		const struct merge_input *b = &m->in[i];

		if (!same_workload(a->r.workload, b->r.workload))
			fail(m, "cannot %s (%s, %s): different workloads (%s, %s)",
			     m->verb, a->path, b->path, a->r.workload ? a->r.workload : "none",
			     b->r.workload ? b->r.workload : "none");
		for (unsigned k = 0; b->r.row_desc && k < b->r.nrows; k++) {
			const struct row_desc *d = &b->r.row_desc[k], *e;
			char key[256];
			int j = row_in(&a->r, results_row_name(&b->r, k, key, sizeof(key)));

			e = j >= 0 && a->r.row_desc ? &a->r.row_desc[j] : NULL;
			if (e && (!same_str(d->metric, e->metric) ||
				  d->lower_better != e->lower_better))
				fail(m, "cannot %s (%s, %s): row %s measures different "
				     "units (%s, %s)", m->verb, a->path, b->path, key,
				     e->metric ? e->metric : "ops/s",
				     d->metric ? d->metric : "ops/s");
		}
	}
}

/* Is s one of the comma-separated names of list? */
static bool listed(const char *list, const char *s)
{
	size_t n = strlen(s), len;

	for (const char *t = list;; t += len + 1) {
		len = strcspn(t, ",");
		if (len && len == n && !strncmp(t, s, n))
			return true;
		if (!t[len])
			return false;
	}
}

/* Is variant v of r selected by -l (NULL: all)? */
static bool selected(const struct variant *v, const char *locks)
{
	return !locks || listed(locks, v->name) || (v->lock && listed(locks, v->lock));
}

/* A column of --rows PARAM: named as a sweep names it, "ticket cs_ns=100"
 * (with "LABEL/" where the files' labels differ), so that the columns
 * of one lock become one column of the table (results_column()). */
static char *rows_column_name(struct merge *m, const struct merge_input *in, unsigned v)
{
	const json_t *x = json_object_get(in->r.variants[v].params, m->rows_key);
	char val[64];

	if (json_is_integer(x))
		snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(x));
	else
		snprintf(val, sizeof(val), "%g", json_number_value(x));
	if (m->rows_one_label)
		return fmt(m, "%s %s=%s", in->r.variants[v].name, m->rows_key, val);
	return fmt(m, "%s/%s %s=%s", in->label, in->r.variants[v].name, m->rows_key, val);
}

static void add_columns(struct merge *m, unsigned i)
{
	const struct merge_input *in = &m->in[i];
	unsigned nsel = 0;

	for (unsigned v = 0; v < in->r.nvariants; v++)
		nsel += selected(&in->r.variants[v], m->locks);
	if (!nsel)
		fail(m, "no lock of -l (%s) in %s", m->locks, in->path);
	for (unsigned v = 0; v < in->r.nvariants; v++) {
		struct merge_column *c = &m->col[m->ncol], *same = NULL;
		const char *lock = in->r.variants[v].name;

		if (!selected(&in->r.variants[v], m->locks))
			continue;
		if (m->rows_key) {
			c->name = rows_column_name(m, in, v);
		} else if (nsel == 1 && *in->label) {
			c->name = sdup(m, in->label);
		} else if (m->one_label) {
			c->name = sdup(m, lock);	/* one run (or its repeats) */
		} else {
			c->name = fmt(m, "%s/%s", in->label, lock);
		}
		/* A kernel locktorture column next to userspace ones is marked. */
		if (m->mixed && in->r.variants[v].kernel) {
			char *k = fmt(m, "%s[k]", c->name);

			free(c->name);
			c->name = k;
		}
		for (unsigned k = 0; k < m->ncol && !same; k++)
			if (!strcmp(m->col[k].name, c->name))
				same = &m->col[k];
		if (same && strcmp(m->in[same->in].label, in->label))
			fail(m, "cannot %s (%s, %s): both give a column %s; "
			     "save them with different --label", m->verb, m->in[same->in].path,
			     in->path, c->name);
		if (same) {
			/* Another invocation of the same label and lock. */
			free(c->name);
			c->name = NULL;
			same->src[same->nsrc++] = (struct merge_source){i, v};
			continue;
		}
		c->in = i;
		c->var = v;
		c->src = zalloc(m, m->nin, sizeof(*c->src));
		c->src[c->nsrc++] = (struct merge_source){i, v};
		m->ncol++;
	}
}

static int cmp_numeric(const void *a, const void *b)
{
	unsigned long x = strtoul(*(char *const *)a, NULL, 10);
	unsigned long y = strtoul(*(char *const *)b, NULL, 10);

	return (x > y) - (x < y);
}

/* The union of the rows, in first-seen order; numbers sorted when no
 * file names its rows. */
static void union_rows(struct merge *m)
{
	unsigned cap = 0;
	bool named = false;

	for (unsigned i = 0; i < m->nin; i++) {
		cap += m->in[i].r.nrows;
		named |= m->in[i].r.row_desc != NULL;
	}
	m->row_key = zalloc(m, cap, sizeof(char *));
	for (unsigned i = 0; i < m->nin; i++)
		for (unsigned k = 0; k < m->in[i].r.nrows; k++) {
			char key[256];
			unsigned j;

			results_row_name(&m->in[i].r, k, key, sizeof(key));
			for (j = 0; j < m->nrows && strcmp(m->row_key[j], key); j++)
				;
			if (j == m->nrows)
				m->row_key[m->nrows++] = sdup(m, key);
		}
	if (!named || m->cpu_share)
		qsort(m->row_key, m->nrows, sizeof(char *), cmp_numeric);
}

static void copy_variant(struct merge *m, struct variant *d, const struct variant *s,
			 const struct merge_column *c, const char *label)
{
	d->name = sdup(m, c->name);
	d->lock = sdup(m, s->lock ? s->lock : s->name);
	d->label = sdup(m, label);
	d->origin = sdup(m, s->origin);
	d->sha256 = sdup(m, s->sha256);
	d->loop = sdup(m, s->loop);
	d->kernel = s->kernel;
	d->params = s->params ? json_deep_copy(s->params) : NULL;
	d->source = s->source ? json_deep_copy(s->source) : NULL;
	d->counter_names = zalloc(m, s->ncounters, sizeof(char *));
	for (unsigned k = 0; k < s->ncounters; k++)
		d->counter_names[k] = sdup(m, s->counter_names[k]);
	d->ncounters = s->ncounters;
}

/* The merged number of invocation `local` of input `in` (1, 2, ...). */
static unsigned global_invocation(struct merge *m, unsigned in, unsigned local)
{
	for (unsigned k = 0; k < m->ninv; k++)
		if (m->inv[k].in == in && m->inv[k].var == local)
			return k + 1;
	m->inv = realloc(m->inv, (m->ninv + 1) * sizeof(*m->inv));
	if (!m->inv)
		fail(m, "out of memory");
	m->inv[m->ninv++] = (struct merge_source){in, local};
	return m->ninv;
}

/*
 * Move the runs of point s of input `in` to (v, row) (each input point
 * goes to one merged point: moved, not copied, so the runs are held
 * once); a failure wins over success, success over missing.
 */
static void move_point(struct merge *m, struct results *r, unsigned v, unsigned row,
		       unsigned in, struct point *s)
{
	struct point *p = results_point(r, v, row);
	unsigned first;

	if (p->status == POINT_MISSING || s->status > POINT_OK) {
		free(p->error);
		p->status = s->status;
		p->error = sdup(m, s->error);
	}
	if (results_move_runs(r, v, row, s, &first))
		fail(m, "out of memory");
	for (unsigned k = first; k < p->nruns; k++)
		p->runs[k].invocation = global_invocation(m, in, p->runs[k].invocation);
}

/* Rows of the merged model: numbers and descriptions from the first
 * file that has each row. */
static void merged_rows(struct merge *m, struct results *r)
{
	for (unsigned row = 0; row < m->nrows; row++)
		for (unsigned i = 0; i < m->nin; i++) {
			const struct results *s = &m->in[i].r;
			int k = row_in(s, m->row_key[row]);

			if (k < 0)
				continue;
			r->rows[row] = s->rows[k];
			if (s->row_desc) {
				if (results_alloc_row_desc(r))
					fail(m, "out of memory");
				r->row_desc[row].label = sdup(m, s->row_desc[k].label);
				r->row_desc[row].metric = sdup(m, s->row_desc[k].metric);
				r->row_desc[row].lower_better = s->row_desc[k].lower_better;
			}
			break;
		}
}

/* machine.KEY of file i (a string), or NULL. */
static const char *machine_str(const struct merge *m, unsigned i, const char *key)
{
	return json_string_value(json_object_get(m->in[i].r.machine, key));
}

/* Does every file record the first file's machine.KEY? */
static bool shared(const struct merge *m, const char *key)
{
	for (unsigned i = 1; i < m->nin; i++)
		if (!same_str(machine_str(m, 0, key), machine_str(m, i, key)))
			return false;
	return machine_str(m, 0, key) != NULL;
}

/*
 * What the files had in common (the CPU model; the kernel when they
 * share one, else "differs between the files": each file's is under
 * config.files[]), and each file's description.
 */
static void merged_meta(const struct merge *m, struct results *r)
{
	json_t *files = json_array();
	const char *k = machine_str(m, 0, "kernel");

	r->ncpus = m->in[0].r.ncpus;
	for (unsigned i = 0; i < m->nin; i++) {
		const struct results *s = &m->in[i].r;

		if (s->ncpus != r->ncpus)
			r->ncpus = 0;
		r->incomplete |= s->incomplete;
		json_array_append_new(files, json_pack("{s:s, s:s, s:O?, s:O?, s:O?}",
			"file", m->in[i].path, "label", m->in[i].label,
			"machine", s->machine, "config", s->config,
			"provenance", s->provenance));
	}
	r->machine = shared(m, "cpu_model") ? json_pack("{s:s}", "cpu_model",
							machine_str(m, 0, "cpu_model")) : NULL;
	if (r->machine && k)
		json_object_set_new(r->machine, "kernel", json_string(shared(m, "kernel") ? k :
						"differs between the files"));
	r->config = json_pack("{s:s, s:o}", "command", m->verb, "files", files);
}

char *merge_differ_line(const struct merge *m, const json_t *const *vals, size_t flags,
			const char *head, ...)
{
	const json_t *first = NULL;
	bool differ = false;
	char *line = NULL;
	size_t len;
	va_list ap;
	FILE *f;

	for (unsigned i = 0; i < m->nin && !differ; i++) {
		differ = vals[i] && first && !results_json_same(first, vals[i], false);
		first = first ? first : vals[i];
	}
	if (!differ || !(f = open_memstream(&line, &len)))
		return NULL;
	va_start(ap, head);
	vfprintf(f, head, ap);
	va_end(ap);
	fputc(':', f);
	for (unsigned i = 0; i < m->nin; i++) {
		char *txt = vals[i] ? json_dumps(vals[i], flags | JSON_ENCODE_ANY) : NULL;

		fprintf(f, "%s %s %s", i ? "," : "", m->in[i].label, txt ? txt : "?");
		free(txt);
	}
	fclose(f);
	return line;
}

/*
 * The machine environment (machine.environment, docs/json.md) of the
 * files that record one: one warning per item that differs between
 * them, naming each file's value; the merged results keep the
 * environment when it is the same in every file.
 */
static void merged_environment(struct merge *m, struct results *r)
{
	static const char *const items[][3] = {
		{"clocksource", "current", "clocksource"},
		{"preemption", "model", "preemption model"},
		{"cmdline", "notable", "kernel command line"},
		{"cpuidle", "governor", "cpuidle governor"},
		{"hypervisor", "detected", "hypervisor"},
		{"thp", "enabled", "transparent huge pages"},
	};
	const json_t *env0 = json_object_get(m->in[0].r.machine, "environment");
	const json_t **v = zalloc(m, m->nin, sizeof(*v));
	bool same = env0 != NULL;

	for (size_t k = 0; k < sizeof(items) / sizeof(items[0]); k++) {
		char *line;

		for (unsigned i = 0; i < m->nin; i++) {
			const json_t *e = json_object_get(m->in[i].r.machine, "environment");
			const json_t *x = json_object_get(json_object_get(e, items[k][0]),
							  items[k][1]);

			v[i] = !e ? NULL : x ? x : json_null();
			same &= results_json_same(env0, e, false);
		}
		line = merge_differ_line(m, v, JSON_COMPACT, "warning: the files differ in %s",
					 items[k][2]);
		if (line)
			warn(m, line);
	}
	free(v);
	if (same && r->machine)
		json_object_set(r->machine, "environment", (json_t *)env0);
}

/* The perf events, when every file measured the same ones in the same
 * order (else the merged results carry none). */
static void merged_perf(struct merge *m, struct results *r)
{
	const struct results *f = &m->in[0].r;

	for (unsigned i = 1; i < m->nin; i++) {
		const struct results *s = &m->in[i].r;

		if (s->nperf != f->nperf)
			return;
		for (unsigned k = 0; k < f->nperf; k++)
			if (strcmp(s->perf_names[k], f->perf_names[k]))
				return;
	}
	if (f->nperf && results_set_perf_names(r, (const char *const *)f->perf_names, f->nperf))
		fail(m, "out of memory");
	for (unsigned i = 0; i < m->nin; i++)
		r->perf_named |= m->in[i].r.perf_named;
}

/*
 * What differs between the files' environments that changes the
 * numbers (results_env_diff): each file named by its label, or by its
 * path where several files share a label.
 */
static void merged_env_diffs(struct merge *m, struct results *r)
{
	const struct results **in = zalloc(m, m->nin, sizeof(*in));
	const char **names = zalloc(m, m->nin, sizeof(*names));

	for (unsigned i = 0; i < m->nin; i++) {
		bool shared = false;

		for (unsigned j = 0; j < m->nin; j++)
			shared |= j != i && !strcmp(m->in[i].label, m->in[j].label);
		in[i] = &m->in[i].r;
		names[i] = shared ? m->in[i].path : m->in[i].label;
	}
	r->env_diffs = results_env_diff(in, names, m->nin);
	free(in);
	free(names);
}

static void build_merged(struct merge *m, struct results *r)
{
	const struct results *first = &m->in[0].r;

	if (results_init(r, m->ncol, m->nrows))
		fail(m, "out of memory");
	/* One label: the run's own heading ("Lock"); several: kernels. */
	r->variant_heading = sdup(m, m->by_host ? "Host" : m->one_label &&
				  first->variant_heading ? first->variant_heading : "Kernel");
	r->row_heading = sdup(m, first->row_heading);
	r->workload = sdup(m, first->workload);
	r->cv_flag = first->cv_flag;
	r->alpha = first->alpha;
	merged_rows(m, r);
	/* Before the runs move out of the inputs: the probes are theirs. */
	merged_env_diffs(m, r);
	for (unsigned c = 0; c < m->ncol; c++) {
		const struct merge_input *in = &m->in[m->col[c].in];

		copy_variant(m, &r->variants[c], &in->r.variants[m->col[c].var], &m->col[c],
			     in->label);
		for (unsigned j = 0; j < m->col[c].nsrc; j++) {
			const struct merge_source *sc = &m->col[c].src[j];
			struct results *sr = &m->in[sc->in].r;

			for (unsigned row = 0; row < m->nrows; row++) {
				int k = row_in(sr, m->row_key[row]);

				if (k >= 0)
					move_point(m, r, c, row, sc->in,
						   results_point(sr, sc->var, (unsigned)k));
			}
		}
	}
	merged_meta(m, r);
	merged_environment(m, r);
	merged_perf(m, r);
}

static const char *col_label(const struct merge *m, unsigned c)
{
	return m->in[m->col[c].in].label;
}

static const char *col_lock(const struct merge *m, unsigned c)
{
	const struct variant *v = &m->in[m->col[c].in].r.variants[m->col[c].var];

	return v->lock ? v->lock : v->name;
}

/* "a, b/x, b/y; labels a, b" into names. */
static void baseline_choices(const struct merge *m, char *names, size_t len)
{
	const char *sep = "";

	snprintf(names, len, "columns ");
	for (unsigned c = 0; c < m->ncol; c++)
		snprintf(names + strlen(names), len - strlen(names), "%s%s",
			 c ? ", " : "", m->col[c].name);
	snprintf(names + strlen(names), len - strlen(names), "; labels ");
	for (unsigned c = 0; c < m->ncol; c++) {
		bool seen = false;

		for (unsigned k = 0; k < c; k++)
			seen |= !strcmp(col_label(m, k), col_label(m, c));
		if (!seen)
			snprintf(names + strlen(names), len - strlen(names), "%s%s", sep,
				 col_label(m, c)), sep = ", ";
	}
}

/*
 * --baseline: exactly a column's name, or exactly a label.  A label of
 * several columns pairs by lock (the patch-vs-stock question): each
 * column is compared with the column of the same lock under that label.
 * Without --baseline: the first column, or, when the first label has
 * several columns and there are other labels, that label paired by lock.
 * Neither a column nor a label: refused, listing both.
 */
static void pick_baseline(struct merge *m, const char *name, struct results *r)
{
	char names[2048];
	unsigned first = m->ncol, nlab = 0;
	bool others = false;

	r->baseline = 0;
	for (unsigned c = 0; name && c < m->ncol; c++)
		if (!strcmp(m->col[c].name, name)) {
			r->baseline = c;
			return;
		}
	if (!name)
		name = col_label(m, 0);
	for (unsigned c = 0; c < m->ncol; c++) {
		bool mine = !strcmp(col_label(m, c), name);

		if (mine && first == m->ncol)
			first = c;
		nlab += mine;
		others |= !mine;
	}
	if (!nlab) {
		baseline_choices(m, names, sizeof(names));
		fail(m, "--baseline (%s): no such column or label; valid: %s", name, names);
	}
	r->baseline = first;
	if (nlab < 2 || !others)
		return;
	r->base_of = zalloc(m, m->ncol, sizeof(*r->base_of));
	for (unsigned c = 0; c < m->ncol; c++) {
		r->base_of[c] = c;
		for (unsigned k = 0; k < m->ncol; k++)
			if (!strcmp(col_label(m, k), name) &&
			    !strcmp(col_lock(m, k), col_lock(m, c))) {
				r->base_of[c] = k;
				break;
			}
	}
}

/* " cs_ns (100, 0)" for each parameter a and b differ in. */
static void params_differ(const struct merge *m, const struct results *r, unsigned a,
			  unsigned b, char *out, size_t len)
{
	*out = 0;
	differing(r->variants[a].params, r->variants[b].params,
		  (const char *const *)m->dims, out, len, NULL);
}

/* Columns a and b of r ran with the same swept workload parameters. */
static bool same_params(const struct merge *m, const struct results *r, unsigned a,
			unsigned b)
{
	char why[1024];

	params_differ(m, r, a, b, why, sizeof(why));
	return !*why;
}

/*
 * A sweep: each column is compared with the baseline's column (same
 * label, same lock) at its own parameters; where there is none, with
 * the baseline as picked, and a warning names the parameters that
 * differ.
 */
static void pair_params(struct merge *m, struct results *r)
{
	char cb[512], ck[512], why[1024];

	if (!m->ndims)
		return;
	if (!r->base_of) {
		r->base_of = zalloc(m, r->nvariants, sizeof(*r->base_of));
		for (unsigned c = 0; c < r->nvariants; c++)
			r->base_of[c] = r->baseline;
	}
	for (unsigned c = 0; c < r->nvariants; c++) {
		unsigned b = r->base_of[c], k;

		if (same_params(m, r, c, b))
			continue;
		results_column(r, b, cb, sizeof(cb));
		for (k = 0; k < r->nvariants; k++)
			if (!strcmp(col_label(m, k), col_label(m, b)) &&
			    !strcmp(results_column(r, k, ck, sizeof(ck)), cb) &&
			    same_params(m, r, c, k))
				break;
		if (k < r->nvariants) {
			r->base_of[c] = k;
			continue;
		}
		params_differ(m, r, c, b, why, sizeof(why));
		warn(m, fmt(m, "warning: compare: %s is compared with %s, measured with "
			    "other parameters:%s", r->variants[c].name, r->variants[b].name, why));
	}
}

/*
 * Files that each ran one value of the parameter `key` (a config key)
 * become one sweep over it: `key` a swept parameter of every column
 * (fill_params() takes each file's value from its config), the columns
 * named as a sweep names them.  Nothing to do for a key some file swept
 * itself or one a file lacks.  Files that differ in another setting are
 * refused: one table is one experiment.  `what` names the request in
 * the refusal ("compare --rows cs-ns").
 */
static void param_sweep(struct merge *m, const char *key, const char *what,
			const char *param)
{
	char cd[1024];

	for (unsigned i = 0; i < m->nin; i++) {
		const char *keys[32];
		unsigned n = results_dims(&m->in[i].r, keys, 32);

		if (!json_is_number(json_object_get(m->in[i].r.config, key)))
			return;
		for (unsigned k = 0; k < n; k++)
			if (!strcmp(keys[k], key))
				return;
	}
	m->rows_key = sdup(m, key);
	m->dims[m->ndims++] = sdup(m, key);
	m->rows_one_label = true;
	for (unsigned i = 1; i < m->nin; i++)
		m->rows_one_label &= same_str(m->in[i].r.label, m->in[0].r.label);
	/* One label (or none): the files are one experiment, not a label
	 * each (named by their file names). */
	for (unsigned i = 0; m->rows_one_label && i < m->nin; i++) {
		free(m->in[i].label);
		m->in[i].label = sdup(m, m->in[0].r.label ? m->in[0].r.label : "");
	}
	for (unsigned i = 1; i < m->nin; i++) {
		cd[0] = 0;
		differing(m->in[0].r.config, m->in[i].r.config, conf, cd, sizeof(cd), m);
		if (*cd)
			fail(m, "%s (%s, %s): the files differ in%s too; one table takes "
				"files that differ only in %s", what, m->in[0].path,
				m->in[i].path, cd, param);
	}
}

/*
 * --rows PARAM over files that each ran one value of it (a bash-loop
 * sweep, docs/guide.md "Sweeps over any parameter"): param_sweep().
 * Nothing to do for threads (thread_loop()) or --rows cpu-share.
 */
static void rows_param(struct merge *m)
{
	char what[192];

	if (!m->rows || !strcmp(m->rows, "threads") || m->cpu_share || m->nin < 2)
		return;
	snprintf(what, sizeof(what), "compare --rows %s", m->rows);
	param_sweep(m, m->rows_conf, what, m->rows);
}

/*
 * merge of a bash-loop sweep: files that differ in one workload
 * parameter of conf[] alone, a number in each, are a sweep over it
 * (param_sweep()), so that the merged file carries it per column
 * (variants[].params) and `compare --rows PARAM` cuts it.
 */
static void merge_param(struct merge *m)
{
	const char *key = NULL;

	for (unsigned k = 0; conf[k] && m->nin >= 2; k++) {
		const json_t *x = json_object_get(m->in[0].r.config, conf[k]);
		bool differs = false;

		for (unsigned i = 1; i < m->nin; i++)
			differs |= !results_json_same(x, json_object_get(m->in[i].r.config,
									  conf[k]), true);
		if (!differs)
			continue;
		if (key)
			return;		/* two differ: not one sweep */
		key = conf[k];
	}
	if (key && json_is_number(json_object_get(m->in[0].r.config, key)))
		param_sweep(m, key, "merge", key);
}

/* Do files i and j share a thread count (a row)? */
static bool rows_meet(const struct results *a, const struct results *b)
{
	for (unsigned x = 0; x < a->nrows; x++)
		for (unsigned y = 0; y < b->nrows; y++)
			if (a->rows[x] == b->rows[y] && !a->row_desc && !b->row_desc)
				return true;
	return a->row_desc || b->row_desc;
}

/*
 * A thread-count loop (`for t in 1 2 4; do lockbench -t $t -o t$t.json`):
 * files with no --label, the same settings, and no thread count in two
 * of them are one experiment: one label, so that their columns join
 * into one table instead of one column per file (docs/guide.md).
 */
static void thread_loop(struct merge *m)
{
	char cd[1024] = "";

	if (m->nin < 2 || m->rows_key || m->cpu_share || m->by_host)
		return;
	for (unsigned i = 0; i < m->nin; i++) {
		if (m->in[i].r.label && *m->in[i].r.label)
			return;
		for (unsigned j = 0; j < i; j++)
			if (rows_meet(&m->in[i].r, &m->in[j].r))
				return;
		if (i)
			differing(m->in[0].r.config, m->in[i].r.config, conf, cd, sizeof(cd),
				  NULL);
		if (*cd)
			return;
	}
	for (unsigned i = 0; i < m->nin; i++) {
		free(m->in[i].label);
		m->in[i].label = sdup(m, "");
	}
}

/* Kernel locktorture columns and userspace ones among the files. */
static bool kernel_mixed(const struct merge *m)
{
	bool kernel = false, user = false;

	for (unsigned i = 0; i < m->nin; i++)
		for (unsigned v = 0; v < m->in[i].r.nvariants; v++) {
			kernel |= m->in[i].r.variants[v].kernel;
			user |= !m->in[i].r.variants[v].kernel;
		}
	return kernel && user;
}

/* --columns host: the file's label becomes its machine's name. */
static void by_host(struct merge *m, struct merge_input *in)
{
	const char *h = json_string_value(json_object_get(in->r.machine, "hostname"));

	if (!h || !*h)
		h = json_string_value(json_object_get(in->r.provenance, "host"));
	if (!h || !*h)
		fail(m, "--columns host (%s): the file names no host (machine.hostname)",
		     in->path);
	free(in->label);
	in->label = sdup(m, h);
}

/* --rows cpu-share: each thread count n is the row "100*n/ncpus%". */
static void cpu_share(struct merge *m, struct merge_input *in)
{
	struct results *r = &in->r;

	if (r->row_desc)
		fail(m, "--rows cpu-share (%s): its rows are named workloads, not "
		     "thread counts", in->path);
	if (!r->ncpus)
		fail(m, "--rows cpu-share (%s): the file records no CPU count (ncpus)",
		     in->path);
	if (results_alloc_row_desc(r))
		fail(m, "out of memory");
	for (unsigned k = 0; k < r->nrows; k++)
		r->row_desc[k].label = fmt(m, "%.4g%%", 100.0 * r->rows[k] / r->ncpus);
	free(r->row_heading);
	r->row_heading = sdup(m, "cpu-share");
}

/* The inputs, checked and relabelled, as columns (picked by -l) and
 * the union of their rows. */
static void join(struct merge *m, unsigned n, char **paths)
{
	unsigned ncol = 0;

	load_inputs(m, n, paths);
	check_copies(m);
	for (unsigned i = 0; i < m->nin; i++) {
		if (m->by_host)
			by_host(m, &m->in[i]);
		if (m->cpu_share)
			cpu_share(m, &m->in[i]);
	}
	rows_param(m);
	/* merge (not compare, whose --rows asks for it) joins a bash-loop
	 * sweep by itself. */
	if (!strcmp(m->verb, "merge"))
		merge_param(m);
	thread_loop(m);
	fill_params(m);
	check_inputs(m);
	warn_differences(m);
	m->one_label = true;
	for (unsigned i = 0; i < m->nin; i++) {
		m->one_label &= !strcmp(m->in[i].label, m->in[0].label);
		ncol += m->in[i].r.nvariants;
	}
	m->col = zalloc(m, ncol, sizeof(*m->col));
	m->mixed = kernel_mixed(m);
	for (unsigned i = 0; i < m->nin; i++)
		add_columns(m, i);
	union_rows(m);
}

int merge_load(struct merge *m, unsigned n, char **paths, const char *baseline,
	       struct results *r)
{
	struct results_part *parts;
	unsigned nparts;
	char err[512];

	memset(r, 0, sizeof(*r));
	if (setjmp(m->fail)) {
		if (!m->err)
			m->err = strdup("out of memory");
		return -1;
	}
	join(m, n, paths);
	build_merged(m, r);
	/* --rows: a dimension of the merged results. */
	if (results_split(r, m->cpu_share ? NULL : m->rows, &parts, &nparts, err,
			  sizeof(err)))
		fail(m, "%s", err);
	results_parts_free(parts, nparts);
	pick_baseline(m, baseline, r);
	pair_params(m, r);
	return 0;
}

void merge_free(struct merge *m)
{
	for (unsigned i = 0; i < m->nin; i++) {
		results_free(&m->in[i].r);
		free(m->in[i].label);
	}
	for (unsigned c = 0; c < m->ncol; c++) {
		free(m->col[c].name);
		free(m->col[c].src);
	}
	for (unsigned k = 0; k < m->ndims; k++)
		free(m->dims[k]);
	for (unsigned k = 0; k < m->nrows; k++)
		free(m->row_key[k]);
	free(m->inv);
	free(m->rows_key);
	free(m->in);
	free(m->col);
	free(m->row_key);
	free(m->err);
}
