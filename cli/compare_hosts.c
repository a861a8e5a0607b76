/* SPDX-License-Identifier: MIT */
/*
 * Results from many hosts in one comparison: `compare --columns host`
 * and `--rows cpu-share` (docs/fleet.md).  compare.c loads the files;
 * these functions relabel them and describe how their machines differ.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare_hosts.h"
#include "err.h"

const char *hosts_name(const struct results *r)
{
	const char *h = json_string_value(json_object_get(r->machine, "hostname"));

	if (!h || !*h)
		h = json_string_value(json_object_get(r->provenance, "host"));
	return h && *h ? h : NULL;
}

void hosts_relabel(const char *path, struct results *r, char **label)
{
	const char *h = hosts_name(r);

	if (!h)
		cli_die("--columns host (%s): the file names no host (machine.hostname)",
			path);
	free(*label);
	*label = cli_strdup(h);
}

void hosts_cpu_share(const char *path, struct results *r)
{
	if (r->row_desc)
		cli_die("--rows cpu-share (%s): its rows are named workloads, not "
			"thread counts", path);
	if (!r->ncpus)
		cli_die("--rows cpu-share (%s): the file records no CPU count (ncpus)",
			path);
	if (results_alloc_row_desc(r))
		cli_die("out of memory");
	for (unsigned k = 0; k < r->nrows; k++) {
		char buf[32];

		snprintf(buf, sizeof(buf), "%.4g%%", 100.0 * r->rows[k] / r->ncpus);
		r->row_desc[k].label = cli_strdup(buf);
	}
	free(r->row_heading);
	r->row_heading = cli_strdup("cpu-share");
}

void hosts_heading(struct results *r)
{
	free(r->variant_heading);
	r->variant_heading = cli_strdup("Host");
}

/* Do the files' values of `key` in the objects objs[] differ? */
static bool values_differ(json_t *const *objs, unsigned n, const char *key)
{
	json_t *first = NULL;

	for (unsigned i = 0; i < n; i++) {
		json_t *v = json_object_get(objs[i], key);

		v = v ? v : json_null();
		if (first && !json_equal(first, v))
			return true;
		first = first ? first : v;
	}
	return false;
}

/* "note: the hosts differ in WHAT: a X, b Y" for one key. */
static void note_key(FILE *f, json_t *const *objs, const char *const *labels,
		     unsigned n, const char *what, const char *key)
{
	fprintf(f, "note: the hosts differ in %s%s:", what, key);
	for (unsigned i = 0; i < n; i++) {
		json_t *v = json_object_get(objs[i], key);
		char *txt = json_dumps(v ? v : json_null(),
				       JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(6));

		fprintf(f, "%s %s %s", i ? "," : "", labels[i], txt ? txt : "?");
		free(txt);
	}
	fputc('\n', f);
}

void hosts_notes(FILE *f, const struct results *const *rs, const char *const *labels,
		 unsigned n)
{
	static const char *const mach[] = {
		"cpu_model", "kernel", "arch", "pus", "cores",
		"numa_nodes", "packages",
	};
	json_t **m = cli_calloc(n ? n : 1, sizeof(*m));
	json_t **c = cli_calloc(n ? n : 1, sizeof(*c));
	json_t *keys = json_object();
	const char *key;
	json_t *v;

	for (unsigned i = 0; i < n; i++) {
		m[i] = rs[i]->machine;
		c[i] = rs[i]->calibration;
		if (c[i])
			json_object_update(keys, c[i]);
	}
	for (size_t k = 0; n > 1 && k < sizeof(mach) / sizeof(mach[0]); k++)
		if (values_differ(m, n, mach[k]))
			note_key(f, m, labels, n, "", mach[k]);
	/* Every calibration key any file has, in the first file's order. */
	json_object_foreach(keys, key, v)
		if (n > 1 && values_differ(c, n, key))
			note_key(f, c, labels, n, "calibration.", key);
	json_decref(keys);
	free(m);
	free(c);
}
