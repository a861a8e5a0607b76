/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the core: number lists, placement on synthetic
 * topologies, the plan's run order, the results model and the table
 * renderer against the published rtmutex table (golden).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../output/render/render.h"
#include "testlib.h"
#include "../topology/cpulist.h"
#include "../topology/mem.h"
#include "../topology/placement.h"
#include "../workloads/sweep.h"
#include "../workloads/workload.h"

#ifndef GOLDEN_DIR
#define GOLDEN_DIR "tests/golden"
#endif

/* ---- number lists ------------------------------------------------- */

static void check_list(const char *s, unsigned maxval, const unsigned *want,
		       unsigned nwant)
{
	unsigned *v = NULL, n = 0;
	char err[128];

	assert_int_equal(numlist_parse(s, maxval, 1024, &v, &n, err, sizeof(err)), 0);
	assert_int_equal(n, nwant);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(v[i], want[i]);
	free(v);
}

static void test_numlist_good(void **state)
{
	(void)state;
	check_list("1,2,4", 0, (unsigned[]){1, 2, 4}, 3);
	check_list("1-4", 0, (unsigned[]){1, 2, 3, 4}, 4);
	check_list("0-8:4", 0, (unsigned[]){0, 4, 8}, 3);
	check_list("max", 96, (unsigned[]){96}, 1);
	check_list("1,max", 2, (unsigned[]){1, 2}, 2);
	check_list("2-max", 4, (unsigned[]){2, 3, 4}, 3);
	check_list("4,1,4", 0, (unsigned[]){4, 1}, 2); /* order kept, dups dropped */
}

static void test_numlist_bad(void **state)
{
	const char *bad[] = {"abc", "", "1,,2", "4-1", "1-", "-1", "1-4:0",
			     "max", "1.5", "2000", "1 2", "0-8:x"};
	unsigned *v = NULL, n = 0;
	char err[128];

	(void)state;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		assert_int_equal(numlist_parse(bad[i], strcmp(bad[i], "") ? 0 : 4,
					       1024, &v, &n, err, sizeof(err)),
				 -EINVAL);
		assert_true(err[0] != 0);
	}
}

/*
 * A list of a million numbers, with every value given twice, parses in
 * linear time: the CPU time bound is far above what a loaded machine
 * needs (milliseconds) and far below what a scan of the list for each
 * duplicate takes (minutes).
 */
static void test_numlist_huge(void **state)
{
	unsigned *v = NULL, n = 0;
	char err[128] = "";
	clock_t t0 = clock();

	(void)state;
	assert_int_equal(numlist_parse("999999-1000000,0-1000000,0-1000000:7", 0, 0,
				       &v, &n, err, sizeof(err)), 0);
	assert_true((double)(clock() - t0) / CLOCKS_PER_SEC < 10.0);
	assert_int_equal(n, 1000001);
	assert_int_equal(v[0], 999999);	/* order of first appearance */
	assert_int_equal(v[1], 1000000);
	for (unsigned i = 2; i < n; i++)
		assert_int_equal(v[i], i - 2);
	free(v);
	/* Past the largest accepted number, and past a limit: refused. */
	assert_int_equal(numlist_parse("0-1000001", 0, 0, &v, &n, err, sizeof(err)),
			 -EINVAL);
	assert_int_equal(numlist_parse("0-100000", 0, 65535, &v, &n, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "out of range"));
}

/* ---- placement ---------------------------------------------------- */

/* The OS CPUs `policy` gives n threads on synthetic topology `spec`. */
static void place(const char *spec, const char *policy, unsigned n, int *cpus,
		  unsigned *nodes)
{
	struct topo t;
	struct placement_policy p;
	struct thread_place *pl = calloc(n, sizeof(*pl));
	char err[256];

	assert_non_null(pl);
	assert_int_equal(topo_load(&t, spec, NULL, err, sizeof(err)), 0);
	assert_int_equal(placement_parse(policy, &p, err, sizeof(err)), 0);
	assert_int_equal(placement_assign(&t, &p, n, pl, err, sizeof(err)), 0);
	for (unsigned i = 0; i < n; i++) {
		cpus[i] = pl[i].cpu;
		if (nodes)
			nodes[i] = pl[i].node;
	}
	free(pl);
	placement_policy_free(&p);
	topo_free(&t);
}

