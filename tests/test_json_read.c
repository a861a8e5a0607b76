/* SPDX-License-Identifier: MIT */
/*
 * The JSON reader (output/results/json_read.c): what results_to_json() writes
 * reads back as the same model; every kind of bad input gets one clear
 * message and an empty model; the fuzzer's saved inputs
 * (tests/fuzz/crashes-json/) still read without crashing.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "json_read.h"
#include "json_write.h"
#include "render.h"

/* Two variants, two rows, one point missing, every run field set. */
static void build(struct results *r)
{
	uint64_t tops[2] = {600, 400}, ctr[1] = {7};
	double series[2] = {990.5, 1010.5};

	assert_int_equal(results_init(r, 2, 2), 0);
	r->variant_heading = strdup("Lock");
	r->row_heading = strdup("threads");
	r->workload = strdup("cs");
	r->label = strdup("k1, \"quoted\"");
	r->ncpus = 8;
	r->rows[0] = 1;
	r->rows[1] = 2;
	r->baseline = 1;
	r->machine = json_pack("{s:s}", "cpu_model", "Test CPU");
	for (unsigned v = 0; v < 2; v++) {
		r->variants[v].name = strdup(v ? "mcs" : "tas");
		r->variants[v].lock = strdup(v ? "mcs" : "tas");
		r->variants[v].counter_names = calloc(1, sizeof(char *));
		r->variants[v].counter_names[0] = strdup("slowpath");
		r->variants[v].ncounters = 1;
	}
	for (unsigned i = 0; i < 3; i++) {
		struct run_sample s = {
			.seq = i, .window_s = 1.0, .ops = 1000 + i, .ops_per_sec = 1000.0 + i,
			.nthreads = 2, .thread_ops = tops, .total_ops = 2000,
			.counter = 2000, .exclusion_checked = true, .exclusion_ok = true,
			.nseries = 2, .series = series, .ncounters = 1, .counters = ctr,
			.extra = strdup("{\"locktorture\": {\"max\": 42}}"),
		};

		assert_int_equal(results_add_run(r, 0, 0, &s), 0);
		s.ops_per_sec = 2000.0 + 10 * i;
		assert_int_equal(results_add_run(r, 1, 0, &s), 0);
		assert_int_equal(results_add_run(r, 1, 1, &s), 0);
		free(s.extra);
	}
	results_point(r, 0, 0)->status = POINT_OK;
	results_point(r, 1, 0)->status = POINT_OK;
	results_point(r, 1, 1)->status = POINT_FAILED;
	results_point(r, 1, 1)->error = strdup("exclusion violated");
	results_finalize(r);
}

static char *dump(const struct results *r)
{
	json_t *doc = results_to_json(r);
	char *s = json_dumps(doc, JSON_INDENT(1));

	json_decref(doc);
	assert_non_null(s);
	return s;
}

/* The streamed document is byte for byte the tree's, for a results
 * model with runs, an empty point, extras, and one with no runs at all. */
static void check_streamed(const struct results *r)
{
	json_t *doc = results_to_json(r);
	char *tree = json_dumps(doc, JSON_INDENT(1) | JSON_PRESERVE_ORDER), *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(tree);
	assert_non_null(f);
	assert_int_equal(results_write_json(r, f), 0);
	fclose(f);
	assert_int_equal(len, strlen(tree) + 1);
	assert_memory_equal(buf, tree, strlen(tree));
	assert_int_equal(buf[len - 1], '\n');
	free(buf);
	free(tree);
	json_decref(doc);
}

static void test_streamed_equals_tree(void **state)
{
	struct results a, e;

	(void)state;
	build(&a);
	check_streamed(&a);
	results_free(&a);
	assert_int_equal(results_init(&e, 1, 1), 0);
	e.variant_heading = strdup("Lock");
	e.row_heading = strdup("threads");
	e.variants[0].name = strdup("tas");
	e.rows[0] = 1;
	results_finalize(&e);
	check_streamed(&e);
	results_free(&e);
}

