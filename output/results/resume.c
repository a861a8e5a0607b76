/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resume.h"

/* Config members that may differ between the run and its resumption. */
static bool key_ignored(const char *k)
{
	return !strcmp(k, "created") || !strcmp(k, "seed") || !strcmp(k, "unit");
}

/* A member's value as short text for the message ("(absent)" if NULL). */
static void show(const json_t *v, char *buf, size_t len)
{
	char *s = v ? json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;

	snprintf(buf, len, "%.60s%s", s ? s : "(absent)", s && strlen(s) > 60 ? "..." : "");
	free(s);
}

/* The first member of a or b (objects) whose values differ, or NULL. */
static const char *first_diff(json_t *a, json_t *b)
{
	const char *k;
	json_t *v;

	json_object_foreach(a, k, v)
		if (!key_ignored(k) && !json_equal(v, json_object_get(b, k)))
			return k;
	json_object_foreach(b, k, v)
		if (!key_ignored(k) && !json_object_get(a, k))
			return k;
	return NULL;
}

int results_resume_check(json_t *config, const struct results *old,
			 const char *name, char *err, size_t len)
{
	const char *k;
	char here[80], there[80];

	if (!json_is_object(old->config) || !json_is_object(config)) {
		snprintf(err, len, "--resume (%s): the file has no run configuration "
			 "(a compare or import output?)", name);
		return -EINVAL;
	}
	k = first_diff(config, old->config);
	if (!k)
		return 0;
	show(json_object_get(config, k), here, sizeof(here));
	show(json_object_get(old->config, k), there, sizeof(there));
	snprintf(err, len, "--resume (%s): different configuration: %s is %s here, "
		 "%s in the file; rerun with the file's options", name, k, here, there);
	return -EINVAL;
}

/* Where variant `name` / row `threads` is in r; -1 if absent. */
static int find_variant(const struct results *r, const char *name)
{
	for (unsigned v = 0; v < r->nvariants; v++)
		if (!strcmp(r->variants[v].name, name))
			return (int)v;
	return -1;
}

static int find_row(const struct results *r, unsigned threads)
{
	for (unsigned k = 0; k < r->nrows; k++)
		if (r->rows[k] == threads)
			return (int)k;
	return -1;
}

/* Copy one old point's runs and state into r's point (v, row). */
static int copy_point(struct results *r, unsigned v, unsigned row,
		      const struct point *op)
{
	struct point *p = results_point(r, v, row);

	for (unsigned i = 0; i < op->nruns; i++)
		if (results_add_run(r, v, row, &op->runs[i]))
			return -ENOMEM;
	if (op->status > POINT_OK && op->error && !(p->error = strdup(op->error)))
		return -ENOMEM;
	p->status = op->status;
	return 0;
}

int results_resume(struct results *r, const struct results *old,
		   const char *name, char *err, size_t len)
{
	int rc = results_resume_check(r->config, old, name, err, len);

	if (rc)
		return rc;
	for (unsigned ov = 0; ov < old->nvariants; ov++)
		for (unsigned orow = 0; orow < old->nrows; orow++) {
			int v = find_variant(r, old->variants[ov].name);
			int row = find_row(r, old->rows[orow]);

			if (v < 0 || row < 0)
				continue; /* same config: cannot happen */
			if ((rc = copy_point(r, (unsigned)v, (unsigned)row,
					     results_point(old, ov, orow)))) {
				snprintf(err, len, "--resume (%s): out of memory", name);
				return rc;
			}
		}
	return 0;
}