static void test_place_cores_smt_last(void **state)
{
	int cpus[10];

	(void)state;
	/* package:2 core:4 pu:2 -> PUs 0..15, siblings (0,1) (2,3) ... */
	place("package:2 core:4 pu:2", "cores", 10, cpus, NULL);
	int want[] = {0, 2, 4, 6, 8, 10, 12, 14, 1, 3};
	assert_memory_equal(cpus, want, sizeof(want));
}

static void test_place_smt(void **state)
{
	int cpus[4];

	(void)state;
	place("package:2 core:4 pu:2", "smt", 4, cpus, NULL);
	assert_memory_equal(cpus, ((int[]){0, 1, 2, 3}), sizeof(cpus));
}

static void test_place_spread(void **state)
{
	int cpus[4];
	unsigned nodes[4];

	(void)state;
	/* 2 packages x 2 nodes: threads alternate packages, then nodes. */
	place("package:2 numa:2 core:2 pu:1", "spread", 4, cpus, nodes);
	assert_memory_equal(nodes, ((unsigned[]){0, 2, 1, 3}), sizeof(nodes));
	assert_memory_equal(cpus, ((int[]){0, 4, 2, 6}), sizeof(cpus));
}

static void test_place_nodes_and_cpus(void **state)
{
	int cpus[3];

	(void)state;
	place("package:2 numa:2 core:2 pu:2", "node:3", 3, cpus, NULL);
	assert_memory_equal(cpus, ((int[]){12, 14, 13}), sizeof(cpus));
	place("package:2 core:4 pu:1", "cpus:7,1-2", 3, cpus, NULL);
	assert_memory_equal(cpus, ((int[]){7, 1, 2}), sizeof(cpus));
}

static void test_place_oversubscribed(void **state)
{
	struct topo t;
	struct placement_policy p;
	struct thread_place pl[5];
	char err[256];

	(void)state;
	assert_int_equal(topo_load(&t, "core:2 pu:1", NULL, err, sizeof(err)), 0);
	assert_int_equal(placement_parse("cores", &p, err, sizeof(err)), 0);
	assert_int_equal(placement_assign(&t, &p, 5, pl, err, sizeof(err)), 0);
	assert_int_equal(pl[4].cpu, 0); /* wraps around */
	for (unsigned i = 0; i < 5; i++)
		assert_true(pl[i].shared);
	/* 3 on 2 PUs: thread 1 has cpu 1 to itself. */
	assert_int_equal(placement_assign(&t, &p, 3, pl, err, sizeof(err)), 0);
	assert_true(pl[0].shared && pl[2].shared);
	assert_false(pl[1].shared);
	assert_int_equal(placement_assign(&t, &p, 2, pl, err, sizeof(err)), 0);
	assert_false(pl[0].shared || pl[1].shared);
	topo_free(&t);
}

/* --map-topology: a placement on a synthetic 2-node machine mapped onto
 * another's usable CPUs, worker i on the (i mod N)-th; nodes and cores
 * kept, CPUs shared only past N threads, isolated CPUs only when asked. */
