/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

void render_cellf(char *cell, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cell, RENDER_CELL, fmt, ap);
	va_end(ap);
}

const struct format_info formats[] = {
	{"table", "Lock: mcs ... / 1  1234.56  12.34  2345.67  23.45  +90%",
	 render_table_split, NULL},
	{"box", "| fserver JPM     | 245598 | 274457 | / | % change from 1 |     0% | +11.8% |",
	 render_box_split, NULL},
	{"lkp", "kernel  kops/s(higher is better) / mcs  2755.61±10.26%",
	 render_lkp_split, NULL},
	{"speedup", "#thr  stock  patched  speedup (patched/stock) / 8  5.309  6.894  1.299",
	 render_speedup_split, speedup_check_split},
	{"mmtests", "Hmean     1          899.91 (   0.00%)      416.83 *  16.01%*",
	 render_mmtests_split, NULL},
	{"lkp-compare", "    899910            -2.2%     880100        cs.threads=1.ops/s",
	 render_lkpcmp_split, lkpcmp_check},
	{"csv", "variant,lock,label,row,threads,status,run,seq,window_s,ops,ops_per_sec,value,unit",
	 render_csv, NULL},
	{"json", "{\"schema\": \"lockbench-results\", \"schema_version\": \"" RESULTS_SCHEMA_VERSION "\", ...}",
	 render_json, NULL},
	{NULL, NULL, NULL, NULL},
};

int format_check(const struct format_info *f, const struct results *r,
		 char *err, size_t len)
{
	return f->check ? f->check(r, err, len) : 0;
}

const struct format_info *format_find(const char *name)
{
	for (unsigned i = 0; formats[i].name; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

static const struct {
	const char *name;
	double scale;
} units[] = {
	[UNIT_OPS] = {"ops/s", 1},
	[UNIT_KOPS] = {"kops/s", 1e-3},
	[UNIT_MOPS] = {"Mops/s", 1e-6},
	[UNIT_JPM] = {"jpm", 60},
	[UNIT_NS] = {"ns", 1},
	[UNIT_XFER] = {"handovers/s", 1},
	[UNIT_XFER_NS] = {"ns/handover", 1},
};

const char *unit_title(enum unit u)
{
	return u == UNIT_JPM ? "JPM" : units[u].name;
}

const char *render_sig_mark(const struct render_opts *o, const struct point *p)
{
	if (!o->marks || p->status != POINT_OK || !p->has_rel)
		return "";
	if (p->unjudged)
		return "_";
	return p->significant ? "#" : "~";
}

bool render_oversubscribed(const struct results *r, unsigned row)
{
	return r->ncpus && r->rows[row] > r->ncpus;
}

const char *unit_name(enum unit u)
{
	return units[u].name;
}

double unit_scale(enum unit u)
{
	return units[u].scale;
}

bool unit_shown_by(enum unit u, const char *format)
{
	if (UNIT_IS_XFER(u))
		return !strcmp(format, "table") || !strcmp(format, "json");
	return u != UNIT_NS || !strcmp(format, "table") || !strcmp(format, "csv") ||
	       !strcmp(format, "json");
}

/* unit_point() of the handover units. */
static void xfer_point(const struct render_opts *o, const struct point *p,
		       double *mean, double *std, double *rel)
{
	double m = p->xfer_rate, ns = m > 0 ? 1e9 / m : NAN;
	bool per = o->unit == UNIT_XFER;

	if (mean)
		*mean = per ? m : ns;
	if (std)
		*std = per ? p->xfer_std : m > 0 ? ns * p->xfer_std / m : NAN;
	if (rel)
		*rel = per ? p->xfer_rel : 100 / (1 + p->xfer_rel / 100) - 100;
}

void unit_point(const struct results *r, const struct render_opts *o, unsigned row,
		const struct point *p, double *mean, double *std, double *rel)
{
	bool metric = r->row_desc && r->row_desc[row].metric;
	double k = metric ? 1 : unit_scale(o->unit), threads, ns;

	if (UNIT_IS_XFER(o->unit)) {
		xfer_point(o, p, mean, std, rel);
		return;
	}
	if (o->unit != UNIT_NS || metric) {
		if (mean)
			*mean = p->sum.mean * k;
		if (std)
			*std = p->sum.std * k;
		if (rel)
			*rel = p->rel;
		return;
	}
	threads = p->nruns && p->runs[0].nthreads ? p->runs[0].nthreads : r->rows[row];
	ns = threads * 1e9 / p->sum.mean;
	if (mean)
		*mean = ns;
	if (std)
		*std = ns * p->sum.std / p->sum.mean;
	/* The time per operation changes by the inverse of the rate. */
	if (rel)
		*rel = 100 / (1 + p->rel / 100) - 100;
}

int unit_parse(const char *s, enum unit *u)
{
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].name, s) ||
		    (i == UNIT_JPM && !strcmp(s, "JPM"))) {
			*u = (enum unit)i;
			return 0;
		}
	return -EINVAL;
}

