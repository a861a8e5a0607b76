/* SPDX-License-Identifier: MIT */
/*
 * Reading a large results file without holding it: one pass over the
 * text finds the runs (the elements of points[*].runs, docs/json.md) and
 * keeps everything else, the "skeleton", which is small whatever the
 * number of runs; the reader (json_read.c) then parses the skeleton and
 * each run on its own, read back from its place in the file.
 */
#ifndef LOCKBENCH_JSON_SPANS_H
#define LOCKBENCH_JSON_SPANS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Where one run's text is in the file. */
struct run_span {
	uint64_t off;
	uint64_t len;
};

struct json_spans {
	char *skel;             /* the document with every runs array emptied */
	size_t skel_len;
	struct run_span *span;  /* every run, in file order */
	size_t nspan;
	size_t *first;          /* point i's runs: span[first[i] .. first[i + 1]) */
	unsigned npoints;       /* elements of "points" */
};

/*
 * Scan f from its current position to its end.  max bounds the skeleton
 * and each run (bytes).  Returns 0; -EINVAL when the text is not
 * well-formed JSON as far as the scan can tell (err says where; the
 * skeleton and the runs are then parsed properly by the reader); -EFBIG
 * when the skeleton or one run is larger than max; -ENOMEM; -errno of a
 * read.  On error out is empty.
 */
int json_spans_scan(FILE *f, size_t max, struct json_spans *out, char *err,
		    size_t errlen);
void json_spans_free(struct json_spans *s);

#endif