static void test_placement_map(void **state)
{
	struct topo syn, here;
	struct placement_policy p;
	struct thread_place pl[4];
	int cpus[3];
	char err[256];

	(void)state;
	assert_int_equal(topo_load(&syn, "numa:2 core:2 pu:1", NULL, err, sizeof(err)), 0);
	assert_int_equal(topo_load(&here, "core:3 pu:1", "1", err, sizeof(err)), 0);
	assert_int_equal(placement_map_cpus(&here, false, cpus), 2);
	assert_true(cpus[0] == 0 && cpus[1] == 2);
	assert_int_equal(placement_parse("spread", &p, err, sizeof(err)), 0);
	assert_int_equal(placement_assign(&syn, &p, 4, pl, err, sizeof(err)), 0);
	assert_int_equal(placement_map(&here, false, pl, 4, err, sizeof(err)), 2);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(pl[i].mapped && pl[i].shared);
		assert_int_equal(pl[i].cpu, i % 2 ? 2 : 0);
		assert_int_equal(pl[i].node, i % 2);  /* spread: the nodes alternate */
		assert_int_equal(syn.pu[pl[i].pu].os, pl[i].synth_cpu);
		assert_int_equal(pl[i].node_os, here.pu[0].node_os);
	}
	assert_true(pl[2].synth_cpu == 1 && pl[2].cpu == 0); /* the synthetic CPU is not the real one */
	/* 2 threads on 2 CPUs share nothing; with the isolated CPU, 3 CPUs */
	assert_int_equal(placement_assign(&syn, &p, 2, pl, err, sizeof(err)), 0);
	assert_int_equal(placement_map(&here, false, pl, 2, err, sizeof(err)), 2);
	assert_false(pl[0].shared || pl[1].shared);
	assert_int_equal(placement_assign(&syn, &p, 4, pl, err, sizeof(err)), 0);
	assert_int_equal(placement_map(&here, true, pl, 4, err, sizeof(err)), 3);
	assert_true(pl[1].cpu == 1 && pl[3].cpu == 0 && pl[0].shared && pl[3].shared);
	assert_false(pl[1].shared || pl[2].shared);
	placement_policy_free(&p);
	/* -p none: nothing pinned, nothing mapped */
	assert_int_equal(placement_parse("none", &p, err, sizeof(err)), 0);
	assert_int_equal(placement_assign(&syn, &p, 2, pl, err, sizeof(err)), 0);
	assert_int_equal(placement_map(&here, false, pl, 2, err, sizeof(err)), 2);
	assert_true(pl[0].cpu == -1 && !pl[0].mapped);
	placement_policy_free(&p);
	topo_free(&here);
	/* no usable CPU: one line */
	assert_int_equal(topo_load(&here, "core:1 pu:1", "0", err, sizeof(err)), 0);
	assert_int_equal(placement_map(&here, false, pl, 2, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no usable CPU"));
	topo_free(&here);
	topo_free(&syn);
}

/* The distinct CPUs of a placement, in thread order: oversubscribed
 * threads counted once; unpinned ones by their PU only with a topology. */
static void test_place_distinct_cpus(void **state)
{
	struct topo t;
	struct placement_policy p;
	struct thread_place pl[5];
	int cpus[5];
	char err[256];

	(void)state;
	assert_int_equal(topo_load(&t, "core:2 pu:1", NULL, err, sizeof(err)), 0);
	assert_int_equal(placement_parse("cores", &p, err, sizeof(err)), 0);
	assert_int_equal(placement_assign(&t, &p, 5, pl, err, sizeof(err)), 0);
	assert_int_equal(placement_distinct_cpus(&t, pl, 5, cpus), 2);
	assert_int_equal(cpus[0], pl[0].cpu);
	assert_int_equal(cpus[1], pl[1].cpu);
	assert_int_not_equal(cpus[0], cpus[1]);
	pl[0].cpu = pl[1].cpu = -1;    /* not pinned: where they would run */
	assert_int_equal(placement_distinct_cpus(&t, pl, 2, cpus), 2);
	assert_int_equal(cpus[0], t.pu[pl[0].pu].os);
	assert_int_equal(placement_distinct_cpus(NULL, pl, 2, cpus), 0);
	placement_policy_free(&p);
	topo_free(&t);
}

static void test_place_errors(void **state)
{
	struct topo t;
	struct placement_policy p;
	unsigned *o, n;
	char err[256];

	(void)state;
	assert_int_equal(placement_parse("bogus", &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "valid: cores"));
	assert_int_equal(placement_parse("node:", &p, err, sizeof(err)), -EINVAL);
	assert_int_equal(topo_load(&t, "package:2 core:2 pu:1", NULL, err, sizeof(err)), 0);
	assert_int_equal(placement_parse("cpus:9", &p, err, sizeof(err)), 0);
	assert_int_equal(placement_order(&t, &p, &o, &n, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "CPU 9 does not exist"));
	placement_policy_free(&p);
	assert_int_equal(placement_parse("node:5", &p, err, sizeof(err)), 0);
	assert_int_equal(placement_order(&t, &p, &o, &n, err, sizeof(err)), -EINVAL);
	placement_policy_free(&p);
	topo_free(&t);
	assert_int_equal(topo_load(&t, "nonsense:x", NULL, err, sizeof(err)), -EINVAL);
}

static void test_topo_ids(void **state)
{
	struct topo t;
	char err[256];

	(void)state;
	assert_int_equal(topo_load(&t, "package:2 numa:2 core:12 pu:2", NULL, err,
				   sizeof(err)), 0);
	assert_int_equal(t.npu, 96);
	assert_int_equal(t.ncores, 48);
	assert_int_equal(t.nnodes, 4);
	assert_int_equal(t.npackages, 2);
	assert_int_equal(t.pu[95].node, 3);
	assert_int_equal(t.pu[95].package, 1);
	assert_int_equal(t.pu[95].smt, 1);
	assert_int_equal(t.pu[94].smt, 0);
	topo_free(&t);
}

/* ---- plan ----------------------------------------------------------- */

static void test_plan_interleaved(void **state)
{
	unsigned thr[] = {1, 2};
	struct config c = {.nvariants = 3, .threads = thr, .nthreads = 2, .runs = 4,
			   .order = ORDER_INTERLEAVED, .seed = 42};
	unsigned n, n2;
	struct plan_step *p = plan_build(&c, &n), *q = plan_build(&c, &n2);

	(void)state;
	assert_int_equal(n, 24);
	/* Deterministic for a seed. */
	assert_memory_equal(p, q, n * sizeof(*p));
	/* Each round holds every variant exactly once. */
	for (unsigned r = 0; r < n / 3; r++) {
		unsigned seen = 0;

		for (unsigned k = 0; k < 3; k++) {
			seen |= 1u << p[r * 3 + k].variant;
			assert_int_equal(p[r * 3 + k].run, r % 4);
		}
		assert_int_equal(seen, 7);
	}
	free(p);
	free(q);
	c.order = ORDER_SEQUENTIAL;
	p = plan_build(&c, &n);
	assert_int_equal(p[0].variant, 0);
	assert_int_equal(p[3].variant, 0);
	assert_int_equal(p[4].variant, 1);
	free(p);
}

static void test_exp_table_mean(void **state)
{
	double sum = 0;

	(void)state;
	for (unsigned i = 0; i < 256; i++)
		sum += lb_exp_table[i];
	assert_true(sum / 256 > 253 && sum / 256 < 259);
	assert_true(lb_exp_table[0] > lb_exp_table[255]);
}

/* ---- results + table renderer: the published rtmutex table -------- */

/* Build a model from a seed table: 5 runs m-s, m-s, m, m+s, m+s per
 * point (mean m and sample std s exactly), in ops/s. */
static char *load_seed(struct results *r, const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL, line[2048], labels[16][64];
	size_t len = 0;
	unsigned nv = 0, nrows = 0, rows[64];
	double mean[16][64], std[16][64];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *save, *tok = strtok_r(line, " \n", &save);

		if (!tok)
			continue;
		if (!strcmp(tok, "Kernel:")) {
			while ((tok = strtok_r(NULL, " \n", &save)))
				snprintf(labels[nv++], 64, "%s", tok);
		} else if (tok[0] >= '0' && tok[0] <= '9') {
			rows[nrows] = (unsigned)atoi(tok);
			for (unsigned v = 0; v < nv; v++) {
				mean[v][nrows] = atof(strtok_r(NULL, " \n", &save));
				std[v][nrows] = atof(strtok_r(NULL, " \n", &save));
				if (v)
					strtok_r(NULL, " \n", &save); /* rel */
			}
			nrows++;
		}
	}
	fclose(f);
	assert_int_equal(results_init(r, nv, nrows), 0);
	r->variant_heading = strdup("Kernel");
	r->row_heading = strdup("nwriters_stress");
	memcpy(r->rows, rows, nrows * sizeof(unsigned));
	for (unsigned v = 0; v < nv; v++) {
		r->variants[v].name = strdup(labels[v]);
		for (unsigned row = 0; row < nrows; row++) {
			double m = mean[v][row], s = std[v][row];
			double x[5] = {m - s, m - s, m, m + s, m + s};

			for (unsigned k = 0; k < 5; k++) {
				/* Each published run: its own invocation (kernel). */
				struct run_sample rs = {.ops_per_sec = x[k] * 1000, .window_s = 60,
							.invocation = v * 5 + k + 1};

				assert_int_equal(results_add_run(r, v, row, &rs), 0);
			}
			results_point(r, v, row)->status = POINT_OK;
		}
	}
	results_finalize(r);
	f = fopen(path, "r");
	assert_non_null(f);
	text = calloc(1, 65536);
	assert_non_null(text);
	len = fread(text, 1, 65535, f);
	text[len] = 0;
	fclose(f);
	return text;
}

