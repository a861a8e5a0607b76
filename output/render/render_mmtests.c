/* SPDX-License-Identifier: MIT */
/*
 * mmtests compare-kernels layout (docs/formats.md, "mmtests"), as posted
 * on LKML by mmtests users, e.g.:
 *
 *   netperf-udp
 *                                     6.1.0-rc3              6.1.0-rc3
 *                                       vanilla      sched-wfsync-v1r1
 *   Hmean     send-64         235.21 (   0.00%)      112.75 * -52.06%*
 *
 * A title line (the workload), two heading lines per column (the kernel
 * the column ran on, when known, then the column's name), then one line per row:
 * the statistic and the row name in 10 columns each, and per column the
 * value (%12.2f) and its change from the baseline: `(   x%)`, or
 * `*   x%*` when the change is significant (the `~` mark's test,
 * results.c).  Throughput rows show the harmonic mean of the runs
 * (Hmean: the mean of rates) and the change in it; rows measuring a
 * time (lower is better) show the arithmetic mean (Amean) and the
 * change as a gain, (base - x) / base, as mmtests does.  Columns widen
 * past 23 characters only for longer names.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define COLW 23

/* The kernel a column ran on: its file's machine (compare), else the
 * run's; "" when unknown. */
static const char *column_kernel(const struct results *r, unsigned v)
{
	json_t *files = json_object_get(r->config, "files"), *e;
	const char *k = NULL;
	size_t i;

	json_array_foreach(files, i, e) {
		const char *label = json_string_value(json_object_get(e, "label"));

		if (label && r->variants[v].label && !strcmp(label, r->variants[v].label)) {
			k = json_string_value(json_object_get(json_object_get(e, "machine"),
							      "kernel"));
			break;
		}
	}
	if (!k)
		k = json_string_value(json_object_get(r->machine, "kernel"));
	return k ? k : "";
}

static unsigned col_width(const struct results *r, unsigned v)
{
	size_t n = strlen(r->variants[v].name), k = strlen(column_kernel(r, v));

	n = n > k ? n : k;
	return n + 1 > COLW ? (unsigned)n + 1 : COLW;
}

/* The heading lines of the columns in[]. */
static void heading(const struct results *r, const bool *in, FILE *f)
{
	bool kernels = false;

	for (unsigned v = 0; v < r->nvariants; v++)
		kernels |= *column_kernel(r, v) != 0;
	if (kernels) {
		fprintf(f, "%20s", "");
		for (unsigned v = 0; v < r->nvariants; v++)
			if (in[v])
				fprintf(f, "%*s", (int)col_width(r, v), column_kernel(r, v));
		fputc('\n', f);
	}
	fprintf(f, "%20s", "");
	for (unsigned v = 0; v < r->nvariants; v++)
		if (in[v])
			fprintf(f, "%*s", (int)col_width(r, v), r->variants[v].name);
	fputc('\n', f);
}

static void cell(const struct results *r, const struct render_opts *o,
		 unsigned v, unsigned row, bool lower, FILE *f)
{
	const struct point *p = results_point(r, v, row);
	const struct point *b = results_point(r, results_base(r, v), row);
	double k = r->row_desc && r->row_desc[row].metric ? 1 : unit_scale(o->unit);
	double x = lower ? p->sum.mean : p->sum.hmean;
	double bx = lower ? b->sum.mean : b->sum.hmean, ch;
	unsigned pad = col_width(r, v) - COLW;

	if (p->status != POINT_OK || isnan(x)) {
		fprintf(f, "%*s%*s", (int)(pad + 12),
			p->status == POINT_OK ? "-" : point_status_name(p->status), 11, "");
		return;
	}
	fprintf(f, "%*.2f", (int)(pad + 12), x * k);
	if (results_is_base(r, v)) {
		fprintf(f, " (%7.2f%%)", 0.0);
		return;
	}
	if (!p->has_rel || b->status != POINT_OK || isnan(bx) || bx == 0) {
		fprintf(f, "%11s", "");
		return;
	}
	ch = lower ? (bx - x) / bx * 100 : stats_rel_pct(x, bx);
	if (p->significant)	/* the layout's own mark: kept by --no-marks */
		fprintf(f, " *%7.2f%%*", ch);
	else
		fprintf(f, " (%7.2f%%)", ch);
}

/* One table of the columns in[]: the headings, then a line per row. */
static void print_piece(const struct results *r, const struct render_opts *o,
			const bool *in, FILE *f)
{
	char name[64];

	heading(r, in, f);
	for (unsigned row = 0; row < r->nrows; row++) {
		bool lower = r->row_desc && r->row_desc[row].lower_better;

		fprintf(f, "%-10s%-10s", lower ? "Amean" : "Hmean",
			results_row_name(r, row, name, sizeof(name)));
		for (unsigned v = 0; v < r->nvariants; v++)
			if (in[v])
				cell(r, o, v, row, lower, f);
		fputc('\n', f);
	}
}

/* The title once, then the table: whole when it fits in o->width, else
 * in pieces that each repeat the baseline column (render_piece()). */
int render_mmtests(const struct results *r, const struct render_opts *o, FILE *f)
{
	unsigned *vw, next = 0;
	bool *in;

	if (render_piece_bufs(r, &vw, &in))
		return -1;
	for (unsigned v = 0; v < r->nvariants; v++)
		vw[v] = col_width(r, v);
	fprintf(f, "%s\n", r->workload ? r->workload : "cs");
	for (unsigned k = 0; render_piece(r, o, vw, 20, &next, in); k++) {
		if (k)
			fputc('\n', f);
		print_piece(r, o, in, f);
	}
	free(vw);
	free(in);
	if (o->marks && r->nvariants > 1) {
		char line[512];

		snprintf(line, sizeof(line), "*x%%*  significant change from %s "
			 "(Holm-adjusted p < %.2f); (x%%) not significant, or not "
			 "assessed (the test is in the JSON: vs_baseline.test)",
			 r->variants[r->baseline].name, r->alpha);
		fputc('\n', f);
		render_wrapped(f, line, 7);
	}
	return ferror(f) ? -1 : 0;
}
