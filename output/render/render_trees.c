/* SPDX-License-Identifier: MIT */
/*
 * Under a text table, one line per kernel tree whose locks are in it
 * (docs/kernel-tree.md, "Which tree is which"): the tag, the path, and
 * the git state the build recorded (variants[].source: describe, commit,
 * dirty), so that two trees' columns are told apart by more than a tag.
 */
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

/* One tree's line into buf. */
static void tree_line(const struct variant *v, char *buf, size_t len)
{
	json_t *git = json_object_get(v->source, "git");
	const char *tree = json_string_value(json_object_get(v->source, "tree"));
	const char *desc = json_string_value(json_object_get(git, "describe"));
	const char *commit = json_string_value(json_object_get(git, "commit"));

	if (desc && commit)
		snprintf(buf, len, "tree %s: %s (git %s, commit %.12s%s)", tree_tag(v), tree,
			 desc, commit, json_is_true(json_object_get(git, "dirty")) ? ", dirty" : "");
	else
		snprintf(buf, len, "tree %s: %s (not a git work tree)", tree_tag(v), tree);
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
}