static void test_golden_rtmutex_table(void **state)
{
	struct results r;
	char *want = load_seed(&r, GOLDEN_DIR "/rtmutex-table.txt");
	char *got = tl_render_table(&r, false);

	(void)state;
	if (strcmp(got, want))
		fprintf(stderr, "--- want\n%s--- got\n%s", want, got);
	assert_string_equal(got, want);
	free(got);
	free(want);
	results_free(&r);
}

static void test_table_marks(void **state)
{
	struct results r;
	char *want = load_seed(&r, GOLDEN_DIR "/rtmutex-table.txt");
	char *got = tl_render_table(&r, true);
	const struct point *p;

	(void)state;
	/* 95 writers, stock: 174.35 +- 57.89 is a CV of 33%: flagged. */
	assert_non_null(strstr(got, "57.89?"));
	/* 1 writer, k1: -2% on stds of 25-30 over 5 runs is noise. */
	assert_non_null(strstr(got, "-2%~"));
	/* 2 writers, k1: +16% (359 -> 417, std ~30 over 5 invocations)
	 * has p < 0.05 alone, but not after Holm over the table's 45 tests. */
	p = results_point(&r, 1, 1);
	assert_int_equal(p->method, SIG_INVOC);
	assert_true(p->test.valid && p->test.p < 0.05 && p->p_adj >= 0.05);
	assert_non_null(strstr(got, "+16%~"));
	assert_non_null(strstr(got, "Welch t on invocation means, Holm-adjusted over 45 tests"));
	assert_non_null(strstr(got, "too spread to trust"));
	free(got);
	free(want);
	results_free(&r);
}

