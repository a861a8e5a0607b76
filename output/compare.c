/* SPDX-License-Identifier: MIT */
/*
 * `lockbench compare` and `lockbench import`: the commands that read
 * results back.  Each parses its own options (getopt_long) from the raw
 * argv after the command word, and exits 2 with one line on stderr for
 * bad usage or bad input, before any output file is made.
 *
 * compare merges saved JSON files into one results model whose columns
 * are (file label, lock) pairs and whose rows are the union of the
 * files' rows, then recomputes every statistic from the raw runs
 * (results_finalize) and renders it like a run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "import.h"
#include "json_read.h"
#include "render.h"

/* One line on stderr, exit 2. */
static void __attribute__((noreturn, format(printf, 1, 2))) die2(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("lockbench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(2);
}

static char *xstrdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		die2("out of memory");
	return d;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		die2("out of memory");
	return p;
}

/* ---- output: formats, the -o file written atomically -------------------- */

struct outs {
	const struct format_info *fmt[8];
	unsigned n;
	int to_file;              /* index of the format written to -o, or -1 */
	const char *path;
	struct render_opts ropts;
};

/* Parse -f LIST and --unit; the -o file gets JSON if asked, else the
 * first format (as `lockbench run` does). */
static void outs_parse(struct outs *o, const char *list, const char *unit,
		       const char *path, bool marks)
{
	char *dup = xstrdup(list), *save = NULL;

	memset(o, 0, sizeof(*o));
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct format_info *f = format_find(t);
		char names[256] = "";

		for (unsigned i = 0; !f && formats[i].name; i++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names),
				 "%s%s", i ? ", " : "", formats[i].name);
		if (!f)
			die2("unknown format (%s): valid: %s", t, names);
		if (o->n == 8)
			die2("--format (%s): too many formats", list);
		o->fmt[o->n++] = f;
	}
	free(dup);
	if (!o->n)
		die2("--format: empty list");
	if (unit_parse(unit, &o->ropts.unit))
		die2("--unit (%s): valid: ops/s, kops/s, Mops/s, jpm", unit);
	o->ropts.marks = marks;
	o->path = path;
	o->to_file = path ? 0 : -1;
	for (unsigned i = 0; path && i < o->n; i++)
		if (!strcmp(o->fmt[i]->name, "json"))
			o->to_file = (int)i;
}

static void outs_check(const struct outs *o, const struct results *r)
{
	char err[256];

	for (unsigned i = 0; i < o->n; i++)
		if (format_check(o->fmt[i], r, err, sizeof(err)))
			die2("%s", err);
}

/* Flush, sync and close f, then move tmp to path; 0 or -1 (errno set). */
static int close_and_rename(FILE *f, const char *tmp, const char *path)
{
	bool bad = fflush(f) != 0;

	bad |= fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	return bad ? -1 : rename(tmp, path);
}

/* Render every format; the -o file appears only when complete.
 * Returns 0 or 2. */
static int outs_write(const struct outs *o, const struct results *r)
{
	char tmp[PATH_MAX];
	FILE *file = NULL;
	int fd;

	if (o->path) {
		snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", o->path);
		fd = mkstemp(tmp);
		if (fd < 0 || !(file = fdopen(fd, "w")))
			die2("cannot write output (%s): %s", o->path, strerror(errno));
	}
	for (unsigned i = 0; i < o->n; i++) {
		FILE *f = (int)i == o->to_file ? file : stdout;

		if (i && f == stdout)
			fputc('\n', stdout);
		if (o->fmt[i]->render(r, &o->ropts, f)) {
			fprintf(stderr, "lockbench: writing %s output failed\n", o->fmt[i]->name);
			if (file) {
				fclose(file);
				unlink(tmp);
			}
			return 2;
		}
	}
	fflush(stdout);
	if (file && close_and_rename(file, tmp, o->path)) {
		fprintf(stderr, "lockbench: cannot write output (%s): %s\n", o->path,
			strerror(errno));
		unlink(tmp);
		return 2;
	}
	return 0;
}

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

