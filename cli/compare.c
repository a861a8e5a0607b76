/* SPDX-License-Identifier: MIT */
/*
 * `lockbench compare` and `lockbench merge`: saved results side by side.
 * Their options are tables of the option engine (opt.h); bad usage or
 * bad input exits 2 with one line on stderr, before any output file is
 * made.  The files are joined by the compare/merge model
 * (output/results/merge.h); compare then recomputes every statistic
 * from the raw runs (results_finalize), picks the invocation floor,
 * renders it like a run and applies --fail-if-regressed; merge writes
 * it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/sha256.h"
#include "../output/results/merge.h"
#include "cmds.h"
#include "err.h"
#include "floor.h"
#include "infile.h"
#include "opt.h"
#include "outfile.h"
#include "provenance.h"

struct compare_args {
	struct output_args out;
	const char *locks, *baseline, *rows, *floor, *columns;
	double min_effect;        /* fraction of 1 */
	double fail_pct;          /* fraction of 1 */
	bool fail_given;
};

static const struct opt compare_rows[] = {
	{.name = "locks", .sname = 'l', .type = OPT_STR, .arg = "LIST",
	 .off = offsetof(struct compare_args, locks),
	 .help = "only these locks of each file"},
	{.name = "baseline", .type = OPT_STR, .arg = "LABEL", .shown = "first",
	 .off = offsetof(struct compare_args, baseline),
	 .help = "column (or label: each lock against itself) rel% is computed against"},
	{.name = "min-effect", .type = OPT_PERCENT, .arg = "PCT",
	 .min = 0, .max = 1000, .off = offsetof(struct compare_args, min_effect),
	 .help = "a change below PCT is never significant (e.g. the A/A floor)"},
	{.name = "floor", .type = OPT_STR, .arg = "FILE|PCT",
	 .off = offsetof(struct compare_args, floor),
	 .help = "invocation floor for one invocation a side: a `system check` "
		 "JSON file, or PCT"},
	{.name = "fail-if-regressed", .type = OPT_PERCENT, .arg = "PCT",
	 .min = 0, .max = 1000, .off = offsetof(struct compare_args, fail_pct),
	 .given = OPT_GIVEN(struct compare_args, fail_given),
	 .help = "exit 4 when a point is significantly worse by more than PCT "
		 "(5: cannot assess: the test could not have seen PCT)"},
	{.name = "rows", .type = OPT_STR, .arg = "DIM", .def = "threads",
	 .off = offsetof(struct compare_args, rows),
	 .help = "text tables of a sweep: rows over DIM (also files of one value "
		 "each, e.g. cs-ns), one table per rest; "
		 "cpu-share: threads as a share of each file's CPUs"},
	{.name = "columns", .type = OPT_STR, .arg = "WHAT", .shown = "label",
	 .off = offsetof(struct compare_args, columns),
	 .help = "host: one column per machine (machine.hostname), with notes "
		 "on what the hosts differ in"},
	OUTPUT_ROWS(struct compare_args, out, "table"),
};

const struct opt_cmd compare_options = OPT_CMD("compare", compare_rows);

void compare_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench compare [options] A.json B.json ...\n"
		"Render saved runs side by side: one column per file (per label/lock\n"
		"when a file holds several locks), statistics recomputed from the runs.\n");
	opt_help(&compare_options, f);
	fprintf(f, "With one invocation (file) a side, a difference is significant only\n"
		"if the runs' test says so and it exceeds the invocation floor: --floor,\n"
		"else --min-effect, else the larger floor the files recorded (run --floor);\n"
		"with none such a point is marked _ (too few runs to judge).  A floor file\n"
		"from another host, or one the check refused (busy), is refused.\n"
		"Exit status: 0 success; 2 bad usage or input; 4 --fail-if-regressed\n"
		"found a point significantly worse than its baseline by more than PCT;\n"
		"5 cannot assess: a point the test could not have seen a change of PCT\n"
		"at (marked _: too few runs or invocations, one invocation a side and\n"
		"no floor, or its smallest detectable change above PCT); the line says\n"
		"what would reach PCT (more invocations, -r, a quieter machine, or\n"
		"`lockbench system check -o check.json` and --floor check.json).\n");
}

