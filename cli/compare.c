/* SPDX-License-Identifier: MIT */
/*
 * `lockbench compare`: saved results side by side.  Its options are a
 * table of the option engine (opt.h); bad usage or bad input exits 2
 * with one line on stderr, before any output file is made.
 *
 * compare merges saved JSON files into one results model whose columns
 * are (file label, lock) pairs and whose rows are the union of the
 * files' rows, then recomputes every statistic from the raw runs
 * (results_finalize) and renders it like a run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/sha256.h"
#include "../output/results/envdiff.h"
#include "../output/results/json_read.h"
#include "cmds.h"
#include "compare_hosts.h"
#include "err.h"
#include "floor.h"
#include "infile.h"
#include "opt.h"
#include "outfile.h"
#include "provenance.h"

/* ---- compare ------------------------------------------------------------- */

struct input {
	const char *path;
	char *label;              /* the file's label, or its name without .json */
	struct results r;
};

/*
 * One column of the comparison: variant `var` of input `in`, named by
 * the file's label, or label/variant when the file gives several.
 * Files with one label are several invocations of the same thing: the
 * column takes the variant of each of them (src[0] is in/var).
 */
struct source {
	unsigned in, var;
};

struct column {
	unsigned in, var;
	unsigned nsrc;
	struct source *src;
	char *name;
};

/* Appended to the name of a kernel locktorture column next to userspace ones. */
#define KERNEL_MARK "[k]"

struct merge {
	struct input *in;
	unsigned nin;
	bool mixed;               /* kernel and userspace columns together */
	struct column *col;
	unsigned ncol;
	char **row_key;           /* union of row names, in output order */
	unsigned nrows;
	bool one_label;           /* every input has the same label */
	/* Invocations numbered apart: (file, its own number) -> index + 1. */
	struct source *inv;
	unsigned ninv;
	/* The workload parameters some file swept (its variants' params). */
	char *dims[32];
	unsigned ndims;
	/* --rows PARAM of files that each ran one value (rows_param()):
	 * its key, and whether the files' own labels are all the same. */
	char *rows_key;
	bool rows_one_label;
	/* Cross-host (compare_hosts.h): columns by host, rows by CPU share. */
	bool by_host, cpu_share;
	const char *verb;         /* "compare" or "merge", for its refusals */
};

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
				m->dims[m->ndims++] = cli_strdup(keys[k]);
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

static char *file_label(const char *path, const struct results *r)
{
	char *dup, *base, *dot, *out;

	if (r->label && *r->label)
		return cli_strdup(r->label);
	dup = cli_strdup(path);
	base = basename(dup);
	dot = strrchr(base, '.');
	if (dot && dot != base && !strcmp(dot, ".json"))
		*dot = 0;
	out = cli_strdup(base);
	free(dup);
	return out;
}

static void load_inputs(struct merge *m, int n, char **paths)
{
	char err[512];

	m->in = cli_calloc((size_t)n, sizeof(*m->in));
	m->nin = (unsigned)n;
	for (int i = 0; i < n; i++)
		infile_check("cannot read results", paths[i]);
	for (int i = 0; i < n; i++) {
		char *ri = realpath(paths[i], NULL);

		for (int j = 0; ri && j < i; j++) {
			char *rj = realpath(paths[j], NULL);
			bool dup = rj && !strcmp(ri, rj);

			free(rj);
			if (dup) {
				free(ri);
				cli_die("cannot %s (%s): given twice (its runs would count "
				     "as another invocation)", m->verb, paths[i]);
			}
		}
		free(ri);
		m->in[i].path = paths[i];
		if (results_from_json(paths[i], &m->in[i].r, err, sizeof(err)))
			cli_die_msg(err);
		m->in[i].label = file_label(paths[i], &m->in[i].r);
	}
}

static bool same_str(const char *a, const char *b);

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
static bool same_runs(const struct input *a, const char *sha_a, const struct input *b,
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
 * invocations agreeing perfectly): one line, exit 2. */
static void check_copies(const struct merge *m)
{
	char (*sha)[65] = cli_calloc(m->nin, sizeof(*sha));

	for (unsigned i = 0; i < m->nin; i++)
		if (sha256_file(m->in[i].path, sha[i]))
			sha[i][0] = '\0';
	for (unsigned i = 1; i < m->nin; i++)
		for (unsigned j = 0; j < i; j++)
			if (same_runs(&m->in[j], sha[j], &m->in[i], sha[i]))
				cli_die("cannot %s (%s): the same runs as %s (%s); give "
					"each once", m->verb, m->in[i].path, m->in[j].path,
					*sha[i] && !strcmp(sha[i], sha[j]) ? "an identical copy"
					: "same configuration, creation time, provenance and runs");
	free(sha);
}

