/* SPDX-License-Identifier: MIT */
/*
 * lkp-style blocks (docs/formats.md, "lkp"), as posted by the 0-day / lkp
 * robot:
 *
 *   postgres_sysbench/1instance/100%(nr_client=nr_cpu)
 *   kernel          transactions(higher is better)
 *   aligned         89623.85±0.35%
 *   per_node       132401.37±0.83%
 *
 * The CPU model (when known) heads the blocks.  One block per row: its title is the row's label, or WORKLOAD/ROW=N
 * for a thread count; the header names the metric (the unit for plain
 * throughput) and its direction; one line per variant with the mean,
 * two decimals, `±` and the relative std in percent.  Spacing follows
 * the published blocks: the heading column is 16 wide (or the longest
 * name + 1), means are right-aligned within the block and a mean wider
 * than 8 characters borrows from the padding before it.  With marks on,
 * `?` (high CV) and `#` (significant) or `~` (not) follow the relative
 * std.
 */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "render.h"

#define NAMEW 16
#define NUMW 8

static void lkp_mean(const struct results *r, const struct render_opts *o,
		     unsigned v, unsigned row, char *buf, size_t len)
{
	const struct point *p = results_point(r, v, row);
	double k = r->row_desc && r->row_desc[row].metric ? 1 : unit_scale(o->unit);

	if (p->status == POINT_OK)
		snprintf(buf, len, "%.2f", p->sum.mean * k);
	else
		snprintf(buf, len, "%s", p->status == POINT_MISSING ? "-" :
			 p->status == POINT_FAILED ? "FAILED" :
			 p->status == POINT_HUNG ? "HUNG" : "ERROR");
}

/* "Kernel" -> "kernel", into buf. */
static const char *lower(const char *s, char *buf, size_t len)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < len; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = 0;
	return buf;
}

static void lkp_title(const struct results *r, unsigned row, FILE *f)
{
	if (r->row_desc && r->row_desc[row].label)
		fprintf(f, "%s\n", r->row_desc[row].label);
	else
		fprintf(f, "%s/%s=%u\n", r->workload ? r->workload : "cs",
			r->row_heading, r->rows[row]);
}

static void lkp_block(const struct results *r, const struct render_opts *o,
		      unsigned row, unsigned headw, FILE *f)
{
	const struct row_desc *d = r->row_desc ? &r->row_desc[row] : NULL;
	unsigned numw = 0, namew;
	char buf[64];

	for (unsigned v = 0; v < r->nvariants; v++) {
		lkp_mean(r, o, v, row, buf, sizeof(buf));
		numw = strlen(buf) > numw ? (unsigned)strlen(buf) : numw;
	}
	namew = numw > NUMW + headw ? 0 : headw - (numw > NUMW ? numw - NUMW : 0);
	for (unsigned v = 0; v < r->nvariants; v++)
		if (strlen(r->variants[v].name) + 1 > namew)
			namew = (unsigned)strlen(r->variants[v].name) + 1;
	lkp_title(r, row, f);
	fprintf(f, "%-*s%s(%s is better)%s\n", (int)headw, lower(r->variant_heading, buf,
								     sizeof(buf)),
		d && d->metric ? d->metric : unit_title(o->unit),
		d && d->lower_better ? "less" : "higher",
		o->marks && render_oversubscribed(r, row) ? " *" : "");
	for (unsigned v = 0; v < r->nvariants; v++) {
		const struct point *p = results_point(r, v, row);

		lkp_mean(r, o, v, row, buf, sizeof(buf));
		fprintf(f, "%-*s%*s", (int)namew, r->variants[v].name, (int)numw, buf);
		if (p->status == POINT_OK && isnan(p->sum.cv))
			fprintf(f, "±-%s", render_sig_mark(o, p));
		else if (p->status == POINT_OK)
			fprintf(f, "±%.2f%%%s%s", p->sum.cv * 100,
				o->marks && p->high_cv ? "?" : "",
				render_sig_mark(o, p));
		if (p->status == POINT_OK && o->marks && p->lt_unfair)
			fputc('^', f);
		fputc('\n', f);
	}
}

/* The machine line heading the blocks ("SPR: 2socket/112cores/224threads"),
 * when the results name one CPU model. */
static void lkp_machine(const struct results *r, FILE *f)
{
	const char *cpu = json_string_value(json_object_get(r->machine, "cpu_model"));
	int n = cpu ? (int)strlen(cpu) : 0;

	while (n && cpu[n - 1] == ' ')
		n--;
	if (n)
		fprintf(f, "%.*s\n\n", n, cpu);
}

int render_lkp(const struct results *r, const struct render_opts *o, FILE *f)
{
	unsigned headw = NAMEW;

	lkp_machine(r, f);

	for (unsigned v = 0; v < r->nvariants; v++)
		if (strlen(r->variants[v].name) + 1 > headw)
			headw = (unsigned)strlen(r->variants[v].name) + 1;
	for (unsigned row = 0; row < r->nrows; row++) {
		if (row)
			fputc('\n', f);
		lkp_block(r, o, row, headw, f);
	}
	render_notes(r, o, f);
	return ferror(f) ? -1 : 0;
}
