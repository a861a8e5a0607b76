/* SPDX-License-Identifier: MIT */
/*
 * lockbench - measure lock algorithms the way kernel lock developers
 * argue about them.
 *
 * main(): pick the command, parse its options (cli/options.c holds the
 * one option table), load plugins, and hand over to the command's file
 * in cli/: run (parse -> validate -> set up the machine -> run -> render
 * -> restore), list, topo, system, compare, import.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cmds.h"
#include "cli/err.h"
#include "cli/options.h"
#include "locks/plugin.h"
#include "topology/machine.h"
#include "topology/sysfs.h"

/* Commands that parse the run options; compare and import have theirs. */
static const char *const commands[] = {"run", "list", "topo", "system"};

static int run_command(const char *cmd, struct cli *c)
{
	if (!strcmp(cmd, "list"))
		return cmd_list(c->argc ? c->argv[0] : NULL, c->argc > 1 ? c->argv[1] : NULL,
				c->verbose, c->include_broken);
	if (!strcmp(cmd, "topo"))
		return cmd_topo(c);
	if (!strcmp(cmd, "system"))
		return cmd_system(c);
	return cmd_run(c);
}

/* The command word, if the first positional word is one. */
static const char *command_word(struct cli *c)
{
	for (unsigned i = 0; c->argc && i < sizeof(commands) / sizeof(*commands); i++)
		if (!strcmp(c->argv[0], commands[i])) {
			c->argc--;
			return *c->argv++;
		}
	return "run";
}

int main(int argc, char **argv)
{
	struct cli c;
	const char *cmd;
	char err[PATH_MAX + 512];
	int rc;

	if (argc > 1 && !strcmp(argv[1], "compare"))
		return cmd_compare(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "import"))
		return cmd_import(argc - 1, argv + 1);
	cli_parse(&c, argc, argv);
	if (c.help || c.version) {
		if (c.help)
			cli_usage(stdout);
		else
			printf("lockbench %s\n", LOCKBENCH_VERSION);
		cli_free(&c);
		return 0;
	}
	sysfs_set_root(getenv("LOCKBENCH_SYSROOT"));
	machine_set_state_path(getenv("LOCKBENCH_STATE"));
	if (plugins_load(c.plugins.v, c.plugins.n, err, sizeof(err)))
		cli_die_msg(err);
	cmd = command_word(&c);
	rc = run_command(cmd, &c);
	cli_free(&c);
	return rc;
}