static bool same_str(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

/* The metric of a row named `key` in r, or NULL for throughput. */
static const struct row_desc *row_desc_of(const struct results *r, const char *key)
{
	char buf[256];

	for (unsigned k = 0; r->row_desc && k < r->nrows; k++)
		if (!strcmp(results_row_name(r, k, buf, sizeof(buf)), key))
			return &r->row_desc[k];
	return NULL;
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
static void warn_differences(const struct merge *m)
{
	static const char *const mach[] = {
		"cpu_model", "arch", "pus", "cores", "numa_nodes", "packages", NULL,
	};
	const struct input *a = &m->in[0];

	for (unsigned i = 1; i < m->nin; i++) {
		const struct input *b = &m->in[i];
		char md[1024] = "", cd[1024] = "";

		differing(a->r.machine, b->r.machine, mach, md, sizeof(md), NULL);
		differing(a->r.config, b->r.config, conf, cd, sizeof(cd), m);
		if (*md || *cd)
			cli_warn("warning: compare (%s, %s):%s%s%s%s%s",
				a->path, b->path, *md ? " machine differs:" : "", md,
				*md && *cd ? ";" : "", *cd ? " configuration differs:" : "", cd);
	}
}

static void check_inputs(const struct merge *m)
{
	const struct input *a = &m->in[0];

	for (unsigned i = 1; i < m->nin; i++) {
		const struct input *b = &m->in[i];

		if (!same_workload(a->r.workload, b->r.workload))
			cli_die("cannot %s (%s, %s): different workloads (%s, %s)",
			     m->verb, a->path, b->path, a->r.workload ? a->r.workload : "none",
			     b->r.workload ? b->r.workload : "none");
		for (unsigned k = 0; b->r.row_desc && k < b->r.nrows; k++) {
			const struct row_desc *d = &b->r.row_desc[k], *e;
			char key[256];

			results_row_name(&b->r, k, key, sizeof(key));
			e = row_desc_of(&a->r, key);
			if (e && (!same_str(d->metric, e->metric) ||
				  d->lower_better != e->lower_better))
				cli_die("cannot %s (%s, %s): row %s measures different "
				     "units (%s, %s)", m->verb, a->path, b->path, key,
				     e->metric ? e->metric : "ops/s",
				     d->metric ? d->metric : "ops/s");
		}
	}
}

/* Is variant v of r selected by -l (NULL: all)? */
static bool selected(const struct variant *v, const char *locks)
{
	char *dup, *save = NULL;
	bool hit = false;

	if (!locks)
		return true;
	dup = cli_strdup(locks);
	for (char *t = strtok_r(dup, ",", &save); t && !hit; t = strtok_r(NULL, ",", &save))
		hit = !strcmp(t, v->name) || (v->lock && !strcmp(t, v->lock));
	free(dup);
	return hit;
}

/* A column of --rows PARAM: named as a sweep names it, "ticket cs_ns=100"
 * (with "LABEL/" where the files' labels differ), so that the columns
 * of one lock become one column of the table (results_column()). */
static char *rows_column_name(const struct merge *m, const struct input *in, unsigned v)
{
	const json_t *x = json_object_get(in->r.variants[v].params, m->rows_key);
	char val[64], *name;
	int rc;

	if (json_is_integer(x))
		snprintf(val, sizeof(val), "%lld", (long long)json_integer_value(x));
	else
		snprintf(val, sizeof(val), "%g", json_number_value(x));
	if (m->rows_one_label)
		rc = asprintf(&name, "%s %s=%s", in->r.variants[v].name, m->rows_key, val);
	else
		rc = asprintf(&name, "%s/%s %s=%s", in->label, in->r.variants[v].name,
			      m->rows_key, val);
	if (rc < 0)
		cli_die("out of memory");
	return name;
}

static void add_columns(struct merge *m, unsigned i, const char *locks)
{
	const struct input *in = &m->in[i];
	unsigned nsel = 0;

	for (unsigned v = 0; v < in->r.nvariants; v++)
		nsel += selected(&in->r.variants[v], locks);
	if (!nsel)
		cli_die("no lock of -l (%s) in %s", locks, in->path);
	for (unsigned v = 0; v < in->r.nvariants; v++) {
		struct column *c = &m->col[m->ncol], *same = NULL;
		const char *lock = in->r.variants[v].name;

		if (!selected(&in->r.variants[v], locks))
			continue;
		if (m->rows_key) {
			c->name = rows_column_name(m, in, v);
		} else if (nsel == 1 && *in->label) {
			c->name = cli_strdup(in->label);
		} else if (m->one_label) {
			c->name = cli_strdup(lock);	/* one run (or its repeats) */
		} else if (asprintf(&c->name, "%s/%s", in->label, lock) < 0) {
			cli_die("out of memory");
		}
		if (m->mixed && in->r.variants[v].kernel) {
			char *k;

			if (asprintf(&k, "%s%s", c->name, KERNEL_MARK) < 0)
				cli_die("out of memory");
			free(c->name);
			c->name = k;
		}
		for (unsigned k = 0; k < m->ncol && !same; k++)
			if (!strcmp(m->col[k].name, c->name))
				same = &m->col[k];
		if (same && strcmp(m->in[same->in].label, in->label))
			cli_die("cannot %s (%s, %s): both give a column %s; "
			     "save them with different --label", m->verb, m->in[same->in].path,
			     in->path, c->name);
		if (same) {
			/* Another invocation of the same label and lock. */
			free(c->name);
			c->name = NULL;
			same->src[same->nsrc++] = (struct source){i, v};
			continue;
		}
		c->in = i;
		c->var = v;
		c->src = cli_calloc(m->nin, sizeof(*c->src));
		c->src[c->nsrc++] = (struct source){i, v};
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
	m->row_key = cli_calloc(cap, sizeof(char *));
	for (unsigned i = 0; i < m->nin; i++)
		for (unsigned k = 0; k < m->in[i].r.nrows; k++) {
			char key[256];
			unsigned j;

			results_row_name(&m->in[i].r, k, key, sizeof(key));
			for (j = 0; j < m->nrows && strcmp(m->row_key[j], key); j++)
				;
			if (j == m->nrows)
				m->row_key[m->nrows++] = cli_strdup(key);
		}
	if (!named || m->cpu_share)
		qsort(m->row_key, m->nrows, sizeof(char *), cmp_numeric);
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

static void copy_variant(struct variant *d, const struct variant *s,
			 const struct column *c, const char *label)
{
	d->name = cli_strdup(c->name);
	d->lock = cli_strdup(s->lock ? s->lock : s->name);
	d->label = cli_strdup(label);
	d->origin = cli_strdup(s->origin);
	d->sha256 = cli_strdup(s->sha256);
	d->loop = cli_strdup(s->loop);
	d->kernel = s->kernel;
	d->params = s->params ? json_deep_copy(s->params) : NULL;
	d->source = s->source ? json_deep_copy(s->source) : NULL;
	d->counter_names = cli_calloc(s->ncounters, sizeof(char *));
	for (unsigned k = 0; k < s->ncounters; k++)
		d->counter_names[k] = cli_strdup(s->counter_names[k]);
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
		cli_die("out of memory");
	m->inv[m->ninv++] = (struct source){in, local};
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
		p->error = cli_strdup(s->error);
	}
	if (results_move_runs(r, v, row, s, &first))
		cli_die("out of memory");
	for (unsigned k = first; k < p->nruns; k++)
		p->runs[k].invocation = global_invocation(m, in, p->runs[k].invocation);
}

/* Rows of the merged model: numbers and descriptions from the first
 * file that has each row. */
static void merged_rows(const struct merge *m, struct results *r)
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
					cli_die("out of memory");
				r->row_desc[row].label = cli_strdup(s->row_desc[k].label);
				r->row_desc[row].metric = cli_strdup(s->row_desc[k].metric);
				r->row_desc[row].lower_better = s->row_desc[k].lower_better;
			}
			break;
		}
}

