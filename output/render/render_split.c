/* SPDX-License-Identifier: MIT */
/*
 * The text formats of a sweep: one table per combination of the
 * dimensions that are not the rows (--rows, results_split), each under
 * a line naming its parameters.  Without a sweep, the format as it is.
 */
#include <errno.h>

#include "render.h"

static int render_parts(int (*fn)(const struct results *, const struct render_opts *,
				  FILE *),
			const struct results *r, const struct render_opts *o, FILE *f)
{
	struct results_part *parts;
	unsigned n;
	char err[512];
	int rc = 0;

	if (results_split(r, o->rows, &parts, &n, err, sizeof(err))) {
		fprintf(stderr, "lockbench: %s\n", err);
		return -EINVAL;
	}
	if (!n)
		return fn(r, o, f);
	for (unsigned i = 0; i < n && !rc; i++) {
		fprintf(f, "%s%s\n", i ? "\n" : "", parts[i].heading);
		rc = fn(&parts[i].r, o, f);
	}
	results_parts_free(parts, n);
	return rc;
}

#define SPLIT(fn) \
	int fn##_split(const struct results *r, const struct render_opts *o, FILE *f) \
	{ return render_parts(fn, r, o, f); }

SPLIT(render_table)
SPLIT(render_box)
SPLIT(render_lkp)
SPLIT(render_speedup)
SPLIT(render_mmtests)
SPLIT(render_lkpcmp)

/* speedup of a sweep: two columns in each table (the columns do not
 * depend on the row dimension, so the first part tells). */
int speedup_check_split(const struct results *r, char *err, size_t len)
{
	struct results_part *parts;
	unsigned n;
	int rc;

	if (results_split(r, NULL, &parts, &n, err, len))
		return -EINVAL;
	rc = speedup_check(n ? &parts[0].r : r, err, len);
	results_parts_free(parts, n);
	return rc;
}