/* path <- text; returns path (a static buffer). */
static const char *write_tmp(const char *text)
{
	static char path[] = "/tmp/lb_test_stream_XXXXXX";
	int fd;
	FILE *f;

	strcpy(path, "/tmp/lb_test_stream_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* The two-pass read gives the model the one-pass read gives (compared
 * through their documents), with runs in every point that has some. */
static void test_stream_read(void **state)
{
	struct results a, b, c;
	char err[256], *text, *tb, *tc;
	const char *path;

	(void)state;
	build(&a);
	text = dump(&a);
	path = write_tmp(text);
	assert_int_equal(results_from_json_buf(text, strlen(text), "mem", &b, err,
					       sizeof(err)), 0);
	assert_int_equal(results_from_json_stream(path, &c, err, sizeof(err)), 0);
	unlink(path);
	results_finalize(&b);
	results_finalize(&c);
	assert_int_equal(results_point(&c, 1, 0)->nruns, 3);
	tb = dump(&b);
	tc = dump(&c);
	assert_string_equal(tb, tc);
	free(tb);
	free(tc);
	free(text);
	results_free(&a);
	results_free(&b);
	results_free(&c);
}

/* Broken files read in two passes: one line naming what is wrong. */
static void test_stream_refusals(void **state)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{"{\"points\": [{\"runs\": [{\"a\": 1}", "ends inside a value"},
		{"{\"points\": [}", "does not match"},
		{"{\"schema\": \"lockbench-results\", \"schema_version\": \"1.3\", "
		 "\"variants\": [{\"name\": \"tas\"}], \"rows\": [1], \"points\": "
		 "[{\"variant_index\": 0, \"row_index\": 0, \"status\": \"ok\", "
		 "\"runs\": [{\"ops_per_sec\": 1, }]}]}", "points[0].runs[0]: not valid JSON"},
		{"{\"schema\": \"lockbench-results\", \"schema_version\": \"1.3\", "
		 "\"variants\": [{\"name\": \"tas\"}], \"rows\": [1], \"points\": "
		 "[{\"variant_index\": 0, \"row_index\": 0, \"status\": \"ok\", "
		 "\"runs\": [7]}]}", "points[0].runs[0]: expected an object"},
	};
	struct results r;
	char err[256];

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *path = write_tmp(cases[i].text);

		assert_int_equal(results_from_json_stream(path, &r, err, sizeof(err)), -EINVAL);
		unlink(path);
		if (!strstr(err, cases[i].want))
			fail_msg("case %u: \"%s\" lacks \"%s\"", i, err, cases[i].want);
	}
}

static void test_round_trip(void **state)
{
	struct results a, b;
	char err[256], *text, *again;
	const struct run_sample *s;

	(void)state;
	build(&a);
	text = dump(&a);
	assert_int_equal(results_from_json_buf(text, strlen(text), "mem", &b, err,
					       sizeof(err)), 0);
	results_finalize(&b);
	assert_int_equal(b.nvariants, 2);
	assert_int_equal(b.nrows, 2);
	assert_int_equal(b.baseline, 1);
	assert_int_equal(b.ncpus, 8);
	assert_string_equal(b.label, "k1, \"quoted\"");
	assert_string_equal(b.variants[1].counter_names[0], "slowpath");
	assert_int_equal(results_point(&b, 0, 1)->status, POINT_MISSING);
	assert_int_equal(results_point(&b, 1, 1)->status, POINT_FAILED);
	assert_string_equal(results_point(&b, 1, 1)->error, "exclusion violated");
	s = &results_point(&b, 0, 0)->runs[2];
	assert_int_equal(results_point(&b, 0, 0)->nruns, 3);
	assert_true(s->ops_per_sec == 1002.0);
	assert_int_equal(s->nthreads, 2);
	assert_int_equal(s->thread_ops[1], 400);
	assert_int_equal(s->counters[0], 7);
	assert_true(s->series[1] == 1010.5);
	{
		json_t *x = results_extra_get(s);

		assert_int_equal(json_integer_value(json_object_get(
			json_object_get(x, "locktorture"), "max")), 42);
		json_decref(x);
	}
	assert_true(fabs(results_point(&b, 0, 0)->rel - results_point(&a, 0, 0)->rel) < 1e-9);
	/* Written again, it is the same document. */
	again = dump(&b);
	assert_string_equal(text, again);
	free(text);
	free(again);
	results_free(&a);
	results_free(&b);
}

