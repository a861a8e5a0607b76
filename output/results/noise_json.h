/* SPDX-License-Identifier: MIT */
/*
 * output/results/noise_json.h - the noise members of the JSON results
 * (docs/json.md): per run, per point and at the top level.
 */
#ifndef LOCKBENCH_NOISE_JSON_H
#define LOCKBENCH_NOISE_JSON_H

#include "results.h"

/* Add a run's workers, section lengths, stopped time, flags, reason and
 * excluded to its object `o`; nothing when the run has no measurements. */
void noise_run_add_json(json_t *o, const struct run_noise *n);
/* Add "noise" (flag counts) and "adaptive" to a point. */
void noise_point_add_json(json_t *o, const struct results *r, const struct point *p);
/* The top-level "noise" object: options and counts (new reference). */
json_t *noise_results_json(const struct results *r);

/* -r auto: drop the run_order entries of rounds that were not run. */
void noise_prune_run_order(struct results *r);

#endif
