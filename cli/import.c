/* SPDX-License-Identifier: MIT */
/*
 * `lockbench import locktorture [options] dmesg.log ...`: kernel
 * locktorture logs as lockbench results (kernel/locktorture/import.c
 * builds the model), written like a run's (JSON by default).
 */
#include <stdlib.h>
#include <string.h>

#include "../kernel/locktorture/import.h"
#include "cmds.h"
#include "err.h"
#include "infile.h"
#include "opt.h"
#include "outfile.h"
#include "provenance.h"

struct import_args {
	struct output_args out;
	const char *label, *type;
	unsigned long long nwriters, nreaders, stat_interval;
	double duration;
	bool quiet, nwriters_given, nreaders_given, stat_interval_given;
};

#define IA(field) offsetof(struct import_args, field)
#define IG(field) OPT_GIVEN(struct import_args, field)

static const struct opt import_rows[] = {
	{.name = "label", .type = OPT_STR, .arg = "L",
	 .off = IA(label),
	 .help = "name of these runs (e.g. the kernel) in compare"},
	{.name = "nwriters", .type = OPT_UINT, .arg = "N", .min = 1, .max = 1000000,
	 .off = IA(nwriters), .given = IG(nwriters_given),
	 .help = "nwriters_stress of runs whose log does not say (no Start or End line)",
	 .group = "What a log lacks (used only where the log does not say)"},
	{.name = "nreaders", .type = OPT_UINT, .arg = "N", .max = 1000000,
	 .off = IA(nreaders), .given = IG(nreaders_given),
	 .help = "nreaders_stress of those runs"},
	{.name = "torture-type", .type = OPT_STR, .arg = "T", .off = IA(type),
	 .help = "torture_type of those runs (spin_lock, rtmutex_lock, ...)"},
	{.name = "stat-interval", .type = OPT_UINT, .arg = "S", .min = 1, .max = 86400,
	 .off = IA(stat_interval), .given = IG(stat_interval_given),
	 .help = "stat_interval (s) of those runs, for logs without timestamps"},
	{.name = "duration", .type = OPT_SECONDS, .arg = "S", .min = 0.001, .max = 1e7,
	 .off = IA(duration),
	 .help = "length of runs that print only final totals, for logs without "
		 "a timestamped Start line (e.g. locktorture.sh's 30)"},
	{.name = "quiet", .sname = 'q', .type = OPT_FLAG,
	 .off = offsetof(struct import_args, quiet),
	 .help = "no warnings about skipped runs"},
	OUTPUT_ROWS(struct import_args, out, "json"),
};

const struct opt_cmd import_options = OPT_CMD("import", import_rows);

void import_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench import locktorture [options] dmesg.log ...\n"
		"Kernel locktorture logs as lockbench results (JSON by default): one\n"
		"run per log run, rows nwriters_stress, one column per torture_type.\n"
		"A run reporting Fail > 0 is FAILED and the exit status 1.\n");
	opt_help(&import_options, f);
}

/* What a torture_type name is made of (it also goes into module parameters). */
#define TYPE_CHARS "abcdefghijklmnopqrstuvwxyz_0123456789"

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
	struct import_fill fill = {0};
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
	if (a.type && (!*a.type || strlen(a.type) > 60 ||
		       strspn(a.type, TYPE_CHARS) != strlen(a.type)))
		cli_die("--torture-type (%s): not a locktorture type name (e.g. spin_lock, "
			"rtmutex_lock)", a.type);
	outputs_from_args(&o, &a.out);
	fill.nwriters = a.nwriters_given ? (int)a.nwriters : -1;
	fill.nreaders = a.nreaders_given ? (int)a.nreaders : -1;
	fill.stat_interval = a.stat_interval_given ? (int)a.stat_interval : -1;
	fill.type = a.type;
	fill.duration = a.duration;
	cli_utf8_or_die("--label", a.label);
	for (int i = 1; i < n; i++)
		infile_check("cannot import", w[i]);
	if (import_locktorture((const char *const *)w + 1, (unsigned)(n - 1), a.label,
			       &fill, &r, a.quiet ? NULL : stderr, err, sizeof(err)))
		cli_die_msg(err);
	/* argv[0] is the command word; main() passed argv + 1. */
	r.provenance = provenance_json(argc + 1, argv - 1, false, 0);
	results_finalize(&r);
	outputs_check(&o, &r);
	rc = outputs_write(&o, &r);
	if (!rc)
		rc = import_status(&r, stderr);
	results_free(&r);
	free(w);
	return rc;
}