/* The table of r with marks, its notes brief (verbose false) or in full. */
static char *render_notes_of(const struct results *r, bool verbose)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct render_opts o = {.unit = UNIT_KOPS, .marks = true, .verbose = verbose};

	assert_non_null(f);
	assert_int_equal(render_table(r, &o, f), 0);
	fclose(f);
	return buf;
}

/* The notes of a table: what follows its first blank line. */
static const char *notes_of(const char *table)
{
	const char *n = strstr(table, "\n\n");

	assert_non_null(n);
	return n + 2;
}

/* Line i (0-based) of text, into buf; false when there is none. */
static bool line_at(const char *text, unsigned i, char *buf, size_t len)
{
	for (; i && text; i--)
		text = strchr(text, '\n') ? strchr(text, '\n') + 1 : NULL;
	if (!text || !*text)
		return false;
	snprintf(buf, len, "%.*s", (int)strcspn(text, "\n"), text);
	return true;
}

/*
 * Seven kinds of note (a failed point, oversubscription, `~`, `?`, `^`,
 * a missing point, the geometric mean): by default each kind's note
 * whole (wrapped at RENDER_WRAP, never cut with "..."), most important
 * first; the failure and the note of every mark the table shows are
 * never cut (they may take more than RENDER_NOTE_LINES lines between
 * them), the other kinds fill what is left of RENDER_NOTE_LINES and the
 * last line counts the kinds cut; -v prints them all in full.
 */
