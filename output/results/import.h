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

#include "results.h"

/*
 * Build @r from the logs at @paths[0..@n-1].  Each log run (split at
 * "Start of test") becomes one run of the point (torture_type,
 * nwriters_stress): ops_per_sec is the mean of its per-interval write
 * rates (first interval and the stopping reports dropped), window_s
 * the number of intervals times stat_interval.  Runs that cannot be
 * placed (no nwriters_stress, no complete interval) are skipped with
 * one line each on @warn (may be NULL).  @label (may be NULL) labels
 * every variant.  Returns 0, or -EINVAL / -ENOENT / -ENOMEM with one
 * line in @err (no "lockbench: " prefix); @r is then empty.
 */
int import_locktorture(const char *const *paths, unsigned n, const char *label,
		       struct results *r, FILE *warn, char *err, size_t errlen);

#endif
