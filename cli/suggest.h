/* SPDX-License-Identifier: MIT */
/*
 * "did you mean ...?" for misspelt names: the closest candidate by edit
 * distance (Levenshtein, transpositions counting one), when close enough.
 */
#ifndef LOCKBENCH_CLI_SUGGEST_H
#define LOCKBENCH_CLI_SUGGEST_H

#include <stddef.h>

/* Edit distance of a and b (insert, delete, substitute, swap neighbours). */
unsigned edit_distance(const char *a, const char *b);

/* The one candidate `word` is a prefix of, else the candidate closest to
 * it (at most a third of its length away, at least 1, at most 3), or
 * NULL.  cands: n names. */
const char *suggest(const char *word, const char *const *cands, unsigned n);

/* "did you mean X? " into buf for `word`, or "" when nothing is close. */
const char *suggest_text(char *buf, size_t len, const char *word,
			 const char *const *cands, unsigned n);

/* "unknown WHAT (NAME)EXTRA: did you mean X? valid: A, B" and exit 2
 * (no suggestion when extra is given). */
void cli_die_unknown(const char *what, const char *name, const char *const *names,
		     unsigned n, const char *extra) __attribute__((noreturn));

#endif