/* machine.kernel of the merged results: the files' kernel when they
 * share one, else "differs between the files" (each file's is under
 * config.files[]); nothing when no file records it. */
static void merged_kernel(const struct merge *m, json_t *machine)
{
	const char *k = json_string_value(json_object_get(m->in[0].r.machine, "kernel"));
	bool same = true;

	for (unsigned i = 1; k && i < m->nin; i++)
		same &= same_str(k, json_string_value(json_object_get(m->in[i].r.machine,
									"kernel")));
	if (machine && k)
		json_object_set_new(machine, "kernel", json_string(same ? k :
						"differs between the files"));
}

/* What the files had in common, and each file's description. */
static void merged_meta(const struct merge *m, struct results *r)
{
	json_t *files = json_array();
	const char *cpu = json_string_value(json_object_get(m->in[0].r.machine, "cpu_model"));
	bool same_cpu = cpu != NULL;

	r->ncpus = m->in[0].r.ncpus;
	for (unsigned i = 0; i < m->nin; i++) {
		const struct results *s = &m->in[i].r;

		if (s->ncpus != r->ncpus)
			r->ncpus = 0;
		r->incomplete |= s->incomplete;
		same_cpu &= same_str(cpu, json_string_value(json_object_get(s->machine,
									      "cpu_model")));
		json_array_append_new(files, json_pack("{s:s, s:s, s:O?, s:O?, s:O?}",
			"file", m->in[i].path, "label", m->in[i].label,
			"machine", s->machine, "config", s->config,
			"provenance", s->provenance));
	}
	r->machine = same_cpu ? json_pack("{s:s}", "cpu_model", cpu) : NULL;
	merged_kernel(m, r->machine);
	r->config = json_pack("{s:s, s:o}", "command", "compare", "files", files);
}

/*
 * The machine environment (machine.environment, docs/json.md) of the
 * files that record one: one warning per item that differs between
 * them, naming each file's value; the merged results keep the
 * environment when it is the same in every file.
 */
