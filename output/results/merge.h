/* SPDX-License-Identifier: MIT */
/*
 * The compare/merge model: saved results files joined into one results
 * model whose columns are (file label, lock) pairs and whose rows are
 * the union of the files' rows (docs/method.md "Comparing files:
 * invocations, the floor and the gate").
 * `compare` then recomputes every statistic from the raw runs and
 * renders it like a run; `merge` writes it (docs/json.md).
 *
 * A refusal (bad input) is one line in err and the return value -1: it
 * is made where the fault is found and reaches merge_load() by a
 * longjmp(), so that the steps read as the rules they check.  Nothing
 * here prints or exits; warnings go to the caller's warn().
 */
#ifndef LOCKBENCH_MERGE_H
#define LOCKBENCH_MERGE_H

#include <setjmp.h>
#include <stdbool.h>

#include "results.h"

struct merge_input {
	const char *path;
	char *label;              /* the file's label, or its name without .json */
	struct results r;
};

/*
 * One column of the comparison: variant `var` of input `in`, named by
 * the file's label, or label/variant when the file gives several.
 * Files with one label are several invocations of the same thing: the
 * column takes the variant of each of them (src[0] is in/var).
 */
struct merge_source {
	unsigned in, var;
};

struct merge_column {
	unsigned in, var;
	unsigned nsrc;
	struct merge_source *src;
	char *name;
};

struct merge {
	/* Set by the caller. */
	const char *verb;         /* "compare" or "merge", for its refusals */
	const char *locks;        /* -l: only these locks (NULL: all) */
	const char *rows;         /* --rows as given (NULL: none) */
	const char *rows_conf;    /* its key in config (cs-ns: cs_ns) */
	/* Cross-host (docs/fleet.md): columns by host, rows by CPU share. */
	bool by_host, cpu_share;
	void (*warn)(const char *msg);                  /* one line, no newline */
	int (*hash)(const char *path, char hex[65]);    /* a file's SHA-256 */
	char *err;                /* the refusal (free with merge_free) */
	jmp_buf fail;

	/* The model. */
	struct merge_input *in;
	unsigned nin;
	bool mixed;               /* kernel and userspace columns together */
	struct merge_column *col;
	unsigned ncol;
	char **row_key;           /* union of row names, in output order */
	unsigned nrows;
	bool one_label;           /* every input has the same label */
	/* Invocations numbered apart: (file, its own number) -> index + 1. */
	struct merge_source *inv;
	unsigned ninv;
	/* The workload parameters some file swept (its variants' params). */
	char *dims[32];
	unsigned ndims;
	/* --rows PARAM of files that each ran one value (rows_param()):
	 * its key, and whether the files' own labels are all the same. */
	char *rows_key;
	bool rows_one_label;
};

/*
 * Load the @n files at @paths and join them into @r: columns picked by
 * m->locks, rows the union, the baseline @baseline (a column's name or
 * a label; NULL: the first), each column paired with its baseline.
 * Files that cannot be compared (twice the same runs, other workloads,
 * rows in other units, --rows not a dimension) are refused: -1 with
 * the line in m->err.  Warnings (other machines or settings, other
 * environments, unpaired parameters) go to m->warn.  0 on success.
 */
int merge_load(struct merge *m, unsigned n, char **paths, const char *baseline,
	       struct results *r);

/*
 * "HEAD: LABEL VALUE, ..." (HEAD made by printf from @head; each file's
 * value in @vals[], written as json_dumps() with @flags writes it, or
 * "?" for NULL: a file without the item, which takes no part) when the
 * files' values differ (by value, results_json_same()), else NULL.  The
 * caller frees the line.
 */
char *merge_differ_line(const struct merge *m, const json_t *const *vals, size_t flags,
			const char *head, ...) __attribute__((format(printf, 4, 5)));

/* Free what merge_load() made (not @r). */
void merge_free(struct merge *m);

#endif
