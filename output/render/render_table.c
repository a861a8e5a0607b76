/* SPDX-License-Identifier: MIT */
/*
 * The locktorture-style table (docs/formats.md, "table"), as posted in the
 * rtmutex patch evaluation:
 *
 *   Lock:               mcs                qspinlock
 *   Statistic (kops/s): mean      std      mean      std     rel
 *   threads:
 *   1                   12345.67  123.45   12001.00  99.00   -3%
 *
 * Each cell is its column's widest entry plus two spaces; a variant's
 * heading spans its cells and widens the last one when it is longer.
 * With marks on: `?` after a std whose CV is high, `#` after a rel that
 * is significant and `~` after one that is not, `*` after an oversubscribed row, `!` after the
 * mean of a point with runs flagged for noise (output/stats/noise.h),
 * `^` after the mean of a point locktorture's max/2 > min rule calls
 * unfair (its `???`); explained once under the table.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

#define CELL 256

struct grid {
	unsigned ncols, nrows;
	char (*cell)[CELL];      /* [row * ncols + col] */
	unsigned *width;
	unsigned *group_of;      /* column -> variant + 1 (0: first column) */
};

static char *cell(struct grid *g, unsigned row, unsigned col)
{
	return g->cell[row * g->ncols + col];
}

static unsigned ncols_for(const struct results *r)
{
	return 1 + r->nvariants * 3 - (r->nvariants ? 1 : 0);
}

static void put_point(const struct results *r, const struct render_opts *o,
		      unsigned row, const struct point *p, bool base, char *mean,
		      char *std, char *rel)
{
	double m, s, rl;
	bool xfer;
	int prec = o->unit == UNIT_NS || o->unit == UNIT_XFER_NS ? 1 :
		   o->unit == UNIT_XFER ? 0 : 2;

	switch (p->status) {
	case POINT_OK:
		/* Every run left out (run_included()): nothing to judge. */
		if (!p->sum.n) {
			snprintf(mean, CELL, "-%s", o->marks ? "!" : "");
			break;
		}
		unit_point(r, o, row, p, &m, &s, &rl);
		/* A unit of handovers where none were counted (1 thread). */
		if (isnan(m)) {
			snprintf(mean, CELL, "-");
			break;
		}
		/* ns per operation to a tenth (a fast lock takes a few). */
		snprintf(mean, CELL, "%.*f%s%s", prec, m,
			 o->marks && p->noise.flagged ? "!" : "",
			 o->marks && p->lt_unfair ? "^" : "");
		/* the ? and the significance marks judge the throughput */
		xfer = UNIT_IS_XFER(o->unit);
		/* One run has no spread: "-", never a reassuring 0.00. */
		if (isnan(p->sum.std) || isnan(s))
			snprintf(std, CELL, "-");
		else
			snprintf(std, CELL, "%.*f%s", prec, s,
				 o->marks && p->high_cv && !xfer ? "?" : "");
		if (!base && p->has_rel && !isnan(rl))
			snprintf(rel, CELL, "%+.0f%%%s", rl, xfer ? "" : render_sig_mark(o, p));
		else if (!base)
			snprintf(rel, CELL, "-");
		return;
	case POINT_FAILED:
		snprintf(mean, CELL, "FAILED");
		break;
	case POINT_HUNG:
		snprintf(mean, CELL, "HUNG");
		break;
	case POINT_ERROR:
		snprintf(mean, CELL, "ERROR");
		break;
	case POINT_MISSING:
	default:
		snprintf(mean, CELL, "-");
		break;
	}
	snprintf(std, CELL, "-");
	if (!base)
		snprintf(rel, CELL, "-");
}

static void fill_grid(const struct results *r, const struct render_opts *o,
		      struct grid *g)
{
	char buf[CELL];

	snprintf(cell(g, 0, 0), CELL, "%s:", r->variant_heading);
	snprintf(cell(g, 1, 0), CELL, "Statistic (%s):",
		 o->unit == UNIT_NS ? "ns/op per thread" : unit_name(o->unit));
	snprintf(cell(g, 2, 0), CELL, "%s:", r->row_heading);
	for (unsigned row = 0; row < r->nrows; row++) {
		bool over = r->ncpus && r->rows[row] > r->ncpus;
		char name[CELL];

		snprintf(cell(g, 3 + row, 0), CELL, "%.*s%s", CELL - 2,
			 results_row_name(r, row, name, sizeof(name)),
			 o->marks && over ? "*" : "");
	}
	for (unsigned v = 0, c = 1; v < r->nvariants; v++) {
		bool base = results_is_base(r, v);

		snprintf(cell(g, 0, c), CELL, "%s", r->variants[v].name);
		snprintf(cell(g, 1, c), CELL, "mean");
		snprintf(cell(g, 1, c + 1), CELL, "std");
		if (!base)
			snprintf(cell(g, 1, c + 2), CELL, "rel");
		for (unsigned row = 0; row < r->nrows; row++)
			put_point(r, o, row, results_point(r, v, row), base,
				  cell(g, 3 + row, c), cell(g, 3 + row, c + 1),
				  base ? buf : cell(g, 3 + row, c + 2));
		for (unsigned k = 0; k < (base ? 2u : 3u); k++)
			g->group_of[c + k] = v + 1;
		c += base ? 2 : 3;
	}
}

