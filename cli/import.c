/* SPDX-License-Identifier: MIT */
/*
 * `lockbench import locktorture [options] dmesg.log ...`: kernel
 * locktorture logs as lockbench results (output/import.c builds the
 * model), written like a run's (JSON by default).
 */
#include <stdlib.h>
#include <string.h>

#include "../output/import.h"
#include "cmds.h"
#include "err.h"
#include "opt.h"
#include "outfile.h"

struct import_args {
	const char *label, *output, *formats, *unit;
	bool no_marks, quiet, help;
};

#define F(field) offsetof(struct import_args, field)

static const struct opt import_rows[] = {
	{"label", 0, OPT_STR, "L", NULL, NULL, 0, 0, F(label), 0, NULL, NULL,
	 "name of these runs (e.g. the kernel) in compare", NULL},
	{"output", 'o', OPT_STR, "FILE", NULL, NULL, 0, 0, F(output), 0, NULL, NULL,
	 "write the JSON (or the only format) here", NULL},
	{"format", 'f', OPT_STR, "LIST", "json", NULL, 0, 0, F(formats), 0, NULL, NULL,
	 "json, table, box, lkp, speedup, csv", NULL},
	{"unit", 0, OPT_STR, "UNIT", "kops/s", NULL, 0, 0, F(unit), 0, NULL, NULL,
	 "ops/s, kops/s, Mops/s or jpm", NULL},
	{"no-marks", 0, OPT_FLAG, NULL, NULL, NULL, 0, 0, F(no_marks), 0, NULL, NULL,
	 "no ? ~ * - marks and notes", NULL},
	{"quiet", 'q', OPT_FLAG, NULL, NULL, NULL, 0, 0, F(quiet), 0, NULL, NULL,
	 "no warnings about skipped runs", NULL},
	{"help", 'h', OPT_FLAG, NULL, NULL, NULL, 0, 0, F(help), 0, NULL, NULL,
	 "this help", NULL},
};

const struct opt_cmd import_options = {"import", import_rows,
				       sizeof(import_rows) / sizeof(import_rows[0])};

void import_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench import locktorture [options] dmesg.log ...\n"
		"Kernel locktorture logs as lockbench results (JSON by default): one\n"
		"run per log run, rows nwriters_stress, one column per torture_type.\n");
	opt_help(&import_options, f);
}

/* The words after the options: "locktorture" and at least one log. */
static void import_check_words(char **w, int n)
{
	if (!n)
		cli_die("import: what to import? valid: locktorture; usage: lockbench "
			"import locktorture [--label L] [-o OUT.json] dmesg.log ...");
	if (strcmp(w[0], "locktorture"))
		cli_die("import: unknown source (%s): valid: locktorture", w[0]);
	if (n == 1)
		cli_die("import locktorture: no log given; usage: lockbench import "
			"locktorture [--label L] [-o OUT.json] dmesg.log ...");
}

int cmd_import(int argc, char **argv)
{
	struct import_args a = {0};
	struct results r;
	struct outputs o;
	char err[512], **w;
	int n, rc;

	opt_defaults(&import_options, &a);
	w = opt_parse(&import_options, &a, argc, argv, &n);
	if (a.help) {
		import_usage(stdout);
		free(w);
		return 0;
	}
	import_check_words(w, n);
	outputs_parse(&o, a.formats, a.unit, a.output, !a.no_marks);
	if (import_locktorture((const char *const *)w + 1, (unsigned)(n - 1), a.label,
			       &r, a.quiet ? NULL : stderr, err, sizeof(err)))
		cli_die_msg(err);
	results_finalize(&r);
	outputs_check(&o, &r);
	rc = outputs_write(&o, &r);
	results_free(&r);
	free(w);
	return rc;
}
