/* SPDX-License-Identifier: MIT */
/*
 * CSV (-f csv, docs/formats.md): one line per (variant, row, run)
 * after a header line, for spreadsheets.  A point without runs (not
 * measured, failed before a run completed) still gets one line with its
 * status and empty run fields.  `value` is ops_per_sec in --unit; an
 * unknown window is an empty field.
 * Fields are quoted as RFC 4180 says when they hold , " or a newline.
 * A sweep adds one column per swept parameter after `threads` (named as
 * in the variants' params, docs/json.md; empty where a variant does not
 * have it, e.g. another lock's option).
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

#define CSV_MAXP 32

/* variant,lock,label,row,threads,[params,]status: the point's leading fields. */
static void csv_point(const struct results *r, unsigned v, unsigned row,
		      const char **keys, unsigned nk, FILE *f)
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
	fprintf(f, ",%u,", r->rows[row]);
	for (unsigned i = 0; i < nk; i++) {
		json_t *x = json_object_get(var->params, keys[i]);

		if (json_is_integer(x))
			fprintf(f, "%lld", (long long)json_integer_value(x));
		else if (json_is_number(x))
			fprintf(f, "%.17g", json_number_value(x));
		fputc(',', f);
	}
	fprintf(f, "%s,", point_status_name(results_point(r, v, row)->status));
}

/* A run's rate in the unit of o; --unit ns: the ns one of its threads
 * spent per operation (render.h, unit_point()). */
static double csv_value(const struct results *r, const struct render_opts *o,
			unsigned row, const struct run_sample *s, double k)
{
	double threads = s->nthreads ? s->nthreads : r->rows[row];

	if (o->unit == UNIT_NS && !(r->row_desc && r->row_desc[row].metric))
		return threads * 1e9 / s->ops_per_sec;
	return s->ops_per_sec * k;
}

int render_csv(const struct results *r, const struct render_opts *o, FILE *f)
{
	double k = unit_scale(o->unit);
	const char *keys[CSV_MAXP];
	unsigned nk = results_param_keys(r, keys, CSV_MAXP, false);

	fputs("variant,lock,label,row,threads,", f);
	for (unsigned i = 0; i < nk; i++) {
		csv_str(keys[i], f);
		fputc(',', f);
	}
	fputs("status,run,seq,window_s,ops,ops_per_sec,value,unit\n", f);
	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned row = 0; row < r->nrows; row++) {
			const struct point *p = results_point(r, v, row);

			if (!p->nruns) {
				csv_point(r, v, row, keys, nk, f);
				fputs(",,,,,,\n", f);
			}
			for (unsigned i = 0; i < p->nruns; i++) {
				const struct run_sample *s = &p->runs[i];

				csv_point(r, v, row, keys, nk, f);
				fprintf(f, "%u,%u,", i + 1, s->seq);
				if (isfinite(s->window_s))
					fprintf(f, "%.6f", s->window_s);
				fprintf(f, ",%llu,%.3f,%.6f,%s\n", (unsigned long long)s->ops,
					s->ops_per_sec, csv_value(r, o, row, s, k), unit_name(o->unit));
			}
		}
	return ferror(f) ? -1 : 0;
}
