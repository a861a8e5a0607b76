/* SPDX-License-Identifier: MIT */
/*
 * CSV (-f csv, docs/formats.md): one line per (variant, row, run)
 * after a header line, for spreadsheets.  A point without runs (not
 * measured, failed before a run completed) still gets one line with its
 * status and empty run fields.  `value` is ops_per_sec in --unit; an
 * unknown window is an empty field.
 * Fields are quoted as RFC 4180 says when they hold , " or a newline.
 */
#include <math.h>
#include <string.h>

#include "render.h"

static void csv_str(const char *s, FILE *f)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

/* variant,lock,label,row,threads,status: the point's leading fields. */
static void csv_point(const struct results *r, unsigned v, unsigned row, FILE *f)
{
	const struct variant *var = &r->variants[v];
	char name[256];

	csv_str(var->name, f);
	fputc(',', f);
	csv_str(var->lock, f);
	fputc(',', f);
	csv_str(var->label, f);
	fputc(',', f);
	csv_str(results_row_name(r, row, name, sizeof(name)), f);
	fprintf(f, ",%u,%s,", r->rows[row], point_status_name(results_point(r, v, row)->status));
}

int render_csv(const struct results *r, const struct render_opts *o, FILE *f)
{
	double k = unit_scale(o->unit);

	fputs("variant,lock,label,row,threads,status,run,seq,window_s,ops,"
	      "ops_per_sec,value,unit\n", f);
	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned row = 0; row < r->nrows; row++) {
			const struct point *p = results_point(r, v, row);

			if (!p->nruns) {
				csv_point(r, v, row, f);
				fputs(",,,,,,\n", f);
			}
			for (unsigned i = 0; i < p->nruns; i++) {
				const struct run_sample *s = &p->runs[i];

				csv_point(r, v, row, f);
				fprintf(f, "%u,%u,", i + 1, s->seq);
				if (isfinite(s->window_s))
					fprintf(f, "%.6f", s->window_s);
				fprintf(f, ",%llu,%.3f,%.6f,%s\n", (unsigned long long)s->ops,
					s->ops_per_sec, s->ops_per_sec * k, unit_name(o->unit));
			}
		}
	return ferror(f) ? -1 : 0;
}