/* Widths: first column widest+1, others widest+2, then widen the last
 * cell of a group whose heading is longer than its cells. */
static void size_grid(const struct results *r, struct grid *g)
{
	for (unsigned c = 0; c < g->ncols; c++)
		for (unsigned row = c ? 1 : 0; row < g->nrows; row++) {
			unsigned w = (unsigned)strlen(cell(g, row, c)) + (c ? 2 : 1);

			if (w > g->width[c])
				g->width[c] = w;
		}
	for (unsigned v = 0, c = 1; v < r->nvariants; v++) {
		unsigned n = results_is_base(r, v) ? 2 : 3, sum = 0;
		/* The heading as the cell holds it (cut at CELL). */
		unsigned need = (unsigned)strlen(cell(g, 0, c)) + 2;

		for (unsigned k = 0; k < n; k++)
			sum += g->width[c + k];
		if (need > sum)
			g->width[c + n - 1] += need - sum;
		c += n;
	}
}

/* Print one line of the variants in[]: cells padded to width,
 * trailing blanks trimmed.  Written as it goes (blanks held back until
 * something follows them), so no heading is too long for it. */
static void print_row(struct grid *g, unsigned row, const bool *in, FILE *f)
{
	size_t blanks = 0;

	for (unsigned c = 0; c < g->ncols; c++) {
		const char *s = cell(g, row, c);
		size_t w = g->width[c], n = strlen(s), text = n;

		/* Columns of other pieces, and the spare ones (two baselines). */
		if (c && (!g->group_of[c] || !in[g->group_of[c] - 1]))
			continue;
		/* The heading row spans whole groups. */
		if (row == 0 && c && g->group_of[c] == g->group_of[c - 1])
			continue;
		if (row == 0 && c)
			for (unsigned k = c + 1; k < g->ncols &&
			     g->group_of[k] == g->group_of[c]; k++)
				w += g->width[k];
		while (text && s[text - 1] == ' ')
			text--;
		if (text)
			fprintf(f, "%*s%.*s", (int)blanks, "", (int)text, s);
		blanks = (text ? 0 : blanks) + (n - text) + (w > n ? w - n : 0);
	}
	fputc('\n', f);
}

/*
 * The grid, split by variants into pieces within o->width columns
 * (render_piece()), each with the first column and its baselines.
 * The last column's two spaces of padding are trimmed from every line.
 */
static int print_pieces(const struct results *r, const struct render_opts *o,
			struct grid *g, FILE *f)
{
	unsigned *vw, next = 0;
	bool *in;

	if (render_piece_bufs(r, &vw, &in))
		return -1;
	for (unsigned c = 1; c < g->ncols; c++)
		if (g->group_of[c])
			vw[g->group_of[c] - 1] += g->width[c];
	for (unsigned k = 0; render_piece(r, o, vw, g->width[0] > 2 ? g->width[0] - 2 : 0, &next, in); k++) {
		if (k)
			fputc('\n', f);
		for (unsigned row = 0; row < g->nrows; row++)
			print_row(g, row, in, f);
	}
	free(vw);
	free(in);
	return 0;
}

int render_table(const struct results *r, const struct render_opts *o, FILE *f)
{
	struct grid g = {.ncols = ncols_for(r), .nrows = 3 + r->nrows};
	int rc;

	g.cell = calloc((size_t)g.ncols * g.nrows, CELL);
	g.width = calloc(g.ncols, sizeof(*g.width));
	g.group_of = calloc(g.ncols, sizeof(*g.group_of));
	if (!g.cell || !g.width || !g.group_of) {
		free(g.cell);
		free(g.width);
		free(g.group_of);
		return -1;
	}
	fill_grid(r, o, &g);
	size_grid(r, &g);
	rc = print_pieces(r, o, &g, f);
	if (!rc) {
		render_notes(r, o, f);
		render_trees(r, f);
		render_mapped(r, f);
	}
	free(g.cell);
	free(g.width);
	free(g.group_of);
	return rc || ferror(f) ? -1 : 0;
}
