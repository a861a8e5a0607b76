/* SPDX-License-Identifier: MIT */
/*
 * The command table, `lockbench help [CMD]`, and the bash completion
 * script (`lockbench help completion`, installed by `make install`),
 * generated from the option tables and the registries so it cannot
 * drift from the binary.
 */
#include <stdio.h>
#include <string.h>

#include "../locks/registry.h"
#include "../output/render/render.h"
#include "../workloads/workload.h"
#include "cmds.h"
#include "err.h"
#include "suggest.h"

static const char *const list_opts[] = {"verbose", "include-broken", "plugin", "kernel-tree",
					NULL};
/* The run options each of these reads; cli_only() refuses the others
 * (system refines them per subcommand, system.c). */
static const char *const topo_opts[] = {"topology", "placement", "threads", "isolated",
					"c2c", "format", NULL};
static const char *const system_opts[] = {"format", "freq", "numa-balancing", "no-tune",
					  "dry-run", "output", "duration", "topology", NULL};

const struct command commands[] = {
	{"run", "[run] [options]", "run the sweep (the default command)", NULL, cmd_run, NULL},
	{"list", "list [locks|workloads|formats|placements] [-v] [--plugin FILE] [--kernel-tree DIR]",
	 "the lock catalogue, workloads, output formats and placement policies",
	 NULL, cmd_list, list_opts},
	{"topo", "topo [--topology SPEC] [-p POLICY] [-t N] [--c2c] [-f json]",
	 "the machine as lockbench sees it, and where -t N threads go under -p",
	 NULL, cmd_topo, topo_opts},
	{"system", "system [show|tune|reset|check] [-f json] [--freq F] [--numa-balancing M] [--dry-run]",
	 "the machine's noise sources; tune, reset; check what it can measure",
	 NULL, cmd_system, system_opts},
	{"compare", "compare [-f FORMAT] [--baseline LABEL] [-l LOCKS] A.json B.json ...",
	 "saved runs side by side", cmd_compare, NULL, NULL},
	{"merge", "merge [-o OUT.json] [-l LOCKS] A.json B.json ...",
	 "join saved results into one JSON document", cmd_merge, NULL, NULL},
	{"rerun", "rerun FILE.json [options]",
	 "run the command a results file records again (same seed, no -o)",
	 cmd_rerun, NULL, NULL},
	{"import", "import locktorture [--label L] [--nwriters N] [-o OUT.json] dmesg.log ...",
	 "kernel locktorture logs as lockbench results", cmd_import, NULL, NULL},
	{"locktorture", "locktorture [-t LIST] [--torture-type T] [-r N] [-o OUT.json]",
	 "run the kernel's locktorture module, placed and frozen like a sweep",
	 cmd_locktorture, NULL, NULL},
	{"build-kernel-lock", "build-kernel-lock DIR [--lock L] [-o FILE.so]",
	 "compile a kernel tree's own lock source into a plugin (cached)",
	 cmd_build_kernel_lock, NULL, NULL},
	{"help", "help [COMMAND | completion]",
	 "this list, a command's options, or the bash completion script",
	 cmd_help, NULL, NULL},
	{"completion", "completion [bash]",
	 "the bash completion script (as 'help completion')",
	 cmd_completion, NULL, NULL},
};
const unsigned ncommands = sizeof(commands) / sizeof(commands[0]);

