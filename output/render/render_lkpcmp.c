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
 * not significant ends in `~` (inside its 11 columns).
 */
#include <errno.h>
#include <math.h>
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
		snprintf(ch, sizeof(ch), "%+.1f%%%s", p->rel,
			 o->marks && !p->significant ? "~" : "");
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

int render_lkpcmp(const struct results *r, const struct render_opts *o, FILE *f)
{
	unsigned b = r->baseline;

	fprintf(f, "%-16s", r->variants[b].name);
	for (unsigned v = 0; v < r->nvariants; v++)
		if (v != b)
			fprintf(f, " %-27s", r->variants[v].name);
	fprintf(f, " \n----------------");
	for (unsigned v = 1; v < r->nvariants; v++)
		fprintf(f, " ---------------------------");
	fprintf(f, " \n         %%stddev");
	for (unsigned v = 1; v < r->nvariants; v++)
		fprintf(f, "     %%change         %%stddev");
	fprintf(f, "\n             \\  ");
	for (unsigned v = 1; v < r->nvariants; v++)
		fprintf(f, "        |                \\  ");
	fputc('\n', f);
	for (unsigned row = 0; row < r->nrows; row++) {
		column(r, o, b, row, f);
		for (unsigned v = 0; v < r->nvariants; v++)
			if (v != b)
				column(r, o, v, row, f);
		fprintf(f, "  ");
		metric_name(r, o, row, f);
		fputc('\n', f);
	}
	render_notes(r, o, f);
	return ferror(f) ? -1 : 0;
}