/*
 * Could point p not be assessed: marked `_` (results.h, unjudged: too
 * few runs, one invocation a side without a floor, or a test that could
 * not have seen a change of the gate's size), or a compared point whose
 * every run was left out (no verdict at all).
 */
static bool unassessed(const struct results *r, unsigned v, const struct point *p)
{
	return p->unjudged || (!results_is_base(r, v) && p->status == POINT_OK &&
			       !p->has_rel);
}

/* What would let the test see a change of pct at point p. */
static const char *gate_remedy(const struct results *r, const struct point *p, double pct,
			       char *buf, size_t len)
{
	double k = log1p(p->mde_pct / 100) / log1p(pct / 100);

	if (!p->has_rel)
		return "every run was left out for a busy machine: measure again on a "
		       "quieter machine";
	if (p->why == UNJ_ONE_INVOC)
		return "one invocation a side and no invocation floor: compare 2 or more "
		       "invocations per label, or run `lockbench system check -o "
		       "check.json` and give --floor check.json";
	if (p->why == UNJ_LEFT_OUT)
		return "runs were left out for a busy machine: measure on a quieter machine";
	if (p->why != UNJ_POWER)
		return "with fewer than 2 rounds or invocations a side: compare 2 or more "
		       "invocations per label, or runs with -r 2 or more";
	if (p->method == SIG_FLOOR && !(p->mde_pct > r->floor_pct))
		snprintf(buf, len, "the invocation floor is above it: a quieter machine "
			 "(a lower floor), or 2 or more invocations a side");
	else
		snprintf(buf, len, "about %.0fx the %s (%s), or a quieter machine",
			 ceil(k * k), p->method == SIG_INVOC || p->method == SIG_INVOC_PAIRED ?
			 "invocations a side" : "rounds", p->method == SIG_INVOC ||
			 p->method == SIG_INVOC_PAIRED ? "more files per label" : "-r");
	return buf;
}

/* One line: the points that could not be assessed against pct, the
 * first named with its smallest detectable change and the remedy. */
static void unassessed_line(const struct results *r, unsigned n, unsigned v, unsigned k,
			    double pct)
{
	const struct point *p = results_point(r, v, k);
	char row[64], det[64] = "", rel[32] = "no runs left", fix[256];

	if (p->has_rel)
		snprintf(rel, sizeof(rel), "%+.1f%%", p->rel);
	if (p->why == UNJ_POWER)
		snprintf(det, sizeof(det), ", smallest detectable change %.1f%%", p->mde_pct);
	fprintf(stderr, "lockbench: cannot assess: %u point%s could not show a change of "
		"%g%% (e.g. %s at %s %s: %s%s): %s\n", n, n == 1 ? "" : "s", pct,
		r->variants[v].name, r->row_heading, results_row_name(r, k, row, sizeof(row)),
		rel, det, gate_remedy(r, p, pct, fix, sizeof(fix)));
}

/*
 * --fail-if-regressed PCT: one line on stderr per point significantly
 * worse than its baseline by more than PCT (lower throughput, or a
 * higher value where lower is better), then exit status 4.  Else, when
 * some point could not be assessed (marked `_`: too few runs, one
 * invocation a side and no floor, or a test that could not have seen a
 * change of PCT, results.gate_pct; or no runs left), one line saying so,
 * the smallest change it could see and what would reach PCT, and exit
 * status 5: a gate never passes what it could not see.  0 when neither.
 */
static int regression_gate(const struct results *r, double pct)
{
	unsigned bad = 0, blind = 0, bv = 0, bk = 0;
	char row[64];

	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned k = 0; k < r->nrows; k++) {
			const struct point *p = results_point(r, v, k);
			bool lower = r->row_desc && r->row_desc[k].lower_better;
			double worse = lower ? p->rel : -p->rel;

			if (unassessed(r, v, p) && !blind++)
				bv = v, bk = k;
			if (!p->has_rel || !(worse > pct) || !p->significant)
				continue;
			fprintf(stderr, "lockbench: regression: %s at %s %s: %+.1f%% against "
				"%s (Holm-adjusted p %.2g)\n", r->variants[v].name,
				r->row_heading, results_row_name(r, k, row, sizeof(row)),
				p->rel, r->variants[results_base(r, v)].name, p->p_adj);
			bad++;
		}
	if (bad)
		return 4;
	if (blind)
		unassessed_line(r, blind, bv, bk, pct);
	return blind ? 5 : 0;
}

