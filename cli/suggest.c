/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include "err.h"
#include "suggest.h"

#define MAXW 64

static unsigned min3(unsigned a, unsigned b, unsigned c)
{
	unsigned m = a < b ? a : b;

	return m < c ? m : c;
}

/* Optimal string alignment distance over three rolling rows. */
unsigned edit_distance(const char *a, const char *b)
{
	unsigned la = (unsigned)strnlen(a, MAXW), lb = (unsigned)strnlen(b, MAXW);
	unsigned rows[3][MAXW + 1], *pp = rows[0], *p = rows[1], *d = rows[2];

	for (unsigned j = 0; j <= lb; j++)
		p[j] = j;
	for (unsigned i = 1; i <= la; i++) {
		unsigned *t;

		d[0] = i;
		for (unsigned j = 1; j <= lb; j++) {
			unsigned cost = a[i - 1] != b[j - 1];

			d[j] = min3(p[j] + 1, d[j - 1] + 1, p[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < d[j])
				d[j] = pp[j - 2] + 1;
		}
		t = pp, pp = p, p = d, d = t;
	}
	return p[lb];
}

/* The one candidate that starts with word (at least 2 letters), or NULL. */
static const char *unique_prefix(const char *word, const char *const *cands, unsigned n)
{
	const char *pick = NULL;
	size_t len = strlen(word);

	for (unsigned i = 0; len >= 2 && i < n; i++)
		if (!strncmp(cands[i], word, len) && strlen(cands[i]) > len) {
			if (pick)
				return NULL;
			pick = cands[i];
		}
	return pick;
}

const char *suggest(const char *word, const char *const *cands, unsigned n)
{
	unsigned len = (unsigned)strlen(word), limit = len / 3, best = ~0u;
	const char *pick = unique_prefix(word, cands, n);

	if (pick)
		return pick;

	limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
	for (unsigned i = 0; i < n; i++) {
		unsigned d = edit_distance(word, cands[i]);

		if (d < best) {
			best = d;
			pick = cands[i];
		}
	}
	return best && best <= limit ? pick : NULL;
}

const char *suggest_text(char *buf, size_t len, const char *word,
			 const char *const *cands, unsigned n)
{
	const char *s = suggest(word, cands, n);

	if (s)
		snprintf(buf, len, "did you mean %s? ", s);
	else if (len)
		buf[0] = 0;
	return buf;
}

void cli_die_unknown(const char *what, const char *name, const char *const *names,
		 unsigned n, const char *extra)
{
	char valid[4096] = "", hint[128];
	size_t k = 0;

	for (unsigned i = 0; i < n && k < sizeof(valid); i++)
		k += (size_t)snprintf(valid + k, sizeof(valid) - k, "%s%s",
				      i ? ", " : "", names[i]);
	cli_die("unknown %s (%s)%s: %svalid: %s", what, name, extra ? extra : "",
		extra ? "" : suggest_text(hint, sizeof(hint), name, names, n), valid);
}