static void merged_environment(const struct merge *m, struct results *r)
{
	static const char *const items[][3] = {
		{"clocksource", "current", "clocksource"},
		{"preemption", "model", "preemption model"},
		{"cmdline", "notable", "kernel command line"},
		{"cpuidle", "governor", "cpuidle governor"},
		{"hypervisor", "detected", "hypervisor"},
		{"thp", "enabled", "transparent huge pages"},
	};
	const json_t *env[64] = {0};
	unsigned n = 0, same = 0;

	for (unsigned i = 0; i < m->nin && i < 64; i++)
		if ((env[i] = json_object_get(m->in[i].r.machine, "environment")))
			n++;
	for (unsigned i = 1; i < m->nin && i < 64; i++)
		same += env[i] && env[0] && results_json_same(env[0], env[i], false);
	if (n < 2)
		goto keep;
	for (size_t k = 0; k < sizeof(items) / sizeof(items[0]); k++) {
		const json_t *first = NULL;
		bool differ = false;
		char line[1024];
		size_t used;

		for (unsigned i = 0; i < m->nin && i < 64 && !differ; i++) {
			const json_t *v = json_object_get(json_object_get(env[i], items[k][0]),
							  items[k][1]);

			if (!env[i])
				continue;
			v = v ? v : json_null();
			differ = first && !results_json_same(first, v, false);
			first = first ? first : v;
		}
		if (!differ)
			continue;
		used = (size_t)snprintf(line, sizeof(line), "warning: the files differ in %s:",
					items[k][2]);
		for (unsigned i = 0; i < m->nin && i < 64 && used < sizeof(line); i++) {
			json_t *v = json_object_get(json_object_get(env[i], items[k][0]),
						    items[k][1]);
			char *txt = env[i] ? json_dumps(v ? v : json_null(), JSON_ENCODE_ANY | JSON_COMPACT)
					   : NULL;

			used += (size_t)snprintf(line + used, sizeof(line) - used, "%s %s %s",
						 i ? "," : "", m->in[i].label, txt ? txt : "?");
			free(txt);
		}
		cli_warn_msg(line);
	}
keep:
	if (env[0] && same + 1 == m->nin && r->machine)
		json_object_set(r->machine, "environment", (json_t *)env[0]);
}

/* The perf events, when every file measured the same ones in the same
 * order (else the merged results carry none). */
static void merged_perf(const struct merge *m, struct results *r)
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
		cli_die("out of memory");
	for (unsigned i = 0; i < m->nin; i++)
		r->perf_named |= m->in[i].r.perf_named;
}

/*
 * What differs between the files' environments that changes the
 * numbers (results_env_diff): each file named by its label, or by its
 * path where several files share a label.
 */
