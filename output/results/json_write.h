/* SPDX-License-Identifier: MIT */
/*
 * Writing the results model as JSON (docs/json.md); json_read.h is the
 * way back.
 */
#ifndef LOCKBENCH_JSON_WRITE_H
#define LOCKBENCH_JSON_WRITE_H

#include <jansson.h>

#include "results.h"

/* The whole results model as one JSON document (new reference), or
 * NULL when out of memory. */
json_t *results_to_json(const struct results *r);

#endif