static void test_notes_brief(void **state)
{
	static const char *const marks[] = {
		"FAILED k2-readonce 1: mutual exclusion violated: counter 5 != 7",
		"   operations",
		"*  more threads than CPUs (16): oversubscribed",
		"~  not significant (p >= 0.05) against k0-stock-6.2.0-rc6; smallest",
		"   detectable change 5.9% to 122.9%",
		"?  std above 10% of the mean: too spread to trust",
		"^  unfair: the busiest thread did over 2x the least busy's operations",
		"-  not measured in that run",
		"1 more note (-v prints them all): geometric mean",
	};
	struct results r;
	char *want = load_seed(&r, GOLDEN_DIR "/rtmutex-table.txt");
	struct point *p = results_point(&r, 2, 0);
	char *got, *full, line[256];
	const char *n;
	unsigned lines = 0;

	(void)state;
	r.ncpus = 16;                       /* 32, 64 and 95 writers: `*` */
	p->status = POINT_FAILED;
	p->error = strdup("mutual exclusion violated: counter 5 != 7 operations");
	results_point(&r, 3, 0)->lt_unfair = true;
	results_point(&r, 4, 0)->status = POINT_MISSING;
	got = render_notes_of(&r, false);
	n = notes_of(got);
	for (unsigned i = 0; line_at(n, i, line, sizeof(line)); i++, lines++) {
		assert_true(strlen(line) <= RENDER_WRAP);
		assert_false(strlen(line) >= 3 && !strcmp(line + strlen(line) - 3, "..."));
		assert_true(i < sizeof(marks) / sizeof(marks[0]));
		assert_string_equal(line, marks[i]);
	}
	assert_int_equal(lines, sizeof(marks) / sizeof(marks[0]));
	/* -v: every note, whole. */
	full = render_notes_of(&r, true);
	n = notes_of(full);
	assert_non_null(strstr(n, "k2-readonce 1: mutual exclusion violated: counter 5 != 7 "
			       "operations\n"));
	assert_non_null(strstr(n, "Welch t on invocation means, Holm-adjusted over"));
	assert_non_null(strstr(n, "-  not measured in that run\n"));
	assert_non_null(strstr(n, "geometric mean of the ratios over the 9 rows, against"));
	assert_non_null(strstr(n, "smallest difference this comparison could detect"));
	free(full);
	free(got);
	/* Without the failure the same marks: their notes take the six
	 * lines, the geometric mean is counted. */
	p->status = POINT_OK;
	got = render_notes_of(&r, false);
	n = notes_of(got);
	assert_null(strstr(n, "..."));
	for (unsigned i = 2; i < sizeof(marks) / sizeof(marks[0]); i++) {
		assert_true(line_at(n, i - 2, line, sizeof(line)));
		assert_string_equal(line, marks[i]);
	}
	assert_false(line_at(n, 7, line, sizeof(line)));
	free(got);
	free(want);
	results_free(&r);
}

/* `#` marks a significant difference by itself; `~` one that is not. */
static void test_sig_mark(void **state)
{
	struct results r;
	char *want = load_seed(&r, GOLDEN_DIR "/rtmutex-table.txt");
	char *got;

	(void)state;
	/* k1 at 2 writers: +16% at p < 0.05 alone, so with Holm over one test. */
	r.alpha = 0.05;
	for (unsigned v = 2; v < r.nvariants; v++)
		for (unsigned k = 0; k < r.nrows; k++)
			results_point(&r, v, k)->status = POINT_MISSING;
	for (unsigned k = 0; k < r.nrows; k++)
		if (k != 1)
			results_point(&r, 1, k)->status = POINT_MISSING;
	results_finalize(&r);
	got = render_notes_of(&r, false);
	assert_non_null(strstr(got, " +16%# "));
	assert_non_null(strstr(got, "\n#  significant (p < 0.05) against k0-stock-6.2.0-rc6; smallest\n"
			       "   detectable change "));
	free(got);
	got = render_notes_of(&r, true);
	assert_non_null(strstr(got, "\n#  significant difference from k0-stock-6.2.0-rc6 (p < "
			       "0.05)\n"));
	free(got);
	got = tl_render_table(&r, false);
	assert_null(strstr(got, "#"));
	free(got);
	free(want);
	results_free(&r);
}