static void test_row_desc_round_trip(void **state)
{
	struct results a, b;
	char err[256], *text;

	(void)state;
	build(&a);
	assert_int_equal(results_alloc_row_desc(&a), 0);
	a.row_desc[0].label = strdup("fserver");
	a.row_desc[1].label = strdup("hackbench/pipe/threads");
	a.row_desc[1].metric = strdup("time");
	a.row_desc[1].lower_better = true;
	text = dump(&a);
	assert_int_equal(results_from_json_buf(text, strlen(text), "mem", &b, err,
					       sizeof(err)), 0);
	assert_non_null(b.row_desc);
	assert_string_equal(b.row_desc[0].label, "fserver");
	assert_null(b.row_desc[0].metric);
	assert_string_equal(b.row_desc[1].metric, "time");
	assert_true(b.row_desc[1].lower_better);
	free(text);
	results_free(&a);
	results_free(&b);
}

/* Reading `text` fails with -EINVAL and a message containing `want`. */
static void refused(const char *text, const char *want)
{
	struct results r;
	char err[512];

	memset(&r, 0xff, sizeof(r));
	assert_int_equal(results_from_json_buf(text, strlen(text), "x.json", &r, err,
					       sizeof(err)), -EINVAL);
	if (!strstr(err, want))
		fail_msg("message \"%s\" lacks \"%s\"", err, want);
	assert_non_null(strstr(err, "cannot read results (x.json): "));
	assert_null(strchr(err, '\n'));
	assert_int_equal(r.nvariants, 0);
	assert_null(r.points);
}

#define HEAD "{\"schema\": \"lockbench-results\", \"schema_version\": \"1.1\", "
#define ONE "\"variants\": [{\"name\": \"tas\"}], \"rows\": [1], "