static void merged_env_diffs(const struct merge *m, struct results *r)
{
	const struct results **in = cli_calloc(m->nin, sizeof(*in));
	const char **names = cli_calloc(m->nin, sizeof(*names));

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
		cli_die("out of memory");
	/* One label: the run's own heading ("Lock"); several: kernels. */
	r->variant_heading = cli_strdup(m->one_label && first->variant_heading ?
					first->variant_heading : "Kernel");
	r->row_heading = cli_strdup(first->row_heading);
	r->workload = cli_strdup(first->workload);
	r->cv_flag = first->cv_flag;
	r->alpha = first->alpha;
	merged_rows(m, r);
	/* Before the runs move out of the inputs: the probes are theirs. */
	merged_env_diffs(m, r);
	for (unsigned c = 0; c < m->ncol; c++) {
		const struct input *in = &m->in[m->col[c].in];

		copy_variant(&r->variants[c], &in->r.variants[m->col[c].var], &m->col[c],
			     in->label);
		for (unsigned j = 0; j < m->col[c].nsrc; j++) {
			const struct source *sc = &m->col[c].src[j];
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
 * Neither a column nor a label: exit 2 listing both.
 */
static void pick_baseline(const struct merge *m, const char *name, struct results *r)
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
		cli_die("--baseline (%s): no such column or label; valid: %s", name, names);
	}
	r->baseline = first;
	if (nlab < 2 || !others)
		return;
	r->base_of = cli_calloc(m->ncol, sizeof(*r->base_of));
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

/* Columns a and b of r ran with the same swept workload parameters. */
static bool same_params(const struct merge *m, const struct results *r, unsigned a,
			unsigned b)
{
	for (unsigned k = 0; k < m->ndims; k++) {
		json_t *x = json_object_get(r->variants[a].params, m->dims[k]);
		json_t *y = json_object_get(r->variants[b].params, m->dims[k]);

		if (!results_json_same(x, y, true))
			return false;
	}
	return true;
}

/* " cs_ns (100, 0)" for each parameter a and b differ in. */
static void params_differ(const struct merge *m, const struct results *r, unsigned a,
			  unsigned b, char *out, size_t len)
{
	json_t *x = json_object(), *y = json_object();

	for (unsigned k = 0; k < m->ndims; k++) {
		json_t *p = json_object_get(r->variants[a].params, m->dims[k]);
		json_t *q = json_object_get(r->variants[b].params, m->dims[k]);

		if (p)
			json_object_set(x, m->dims[k], p);
		if (q)
			json_object_set(y, m->dims[k], q);
	}
	*out = 0;
	differing(x, y, (const char *const *)m->dims, out, len, NULL);
	json_decref(x);
	json_decref(y);
}

/*
 * A sweep: each column is compared with the baseline's column (same
 * label, same lock) at its own parameters; where there is none, with
 * the baseline as picked, and a warning names the parameters that
 * differ.
 */
static void pair_params(const struct merge *m, struct results *r)
{
	char cb[512], ck[512], why[1024];

	if (!m->ndims)
		return;
	if (!r->base_of) {
		r->base_of = cli_calloc(r->nvariants, sizeof(*r->base_of));
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
		cli_warn("warning: compare: %s is compared with %s, "
			"measured with other parameters:%s", r->variants[c].name,
			r->variants[b].name, why);
	}
}

static void merge_free(struct merge *m)
{
	for (unsigned i = 0; i < m->nin; i++) {
		results_free(&m->in[i].r);
		free(m->in[i].label);
	}
	for (unsigned c = 0; c < m->ncol; c++) {
		free(m->col[c].name);
		free(m->col[c].src);
	}
	free(m->inv);
	for (unsigned k = 0; k < m->ndims; k++)
		free(m->dims[k]);
	free(m->rows_key);
	for (unsigned k = 0; k < m->nrows; k++)
		free(m->row_key[k]);
	free(m->in);
	free(m->col);
	free(m->row_key);
}

struct compare_args {
	struct output_args out;
	const char *locks, *baseline, *rows, *floor, *columns;
	double min_effect;        /* fraction of 1 */
	double fail_pct;          /* fraction of 1 */
	bool fail_given;
};

static const struct opt compare_rows[] = {
	{.name = "locks", .sname = 'l', .type = OPT_STR, .arg = "LIST",
	 .off = offsetof(struct compare_args, locks),
	 .help = "only these locks of each file"},
	{.name = "baseline", .type = OPT_STR, .arg = "LABEL", .shown = "first",
	 .off = offsetof(struct compare_args, baseline),
	 .help = "column (or label: each lock against itself) rel% is computed against"},
	{.name = "min-effect", .type = OPT_PERCENT, .arg = "PCT",
	 .min = 0, .max = 1000, .off = offsetof(struct compare_args, min_effect),
	 .help = "a change below PCT is never significant (e.g. the A/A floor)"},
	{.name = "floor", .type = OPT_STR, .arg = "FILE|PCT",
	 .off = offsetof(struct compare_args, floor),
	 .help = "invocation floor for one invocation a side: a `system check` "
		 "JSON file, or PCT"},
	{.name = "fail-if-regressed", .type = OPT_PERCENT, .arg = "PCT",
	 .min = 0, .max = 1000, .off = offsetof(struct compare_args, fail_pct),
	 .given = OPT_GIVEN(struct compare_args, fail_given),
	 .help = "exit 4 when a point is significantly worse by more than PCT "
		 "(5: cannot assess: the test could not have seen PCT)"},
	{.name = "rows", .type = OPT_STR, .arg = "DIM", .def = "threads",
	 .off = offsetof(struct compare_args, rows),
	 .help = "text tables of a sweep: rows over DIM (also files of one value "
		 "each, e.g. cs-ns), one table per rest; "
		 "cpu-share: threads as a share of each file's CPUs"},
	{.name = "columns", .type = OPT_STR, .arg = "WHAT", .shown = "label",
	 .off = offsetof(struct compare_args, columns),
	 .help = "host: one column per machine (machine.hostname), with notes "
		 "on what the hosts differ in"},
	OUTPUT_ROWS(struct compare_args, out, "table"),
};

const struct opt_cmd compare_options = OPT_CMD("compare", compare_rows);

void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench compare [options] A.json B.json ...\n"
		"Render saved runs side by side: one column per file (per label/lock\n"
		"when a file holds several locks), statistics recomputed from the runs.\n");
	opt_help(&compare_options, f);
	fprintf(f, "With one invocation (file) a side, a difference is significant only\n"
		"if the runs' test says so and it exceeds the invocation floor: --floor,\n"
		"else --min-effect, else the larger floor the files recorded (run --floor);\n"
		"with none such a point is marked _ (too few runs to judge).  A floor file\n"
		"from another host, or one the check refused (busy), is refused.\n"
		"Exit status: 0 success; 2 bad usage or input; 4 --fail-if-regressed\n"
		"found a point significantly worse than its baseline by more than PCT;\n"
		"5 cannot assess: a point the test could not have seen a change of PCT\n"
		"at (marked _: too few runs or invocations, one invocation a side and\n"
		"no floor, or its smallest detectable change above PCT); the line says\n"
		"what would reach PCT (more invocations, -r, a quieter machine, or\n"
		"`lockbench system check -o check.json` and --floor check.json).\n");
}