/* The pieces of a table too wide: in[] as a bit mask, one per piece. */
static unsigned pieces(const struct results *r, unsigned width, const unsigned *vw,
		       unsigned fixed, unsigned *mask, unsigned max)
{
	struct render_opts o = {.width = width};
	unsigned next = 0, n = 0;
	bool in[8];

	while (n < max && render_piece(r, &o, vw, fixed, &next, in)) {
		mask[n] = 0;
		for (unsigned v = 0; v < r->nvariants; v++)
			mask[n] |= in[v] ? 1u << v : 0;
		n++;
	}
	return n;
}

/* Terminal-safe text: ESC, BEL, newline, DEL and a C1 control (CSI in
 * UTF-8) escaped, other UTF-8 text and tabs' neighbours kept; the
 * stream lets the renderer's own newlines pass and nothing else. */
static void test_render_safe(void **state)
{
	char buf[128], *mem = NULL;
	size_t len = 0;
	FILE *m, *t;

	(void)state;
	assert_string_equal(render_safe("6.1\033[31m\a\nlockbench: x\x7f \xc2\x9b" "2J \xc3\xa9",
					buf, sizeof(buf)),
			    "6.1\\x1b[31m\\x07\\nlockbench: x\\x7f \\u009b2J \xc3\xa9");
	assert_string_equal(render_safe("a\tb\rc", buf, sizeof(buf)), "a\\tb\\rc");
	assert_string_equal(render_safe("abcdef", buf, 4), "abc");
	m = open_memstream(&mem, &len);
	assert_non_null(m);
	t = render_safe_stream(m);
	assert_non_null(t);
	fputs("row \033]0;t\a\nnext\n", t);
	assert_int_equal(fclose(t), 0);
	assert_int_equal(fclose(m), 0);
	assert_string_equal(mem, "row \\x1b]0;t\\x07\nnext\n");
	free(mem);
}

static void test_render_pieces(void **state)
{
	struct results r;
	unsigned vw[4] = {20, 30, 30, 30}, m[8];

	(void)state;
	assert_int_equal(results_init(&r, 4, 1), 0);
	/* 10 + 110 columns: the baseline with one other each (60 fits, 90
	 * does not). */
	assert_int_equal(pieces(&r, 80, vw, 10, m, 8), 3);
	assert_int_equal(m[0], 0x3);
	assert_int_equal(m[1], 0x5);
	assert_int_equal(m[2], 0x9);
	/* Two others fit in 90; the last piece takes what is left. */
	assert_int_equal(pieces(&r, 90, vw, 10, m, 8), 2);
	assert_int_equal(m[0], 0x7);
	assert_int_equal(m[1], 0x9);
	/* Fits, or no limit: one piece of all.  Too narrow for anything:
	 * still one variant besides the baseline in each piece. */
	assert_int_equal(pieces(&r, 120, vw, 10, m, 8), 1);
	assert_int_equal(m[0], 0xf);
	assert_int_equal(pieces(&r, 0, vw, 10, m, 8), 1);
	assert_int_equal(m[0], 0xf);
	assert_int_equal(pieces(&r, 1, vw, 10, m, 8), 3);
	assert_int_equal(m[2], 0x9);
	/* Per-lock pairing: 2 is compared with 0, 3 with 1; each piece
	 * carries its own baseline. */
	r.base_of = calloc(4, sizeof(*r.base_of));
	assert_non_null(r.base_of);
	r.base_of[0] = 0, r.base_of[1] = 1, r.base_of[2] = 0, r.base_of[3] = 1;
	vw[1] = 20;
	assert_int_equal(pieces(&r, 80, vw, 10, m, 8), 2);
	assert_int_equal(m[0], 0x5);
	assert_int_equal(m[1], 0xa);
	assert_int_equal(pieces(&r, 110, vw, 10, m, 8), 1);
	assert_int_equal(m[0], 0xf);
	/* A baseline nothing is compared with is a piece's item itself. */
	r.base_of[3] = 3;
	assert_int_equal(pieces(&r, 60, vw, 10, m, 8), 3);
	assert_int_equal(m[0], 0x2);
	assert_int_equal(m[1], 0x5);
	assert_int_equal(m[2], 0x8);
	results_free(&r);
}