static void test_refusals(void **state)
{
	(void)state;
	refused("", "empty file");
	refused("hello", "not JSON");
	refused("{\"a\": 1,", "truncated JSON");
	refused("{\"a\": 1}}", "not valid JSON");
	refused("[1, 2]", "not lockbench results");
	refused("{\"schema\": \"geojson\"}", "not lockbench results");
	refused("{\"schema\": \"lockbench-results\"}", "no schema_version");
	refused("{\"schema\": \"lockbench-results\", \"schema_version\": \"2.0\"}",
		"written by a newer lockbench (schema 2.0); this one reads 1.x");
	refused("{\"schema\": \"lockbench-results\", \"schema_version\": \"x\"}",
		"expected MAJOR.MINOR");
	refused(HEAD "\"variants\": [], \"rows\": [], \"points\": []}", "empty results");
	refused(HEAD ONE "\"points\": []}", "empty results (no points)");
	refused(HEAD "\"unit\": \"jpm\", " ONE "\"points\": [{}]}", "unit (jpm)");
	refused(HEAD ONE "\"points\": [{\"variant_index\": 3, \"row_index\": 0, "
		"\"status\": \"ok\"}]}", "names no listed variant");
	refused(HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, "
		"\"status\": \"ok\", \"runs\": [{\"ops_per_sec\": \"fast\"}]}]}",
		"points[0].runs[0].ops_per_sec: expected a number");
	refused(HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, "
		"\"status\": \"ok\", \"runs\": [{\"ops_per_sec\": 1, \"thread_ops\": [-1]}]}]}",
		"thread_ops[0]");
	refused(HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, "
		"\"status\": \"ok\", \"runs\": [{\"ops_per_sec\": -12.5}]}]}",
		"points[0].runs[0].ops_per_sec (-12.5): impossible");
	refused(HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, "
		"\"status\": \"ok\", \"runs\": [{\"ops_per_sec\": 1, \"series\": [1, -2]}]}]}",
		"points[0].runs[0].series[1] (-2): impossible");
	/* JSON has no NaN or Infinity; an overflowing literal is refused too. */
	refused(HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, "
		"\"status\": \"ok\", \"runs\": [{\"ops_per_sec\": 1e999}]}]}",
		"cannot read results");
	refused(HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, \"status\": \"failed\"},"
		"{\"variant_index\": 0, \"row_index\": 0, \"status\": \"failed\"}]}", "listed twice");
	/* "ok" says measured: without a run it would show as a measured 0. */
	refused(HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, \"status\": \"ok\", "
		"\"runs\": []}]}", "points[0] (tas, 1): status ok with no runs");
	refused(HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, "
		"\"status\": \"great\"}]}", "status");
	refused(HEAD "\"variants\": [{\"name\": \"a\"}, {\"name\": \"a\"}], \"rows\": [1], "
		"\"points\": [{}]}", "a listed twice");
	refused(HEAD "\"variants\": [{\"name\": \"a\"}], \"rows\": [1, 1], "
		"\"points\": [{}]}", "row 1 listed twice");
	refused(HEAD "\"variants\": [{\"name\": \"a\"}], \"rows\": [-4], "
		"\"points\": [{}]}", "rows[0]");
	refused(HEAD "\"variants\": {}, \"rows\": [1], \"points\": [{}]}", "variants: expected an array");
	refused(HEAD ONE "\"row_desc\": [1, 2], \"points\": [{}]}", "row_desc: 2 entries for 1 rows");
	/* jansson quotes the text near an error: its newline is not printed. */
	refused("{\"a\": \"\\u0\n\"}", "invalid escape near '\"\\u0?'");
	/* A name or heading with a control character would break a table. */
	refused(HEAD "\"label\": \"k0\\nk1\", " ONE "\"points\": [{}]}",
		".label: a control character (0x0a)");
	refused(HEAD "\"variants\": [{\"name\": \"t\\u001bas\"}], \"rows\": [1], "
		"\"points\": [{}]}", "variants[0].name: a control character (0x1b)");
	refused(HEAD "\"variants\": [{\"name\": \"tas\", \"label\": \"\\t\"}], \"rows\": [1], "
		"\"points\": [{}]}", "variants[0].label: a control character (0x09)");
	refused(HEAD "\"row_heading\": \"\\u007f\", " ONE "\"points\": [{}]}",
		".row_heading: a control character (0x7f)");
}

#define RUN1(R) HEAD ONE "\"points\": [{\"variant_index\": 0, \"row_index\": 0, " \
	"\"status\": \"ok\", \"runs\": [" R "]}]}"

/* A run's optional objects (exclusion, rw, latency, handover) given as
 * something else: refused, named by their path; null reads as absent. */
static void test_run_objects(void **state)
{
	static const char *const keys[] = {"exclusion", "rw", "latency", "handover"};
	char text[512], want[96];
	struct results r;

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		snprintf(text, sizeof(text), RUN1("{\"ops_per_sec\": 1, \"%s\": 3}"), keys[i]);
		snprintf(want, sizeof(want), "points[0].runs[0].%s: expected an object",
			 keys[i]);
		refused(text, want);
		snprintf(text, sizeof(text), RUN1("{\"ops_per_sec\": 1, \"%s\": null}"),
			 keys[i]);
		assert_int_equal(results_from_json_buf(text, strlen(text), "x.json", &r,
						       want, sizeof(want)), 0);
		results_free(&r);
	}
}

