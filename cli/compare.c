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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../output/results/json_read.h"
#include "cmds.h"
#include "err.h"
#include "opt.h"
#include "outfile.h"

/* ---- compare ------------------------------------------------------------- */

struct input {
	const char *path;
	char *label;              /* the file's label, or its name without .json */
	struct results r;
};

/* One column of the comparison: variant `var` of input `in`, named by
 * the file's label, or label/variant when the file gives several. */
struct column {
	unsigned in, var;
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
};

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
	for (int i = 0; i < n; i++) {
		m->in[i].path = paths[i];
		if (results_from_json(paths[i], &m->in[i].r, err, sizeof(err)))
			cli_die_msg(err);
		m->in[i].label = file_label(paths[i], &m->in[i].r);
	}
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

/* Workloads, units and row metrics must agree; say which files differ. */
static void check_inputs(const struct merge *m)
{
	const struct input *a = &m->in[0];

	for (unsigned i = 1; i < m->nin; i++) {
		const struct input *b = &m->in[i];

		if (!same_workload(a->r.workload, b->r.workload))
			cli_die("cannot compare (%s, %s): different workloads (%s, %s)",
			     a->path, b->path, a->r.workload ? a->r.workload : "none",
			     b->r.workload ? b->r.workload : "none");
		for (unsigned k = 0; b->r.row_desc && k < b->r.nrows; k++) {
			const struct row_desc *d = &b->r.row_desc[k], *e;
			char key[256];

			results_row_name(&b->r, k, key, sizeof(key));
			e = row_desc_of(&a->r, key);
			if (e && (!same_str(d->metric, e->metric) ||
				  d->lower_better != e->lower_better))
				cli_die("cannot compare (%s, %s): row %s measures different "
				     "units (%s, %s)", a->path, b->path, key,
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

static void add_columns(struct merge *m, unsigned i, const char *locks)
{
	const struct input *in = &m->in[i];
	unsigned nsel = 0;

	for (unsigned v = 0; v < in->r.nvariants; v++)
		nsel += selected(&in->r.variants[v], locks);
	if (!nsel)
		cli_die("no lock of -l (%s) in %s", locks, in->path);
	for (unsigned v = 0; v < in->r.nvariants; v++) {
		struct column *c = &m->col[m->ncol];
		const char *lock = in->r.variants[v].name;

		if (!selected(&in->r.variants[v], locks))
			continue;
		c->in = i;
		c->var = v;
		if (asprintf(&c->name, "%s%s%s%s", in->label, nsel == 1 ? "" : "/",
			     nsel == 1 ? "" : lock,
			     m->mixed && in->r.variants[v].kernel ? KERNEL_MARK : "") < 0)
			cli_die("out of memory");
		for (unsigned k = 0; k < m->ncol; k++)
			if (!strcmp(m->col[k].name, c->name))
				cli_die("cannot compare (%s, %s): both give a column %s; "
				     "save them with different --label", m->in[m->col[k].in].path,
				     in->path, c->name);
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
	if (!named)
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
	d->kernel = s->kernel;
	d->counter_names = cli_calloc(s->ncounters, sizeof(char *));
	for (unsigned k = 0; k < s->ncounters; k++)
		d->counter_names[k] = cli_strdup(s->counter_names[k]);
	d->ncounters = s->ncounters;
}

static void copy_point(struct results *r, unsigned v, unsigned row,
		       const struct point *s)
{
	struct point *p = results_point(r, v, row);

	p->status = s->status;
	p->error = cli_strdup(s->error);
	for (unsigned k = 0; k < s->nruns; k++)
		if (results_add_run(r, v, row, &s->runs[k]))
			cli_die("out of memory");
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
		json_array_append_new(files, json_pack("{s:s, s:s, s:O?, s:O?}",
			"file", m->in[i].path, "label", m->in[i].label,
			"machine", s->machine, "config", s->config));
	}
	r->machine = same_cpu ? json_pack("{s:s}", "cpu_model", cpu) : NULL;
	r->config = json_pack("{s:s, s:o}", "command", "compare", "files", files);
}

static void build_merged(const struct merge *m, struct results *r)
{
	const struct results *first = &m->in[0].r;

	if (results_init(r, m->ncol, m->nrows))
		cli_die("out of memory");
	r->variant_heading = cli_strdup("Kernel");
	r->row_heading = cli_strdup(first->row_heading);
	r->workload = cli_strdup(first->workload);
	r->cv_flag = first->cv_flag;
	r->alpha = first->alpha;
	merged_rows(m, r);
	for (unsigned c = 0; c < m->ncol; c++) {
		const struct input *in = &m->in[m->col[c].in];

		copy_variant(&r->variants[c], &in->r.variants[m->col[c].var], &m->col[c],
			     in->label);
		for (unsigned row = 0; row < m->nrows; row++) {
			int k = row_in(&in->r, m->row_key[row]);

			if (k >= 0)
				copy_point(r, c, row, results_point(&in->r, m->col[c].var,
								    (unsigned)k));
		}
	}
	merged_meta(m, r);
}

/* --baseline: a column name, or a file label (its first column). */
static unsigned pick_baseline(const struct merge *m, const char *name)
{
	char names[1024] = "";

	if (!name)
		return 0;
	for (unsigned c = 0; c < m->ncol; c++)
		if (!strcmp(m->col[c].name, name))
			return c;
	for (unsigned c = 0; c < m->ncol; c++)
		if (!strcmp(m->in[m->col[c].in].label, name))
			return c;
	for (unsigned c = 0; c < m->ncol; c++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
			 c ? ", " : "", m->col[c].name);
	cli_die("--baseline (%s): no such column; valid: %s", name, names);
}

static void merge_free(struct merge *m)
{
	for (unsigned i = 0; i < m->nin; i++) {
		results_free(&m->in[i].r);
		free(m->in[i].label);
	}
	for (unsigned c = 0; c < m->ncol; c++)
		free(m->col[c].name);
	for (unsigned k = 0; k < m->nrows; k++)
		free(m->row_key[k]);
	free(m->in);
	free(m->col);
	free(m->row_key);
}

struct compare_args {
	struct output_args out;
	const char *locks, *baseline;
};

static const struct opt compare_rows[] = {
	{.name = "locks", .sname = 'l', .type = OPT_STR, .arg = "LIST",
	 .off = offsetof(struct compare_args, locks),
	 .help = "only these locks of each file"},
	{.name = "baseline", .type = OPT_STR, .arg = "LABEL", .shown = "first",
	 .off = offsetof(struct compare_args, baseline),
	 .help = "column rel% is computed against"},
	OUTPUT_ROWS(struct compare_args, out, "table"),
};

const struct opt_cmd compare_options = {"compare", compare_rows,
					sizeof(compare_rows) / sizeof(compare_rows[0])};

void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench compare [options] A.json B.json ...\n"
		"Render saved runs side by side: one column per file (per label/lock\n"
		"when a file holds several locks), statistics recomputed from the runs.\n");
	opt_help(&compare_options, f);
}

/* The merged model of the inputs, columns picked by -l. */
static void merge_inputs(struct merge *m, int n, char **paths, const char *locks)
{
	load_inputs(m, n, paths);
	check_inputs(m);
	for (unsigned i = 0; i < m->nin; i++)
		m->ncol += m->in[i].r.nvariants;
	m->col = cli_calloc(m->ncol, sizeof(*m->col));
	m->ncol = 0;
	for (unsigned i = 0; i < m->nin; i++)
		for (unsigned v = 0; v < m->in[i].r.nvariants; v++)
			for (unsigned j = 0; j < m->nin; j++)
				for (unsigned w = 0; w < m->in[j].r.nvariants; w++)
					m->mixed |= m->in[i].r.variants[v].kernel &&
						    !m->in[j].r.variants[w].kernel;
	for (unsigned i = 0; i < m->nin; i++)
		add_columns(m, i, locks);
	union_rows(m);
}

int cmd_compare(int argc, char **argv)
{
	struct compare_args a = {0};
	struct merge m = {0};
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
	outputs_parse(&o, a.out.formats, a.out.unit, a.out.output, !a.out.no_marks);
	merge_inputs(&m, n, files, a.locks);
	build_merged(&m, &r);
	r.baseline = pick_baseline(&m, a.baseline);
	results_finalize(&r);
	outputs_check(&o, &r);
	rc = outputs_write(&o, &r);
	results_free(&r);
	merge_free(&m);
	free(files);
	return rc;
}
