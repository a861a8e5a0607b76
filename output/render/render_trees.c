/* SPDX-License-Identifier: MIT */
/*
 * Under a text table, one line per kernel tree whose locks are in it
 * (docs/kernel-tree.md, "What is built"): the tag, the path, and
 * the git state the build recorded (variants[].source: describe, commit,
 * dirty), so that two trees' columns are told apart by more than a tag;
 * and, for a tree lock built with its own lock event counters
 * (--lock-events), the share of acquisitions that took the slow path
 * (lock_slowpath) and the pending path (lock_pending) at each row.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

/* The tag of a tree lock: its column name less "LOCK_" (NAME_TAG). */
static const char *tree_tag(const struct variant *v)
{
	const char *lock = json_string_value(json_object_get(v->source, "lock"));
	size_t n = lock ? strlen(lock) : 0;

	if (v->lock && n && !strncmp(v->lock, lock, n) && v->lock[n] == '_' && v->lock[n + 1])
		return v->lock + n + 1;
	return v->name;
}

/* One tree's line into buf; a lock built with the generic headers
 * although the target has an arch ("generic: no arch/x86/include/asm")
 * says so at the end. */
static void tree_line(const struct variant *v, char *buf, size_t len)
{
	json_t *git = json_object_get(v->source, "git");
	const char *tree = json_string_value(json_object_get(v->source, "tree"));
	const char *desc = json_string_value(json_object_get(git, "describe"));
	const char *commit = json_string_value(json_object_get(git, "commit"));
	const char *arch = json_string_value(json_object_get(v->source, "arch"));
	int k;

	if (desc && commit)
		k = snprintf(buf, len, "tree %s: %s (git %s, commit %.12s%s)", tree_tag(v), tree,
			     desc, commit,
			     json_is_true(json_object_get(git, "dirty")) ? ", dirty" : "");
	else
		k = snprintf(buf, len, "tree %s: %s (not a git work tree)", tree_tag(v), tree);
	if (arch && !strncmp(arch, "generic:", 8) && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " [%s]", arch);
}

/* The index of counter `name` of variant v, or -1. */
static int counter_of(const struct variant *v, const char *name)
{
	for (unsigned i = 0; i < v->ncounters; i++)
		if (!strcmp(v->counter_names[i], name))
			return (int)i;
	return -1;
}

/* Counter c summed over a point's runs, in percent of its operations;
 * < 0 when nothing ran. */
static double share(const struct point *p, int c)
{
	uint64_t n = 0, ops = 0;

	for (unsigned i = 0; i < p->nruns; i++)
		if (p->runs[i].counters && (unsigned)c < p->runs[i].ncounters) {
			n += p->runs[i].counters[c];
			ops += p->runs[i].total_ops;
		}
	return ops ? 100.0 * (double)n / (double)ops : -1;
}

/* "lock events of V, the share of acquisitions that took the slow path:
 * X% at 1 thread, Y% at 2 threads (the pending path: ...)", for a
 * variant that counted them. */
static void events_line(const struct results *r, unsigned v, FILE *f)
{
	const struct variant *a = &r->variants[v];
	int slow = counter_of(a, "lock_slowpath"), pend = counter_of(a, "lock_pending");
	char line[2048], at[64], part[2][1024] = {"", ""};
	const char *sep = "";

	if (!json_is_true(json_object_get(a->source, "lock_events")) || slow < 0)
		return;
	for (unsigned k = 0; k < r->nrows; k++) {
		const struct point *p = results_point(r, v, k);
		double s = share(p, slow), q = pend >= 0 ? share(p, pend) : -1;
		size_t n0 = strlen(part[0]), n1 = strlen(part[1]);

		if (s < 0)
			continue;
		render_at_row(r, k, at, sizeof(at));
		snprintf(part[0] + n0, sizeof(part[0]) - n0, "%s%.3g%% %s", sep, s, at);
		if (q >= 0)
			snprintf(part[1] + n1, sizeof(part[1]) - n1, "%s%.3g%%", sep, q);
		sep = ", ";
	}
	if (!*sep)
		return;
	snprintf(line, sizeof(line), "lock events of %s, the share of acquisitions that "
		 "took the slow path: %s%s%s%s", a->name, part[0],
		 part[1][0] ? " (the pending path: " : "", part[1], part[1][0] ? ")" : "");
	render_wrapped(f, line, 3);
}

void render_trees(const struct results *r, FILE *f)
{
	char line[2][4096];
	bool first = true;

	for (unsigned v = 0; v < r->nvariants; v++) {
		const struct variant *a = &r->variants[v];
		bool seen = false;

		if (!json_is_string(json_object_get(a->source, "tree")))
			continue;
		tree_line(a, line[0], sizeof(line[0]));
		for (unsigned u = 0; u < v && !seen; u++)
			if (json_is_string(json_object_get(r->variants[u].source, "tree"))) {
				tree_line(&r->variants[u], line[1], sizeof(line[1]));
				seen = !strcmp(line[0], line[1]);
			}
		if (seen)
			continue;
		if (first)
			fputc('\n', f);
		first = false;
		fprintf(f, "%s\n", line[0]);
	}
	for (unsigned v = 0; v < r->nvariants; v++)
		events_line(r, v, f);
}
