/* SPDX-License-Identifier: MIT */
/*
 * The compare/merge model (output/results/merge.c): files joined into
 * one results model; a refusal comes back as -1 with its one line (the
 * model never prints or exits: the process goes on), warnings go to the
 * caller's function, and a copy is found by the caller's hash.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "json_write.h"
#include "merge.h"

static char dir[] = "/tmp/lb_test_merge_XXXXXX";
static char warned[4][512];
static unsigned nwarned;

static void warn(const char *msg)
{
	if (nwarned < 4)
		snprintf(warned[nwarned++], sizeof(warned[0]), "%s", msg);
}

/* Every file hashes alike: the copy check must say "an identical copy". */
static int same_hash(const char *path, char hex[65])
{
	(void)path;
	memset(hex, 'a', 64);
	hex[64] = 0;
	return 0;
}

static int no_hash(const char *path, char hex[65])
{
	(void)path;
	(void)hex;
	return -1;
}

/* A file of one lock at 1 and @t2 threads, labelled @label, run with
 * @workload on @cpu, written to dir/@name; its path. */
static char *save(const char *name, const char *label, const char *workload,
		  const char *cpu, unsigned t2)
{
	struct results r;
	char *path;
	FILE *f;

	assert_int_equal(results_init(&r, 1, 2), 0);
	r.variant_heading = strdup("Lock");
	r.row_heading = strdup("threads");
	r.workload = strdup(workload);
	r.label = strdup(label);
	r.rows[0] = 1;
	r.rows[1] = t2;
	r.machine = json_pack("{s:s}", "cpu_model", cpu);
	r.config = json_pack("{s:s, s:f}", "created", name, "cs_ns", 0.0);
	r.variants[0].name = strdup("ticket");
	r.variants[0].lock = strdup("ticket");
	for (unsigned k = 0; k < 2; k++) {
		for (unsigned i = 0; i < 3; i++) {
			struct run_sample s = {
				.seq = i, .window_s = 1.0, .ops = 1000 + i,
				.ops_per_sec = 1000.0 + i, .invocation = 1,
				.exclusion_checked = true, .exclusion_ok = true,
			};

			assert_int_equal(results_add_run(&r, 0, k, &s), 0);
		}
		results_point(&r, 0, k)->status = POINT_OK;
	}
	results_finalize(&r);
	assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(results_write_json(&r, f), 0);
	fclose(f);
	results_free(&r);
	return path;
}

static int load(struct merge *m, const char *verb, char **paths, unsigned n,
		const char *baseline, struct results *r)
{
	*m = (struct merge){.verb = verb, .warn = warn, .hash = no_hash};
	nwarned = 0;
	return merge_load(m, n, paths, baseline, r);
}

/* Columns by label, rows the union, the verb in config.command. */
static void test_join(void **state)
{
	char *p[2] = {save("a.json", "a", "cs", "X", 2), save("b.json", "b", "cs", "X", 4)};
	char row[32];
	struct merge m;
	struct results r;

	(void)state;
	assert_int_equal(load(&m, "merge", p, 2, NULL, &r), 0);
	assert_int_equal(r.nvariants, 2);
	assert_string_equal(r.variants[0].name, "a");
	assert_string_equal(r.variants[1].name, "b");
	assert_int_equal(r.nrows, 3);
	assert_string_equal(results_row_name(&r, 2, row, sizeof(row)), "4");
	assert_string_equal(json_string_value(json_object_get(r.config, "command")), "merge");
	assert_int_equal(r.baseline, 0);
	assert_int_equal(nwarned, 0);
	results_free(&r);
	merge_free(&m);
	free(p[0]);
	free(p[1]);
}

/* Refusals come back with their line; the test process goes on. */
static void test_refusals(void **state)
{
	char *p[2] = {save("c.json", "c", "cs", "X", 2), save("d.json", "d", "rw", "X", 2)};
	char want[512];
	struct merge m;
	struct results r;

	(void)state;
	assert_int_equal(load(&m, "compare", p, 2, NULL, &r), -1);
	snprintf(want, sizeof(want), "cannot compare (%s, %s): different workloads (cs, rw)",
		 p[0], p[1]);
	assert_string_equal(m.err, want);
	merge_free(&m);
	free(p[1]);
	p[1] = save("e.json", "e", "cs", "X", 2);
	assert_int_equal(load(&m, "compare", p, 2, "nope", &r), -1);
	assert_string_equal(m.err, "--baseline (nope): no such column or label; "
			    "valid: columns c, e; labels c, e");
	results_free(&r);
	merge_free(&m);
	m = (struct merge){.verb = "merge", .warn = warn, .hash = same_hash};
	assert_int_equal(merge_load(&m, 2, p, NULL, &r), -1);
	snprintf(want, sizeof(want), "cannot merge (%s): the same runs as %s (an "
		 "identical copy); give each once", p[1], p[0]);
	assert_string_equal(m.err, want);
	merge_free(&m);
	free(p[0]);
	free(p[1]);
}

/* Another machine: one warning, through the caller's function. */
static void test_warning(void **state)
{
	char *p[2] = {save("f.json", "f", "cs", "X", 2), save("g.json", "g", "cs", "Y", 2)};
	char want[512];
	struct merge m;
	struct results r;

	(void)state;
	assert_int_equal(load(&m, "compare", p, 2, NULL, &r), 0);
	assert_int_equal(nwarned, 1);
	snprintf(want, sizeof(want), "warning: compare (%s, %s): machine differs: "
		 "cpu_model (\"X\", \"Y\")", p[0], p[1]);
	assert_string_equal(warned[0], want);
	assert_null(r.machine);         /* no CPU model in common */
	results_free(&r);
	merge_free(&m);
	free(p[0]);
	free(p[1]);
}

/* One line when values differ (by value: 1 is 1.0); a file without
 * the item takes no part and shows "?". */
static void test_differ_line(void **state)
{
	struct merge_input in[3] = {{.label = "a"}, {.label = "b"}, {.label = "c"}};
	struct merge m = {.in = in, .nin = 3};
	json_t *one = json_integer(1), *onef = json_real(1.0), *two = json_integer(2);
	const json_t *v[3] = {one, NULL, onef};
	char *line;

	(void)state;
	assert_null(merge_differ_line(&m, v, JSON_COMPACT, "x"));
	v[1] = two;
	line = merge_differ_line(&m, v, JSON_COMPACT, "note: %s", "k");
	assert_string_equal(line, "note: k: a 1, b 2, c 1.0");
	free(line);
	v[1] = NULL;
	v[2] = two;
	line = merge_differ_line(&m, v, JSON_COMPACT, "w");
	assert_string_equal(line, "w: a 1, b ?, c 2");
	free(line);
	json_decref(one);
	json_decref(onef);
	json_decref(two);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_warning),
		cmocka_unit_test(test_differ_line),
	};
	char cmd[64];
	int rc;

	if (!mkdtemp(dir))
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		rc = 1;
	return rc;
}
