/* SPDX-License-Identifier: MIT */
/*
 * output/results/envdiff.h - what differs between saved results'
 * environments that changes the numbers, for `compare`; and JSON values
 * compared by value (a configuration written by two JSON writers).
 * Pure: no printing.  docs/method.md "Comparing files".
 */
#ifndef LOCKBENCH_ENVDIFF_H
#define LOCKBENCH_ENVDIFF_H

#include <jansson.h>
#include <stdbool.h>

#include "results.h"

/* Figures without a recorded spread differ by more than this fraction. */
#define ENV_REL_DIFF 0.10
/* Files looked at (the rest are left out of the lines). */
#define ENV_MAX_FILES 64

/*
 * a and b hold the same value: numbers by value whatever their spelling
 * (1, 1.0; to a relative 1e-9), objects key by key, arrays element by
 * element, or, with sets, as multisets (order does not matter: thread
 * lists).  Both NULL is the same; one NULL is not.
 */
bool results_json_same(const json_t *a, const json_t *b, bool sets);

/*
 * What differs between the n files in[] (named names[] in the lines),
 * in this order, one item each:
 * - every figure of `calibration` that can move a result (the core's
 *   speed, how the delays are made, and every delay figure where a file
 *   made a delay of calibrated turns), by name (a number, or an object's
 *   "median"/"value"): when two files' values are further apart than
 *   the larger recorded spread (KEY_spread, KEY_spread_pct, or the
 *   object's spread/spread_pct), or without one by more than
 *   ENV_REL_DIFF; a string (the clock, how delays are made) when it is
 *   not the same;
 * - machine.cpu_model, machine.kernel: when not the same.
 * A file without the figure is left out of it.  Returns a new array of
 * {"item", "kind", "line", "values": {name: value}}; empty when nothing
 * differs.
 */
json_t *results_env_diff(const struct results *const *in, const char *const *names,
			 unsigned n);

#endif