/*
 * The invocation floor of the comparison, in this order: --floor (a
 * system-check file or a percentage), --min-effect, the larger of the
 * floors the files recorded (run --floor; "from" names the file).
 * NULL when there is none.
 */
static json_t *pick_floor(const struct merge *m, const struct compare_args *a)
{
	const json_t *best = NULL;
	const char *from = NULL;
	json_t *f;

	if (a->floor) {
		f = floor_from_arg("floor", a->floor);
		for (unsigned i = 0; i < m->nin; i++)
			floor_check_host(f, m->in[i].r.machine, m->in[i].path);
		return f;
	}
	if (a->min_effect > 0)
		return json_pack("{s:f, s:s}", "rel_pct", a->min_effect * 100,
				 "source", "--min-effect");
	for (unsigned i = 0; i < m->nin; i++) {
		const json_t *g = m->in[i].r.inv_floor;
		double x = json_number_value(json_object_get(g, "rel_pct"));

		if (json_is_number(json_object_get(g, "rel_pct")) && x >= 0 &&
		    (!best || x > json_number_value(json_object_get(best, "rel_pct"))))
			best = g, from = m->in[i].path;
	}
	if (!best)
		return NULL;
	f = json_deep_copy(best);
	json_object_set_new(f, "from", json_string(from));
	return f;
}

/* PARAM of --rows as a key of config: an option's key (cs-ns: cs_ns,
 * long-hold: long_hold_ms), else PARAM with '_' for '-'. */
static void rows_key_of(const char *rows, char *key, size_t len)
{
	const struct opt *o = opt_find(run_options(), rows);

	if (o && o->list) {
		opt_param_key(o, key, len);
		return;
	}
	snprintf(key, len, "%s", rows);
	for (char *p = key; *p; p++)
		*p = *p == '-' ? '_' : *p;
}

/* ---- merge --------------------------------------------------------------- */

static const struct opt merge_rows[] = {
	{.name = "output", .sname = 'o', .type = OPT_STR, .arg = "FILE",
	 .shown = "stdout", .off = offsetof(struct compare_args, out.output),
	 .help = "write the merged JSON here"},
	{.name = "locks", .sname = 'l', .type = OPT_STR, .arg = "LIST",
	 .off = offsetof(struct compare_args, locks),
	 .help = "only these locks of each file"},
	OPT_HELP_ROW(struct compare_args, out.help),
};

const struct opt_cmd merge_options = OPT_CMD("merge", merge_rows);

void merge_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench merge [-o OUT.json] [-l LOCKS] A.json B.json ...\n"
		"Join saved results into one JSON document: the columns side by side\n"
		"(named as compare names them), the rows the union, each file's label,\n"
		"machine, configuration and provenance kept under config.files.\n");
	opt_help(&merge_options, f);
	fprintf(f, "Exit status: 0 success; 2 bad usage or input (e.g. different "
		"workloads).\n");
}

/* "note: the hosts differ in KEY: a X, b Y" when the files' values of
 * machine.KEY (or, with @calib, calibration.KEY) differ. */
static void hosts_note(const struct merge *m, FILE *f, const json_t **v, bool calib,
		       const char *key)
{
	char *line;

	for (unsigned i = 0; i < m->nin; i++) {
		json_t *o = calib ? m->in[i].r.calibration : m->in[i].r.machine;

		v[i] = json_object_get(o, key) ? json_object_get(o, key) : json_null();
	}
	line = merge_differ_line(m, v, JSON_COMPACT | JSON_REAL_PRECISION(6),
				 "note: the hosts differ in %s%s", calib ? "calibration." : "",
				 key);
	if (line)
		fprintf(f, "%s\n", line);
	free(line);
}

/*
 * The notes under a cross-host table (docs/fleet.md): one line per
 * machine fact (cpu_model, kernel, CPU counts) and per `calibration`
 * key (docs/json.md) whose value differs between the files, each
 * file's value after its label.  Nothing when they agree.
 */
