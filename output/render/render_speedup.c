/* SPDX-License-Identifier: MIT */
/*
 * The speedup table (docs/formats.md, "speedup"), as in the CNA posting:
 *
 *   Oracle X5-4 ..., locktorture, ops/s x10^7, average of 5 runs
 *   #thr  stock  patched  speedup (patched/stock)
 *   1     2.710  2.715    1.002
 *
 * Exactly two variants: the baseline and one other.  Means are scaled
 * by the power of ten of the smallest mean (stated in the line above
 * the table) and printed with three decimals; a throughput in ops/s
 * whatever --unit says (kops/s or Mops/s, a prefix, times a power of
 * ten would name one scale twice: "kops/s x10^3" for Mops/s); speedup = other /
 * baseline = 1 + rel/100, three decimals.  Each cell is its column's
 * widest entry plus two spaces.  With marks on, `?` follows a mean
 * whose CV is high, `#` a speedup that is significant and `~` one that
 * is not, `*` an oversubscribed row.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define CELL RENDER_CELL

#define NCOLS 4

int speedup_check(const struct results *r, char *err, size_t len)
{
	if (r->nvariants == 2)
		return 0;
	snprintf(err, len, "format speedup (%u variants): needs exactly two, "
		 "the baseline and one other; use table for more", r->nvariants);
	return -EINVAL;
}

/* Power of ten of the smallest positive mean in the unit (0 if none). */
static int scale_exp(const struct results *r, double k)
{
	double lo = INFINITY;

	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		const struct point *p = &r->points[i];

		if (p->status == POINT_OK && p->sum.mean * k > 0 && p->sum.mean * k < lo)
			lo = p->sum.mean * k;
	}
	return isfinite(lo) ? (int)floor(log10(lo)) : 0;
}

/* "average of 5 runs", or "of 3-5 runs" when points differ. */
static void runs_text(const struct results *r, char *buf, size_t len)
{
	unsigned lo = ~0u, hi = 0;

	for (unsigned i = 0; i < r->nvariants * r->nrows; i++)
		if (r->points[i].status == POINT_OK) {
			lo = r->points[i].sum.n < lo ? r->points[i].sum.n : lo;
			hi = r->points[i].sum.n > hi ? r->points[i].sum.n : hi;
		}
	if (lo == hi)
		snprintf(buf, len, "average of %u run%s", hi, hi == 1 ? "" : "s");
	else if (hi)
		snprintf(buf, len, "average of %u-%u runs", lo, hi);
	else
		snprintf(buf, len, "no runs");
}

/* The unit the table is scaled in: ops/s for a throughput (the scale is
 * the power of ten alone), else --unit's. */
static enum unit speedup_unit(const struct render_opts *o)
{
	return o->unit == UNIT_KOPS || o->unit == UNIT_MOPS ? UNIT_OPS : o->unit;
}

/* The line above the table: machine, workload, unit and scale, runs. */
static void print_head(const struct results *r, const struct render_opts *o,
		       int e, FILE *f)
{
	const char *cpu = json_string_value(json_object_get(r->machine, "cpu_model"));
	char runs[64], sc[32] = "";
	int n = cpu ? (int)strlen(cpu) : 0;

	while (n && cpu[n - 1] == ' ')
		n--;
	if (e)
		snprintf(sc, sizeof(sc), " x10^%d", e);
	runs_text(r, runs, sizeof(runs));
	fprintf(f, "%.*s%s%s, %s%s, %s\n", n, n ? cpu : "", n ? ", " : "",
		r->workload ? r->workload : "cs", unit_name(speedup_unit(o)), sc, runs);
}

static void put_row(const struct results *r, const struct render_opts *o,
		    unsigned row, double k, char c[NCOLS][CELL])
{
	unsigned other = r->baseline ? 0 : 1;
	const struct point *b = results_point(r, r->baseline, row);
	const struct point *p = results_point(r, other, row);
	char name[CELL];

	render_cellf(c[0], "%.*s%s", CELL - 2, results_row_name(r, row, name, sizeof(name)),
		 o->marks && render_oversubscribed(r, row) ? "*" : "");
	for (unsigned i = 0; i < 2; i++) {
		const struct point *q = i ? p : b;

		if (q->status == POINT_OK)
			render_cellf(c[1 + i], "%.3f%s%s", q->sum.mean * k,
				 o->marks && q->high_cv ? "?" : "",
				 o->marks && q->lt_unfair ? "^" : "");
		else
			render_cellf(c[1 + i], "-");
	}
	if (p->has_rel)
		render_cellf(c[3], "%.3f%s", 1 + p->rel / 100, render_sig_mark(o, p));
	else
		render_cellf(c[3], "-");
}

int render_speedup(const struct results *r, const struct render_opts *o, FILE *f)
{
	unsigned other = r->baseline ? 0 : 1, width[NCOLS] = {0};
	char (*c)[NCOLS][CELL];
	double k;
	int e;

	if (r->nvariants != 2)
		return -1;
	c = calloc(r->nrows + 1, sizeof(*c));
	if (!c)
		return -1;
	e = scale_exp(r, unit_scale(speedup_unit(o)));
	k = unit_scale(speedup_unit(o)) / pow(10, e);
	render_cellf(c[0][0], "#%s", r->row_desc ? r->row_heading : "thr");
	render_cellf(c[0][1], "%s", r->variants[r->baseline].name);
	render_cellf(c[0][2], "%s", r->variants[other].name);
	render_cellf(c[0][3], "speedup (%s/%s)", r->variants[other].name,
		 r->variants[r->baseline].name);
	for (unsigned row = 0; row < r->nrows; row++)
		put_row(r, o, row, k, c[1 + row]);
	for (unsigned i = 0; i <= r->nrows; i++)
		for (unsigned col = 0; col < NCOLS; col++)
			if (strlen(c[i][col]) + 2 > width[col])
				width[col] = (unsigned)strlen(c[i][col]) + 2;
	print_head(r, o, e, f);
	for (unsigned i = 0; i <= r->nrows; i++)
		fprintf(f, "%-*s%-*s%-*s%s\n", (int)width[0], c[i][0], (int)width[1],
			c[i][1], (int)width[2], c[i][2], c[i][3]);
	render_notes(r, o, f);
	free(c);
	return ferror(f) ? -1 : 0;
}
