/* SPDX-License-Identifier: MIT */
/*
 * The AIM7-style box table (docs/formats.md, "box"), as posted in the
 * qrwlock thread:
 *
 *   1. pthread_mutex
 *   2. qrwlock
 *
 *   +-----------------+--------+--------+
 *   | Kernel          |      1 |      2 |
 *   +-----------------+--------+--------+
 *   | fserver JPM     | 245598 | 274457 |
 *   | % change from 1 |     0% | +11.8% |
 *   +-----------------+--------+--------+
 *
 * Variants are numbered in a legend above the box; each row (a thread
 * count, "threads=4 kops/s", or a named workload, "fserver JPM") is
 * followed by its % change from the baseline, one decimal, sign
 * printed.  Values have no decimals in JPM and ops/s, two otherwise.
 * With marks on, every value cell ends in one mark column: `?` after a
 * value whose CV is high, `#` after a change that is significant and
 * `~` after one that is not, blank otherwise, so the digits stay
 * aligned.
 */
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define CELL RENDER_CELL

struct box {
	unsigned ncols, nlines;  /* columns: title + variants */
	char (*cell)[CELL];      /* [line * ncols + col] */
	unsigned *width;
	bool slot;               /* cells carry a mark column */
};

static char *bcell(struct box *b, unsigned line, unsigned col)
{
	return b->cell[line * b->ncols + col];
}

static int decimals(enum unit u)
{
	return u == UNIT_JPM || u == UNIT_OPS ? 0 : 2;
}

/* Do any marks show?  Then every value cell gets a mark column. */
static bool any_mark(const struct results *r, const struct render_opts *o)
{
	if (!o->marks)
		return false;
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		const struct point *p = &r->points[i];

		if (p->status == POINT_OK &&
		    (p->high_cv || p->lt_unfair || p->has_rel))
			return true;
	}
	return false;
}

/* Value and % change of one point, with their marks. */
static void put_point(const struct results *r, const struct render_opts *o,
		      const struct box *b, unsigned v, unsigned row,
		      char *val, char *pct)
{
	const struct point *p = results_point(r, v, row);
	double k = r->row_desc && r->row_desc[row].metric ? 1 : unit_scale(o->unit);
	const char *slot = b->slot ? " " : "";

	if (p->status != POINT_OK) {
		render_cellf(val, "%s%s", p->status == POINT_MISSING ? "-" :
			 p->status == POINT_FAILED ? "FAILED" :
			 p->status == POINT_HUNG ? "HUNG" : "ERROR", slot);
		render_cellf(pct, "-%s", slot);
		return;
	}
	render_cellf(val, "%.*f%s%s", decimals(o->unit), p->sum.mean * k,
		 b->slot && p->high_cv ? "?" : b->slot && p->lt_unfair ? "" : slot,
		 b->slot && p->lt_unfair ? "^" : "");
	if (results_is_base(r, v))
		render_cellf(pct, "0%%%s", slot);
	else if (p->has_rel)
		render_cellf(pct, "%+.1f%%%s", p->rel, b->slot ? render_sig_mark(o, p) : "");
	else
		render_cellf(pct, "-%s", slot);
}

/* Line 0 is the header; row r gives lines 1 + 2r (value) and 2 + 2r. */
static void fill_box(const struct results *r, const struct render_opts *o,
		     struct box *b)
{
	char name[CELL];

	render_cellf(bcell(b, 0, 0), "%s", r->variant_heading);
	for (unsigned v = 0; v < r->nvariants; v++)
		render_cellf(bcell(b, 0, 1 + v), "%u%s", v + 1, b->slot ? " " : "");
	for (unsigned row = 0; row < r->nrows; row++) {
		bool named = r->row_desc && r->row_desc[row].label;

		results_row_name(r, row, name, sizeof(name));
		render_cellf(bcell(b, 1 + 2 * row, 0), "%s%s%s%s %s",
			 named ? "" : r->row_heading, named ? "" : "=", name,
			 o->marks && render_oversubscribed(r, row) ? "*" : "",
			 r->row_desc && r->row_desc[row].metric ?
			 r->row_desc[row].metric : unit_title(o->unit));
		render_cellf(bcell(b, 2 + 2 * row, 0), "%% change from %u",
			 r->baseline + 1);
		for (unsigned v = 0; v < r->nvariants; v++)
			put_point(r, o, b, v, row, bcell(b, 1 + 2 * row, 1 + v),
				  bcell(b, 2 + 2 * row, 1 + v));
	}
	for (unsigned line = 0; line < b->nlines; line++)
		for (unsigned c = 0; c < b->ncols; c++) {
			unsigned w = (unsigned)strlen(bcell(b, line, c));

			if (w > b->width[c])
				b->width[c] = w;
		}
}

/* Rules and lines show the first column and the variants in[]. */
static void print_rule(const struct box *b, const bool *in, FILE *f)
{
	for (unsigned c = 0; c < b->ncols; c++) {
		if (c && !in[c - 1])
			continue;
		fputc('+', f);
		for (unsigned k = 0; k < b->width[c] + 2; k++)
			fputc('-', f);
	}
	fputs("+\n", f);
}

static void print_line(struct box *b, unsigned line, const bool *in, FILE *f)
{
	fprintf(f, "| %-*s ", (int)b->width[0], bcell(b, line, 0));
	for (unsigned c = 1; c < b->ncols; c++)
		if (in[c - 1])
			fprintf(f, "| %*s ", (int)b->width[c], bcell(b, line, c));
	fputs("|\n", f);
}

/* One box of the variants in[] (every variant when it fits in
 * o->width; else render_piece()'s pieces, each with the baseline). */
static void print_box(const struct results *r, struct box *b, const bool *in,
		      FILE *f)
{
	print_rule(b, in, f);
	print_line(b, 0, in, f);
	print_rule(b, in, f);
	for (unsigned row = 0; row < r->nrows; row++) {
		print_line(b, 1 + 2 * row, in, f);
		print_line(b, 2 + 2 * row, in, f);
		print_rule(b, in, f);
	}
}

int render_box(const struct results *r, const struct render_opts *o, FILE *f)
{
	struct box b = {.ncols = 1 + r->nvariants, .nlines = 1 + 2 * r->nrows,
			.slot = any_mark(r, o)};
	unsigned *vw, next = 0;
	bool *in;

	b.cell = calloc((size_t)b.ncols * b.nlines, CELL);
	b.width = calloc(b.ncols, sizeof(*b.width));
	vw = calloc(b.ncols, sizeof(*vw));
	in = calloc(b.ncols, sizeof(*in));
	if (!b.cell || !b.width || !vw || !in) {
		free(b.cell);
		free(b.width);
		free(vw);
		free(in);
		return -1;
	}
	fill_box(r, o, &b);
	for (unsigned v = 0; v < r->nvariants; v++) {
		fprintf(f, "%u. %s\n", v + 1, r->variants[v].name);
		vw[v] = b.width[1 + v] + 3;	/* "| " cell " " */
	}
	for (unsigned k = 0; render_piece(r, o, vw, b.width[0] + 4, &next, in); k++) {
		fputc('\n', f);
		print_box(r, &b, in, f);
	}
	render_notes(r, o, f);
	free(b.cell);
	free(b.width);
	free(vw);
	free(in);
	return ferror(f) ? -1 : 0;
}