/*
 * Could point p not be assessed: marked `_` (results.h, unjudged: too
 * few runs, one invocation a side without a floor, or a test that could
 * not have seen a change of the gate's size), or a compared point whose
 * every run was left out (no verdict at all).
 */
static bool unassessed(const struct results *r, unsigned v, const struct point *p)
{
	return p->unjudged || (!results_is_base(r, v) && p->status == POINT_OK &&
			       !p->has_rel);
}

/* What would let the test see a change of pct at point p. */
static const char *gate_remedy(const struct results *r, const struct point *p, double pct,
			       char *buf, size_t len)
{
	double k = log1p(p->mde_pct / 100) / log1p(pct / 100);

	if (!p->has_rel)
		return "every run was left out for a busy machine: measure again on a "
		       "quieter machine";
	if (p->why == UNJ_ONE_INVOC)
		return "one invocation a side and no invocation floor: compare 2 or more "
		       "invocations per label, or run `lockbench system check -o "
		       "check.json` and give --floor check.json";
	if (p->why == UNJ_LEFT_OUT)
		return "runs were left out for a busy machine: measure on a quieter machine";
	if (p->why != UNJ_POWER)
		return "with fewer than 2 rounds or invocations a side: compare 2 or more "
		       "invocations per label, or runs with -r 2 or more";
	if (p->method == SIG_FLOOR && !(p->mde_pct > r->floor_pct))
		snprintf(buf, len, "the invocation floor is above it: a quieter machine "
			 "(a lower floor), or 2 or more invocations a side");
	else
		snprintf(buf, len, "about %.0fx the %s (%s), or a quieter machine",
			 ceil(k * k), p->method == SIG_INVOC || p->method == SIG_INVOC_PAIRED ?
			 "invocations a side" : "rounds", p->method == SIG_INVOC ||
			 p->method == SIG_INVOC_PAIRED ? "more files per label" : "-r");
	return buf;
}

/* One line: the points that could not be assessed against pct, the
 * first named with its smallest detectable change and the remedy. */
static void unassessed_line(const struct results *r, unsigned n, unsigned v, unsigned k,
			    double pct)
{
	const struct point *p = results_point(r, v, k);
	char row[64], det[64] = "", rel[32] = "no runs left", fix[256];

	if (p->has_rel)
		snprintf(rel, sizeof(rel), "%+.1f%%", p->rel);
	if (p->why == UNJ_POWER)
		snprintf(det, sizeof(det), ", smallest detectable change %.1f%%", p->mde_pct);
	fprintf(stderr, "lockbench: cannot assess: %u point%s could not show a change of "
		"%g%% (e.g. %s at %s %s: %s%s): %s\n", n, n == 1 ? "" : "s", pct,
		r->variants[v].name, r->row_heading, results_row_name(r, k, row, sizeof(row)),
		rel, det, gate_remedy(r, p, pct, fix, sizeof(fix)));
}

/*
 * --fail-if-regressed PCT: one line on stderr per point significantly
 * worse than its baseline by more than PCT (lower throughput, or a
 * higher value where lower is better), then exit status 4.  Else, when
 * some point could not be assessed (marked `_`: too few runs, one
 * invocation a side and no floor, or a test that could not have seen a
 * change of PCT, results.gate_pct; or no runs left), one line saying so,
 * the smallest change it could see and what would reach PCT, and exit
 * status 5: a gate never passes what it could not see.  0 when neither.
 */
static int regression_gate(const struct results *r, double pct)
{
	unsigned bad = 0, blind = 0, bv = 0, bk = 0;
	char row[64];

	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned k = 0; k < r->nrows; k++) {
			const struct point *p = results_point(r, v, k);
			bool lower = r->row_desc && r->row_desc[k].lower_better;
			double worse = lower ? p->rel : -p->rel;

			if (unassessed(r, v, p) && !blind++)
				bv = v, bk = k;
			if (!p->has_rel || !(worse > pct) || !p->significant)
				continue;
			fprintf(stderr, "lockbench: regression: %s at %s %s: %+.1f%% against "
				"%s (Holm-adjusted p %.2g)\n", r->variants[v].name,
				r->row_heading, results_row_name(r, k, row, sizeof(row)),
				p->rel, r->variants[results_base(r, v)].name, p->p_adj);
			bad++;
		}
	if (bad)
		return 4;
	if (blind)
		unassessed_line(r, blind, bv, bk, pct);
	return blind ? 5 : 0;
}

/*
 * The invocation floor of the comparison, in this order: --floor (a
 * system-check file or a percentage), --min-effect, the larger of the
 * floors the files recorded (run --floor; "from" names the file).
 * NULL when there is none.
 */
