/* SPDX-License-Identifier: MIT */
/*
 * Writing the results model as JSON (docs/json.md); json_read.h is the
 * way back.
 */
#ifndef LOCKBENCH_JSON_WRITE_H
#define LOCKBENCH_JSON_WRITE_H

#include <jansson.h>
#include <stdio.h>

#include "results.h"

/* The whole results model as one JSON document (new reference), or
 * NULL when out of memory. */
json_t *results_to_json(const struct results *r);

/*
 * The same document written to f, indented as json_dumpf(JSON_INDENT(1))
 * would, and a newline, without holding the whole tree: one run at a
 * time (a large import fits in memory).  0, or -1 when out of memory or
 * a write failed.
 */
int results_write_json(const struct results *r, FILE *f);

#endif