/* Values no run can have: refused with the field, not printed as -100%. */
static void test_impossible_values(void **state)
{
	(void)state;
	refused(RUN1("{\"ops_per_sec\": -0.01}"),
		"points[0].runs[0].ops_per_sec (-0.01): impossible");
	refused(RUN1("{\"ops_per_sec\": 1e308}"),
		"points[0].runs[0].ops_per_sec (1e+308): impossible");
	refused(RUN1("{\"ops_per_sec\": 1000, \"window_s\": -1}"),
		"points[0].runs[0].window_s (-1): impossible");
	refused(RUN1("{\"ops_per_sec\": 1000, \"series\": [1, -5]}"),
		"points[0].runs[0].series[1] (-5): impossible");
}

/* LOCKBENCH_MAX_INPUT's syntax, and a file above the limit. */
static void test_input_limit(void **state)
{
	char path[] = "/tmp/lockbench-test-limit.XXXXXX", err[512];
	struct results r;
	size_t v = 0;
	FILE *f;
	int fd;

	(void)state;
	assert_int_equal(input_limit_parse("2K", &v), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(input_limit_parse("3M", &v), 0);
	assert_int_equal(v, 3u << 20);
	assert_int_equal(input_limit_parse("1G", &v), 0);
	assert_int_equal(v, 1u << 30);
	assert_int_equal(input_limit_parse("12x", &v), -EINVAL);
	assert_int_equal(input_limit_parse("-1", &v), -EINVAL);
	assert_int_equal(input_limit_parse("100", &v), -ERANGE);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	for (int i = 0; i < 3000; i++)
		fputc(' ', f);
	fclose(f);
	setenv("LOCKBENCH_MAX_INPUT", "2K", 1);
	assert_int_equal(results_from_json(path, &r, err, sizeof(err)), -EINVAL);
	unsetenv("LOCKBENCH_MAX_INPUT");
	unlink(path);
	if (!strstr(err, "larger than the input limit of 2048 bytes"))
		fail_msg("message \"%s\"", err);
}

static void test_missing_file(void **state)
{
	struct results r;
	char err[256];

	(void)state;
	assert_int_equal(results_from_json("/nonexistent/k.json", &r, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "cannot read results (/nonexistent/k.json): "
			    "No such file or directory");
}

/* Inputs the fuzzer once found (tests/fuzz/crashes-json/): no crash. */
static void test_fuzz_regressions(void **state)
{
	const char *dir = "tests/fuzz/crashes-json";
	DIR *d = opendir(dir);
	struct dirent *e;

	(void)state;
	if (!d)
		skip();
	while ((e = readdir(d))) {
		char path[512], err[256];
		struct results r;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!results_from_json(path, &r, err, sizeof(err))) {
			results_finalize(&r);
			results_free(&r);
		} else {
			assert_null(strchr(err, '\n'));	/* one line */
		}
	}
	closedir(d);
}

static void test_speedup_check(void **state)
{
	struct results r = {.nvariants = 3};
	char err[256];

	(void)state;
	assert_int_equal(speedup_check(&r, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "speedup (3 variants): needs exactly two"));
	r.nvariants = 2;
	assert_int_equal(speedup_check(&r, err, sizeof(err)), 0);
}

static void test_csv_quotes(void **state)
{
	struct results r;
	struct render_opts o = {.unit = UNIT_KOPS, .marks = true};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	build(&r);
	free(r.variants[0].label);
	r.variants[0].label = strdup("k1, \"quoted\"");
	assert_int_equal(render_csv(&r, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "tas,tas,\"k1, \"\"quoted\"\"\",1,1,ok,1,0,"));
	assert_non_null(strstr(buf, "\ntas,tas,\"k1, \"\"quoted\"\"\",2,2,missing,,,,,,,\n"));
	free(buf);
	results_free(&r);
}

/* A sweep's results: variants "tas cs_ns=0" and "tas cs_ns=100". */
static void build_sweep(struct results *r)
{
	build(r);
	for (unsigned v = 0; v < 2; v++) {
		free(r->variants[v].name);
		free(r->variants[v].lock);
		r->variants[v].name = strdup(v ? "tas cs_ns=100" : "tas cs_ns=0");
		r->variants[v].lock = strdup("tas");
		r->variants[v].params = json_pack("{s:i}", "cs_ns", v ? 100 : 0);
	}
}

/* params (1.4) survive JSON, reach the CSV, and cut into tables. */
static void test_sweep_params(void **state)
{
	struct results a, b;
	struct results_part *parts;
	struct render_opts o = {.unit = UNIT_KOPS};
	unsigned n;
	char err[256], *text, *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	build_sweep(&a);
	text = dump(&a);
	assert_non_null(strstr(text, "\"schema_version\": \"" RESULTS_SCHEMA_VERSION "\""));
	assert_int_equal(results_from_json_buf(text, strlen(text), "mem", &b, err,
					       sizeof(err)), 0);
	assert_int_equal(json_integer_value(json_object_get(b.variants[1].params, "cs_ns")), 100);
	assert_int_equal(render_csv(&b, &o, f), 0);
	fclose(f);
	assert_non_null(strstr(buf, "variant,lock,label,row,threads,cs_ns,status,run,"));
	assert_non_null(strstr(buf, "\ntas cs_ns=100,tas,,1,1,100,ok,1,"));
	assert_string_equal(results_column(&b, 1, err, sizeof(err)), "tas");
	/* Rows threads: one table per cs_ns, the column "tas". */
	assert_int_equal(results_split(&b, "threads", &parts, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(parts[1].heading, "cs_ns=100");
	assert_int_equal(parts[1].r.nvariants, 1);
	assert_string_equal(parts[1].r.variants[0].name, "tas");
	assert_int_equal(parts[1].r.nrows, 2);
	assert_ptr_equal(parts[1].r.points[1].runs, results_point(&b, 1, 1)->runs);
	results_parts_free(parts, n);
	/* Rows cs_ns (or cs-ns): one table per thread count. */
	assert_int_equal(results_split(&b, "cs-ns", &parts, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_string_equal(parts[0].heading, "threads=1");
	assert_string_equal(parts[1].heading, "threads=2");
	assert_string_equal(parts[0].r.row_heading, "cs_ns");
	assert_int_equal(parts[0].r.nrows, 2);
	assert_string_equal(parts[0].r.row_desc[1].label, "100");
	assert_ptr_equal(parts[0].r.points[1].runs, results_point(&b, 1, 0)->runs);
	assert_int_equal(parts[1].r.points[0].status, results_point(&b, 0, 1)->status);
	results_parts_free(parts, n);
	assert_int_equal(results_split(&b, "ncs_ns", &parts, &n, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "--rows (ncs_ns): not a dimension of these results; "
			    "valid: threads, cs_ns");
	/* No sweep: nothing to cut, any other dimension refused. */
	free(buf);
	free(text);
	results_free(&a);
	results_free(&b);
	build(&a);
	assert_int_equal(results_split(&a, "threads", &parts, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(results_split(&a, "cs_ns", &parts, &n, err, sizeof(err)), -EINVAL);
	results_free(&a);
	refused(HEAD "\"variants\": [{\"name\": \"tas\", \"params\": {\"cs_ns\": \"x\"}}], "
		"\"rows\": [1], \"points\": [{}]}", "variants[0].params.cs_ns: expected a number");
	refused(HEAD "\"variants\": [{\"name\": \"tas\", \"params\": [1]}], "
		"\"rows\": [1], \"points\": [{}]}", "variants[0].params: expected an object");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_streamed_equals_tree),
		cmocka_unit_test(test_stream_read),
		cmocka_unit_test(test_stream_refusals),
		cmocka_unit_test(test_row_desc_round_trip),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_run_objects),
		cmocka_unit_test(test_impossible_values),
		cmocka_unit_test(test_input_limit),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_fuzz_regressions),
		cmocka_unit_test(test_speedup_check),
		cmocka_unit_test(test_csv_quotes),
		cmocka_unit_test(test_sweep_params),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
