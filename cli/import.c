/* SPDX-License-Identifier: MIT */
/*
 * `lockbench import locktorture [options] dmesg.log ...`: kernel
 * locktorture logs as lockbench results (output/import.c builds the
 * model), written like a run's (JSON by default).
 */
#include <stdlib.h>
#include <string.h>

#include "../output/results/import.h"
#include "cmds.h"
#include "err.h"
#include "opt.h"
#include "outfile.h"

struct import_args {
	struct output_args out;
	const char *label;
	bool quiet;
};

static const struct opt import_rows[] = {
	{.name = "label", .type = OPT_STR, .arg = "L",
	 .off = offsetof(struct import_args, label),
	 .help = "name of these runs (e.g. the kernel) in compare"},
	{.name = "quiet", .sname = 'q', .type = OPT_FLAG,
	 .off = offsetof(struct import_args, quiet),
	 .help = "no warnings about skipped runs"},
	OUTPUT_ROWS(struct import_args, out, "json"),
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
	if (a.out.help) {
		import_usage(stdout);
		free(w);
		return 0;
	}
	import_check_words(w, n);
	outputs_parse(&o, a.out.formats, a.out.unit, a.out.output, !a.out.no_marks);
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