/* A number of the configuration ("%g"), or NULL when it has none. */
static const char *cfg_num(const struct results *r, const char *key, char *buf, size_t len)
{
	json_t *v = json_object_get(r->config, key);

	if (!json_is_number(v))
		return NULL;
	snprintf(buf, len, "%g", json_number_value(v));
	return buf;
}

/* The words after the placement of a mapped run; NULL when not mapped. */
static const char *render_mapped_words(const struct results *r, char *buf, size_t len)
{
	json_t *m = json_object_get(r->placement, "mapped"), *c;
	const char *topo = json_string_value(json_object_get(m, "topology"));
	size_t n = json_array_size(json_object_get(m, "cpus")), i, k;

	if (!topo)
		return NULL;
	k = (size_t)snprintf(buf, len, "on synthetic \"%s\" mapped onto %zu real CPU%s (",
			     topo, n, n == 1 ? "" : "s");
	json_array_foreach(json_object_get(m, "cpus"), i, c)
		if (k < len)
			k += (size_t)snprintf(buf + k, len - k, "%s%lld", i ? "," : "",
					      (long long)json_integer_value(c));
	if (k < len)
		snprintf(buf + k, len - k, ")");
	return buf;
}

void render_mapped(const struct results *r, FILE *f)
{
	size_t n = json_array_size(json_object_get(json_object_get(r->placement, "mapped"),
						   "cpus"));
	char words[512];

	if (render_mapped_words(r, words, sizeof(words)))
		fprintf(f, "\nplacement %s: worker i on the (i mod %zu)-th (--map-topology)\n",
			words, n);
}

/*
 * The header's second line: what was measured (workload, sections,
 * lines, runs, window, placement, host), from the configuration the
 * results carry; nothing for a document without one (an import).
 */
static bool render_header_measured(const struct results *r, FILE *f)
{
	const char *wl = json_string_value(json_object_get(r->config, "workload"));
	const char *dist = json_string_value(json_object_get(r->config, "ncs_dist"));
	const char *pl = json_string_value(json_object_get(r->config, "placement"));
	const char *host = json_string_value(json_object_get(r->machine, "hostname"));
	json_t *pus = json_object_get(r->machine, "pus");
	char a[32], b[32], c[32], d[32], e[32], g[32], mw[512];
	const char *cs = cfg_num(r, "cs_ns", a, sizeof(a)), *ncs = cfg_num(r, "ncs_ns", b, sizeof(b));
	const char *lines = cfg_num(r, "cs_lines", c, sizeof(c)), *runs = cfg_num(r, "runs", d, sizeof(d));
	const char *dur = cfg_num(r, "duration_s", e, sizeof(e)), *wu = cfg_num(r, "warmup_s", g, sizeof(g));

	if (!wl)
		return false;
	fprintf(f, "# measured: workload %s", wl);
	if (json_object_get(r->config, "sweep"))
		fputs(", a sweep (one table per combination)", f);
	else if (cs && ncs)
		fprintf(f, ", sections cs %s ns ncs %s ns%s%s", cs, ncs, dist ? " " : "",
			dist ? dist : "");
	if (lines)
		fprintf(f, ", %s line%s", lines, strcmp(lines, "1") ? "s" : "");
	if (runs && dur)
		fprintf(f, ", %s run%s of %s s", runs, strcmp(runs, "1") ? "s" : "", dur);
	if (wu)
		fprintf(f, " after %s s warm-up", wu);
	if (pl)
		fprintf(f, ", placement %s", pl);
	if (pl && render_mapped_words(r, mw, sizeof(mw)))
		fprintf(f, " %s", mw);
	if (host)
		fprintf(f, ", host %s", host);
	if (json_is_integer(pus))
		fprintf(f, " (%lld PUs)", (long long)json_integer_value(pus));
	return true;
}