struct merge {
	struct input *in;
	unsigned nin;
	struct column *col;
	unsigned ncol;
	char **row_key;           /* union of row names, in output order */
	unsigned nrows;
	/* Invocations numbered apart: (file, its own number) -> index + 1. */
	struct source *inv;
	unsigned ninv;
};

static char *file_label(const char *path, const struct results *r)
{
	char *dup, *base, *dot, *out;

	if (r->label && *r->label)
		return xstrdup(r->label);
	dup = xstrdup(path);
	base = basename(dup);
	dot = strrchr(base, '.');
	if (dot && dot != base && !strcmp(dot, ".json"))
		*dot = 0;
	out = xstrdup(base);
	free(dup);
	return out;
}

static void load_inputs(struct merge *m, int n, char **paths)
{
	char err[512];

	m->in = xcalloc((size_t)n, sizeof(*m->in));
	m->nin = (unsigned)n;
	for (int i = 0; i < n; i++) {
		char *ri = realpath(paths[i], NULL);

		for (int j = 0; ri && j < i; j++) {
			char *rj = realpath(paths[j], NULL);
			bool dup = rj && !strcmp(ri, rj);

			free(rj);
			if (dup) {
				free(ri);
				die2("cannot compare (%s): given twice (its runs would count "
				     "as another invocation)", paths[i]);
			}
		}
		free(ri);
		m->in[i].path = paths[i];
		if (results_from_json(paths[i], &m->in[i].r, err, sizeof(err)))
			die2("%s", err);
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

/* Workloads, units and row metrics must agree; say which files differ. */
static void check_inputs(const struct merge *m)
{
	const struct input *a = &m->in[0];

	for (unsigned i = 1; i < m->nin; i++) {
		const struct input *b = &m->in[i];

		if (!same_str(a->r.workload, b->r.workload))
			die2("cannot compare (%s, %s): different workloads (%s, %s)",
			     a->path, b->path, a->r.workload ? a->r.workload : "none",
			     b->r.workload ? b->r.workload : "none");
		for (unsigned k = 0; b->r.row_desc && k < b->r.nrows; k++) {
			const struct row_desc *d = &b->r.row_desc[k], *e;
			char key[256];

			results_row_name(&b->r, k, key, sizeof(key));
			e = row_desc_of(&a->r, key);
			if (e && (!same_str(d->metric, e->metric) ||
				  d->lower_better != e->lower_better))
				die2("cannot compare (%s, %s): row %s measures different "
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
	dup = xstrdup(locks);
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
		die2("no lock of -l (%s) in %s", locks, in->path);
	for (unsigned v = 0; v < in->r.nvariants; v++) {
		struct column *c = &m->col[m->ncol], *same = NULL;
		const char *lock = in->r.variants[v].name;

		if (!selected(&in->r.variants[v], locks))
			continue;
		if (nsel == 1) {
			c->name = xstrdup(in->label);
		} else if (asprintf(&c->name, "%s/%s", in->label, lock) < 0) {
			die2("out of memory");
		}
		for (unsigned k = 0; k < m->ncol && !same; k++)
			if (!strcmp(m->col[k].name, c->name))
				same = &m->col[k];
		if (same && strcmp(m->in[same->in].label, in->label))
			die2("cannot compare (%s, %s): both give a column %s; "
			     "save them with different --label", m->in[same->in].path,
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
		c->src = xcalloc(m->nin, sizeof(*c->src));
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
	m->row_key = xcalloc(cap, sizeof(char *));
	for (unsigned i = 0; i < m->nin; i++)
		for (unsigned k = 0; k < m->in[i].r.nrows; k++) {
			char key[256];
			unsigned j;

			results_row_name(&m->in[i].r, k, key, sizeof(key));
			for (j = 0; j < m->nrows && strcmp(m->row_key[j], key); j++)
				;
			if (j == m->nrows)
				m->row_key[m->nrows++] = xstrdup(key);
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
	d->name = xstrdup(c->name);
	d->lock = xstrdup(s->lock ? s->lock : s->name);
	d->label = xstrdup(label);
	d->origin = xstrdup(s->origin);
	d->sha256 = xstrdup(s->sha256);
	d->counter_names = xcalloc(s->ncounters, sizeof(char *));
	for (unsigned k = 0; k < s->ncounters; k++)
		d->counter_names[k] = xstrdup(s->counter_names[k]);
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
		die2("out of memory");
	m->inv[m->ninv++] = (struct source){in, local};
	return m->ninv;
}

/* Add the runs of point s of input `in` to (v, row); a failure wins over
 * success, success over missing. */
static void copy_point(struct merge *m, struct results *r, unsigned v, unsigned row,
		       unsigned in, const struct point *s)
{
	struct point *p = results_point(r, v, row);

	if (p->status == POINT_MISSING || s->status > POINT_OK) {
		free(p->error);
		p->status = s->status;
		p->error = xstrdup(s->error);
	}
	for (unsigned k = 0; k < s->nruns; k++) {
		if (results_add_run(r, v, row, &s->runs[k]))
			die2("out of memory");
		p->runs[p->nruns - 1].invocation =
			global_invocation(m, in, s->runs[k].invocation);
	}
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
					die2("out of memory");
				r->row_desc[row].label = xstrdup(s->row_desc[k].label);
				r->row_desc[row].metric = xstrdup(s->row_desc[k].metric);
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

static void build_merged(struct merge *m, struct results *r)
{
	const struct results *first = &m->in[0].r;

	if (results_init(r, m->ncol, m->nrows))
		die2("out of memory");
	r->variant_heading = xstrdup("Kernel");
	r->row_heading = xstrdup(first->row_heading);
	r->workload = xstrdup(first->workload);
	r->cv_flag = first->cv_flag;
	r->alpha = first->alpha;
	merged_rows(m, r);
	for (unsigned c = 0; c < m->ncol; c++) {
		const struct input *in = &m->in[m->col[c].in];

		copy_variant(&r->variants[c], &in->r.variants[m->col[c].var], &m->col[c],
			     in->label);
		for (unsigned j = 0; j < m->col[c].nsrc; j++) {
			const struct source *sc = &m->col[c].src[j];
			const struct results *sr = &m->in[sc->in].r;

			for (unsigned row = 0; row < m->nrows; row++) {
				int k = row_in(sr, m->row_key[row]);

				if (k >= 0)
					copy_point(m, r, c, row, sc->in,
						   results_point(sr, sc->var, (unsigned)k));
			}
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
	die2("--baseline (%s): no such column; valid: %s", name, names);
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
	for (unsigned k = 0; k < m->nrows; k++)
		free(m->row_key[k]);
	free(m->in);
	free(m->col);
	free(m->row_key);
}

static void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench compare [options] A.json B.json ...\n"
		"Render saved runs side by side: one column per file (per label/lock\n"
		"when a file holds several locks), statistics recomputed from the runs.\n"
		"  -f, --format LIST     table, box, lkp, speedup, mmtests, lkp-compare,\n"
		"                        csv, json [table]\n"
		"  -o, --output FILE     write JSON (or the only format) here\n"
		"  -l, --locks LIST      only these locks of each file\n"
		"      --baseline LABEL  column rel%% is computed against [first]\n"
		"      --unit UNIT       ops/s, kops/s, Mops/s or jpm [kops/s]\n"
		"      --no-marks        no ? ~ * - marks and notes\n"
		"  -h, --help            this help\n");
}

enum { C_BASELINE = 256, C_UNIT, C_NO_MARKS, C_LABEL };

int cmd_compare(int argc, char **argv)
{
	static const struct option lo[] = {
		{"format", required_argument, NULL, 'f'},
		{"output", required_argument, NULL, 'o'},
		{"locks", required_argument, NULL, 'l'},
		{"baseline", required_argument, NULL, C_BASELINE},
		{"unit", required_argument, NULL, C_UNIT},
		{"no-marks", no_argument, NULL, C_NO_MARKS},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *fmt = "table", *out = NULL, *locks = NULL, *base = NULL;
	const char *unit = "kops/s";
	bool marks = true;
	struct merge m = {0};
	struct outs o;
	struct results r;
	int id, rc;

	optind = 1;
	opterr = 0;
	while ((id = getopt_long(argc, argv, "f:o:l:h", lo, NULL)) != -1) {
		switch (id) {
		case 'f': fmt = optarg; break;
		case 'o': out = optarg; break;
		case 'l': locks = optarg; break;
		case C_BASELINE: base = optarg; break;
		case C_UNIT: unit = optarg; break;
		case C_NO_MARKS: marks = false; break;
		case 'h': compare_usage(stdout); return 0;
		default:
			die2("compare: %s: unknown option or missing argument; "
			     "try 'lockbench compare --help'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		die2("compare: no results file given; usage: lockbench compare "
		     "[-f FORMAT] [--baseline LABEL] A.json B.json ...");
	outs_parse(&o, fmt, unit, out, marks);
	load_inputs(&m, argc - optind, argv + optind);
	check_inputs(&m);
	for (unsigned i = 0; i < m.nin; i++)
		m.ncol += m.in[i].r.nvariants;
	m.col = xcalloc(m.ncol, sizeof(*m.col));
	m.ncol = 0;
	for (unsigned i = 0; i < m.nin; i++)
		add_columns(&m, i, locks);
	union_rows(&m);
	build_merged(&m, &r);
	r.baseline = pick_baseline(&m, base);
	results_finalize(&r);
	outs_check(&o, &r);
	rc = outs_write(&o, &r);
	results_free(&r);
	merge_free(&m);
	return rc;
}

/* ---- import -------------------------------------------------------------- */

static void import_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench import locktorture [options] dmesg.log ...\n"
		"Kernel locktorture logs as lockbench results (JSON by default): one\n"
		"run per log run, rows nwriters_stress, one column per torture_type.\n"
		"  --label L             name of these runs (e.g. the kernel) in compare\n"
		"  -o, --output FILE     write the JSON (or the only format) here\n"
		"  -f, --format LIST     json, table, box, lkp, speedup, csv [json]\n"
		"      --unit UNIT       ops/s, kops/s, Mops/s or jpm [kops/s]\n"
		"      --no-marks        no ? ~ * - marks and notes\n"
		"  -q, --quiet           no warnings about skipped runs\n"
		"  -h, --help            this help\n");
}

int cmd_import(int argc, char **argv)
{
	static const struct option lo[] = {
		{"label", required_argument, NULL, C_LABEL},
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, 'f'},
		{"unit", required_argument, NULL, C_UNIT},
		{"no-marks", no_argument, NULL, C_NO_MARKS},
		{"quiet", no_argument, NULL, 'q'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *fmt = "json", *out = NULL, *label = NULL, *unit = "kops/s";
	bool marks = true, quiet = false;
	struct results r;
	struct outs o;
	char err[512];
	int id, rc;

	optind = 1;
	opterr = 0;
	while ((id = getopt_long(argc, argv, "o:f:qh", lo, NULL)) != -1) {
		switch (id) {
		case C_LABEL: label = optarg; break;
		case 'o': out = optarg; break;
		case 'f': fmt = optarg; break;
		case C_UNIT: unit = optarg; break;
		case C_NO_MARKS: marks = false; break;
		case 'q': quiet = true; break;
		case 'h': import_usage(stdout); return 0;
		default:
			die2("import: %s: unknown option or missing argument; "
			     "try 'lockbench import --help'", argv[optind - 1]);
		}
	}
	if (optind == argc)
		die2("import: what to import? valid: locktorture; usage: lockbench "
		     "import locktorture [--label L] [-o OUT.json] dmesg.log ...");
	if (strcmp(argv[optind], "locktorture"))
		die2("import: unknown source (%s): valid: locktorture", argv[optind]);
	if (++optind == argc)
		die2("import locktorture: no log given; usage: lockbench import "
		     "locktorture [--label L] [-o OUT.json] dmesg.log ...");
	outs_parse(&o, fmt, unit, out, marks);
	if (import_locktorture((const char *const *)argv + optind,
			       (unsigned)(argc - optind), label, &r,
			       quiet ? NULL : stderr, err, sizeof(err)))
		die2("%s", err);
	results_finalize(&r);
	outs_check(&o, &r);
	rc = outs_write(&o, &r);
	results_free(&r);
	return rc;
}