static json_t *pick_floor(const struct merge *m, const struct compare_args *a)
{
	const json_t *best = NULL;
	const char *from = NULL;
	json_t *f;

	if (a->floor) {
		f = floor_from_arg("floor", a->floor);
		for (unsigned i = 0; i < m->nin; i++)
			floor_check_host(f, m->in[i].r.machine, m->in[i].path);
		return f;
	}
	if (a->min_effect > 0)
		return json_pack("{s:f, s:s}", "rel_pct", a->min_effect * 100,
				 "source", "--min-effect");
	for (unsigned i = 0; i < m->nin; i++) {
		const json_t *g = m->in[i].r.inv_floor;
		double x = json_number_value(json_object_get(g, "rel_pct"));

		if (json_is_number(json_object_get(g, "rel_pct")) && x >= 0 &&
		    (!best || x > json_number_value(json_object_get(best, "rel_pct"))))
			best = g, from = m->in[i].path;
	}
	if (!best)
		return NULL;
	f = json_deep_copy(best);
	json_object_set_new(f, "from", json_string(from));
	return f;
}

/* PARAM of --rows as a key of config: an option's key (cs-ns: cs_ns,
 * long-hold: long_hold_ms), else PARAM with '_' for '-'. */
static void rows_key_of(const char *rows, char *key, size_t len)
{
	const struct opt *o = opt_find(run_options(), rows);

	if (o && o->list) {
		opt_param_key(o, key, len);
		return;
	}
	snprintf(key, len, "%s", rows);
	for (char *p = key; *p; p++)
		*p = *p == '-' ? '_' : *p;
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
	m->rows_key = cli_strdup(key);
	m->dims[m->ndims++] = cli_strdup(key);
	m->rows_one_label = true;
	for (unsigned i = 1; i < m->nin; i++)
		m->rows_one_label &= same_str(m->in[i].r.label, m->in[0].r.label);
	/* One label (or none): the files are one experiment, not a label
	 * each (named by their file names). */
	for (unsigned i = 0; m->rows_one_label && i < m->nin; i++) {
		free(m->in[i].label);
		m->in[i].label = cli_strdup(m->in[0].r.label ? m->in[0].r.label : "");
	}
	for (unsigned i = 1; i < m->nin; i++) {
		cd[0] = 0;
		differing(m->in[0].r.config, m->in[i].r.config, conf, cd, sizeof(cd), m);
		if (*cd)
			cli_die("%s (%s, %s): the files differ in%s too; one table takes "
				"files that differ only in %s", what, m->in[0].path,
				m->in[i].path, cd, param);
	}
}

/*
 * --rows PARAM over files that each ran one value of it (a bash-loop
 * sweep, docs/guide.md "Sweeps over any parameter"): param_sweep().
 * Nothing to do for threads (thread_loop()) or --rows cpu-share.
 */
static void rows_param(struct merge *m, const char *rows)
{
	char key[128], what[192];

	if (!rows || !strcmp(rows, "threads") || m->cpu_share || m->nin < 2)
		return;
	rows_key_of(rows, key, sizeof(key));
	snprintf(what, sizeof(what), "compare --rows %s", rows);
	param_sweep(m, key, what, rows);
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
		m->in[i].label = cli_strdup("");
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

/* The merged model of the inputs, columns picked by -l. */
static void merge_inputs(struct merge *m, int n, char **paths, const char *locks,
			 const char *rows, bool sweeps)
{
	load_inputs(m, n, paths);
	check_copies(m);
	for (unsigned i = 0; i < m->nin; i++) {
		if (m->by_host)
			hosts_relabel(m->in[i].path, &m->in[i].r, &m->in[i].label);
		if (m->cpu_share)
			hosts_cpu_share(m->in[i].path, &m->in[i].r);
	}
	rows_param(m, rows);
	if (sweeps && !rows)
		merge_param(m);
	thread_loop(m);
	fill_params(m);
	check_inputs(m);
	warn_differences(m);
	m->one_label = true;
	for (unsigned i = 1; i < m->nin; i++)
		m->one_label &= !strcmp(m->in[i].label, m->in[0].label);
	for (unsigned i = 0; i < m->nin; i++)
		m->ncol += m->in[i].r.nvariants;
	m->col = cli_calloc(m->ncol, sizeof(*m->col));
	m->ncol = 0;
	m->mixed = kernel_mixed(m);
	for (unsigned i = 0; i < m->nin; i++)
		add_columns(m, i, locks);
	union_rows(m);
}

/* --rows: a dimension of the merged results (exit 2 if not). */
static void rows_check(const struct results *r, const char *rows)
{
	struct results_part *parts;
	unsigned n;
	char err[512];

	if (results_split(r, rows, &parts, &n, err, sizeof(err)))
		cli_die_msg(err);
	results_parts_free(parts, n);
}

/* ---- merge --------------------------------------------------------------- */

struct merge_args {
	const char *output, *locks;
	bool help;
};

static const struct opt merge_rows[] = {
	{.name = "output", .sname = 'o', .type = OPT_STR, .arg = "FILE",
	 .shown = "stdout", .off = offsetof(struct merge_args, output),
	 .help = "write the merged JSON here"},
	{.name = "locks", .sname = 'l', .type = OPT_STR, .arg = "LIST",
	 .off = offsetof(struct merge_args, locks),
	 .help = "only these locks of each file"},
	OPT_HELP_ROW(struct merge_args, help),
};

const struct opt_cmd merge_options = OPT_CMD("merge", merge_rows);

void merge_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench merge [-o OUT.json] [-l LOCKS] A.json B.json ...\n"
		"Join saved results into one JSON document: the columns side by side\n"
		"(named as compare names them), the rows the union, each file's label,\n"
		"machine, configuration and provenance kept under config.files.\n");
	opt_help(&merge_options, f);
	fprintf(f, "Exit status: 0 success; 2 bad usage or input (e.g. different "
		"workloads).\n");
}

