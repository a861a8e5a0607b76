/* SPDX-License-Identifier: MIT */
/*
 * Reading saved results back (`lockbench compare`): the JSON written by
 * render_json.c (docs/json.md) into the results model.  Summaries stored
 * in the file are ignored; call results_finalize() to recompute them
 * from the raw runs.
 */
#ifndef LOCKBENCH_JSON_READ_H
#define LOCKBENCH_JSON_READ_H

#include <stddef.h>

#include "results.h"

/*
 * Read the results file at @path into @r.  Returns 0, or -ENOENT (cannot
 * open or read it), -EINVAL (not JSON, truncated, not lockbench results,
 * newer major schema, empty or inconsistent), -ENOMEM; on error @r is
 * left empty (nothing to free) and @err holds one line without the
 * "lockbench: " prefix, e.g. "cannot read results (k1.json): truncated
 * JSON (ends at line 12)".
 */
int results_from_json(const char *path, struct results *r, char *err,
		      size_t errlen);

/*
 * The same in two passes over the file, holding one run at a time: the
 * document without its runs (json_spans.h), then each run read back from
 * its place.  results_from_json() reads a regular file larger than
 * RESULTS_STREAM_BYTES this way; the input limit then bounds the
 * document without its runs, and each run, not the file.
 */
int results_from_json_stream(const char *path, struct results *r, char *err,
			     size_t errlen);
#define RESULTS_STREAM_BYTES ((size_t)16 << 20)

/*
 * The document at @path without its runs (every points[*].runs array
 * empty), parsed: what a reader of the configuration needs, in memory
 * bounded by the input limit whatever the number of runs.  NULL with
 * @err set ("cannot read results (PATH): ...") on any error.
 */
json_t *results_json_skeleton(const char *path, char *err, size_t errlen);

/*
 * The same from @len bytes at @buf (need not be NUL-terminated); @name
 * is what messages call the input.
 */
int results_from_json_buf(const char *buf, size_t len, const char *name,
			  struct results *r, char *err, size_t errlen);

/*
 * Input size limits: a results file above RESULTS_MAX_BYTES (a sweep's
 * file is well under 1 MiB; the jansson tree of a file takes about ten
 * times its size) and a log above LOG_MAX_BYTES are refused, unless the
 * environment's LOCKBENCH_MAX_INPUT (bytes, or with K, M, G) sets
 * another limit.  A regular results file above RESULTS_STREAM_BYTES is
 * read in two passes (results_from_json_stream), where the limit bounds
 * the document without its runs and each run.  JSON nesting is bounded
 * by jansson (2048 levels) and by the scan (2048).
 */
#define RESULTS_MAX_BYTES ((size_t)64 << 20)
#define LOG_MAX_BYTES ((size_t)512 << 20)

/* LOCKBENCH_MAX_INPUT's value, or def when it is unset or invalid. */
size_t input_limit(size_t def);

/* Parse "N", "NK", "NM", "NG" (KiB, MiB, GiB) into bytes: 0, or -EINVAL
 * (not such a size), -ERANGE (below 1 KiB or too large). */
int input_limit_parse(const char *text, size_t *bytes);

/*
 * Read a whole file into a malloc'ed buffer (not NUL-terminated).
 * max > 0 caps the size (-EFBIG beyond it).  0 or -errno: -EISDIR for
 * a directory, -EINVAL for anything else that is not a regular file (a
 * FIFO is not waited on).
 */
int file_slurp(const char *path, size_t max, char **buf, size_t *len);

#endif