/* The header's first line: kernels, CPU, lockbench, the command. */
static bool render_header_first(const struct results *r, FILE *f)
{
	json_t *pv = r->provenance, *cmd = json_object_get(pv, "command"), *w;
	const char *kernel = json_string_value(json_object_get(pv, "kernel"));
	const char *cpu = json_string_value(json_object_get(r->machine, "cpu_model"));
	const char *ver = json_string_value(json_object_get(pv, "version"));
	const char *git = json_string_value(json_object_get(pv, "git"));
	json_t *files = json_object_get(r->config, "files"), *e;
	const char *sep = " kernels";
	size_t i;

	fputs("#", f);
	/* compare: the kernels the files ran on, not the one comparing. */
	json_array_foreach(files, i, e) {
		const char *k = json_string_value(json_object_get(json_object_get(e, "machine"),
								 "kernel"));

		if (k)
			fprintf(f, "%s %.*s", sep, (int)strcspn(k, " "), k), sep = ",";
	}
	if (*sep == ',')
		fputc(',', f);
	else if (kernel && !files)
		fprintf(f, " kernel %.*s,", (int)strcspn(kernel, " "), kernel);
	if (cpu)
		fprintf(f, " CPU %s,", cpu);
	if (ver)
		fprintf(f, " lockbench %s%s%s%s", ver, git ? " (git " : "", git ? git : "",
			git ? ")" : "");
	if (json_array_size(cmd))
		fputc(':', f);
	json_array_foreach(cmd, i, w)
		fprintf(f, " %s", json_string_value(w) ? json_string_value(w) : "?");
	return true;
}

/* One line of the header: what fn writes, terminal-safe as a whole
 * (its kernels, CPU, host and command come from the files), then '\n'. */