int cmd_merge(int argc, char **argv)
{
	struct merge_args a = {0};
	struct merge m = {.verb = "merge"};
	struct outputs o;
	struct results r;
	char **files;
	int n, rc;

	opt_defaults(&merge_options, &a);
	files = opt_parse(&merge_options, &a, argc, argv, &n);
	if (a.help) {
		merge_usage(stdout);
		free(files);
		return 0;
	}
	if (n < 2)
		cli_die("merge: %s; usage: lockbench merge [-o OUT.json] A.json B.json ...",
			n ? "one results file given, nothing to join" : "no results file given");
	outputs_parse(&o, "json", "ops/s", a.output, true);
	merge_inputs(&m, n, files, a.locks, NULL, true);
	build_merged(&m, &r);
	pick_baseline(&m, NULL, &r);
	pair_params(&m, &r);
	json_object_set_new(r.config, "command", json_string("merge"));
	r.provenance = provenance_json(argc + 1, argv - 1, false, 0);
	results_finalize(&r);
	outputs_check(&o, &r);
	rc = outputs_write(&o, &r);
	results_free(&r);
	merge_free(&m);
	free(files);
	return rc;
}

/* --columns host, --rows cpu-share (compare_hosts.h); exit 2 on others. */
static void hosts_options(struct merge *m, const struct compare_args *a,
			  struct outputs *o)
{
	if (a->columns && strcmp(a->columns, "host") && strcmp(a->columns, "label"))
		cli_die("--columns (%s): valid: label, host", a->columns);
	m->by_host = a->columns && !strcmp(a->columns, "host");
	m->cpu_share = a->rows && !strcmp(a->rows, "cpu-share");
	if (m->cpu_share)
		o->ropts.rows = NULL;
}

/* The notes under a cross-host table: where the files' machines differ. */
static void merge_notes(const struct merge *m, FILE *f)
{
	const struct results **rs = cli_calloc(m->nin, sizeof(*rs));
	const char **labels = cli_calloc(m->nin, sizeof(*labels));

	for (unsigned i = 0; i < m->nin; i++) {
		rs[i] = &m->in[i].r;
		labels[i] = m->in[i].label;
	}
	hosts_notes(f, rs, labels, m->nin);
	free(rs);
	free(labels);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = {0};
	struct merge m = {.verb = "compare"};
	struct outputs o;
	struct results r;
	char **files;
	int n, rc;

	opt_defaults(&compare_options, &a);
	files = opt_parse(&compare_options, &a, argc, argv, &n);
	if (a.out.help) {
		compare_usage(stdout);
		free(files);
		return 0;
	}
	if (!n)
		cli_die("compare: no results file given; usage: lockbench compare "
			"[-f FORMAT] [--baseline LABEL] A.json B.json ...");
	outputs_parse(&o, outputs_formats(a.out.formats, a.out.formats_given, a.out.output),
		      a.out.unit, a.out.output, !a.out.no_marks);
	o.header = a.out.header;
	o.ropts.width = (unsigned)a.out.width;
	o.ropts.verbose = a.out.verbose;
	o.ropts.rows = a.rows;
	hosts_options(&m, &a, &o);
	merge_inputs(&m, n, files, a.locks, a.rows, false);
	build_merged(&m, &r);
	if (m.by_host)
		hosts_heading(&r);
	rows_check(&r, o.ropts.rows);
	pick_baseline(&m, a.baseline, &r);
	pair_params(&m, &r);
	/* argv[0] is the command word; main() passed argv + 1. */
	r.provenance = provenance_json(argc + 1, argv - 1, false, 0);
	r.min_effect = a.min_effect * 100;
	r.inv_floor = pick_floor(&m, &a);
	r.gate_pct = a.fail_given ? a.fail_pct * 100 : 0;
	results_finalize(&r);
	outputs_check(&o, &r);
	rc = outputs_write(&o, &r);
	if (!rc && (m.by_host || m.cpu_share))
		merge_notes(&m, a.out.output ? stderr : stdout);
	if (!rc && a.fail_given)
		rc = regression_gate(&r, a.fail_pct * 100);
	results_free(&r);
	merge_free(&m);
	free(files);
	return rc;
}
