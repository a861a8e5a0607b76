/* SPDX-License-Identifier: MIT */
/*
 * `lockbench import locktorture`: kernel locktorture logs (parsed by
 * ltlog.c) as a results model, written as the same JSON schema so that
 * `compare` renders kernel runs like lockbench runs.
 */
#ifndef LOCKBENCH_IMPORT_H
#define LOCKBENCH_IMPORT_H

#include <stddef.h>
#include <stdio.h>

#include "../../output/results/results.h"

/*
 * What a log may lack, supplied by the user (--nwriters, --nreaders,
 * --stat-interval, --torture-type): -1 / NULL when not given.  Used only
 * for runs whose log does not say (a built-in module's boot log, a cut
 * log), never over what the log says.
 */
struct import_fill {
	int nwriters, nreaders, stat_interval;
	const char *type;
	/* Intervals dropped as warm-up after the start-up one (0: none). */
	unsigned skip_intervals;
	/* The run's length in seconds for logs whose runs have only final
	 * totals and no timestamped Start line (0: not given). */
	double duration;
};

/* One log in memory: its name (for messages and JSON) and its bytes. */
struct import_src {
	const char *name;
	const char *buf;
	size_t len;
	char *owned;	/* buf when malloc'ed: freed (and NULL) once parsed */
};

/*
 * Build @r from the logs at @paths[0..@n-1].  Each log run (see
 * lt_parse() for where runs split) becomes one run of the point
 * (torture_type, nwriters_stress): ops_per_sec is the mean of its
 * per-interval write rates (first interval and the stopping reports
 * dropped), window_s the number of intervals times stat_interval.  A
 * run reporting Fail > 0 (or ending in FAILURE) makes its point FAILED,
 * the error naming the log line; a ??? report sets unfair_reported.
 * @fill (may be NULL) supplies what logs lack.  Runs that still cannot
 * be placed (no nwriters_stress, no complete interval) are skipped with
 * one line each on @warn (may be NULL).  @label (may be NULL) labels
 * every variant.  Returns 0, or -EINVAL / -ENOENT / -ENOMEM with one
 * line in @err (no "lockbench: " prefix); @r is then empty.
 */
int import_locktorture(const char *const *paths, unsigned n, const char *label,
		       const struct import_fill *fill, struct results *r, FILE *warn,
		       char *err, size_t errlen);

/* import_locktorture() of logs already in memory (@src[0..@n-1]). */
int import_locktorture_srcs(struct import_src *src, unsigned n,
			    const char *label, const struct import_fill *fill,
			    struct results *r, FILE *warn, char *err, size_t errlen);

/*
 * The exit status an import (or a `lockbench locktorture` run) of @r
 * deserves: 1 when a point FAILED, each named in one line on @f (may be
 * NULL), else 0.
 */
int import_status(const struct results *r, FILE *f);

#endif