static void header_line(const struct results *r, FILE *f,
			bool (*fn)(const struct results *, FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	bool any;

	if (!m)
		return;
	any = fn(r, m);
	if (!fclose(m) && any) {
		render_fputs_safe(buf, f);
		fputc('\n', f);
	}
	free(buf);
}

void render_header(const struct results *r, FILE *f)
{
	header_line(r, f, render_header_first);
	header_line(r, f, render_header_measured);
}

const char *render_ns(double ns, char *buf, size_t len)
{
	static const char *const unit[] = {"ns", "us", "ms", "s"};
	unsigned u = 0;

	while (u < 3 && ns >= 999.5) {
		ns /= 1000;
		u++;
	}
	if (u == 0 || ns >= 99.95)
		snprintf(buf, len, "%.0f %s", ns, unit[u]);
	else if (ns >= 9.995)
		snprintf(buf, len, "%.1f %s", ns, unit[u]);
	else
		snprintf(buf, len, "%.2f %s", ns, unit[u]);
	return buf;
}

const char *render_at_row(const struct results *r, unsigned row, char *buf,
			  size_t len)
{
	char name[64];
	const char *h = r->row_heading ? r->row_heading : "threads";
	size_t hl = strlen(h);

	results_row_name(r, row, name, sizeof(name));
	if (r->row_desc && r->row_desc[row].label && r->row_desc[row].value)
		snprintf(buf, len, "at %s=%s", h, name);
	else if (r->row_desc && r->row_desc[row].label)
		snprintf(buf, len, "at %s", name);
	else if (!strcmp(name, "1") && hl > 1 && h[hl - 1] == 's')
		snprintf(buf, len, "at 1 %.*s", (int)(hl - 1), h);
	else
		snprintf(buf, len, "at %s %s", name, h);
	return buf;
}

/* The variants a piece is built from, in order: every variant that
 * has a baseline, and every baseline no other variant is compared with.
 * Their number; item[] has room for nvariants. */
static unsigned piece_items(const struct results *r, unsigned *item)
{
	unsigned n = 0;

	for (unsigned v = 0; v < r->nvariants; v++) {
		bool used = !results_is_base(r, v);

		for (unsigned k = 0; k < r->nvariants && !used; k++)
			used = k != v && results_base(r, k) == v;
		if (!results_is_base(r, v) || !used)
			item[n++] = v;
	}
	return n;
}

int render_piece_bufs(const struct results *r, unsigned **vw, bool **in)
{
	*vw = calloc(r->nvariants + 1, sizeof(**vw));
	*in = calloc(r->nvariants + 1, sizeof(**in));
	if (*vw && *in)
		return 0;
	free(*vw);
	free(*in);
	*vw = NULL;
	*in = NULL;
	return -1;
}

bool render_piece(const struct results *r, const struct render_opts *o,
		  const unsigned *vw, unsigned fixed, unsigned *next, bool *in)
{
	unsigned *item, n, sum = fixed, start = *next;

	if (start > r->nvariants)
		return false;
	item = calloc(r->nvariants + 1, sizeof(*item));
	if (!item)
		return false;
	n = piece_items(r, item);
	for (unsigned v = 0; v < r->nvariants; v++)
		sum += vw[v];
	if (!start && (!o->width || sum <= o->width || n < 2)) {
		/* The whole table, as it has always been printed. */
		for (unsigned v = 0; v < r->nvariants; v++)
			in[v] = true;
		*next = r->nvariants + 1;
		free(item);
		return true;
	}
	if (start >= n) {
		free(item);
		return false;
	}
	memset(in, 0, r->nvariants * sizeof(*in));
	for (unsigned i = start; i < n; i++) {
		unsigned v = item[i], b = results_base(r, v);

		sum = fixed + (in[v] ? 0 : vw[v]) + (in[b] || b == v ? 0 : vw[b]);
		for (unsigned k = 0; k < r->nvariants; k++)
			sum += in[k] ? vw[k] : 0;
		if (i > start && sum > o->width)
			break;
		in[v] = in[b] = true;
		*next = i + 1;
	}
	free(item);
	return true;
}

void render_wrapped(FILE *f, const char *text, unsigned indent)
{
	unsigned col = 0;

	while (*text) {
		size_t gap = strspn(text, " ");
		size_t w = strcspn(text + gap, " ");

		if (col && col + gap + w > RENDER_WRAP) {
			/* Break here: the spaces go, the next line is indented. */
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		} else {
			fprintf(f, "%.*s", (int)gap, text);
			col += (unsigned)gap;
		}
		/* a note quotes files (a kernel, a CPU model): its words
		 * are terminal-safe; \001 is a space that does not break */
		for (size_t i = 0, n; i < w; i += n) {
			n = strcspn(text + gap + i, "\001");
			n = n > w - i ? w - i : n;
			render_write_safe(f, text + gap + i, n);
			if (!n && (n = 1))
				fputc(' ', f);
		}
		col += (unsigned)w;
		text += gap + w;
	}
	fputc('\n', f);
}
