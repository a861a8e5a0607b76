/* SPDX-License-Identifier: MIT */
/*
 * lkp-tests comparison layout (docs/formats.md, "lkp-compare"), as the
 * 0-day robot posts it on LKML:
 *
 *   d000e073ca2a08ab 89359897983825dbfc08578e7ee
 *   ---------------- ---------------------------
 *            %stddev     %change         %stddev
 *                \          |                \
 *       263173           -11.7%     232411        will-it-scale.per_process_ops
 *       138055 ± 18%     +33.4%     184128 ± 14%  cpuidle..usage
 *
 * The baseline's column is 16 wide (value in 10, then ` ±NN%` or six
 * spaces), every other column 28 (the change in 11, the value in 11,
 * its ` ±NN%`); then two spaces and the metric's name:
 * WORKLOAD.ROW_HEADING=N.UNIT, or the row's label.  The relative std is
 * shown from 2% up; values print as integers from 1000, with two
 * decimals below, in %.4g from 1e8.  With marks on, a change that is
 * significant ends in `#`, one that is not in `~` (inside its 11
 * columns).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

static void value(double x, char *buf, size_t len)
{
	if (fabs(x) >= 1e8)
		snprintf(buf, len, "%.4g", x);
	else if (fabs(x) >= 1000)
		snprintf(buf, len, "%.0f", x);
	else
		snprintf(buf, len, "%.2f", x);
}

/* " ±NN%" (6 columns; the ± is one column, two bytes) or 6 spaces. */
static void stddev(const struct point *p, FILE *f)
{
	double pct = p->sum.cv * 100;

	if (p->sum.n > 1 && isfinite(pct) && pct >= 1.5)
		fprintf(f, " \u00b1%3.0f%%", pct);
	else
		fprintf(f, "      ");
}

static void metric_name(const struct results *r, const struct render_opts *o,
			unsigned row, FILE *f)
{
	char name[64];

	if (r->row_desc && r->row_desc[row].label) {
		fprintf(f, "%s", r->row_desc[row].label);
		return;
	}
	fprintf(f, "%s.%s=%s.%s", r->workload ? r->workload : "cs", r->row_heading,
		results_row_name(r, row, name, sizeof(name)), unit_name(o->unit));
}

static void column(const struct results *r, const struct render_opts *o,
		   unsigned v, unsigned row, FILE *f)
{
	const struct point *p = results_point(r, v, row);
	double k = r->row_desc && r->row_desc[row].metric ? 1 : unit_scale(o->unit);
	char buf[32], ch[32] = "";

	if (p->status != POINT_OK) {
		snprintf(buf, sizeof(buf), "%s", point_status_name(p->status));
		if (v == r->baseline)
			fprintf(f, "%10s      ", buf);
		else
			fprintf(f, "%11s%11s      ", "", buf);
		return;
	}
	value(p->sum.mean * k, buf, sizeof(buf));
	if (v == r->baseline) {
		fprintf(f, "%10s", buf);
		stddev(p, f);
		return;
	}
	if (p->has_rel)
		snprintf(ch, sizeof(ch), "%+.1f%%%s", p->rel, render_sig_mark(o, p));
	fprintf(f, "%11s%11s", ch, buf);
	stddev(p, f);
}

int lkpcmp_check(const struct results *r, char *err, size_t len)
{
	if (!r->base_of)
		return 0;
	snprintf(err, len, "format lkp-compare: one baseline column, not one per "
		 "lock; narrow with -l LOCK or name a column with --baseline");
	return -EINVAL;
}

/* The metric names' width: the last column of every row. */
static unsigned metric_width(const struct results *r, const struct render_opts *o)
{
	unsigned w = 0;

	for (unsigned row = 0; row < r->nrows; row++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);

		if (!m)
			continue;
		metric_name(r, o, row, m);
		fclose(m);
		w = len > w ? (unsigned)len : w;
		free(buf);
	}
	return w;
}

/* One table: the baseline's column, then the columns in[]. */
static void print_piece(const struct results *r, const struct render_opts *o,
			const bool *in, FILE *f)
{
	unsigned b = r->baseline;

	fprintf(f, "%-16s", r->variants[b].name);
	for (unsigned v = 0; v < r->nvariants; v++)
		if (v != b && in[v])
			fprintf(f, " %-27s", r->variants[v].name);
	fprintf(f, " \n----------------");
	for (unsigned v = 0; v < r->nvariants; v++)
		if (v != b && in[v])
			fprintf(f, " ---------------------------");
	fprintf(f, " \n         %%stddev");
	for (unsigned v = 0; v < r->nvariants; v++)
		if (v != b && in[v])
			fprintf(f, "     %%change         %%stddev");
	fprintf(f, "\n             \\  ");
	for (unsigned v = 0; v < r->nvariants; v++)
		if (v != b && in[v])
			fprintf(f, "        |                \\  ");
	fputc('\n', f);
	for (unsigned row = 0; row < r->nrows; row++) {
		column(r, o, b, row, f);
		for (unsigned v = 0; v < r->nvariants; v++)
			if (v != b && in[v])
				column(r, o, v, row, f);
		fprintf(f, "  ");
		metric_name(r, o, row, f);
		fputc('\n', f);
	}
}

/* Whole when it fits in o->width, else in pieces of 28-column changes,
 * each after the baseline's column (render_piece()). */
int render_lkpcmp(const struct results *r, const struct render_opts *o, FILE *f)
{
	unsigned *vw, next = 0;
	bool *in;

	if (render_piece_bufs(r, &vw, &in))
		return -1;
	for (unsigned v = 0; v < r->nvariants; v++)
		vw[v] = v == r->baseline ? 0 : 28;
	for (unsigned k = 0; render_piece(r, o, vw, 18 + metric_width(r, o), &next, in);
	     k++) {
		if (k)
			fputc('\n', f);
		print_piece(r, o, in, f);
	}
	render_notes(r, o, f);
	free(vw);
	free(in);
	return ferror(f) ? -1 : 0;
}
