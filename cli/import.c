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
	{.name = "label", .type = OPT_STR, .arg = "L",
	 .off = F(label),
	 .help = "name of these runs (e.g. the kernel) in compare"},
	{.name = "output", .sname = 'o', .type = OPT_STR, .arg = "FILE",
	 .off = F(output),
	 .help = "write the JSON (or the only format) here"},
	{.name = "format", .sname = 'f', .type = OPT_STR, .arg = "LIST",
	 .def = "json", .off = F(formats),
	 .help = "json, table, box, lkp, speedup, csv"},
	{.name = "unit", .type = OPT_STR, .arg = "UNIT",
	 .def = "kops/s", .off = F(unit),
	 .help = "ops/s, kops/s, Mops/s or jpm"},
	{.name = "no-marks", .type = OPT_FLAG,
	 .off = F(no_marks),
	 .help = "no ? ~ * - marks and notes"},
	{.name = "quiet", .sname = 'q', .type = OPT_FLAG,
	 .off = F(quiet),
	 .help = "no warnings about skipped runs"},
	{.name = "help", .sname = 'h', .type = OPT_FLAG, .off = F(help),
	 .help = "this help"},
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