/* rel% prints its sign always, keeping the sign of the unrounded value. */
static void test_rel_sign_rule(void **state)
{
	struct results r;
	char *got;

	(void)state;
	assert_int_equal(results_init(&r, 2, 1), 0);
	r.variant_heading = strdup("Lock");
	r.row_heading = strdup("threads");
	r.rows[0] = 1;
	r.variants[0].name = strdup("a");
	r.variants[1].name = strdup("b");
	for (unsigned k = 0; k < 2; k++) {
		struct run_sample s0 = {.ops_per_sec = 1000000 + k}, s1 = {.ops_per_sec = 999000 + k};

		results_add_run(&r, 0, 0, &s0);
		results_add_run(&r, 1, 0, &s1);
	}
	r.points[0].status = r.points[1].status = POINT_OK;
	results_finalize(&r);
	got = tl_render_table(&r, false);
	assert_non_null(strstr(got, "-0%"));
	free(got);
	results_free(&r);
}

/* mem_alloc()'s colours: after a reset the k-th allocation starts
 * mem_colour_offset(k) into its page, 31 distinct line-aligned offsets
 * below 4 KiB before the first comes round again; memory zeroed whole
 * (a 3-page object too) and freed from any colour. */
static void test_mem_colours(void **state)
{
	void *p[32];
	unsigned char *big;
	bool seen[32] = {false};

	(void)state;
	mem_colour_reset();
	for (unsigned k = 0; k < 32; k++) {
		uintptr_t off;

		p[k] = mem_alloc(200, MEM_NODE_LOCAL);
		assert_non_null(p[k]);
		off = (uintptr_t)p[k] & 4095;
		assert_int_equal(off, mem_colour_offset(k));
		assert_int_equal(off % MEM_COLOUR, 0);
		assert_true(off > 0);
		if (k < 31) {
			assert_false(seen[off / MEM_COLOUR]);
			seen[off / MEM_COLOUR] = true;
		}
		assert_int_equal(((unsigned char *)p[k])[199], 0);
		memset(p[k], 0xa5, 200);
	}
	assert_int_equal(mem_colour_offset(31), mem_colour_offset(0));
	for (unsigned k = 0; k < 32; k++)
		mem_free(p[k], 200);
	mem_colour_reset();
	big = mem_alloc(3 * 4096, MEM_NODE_LOCAL);
	assert_non_null(big);
	assert_int_equal((uintptr_t)big & 4095, mem_colour_offset(0));
	for (size_t i = 0; i < 3 * 4096; i++)
		assert_int_equal(big[i], 0);
	memset(big, 1, 3 * 4096);
	mem_free(big, 3 * 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mem_colours),
		cmocka_unit_test(test_numlist_good),
		cmocka_unit_test(test_numlist_bad),
		cmocka_unit_test(test_numlist_huge),
		cmocka_unit_test(test_place_cores_smt_last),
		cmocka_unit_test(test_placement_map),
		cmocka_unit_test(test_place_distinct_cpus),
		cmocka_unit_test(test_place_smt),
		cmocka_unit_test(test_place_spread),
		cmocka_unit_test(test_place_nodes_and_cpus),
		cmocka_unit_test(test_place_oversubscribed),
		cmocka_unit_test(test_place_errors),
		cmocka_unit_test(test_topo_ids),
		cmocka_unit_test(test_plan_interleaved),
		cmocka_unit_test(test_exp_table_mean),
		cmocka_unit_test(test_golden_rtmutex_table),
		cmocka_unit_test(test_table_marks),
		cmocka_unit_test(test_notes_brief),
		cmocka_unit_test(test_sig_mark),
		cmocka_unit_test(test_rel_sign_rule),
		cmocka_unit_test(test_render_pieces),
		cmocka_unit_test(test_render_safe),
	};

	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