const struct command *command_find(const char *name)
{
	for (unsigned i = 0; i < ncommands; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void help_overview(FILE *f)
{
	int w = 0;

	for (unsigned i = 0; i < ncommands; i++)
		w = (int)strlen(commands[i].name) > w ? (int)strlen(commands[i].name) : w;
	fprintf(f, "usage: lockbench COMMAND [options]\n\n");
	for (unsigned i = 0; i < ncommands; i++)
		fprintf(f, "  %-*s %s\n", w, commands[i].name, commands[i].summary);
	fprintf(f, "\n'lockbench help COMMAND' shows a command's options; "
		"'lockbench --help' those of run.\n");
}

/*
 * A row of run's option table as another command takes it: topo's -t is
 * one thread count (cli/topo.c), and topo and system take -f json only.
 */
static void cmd_opt_row(const struct command *c, const struct opt *o, FILE *f)
{
	struct opt row = *o;

	if (!strcmp(c->name, "topo") && !strcmp(o->name, "threads")) {
		row.arg = "N";
		row.help = "one thread count, or max: where that many threads go under -p";
		row.def = row.shown = NULL;
	} else if (!strcmp(o->name, "format")) {
		row.arg = "json";
		row.help = "print it as JSON";
		row.def = row.shown = NULL;
	} else if (!strcmp(c->name, "system") && !strcmp(o->name, "dry-run")) {
		row.help = "tune: print what it would change, and change nothing";
	} else if (!strcmp(c->name, "system") && (!strcmp(o->name, "output") ||
		   !strcmp(o->name, "duration") || !strcmp(o->name, "topology"))) {
		return;	/* system check's alone: its usage below lists them */
	}
	opt_help_row(&row, f);
}

static void help_command(const struct command *c, FILE *f)
{
	if (!strcmp(c->name, "run"))
		cli_usage(f);
	else if (!strcmp(c->name, "compare"))
		compare_usage(f);
	else if (!strcmp(c->name, "merge"))
		merge_usage(f);
	else if (!strcmp(c->name, "import"))
		import_usage(f);
	else if (!strcmp(c->name, "locktorture"))
		locktorture_usage(f);
	else if (!strcmp(c->name, "build-kernel-lock"))
		bkl_usage(f);
	else if (!strcmp(c->name, "help"))
		help_overview(f);
	else {
		fprintf(f, "usage: lockbench %s\n%s.\n\n", c->usage, c->summary);
		for (unsigned k = 0; c->opts && c->opts[k]; k++)
			cmd_opt_row(c, opt_find(run_options(), c->opts[k]), f);
		if (!strcmp(c->name, "system"))
			system_check_usage(f);
	}
}

/* ---- bash completion ---------------------------------------------------- */

/* "--a -b --c" of a table. */
static void words_of(const struct opt_cmd *c, FILE *f)
{
	for (unsigned i = 0; i < c->n; i++) {
		fprintf(f, "%s--%s", i ? " " : "", c->opts[i].name);
		if (c->opts[i].sname)
			fprintf(f, " -%c", c->opts[i].sname);
	}
}

/* Options that take a value, as a case pattern "--a|-b|--c". */
static void valued_of(const struct opt_cmd *c, FILE *f)
{
	bool first = true;

	for (unsigned i = 0; i < c->n; i++) {
		if (!c->opts[i].arg)
			continue;
		fprintf(f, "%s--%s", first ? "" : "|", c->opts[i].name);
		if (c->opts[i].sname)
			fprintf(f, "|-%c", c->opts[i].sname);
		first = false;
	}
}

/* The values of the run options that have a fixed set, one case each. */
static void values_of_run(FILE *f)
{
	fprintf(f, "\t--locks|-l|--baseline) _lockbench_list \"");
	for (unsigned i = 0; i < lock_registry_count(); i++)
		if (!(lock_registry_at(i)->ops->caps & LOCK_CAP_BROKEN))
			fprintf(f, "%s%s", i ? " " : "", lock_registry_at(i)->ops->name);
	fprintf(f, "\"; return ;;\n\t--workload|-w) _lockbench_list \"");
	for (unsigned i = 0; workloads[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", workloads[i]->name);
	fprintf(f, "\"; return ;;\n\t--format|-f) _lockbench_list \"");
	for (unsigned i = 0; formats[i].name; i++)
		fprintf(f, "%s%s", i ? " " : "", formats[i].name);
	fprintf(f, "\"; return ;;\n");
	for (unsigned i = 0; i < run_options()->n; i++) {
		const struct wl_option *w = cli_wl_option(&run_options()->opts[i]);

		if (!w || w->type != WL_OPT_VARIANTS)
			continue;
		fprintf(f, "\t--%s) _lockbench_list \"", w->name);
		for (unsigned k = 0; k < w->nchoices; k++)
			fprintf(f, "%s%s", k ? " " : "", w->choices[k]);
		fprintf(f, "\"; return ;;\n");
	}
	for (unsigned i = 0; i < run_options()->n; i++) {
		const struct opt *o = &run_options()->opts[i];

		if (!o->choices)
			continue;
		fprintf(f, "\t--%s) COMPREPLY=($(compgen -W \"", o->name);
		for (unsigned k = 0; o->choices[k]; k++)
			fprintf(f, "%s%s", k ? " " : "", o->choices[k]);
		fprintf(f, "\" -- \"$cur\")); return ;;\n");
	}
	fprintf(f, "\t--placement|-p) COMPREPLY=($(compgen -W \"cores smt spread node: "
		"cpus: none\" -- \"$cur\")); return ;;\n"
		"\t--output|-o|--resume|--topology|--plugin) COMPREPLY=($(compgen -f -- "
		"\"$cur\")); return ;;\n"
		"\t--kernel-tree) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n");
}

/* The case of a command with its own table: a value after an option
 * that takes one is a file; then options, or files (filter). */
static void own_table(FILE *f, const struct opt_cmd *c, const char *extra,
		      const char *filter)
{
	fprintf(f, "\t%s)\n\t\tcase $prev in ", c->name);
	valued_of(c, f);
	fprintf(f, ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n%s\t\tesac\n"
		"\t\t[[ $cur == -* ]] && COMPREPLY=($(compgen -W \"", extra);
	words_of(c, f);
	fprintf(f, "\" -- \"$cur\")) || COMPREPLY=($(compgen -f %s-- \"$cur\"))\n"
		"\t\treturn ;;\n", filter);
}

static void completion(FILE *f)
{
	fprintf(f, "# bash completion for lockbench, generated by "
		"'lockbench help completion'\n"
		"# from its option tables: do not edit.\n\n"
		"# Complete the last item of a comma-separated list from the words $1.\n"
		"_lockbench_list() {\n"
		"\tlocal head=\"\" last=\"$cur\"\n"
		"\tcase $cur in *,*) head=\"${cur%%,*},\"; last=\"${cur##*,}\" ;; esac\n"
		"\tCOMPREPLY=($(compgen -P \"$head\" -W \"$1\" -- \"$last\"))\n"
		"}\n\n"
		"_lockbench() {\n"
		"\tlocal cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		"\tlocal cmd=run w\n"
		"\tfor w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n"
		"\t\tcase $w in");
	for (unsigned i = 0; i < ncommands; i++)
		fprintf(f, "%s%s", i ? "|" : " ", commands[i].name);
	fprintf(f, ") cmd=$w; break ;; esac\n\tdone\n\tcase $cmd in\n");
	own_table(f, &compare_options, "", "-X '!*.json' ");
	own_table(f, &merge_options, "", "-X '!*.json' ");
	own_table(f, &import_options,
		  "\t\timport) COMPREPLY=($(compgen -W locktorture -- \"$cur\")); return ;;\n", "");
	own_table(f, &locktorture_options, "", "");
	own_table(f, &bkl_options, "\t\t--lock) COMPREPLY=($(compgen -W \"qspinlock qrwlock "
		  "osq\" -- \"$cur\")); return ;;\n", "-d ");
	fprintf(f, "\thelp) COMPREPLY=($(compgen -W \"");
	for (unsigned i = 0; i < ncommands; i++)
		fprintf(f, "%s ", commands[i].name);
	fprintf(f, "\" -- \"$cur\")); return ;;\n"
		"\tlist) [[ $cur != -* ]] && COMPREPLY=($(compgen -W \"locks workloads formats "
		"placements\" -- \"$cur\")) && return ;;\n"
		"\tsystem) [[ $cur != -* ]] && COMPREPLY=($(compgen -W \"show tune reset check\" "
		"-- \"$cur\")) && return ;;\n\tesac\n\tcase $prev in\n");
	values_of_run(f);
	fprintf(f, "\t");
	valued_of(run_options(), f);
	fprintf(f, ") return ;;\n\tesac\n\tif [[ $cur == -* ]]; then\n"
		"\t\tCOMPREPLY=($(compgen -W \"");
	words_of(run_options(), f);
	fprintf(f, "\" -- \"$cur\"))\n\telif [[ $cmd == run ]]; then\n"
		"\t\tCOMPREPLY=($(compgen -W \"");
	for (unsigned i = 0; i < ncommands; i++)
		fprintf(f, "%s%s", i ? " " : "", commands[i].name);
	fprintf(f, "\" -- \"$cur\"))\n\tfi\n}\ncomplete -F _lockbench lockbench\n");
}

int cmd_completion(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		help_command(command_find("completion"), stdout);
		return 0;
	}
	if (argc > 2 || (argc == 2 && strcmp(argv[1], "bash")))
		cli_die("completion (%s): valid: bash", argv[argc > 2 ? 2 : 1]);
	completion(stdout);
	return 0;
}

int cmd_help(int argc, char **argv)
{
	const struct command *c;
	const char *names[16];
	unsigned n = 0;

	if (argc < 2) {
		help_overview(stdout);
		return 0;
	}
	if (argc > 2)
		cli_die("help: unexpected argument (%s)", argv[2]);
	if (!strcmp(argv[1], "completion")) {
		completion(stdout);
		return 0;
	}
	c = command_find(argv[1]);
	if (!c) {
		for (; n < ncommands && n < 16; n++)
			names[n] = commands[n].name;
		cli_die_unknown("command", argv[1], names, n, NULL);
	}
	help_command(c, stdout);
	return 0;
}