static void hosts_notes(const struct merge *m, FILE *f)
{
	static const char *const mach[] = {
		"cpu_model", "kernel", "arch", "pus", "cores", "numa_nodes", "packages",
	};
	const json_t **v = cli_calloc(m->nin, sizeof(*v));
	json_t *keys = json_object(), *x;
	const char *key;

	for (unsigned i = 0; i < m->nin; i++)
		json_object_update(keys, m->in[i].r.calibration);
	for (size_t k = 0; k < sizeof(mach) / sizeof(mach[0]); k++)
		hosts_note(m, f, v, false, mach[k]);
	/* Every calibration key any file has, in the first file's order. */
	json_object_foreach(keys, key, x)
		hosts_note(m, f, v, true, key);
	json_decref(keys);
	free(v);
}

/*
 * The options and files of compare or merge (@cmd) into @a and @o:
 * merge writes JSON; compare renders as -f says.  NULL after --help.
 */
static char **parse(const struct opt_cmd *cmd, struct compare_args *a,
		    struct outputs *o, int argc, char **argv, int *n)
{
	char **files;

	opt_defaults(cmd, a);
	files = opt_parse(cmd, a, argc, argv, n);
	if (a->out.help) {
		(cmd == &merge_options ? merge_usage : compare_usage)(stdout);
		free(files);
		return NULL;
	}
	if (cmd == &merge_options && *n < 2)
		cli_die("merge: %s; usage: lockbench merge [-o OUT.json] A.json B.json ...",
			*n ? "one results file given, nothing to join" : "no results file given");
	if (cmd == &merge_options) {
		outputs_parse(o, "json", "ops/s", a->out.output, true);
		return files;
	}
	if (!*n)
		cli_die("compare: no results file given; usage: lockbench compare "
			"[-f FORMAT] [--baseline LABEL] A.json B.json ...");
	outputs_from_args(o, &a->out);
	/* --columns host, --rows cpu-share (docs/fleet.md). */
	if (a->columns && strcmp(a->columns, "host") && strcmp(a->columns, "label"))
		cli_die("--columns (%s): valid: label, host", a->columns);
	o->ropts.rows = a->rows && !strcmp(a->rows, "cpu-share") ? NULL : a->rows;
	return files;
}

/*
 * compare and merge: the files loaded, checked and joined by one model
 * (merge_load()), the statistics recomputed from the runs; compare judges
 * (the invocation floor, --fail-if-regressed) and renders, merge writes
 * the JSON.  The exit status (cmds.h).
 */
static int compare_or_merge(const struct opt_cmd *cmd, int argc, char **argv)
{
	struct compare_args a = {0};
	struct merge m;
	struct outputs o;
	struct results r;
	char **files, key[128] = "";
	int n, rc;

	files = parse(cmd, &a, &o, argc, argv, &n);
	if (!files)
		return 0;
	for (int i = 0; i < n; i++)
		infile_check("cannot read results", files[i]);
	if (a.rows)
		rows_key_of(a.rows, key, sizeof(key));
	m = (struct merge){.verb = cmd->name, .locks = a.locks, .rows = a.rows,
			   .rows_conf = key, .warn = cli_warn_msg, .hash = sha256_file,
			   .by_host = a.columns && !strcmp(a.columns, "host"),
			   .cpu_share = a.rows && !strcmp(a.rows, "cpu-share")};
	if (merge_load(&m, (unsigned)n, files, a.baseline, &r))
		cli_die_msg(m.err);
	/* argv[0] is the command word; main() passed argv + 1. */
	r.provenance = provenance_json(argc + 1, argv - 1, false, 0);
	r.min_effect = a.min_effect * 100;
	r.inv_floor = cmd == &compare_options ? pick_floor(&m, &a) : NULL;
	r.gate_pct = a.fail_given ? a.fail_pct * 100 : 0;
	results_finalize(&r);
	outputs_check(&o, &r);
	rc = outputs_write(&o, &r);
	if (!rc && (m.by_host || m.cpu_share))
		hosts_notes(&m, a.out.output ? stderr : stdout);
	if (!rc && a.fail_given)
		rc = regression_gate(&r, a.fail_pct * 100);
	results_free(&r);
	merge_free(&m);
	free(files);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	return compare_or_merge(&compare_options, argc, argv);
}

int cmd_merge(int argc, char **argv)
{
	return compare_or_merge(&merge_options, argc, argv);
}
