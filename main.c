/* SPDX-License-Identifier: MIT */
/*
 * lockbench - measure lock algorithms the way kernel lock developers
 * argue about them.
 *
 * main(): find the command (cli/help.c holds the command table), parse
 * its options (cli/options.c holds the one table of the run options),
 * load plugins, and hand over to the command's own file in cli/: run
 * (parse -> validate -> set up the machine -> run -> render -> restore),
 * list, topo, system, compare, import, help.
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "cli/cmds.h"
#include "cli/err.h"
#include "cli/options.h"
#include "cli/provenance.h"
#include "locks/plugin.h"
#include "output/results/json_read.h"
#include "topology/machine.h"
#include "topology/sysfs.h"

/* The command named by the first word that is not an option: run when
 * there is none (or it is no command: run refuses it).  The commands
 * that parse their own options (compare, merge, rerun, import,
 * locktorture, build-kernel-lock, help, completion) must come first. */
static const struct command *command_word(struct cli *c)
{
	const struct command *cmd = c->argc ? command_find(c->argv[0]) : NULL;

	if (cmd && !cmd->run)
		cli_die("%s: the command comes first: lockbench %s ...", cmd->name, cmd->name);
	if (!cmd)
		return command_find("run");
	c->argc--;
	c->argv++;
	return cmd;
}

/*
 * The stack lockbench needs.  Its deepest path, a kernel tree's build,
 * takes about 160 KiB (measured: it dies under `ulimit -s 128`, not
 * 160), and worker threads get stacks of the same limit (glibc's
 * default for pthread_create): 512 KiB leaves a margin of three.
 */
#define STACK_NEED_KIB 512

/* Append s to buf (of size cap) at n; the new length. */
static size_t msg_add(char *buf, size_t n, size_t cap, const char *s)
{
	while (*s && n + 1 < cap)
		buf[n++] = *s++;
	return n;
}

static size_t msg_num(char *buf, size_t n, size_t cap, unsigned long long v)
{
	char d[24];
	unsigned k = sizeof(d) - 1;

	d[k] = 0;
	do
		d[--k] = (char)('0' + v % 10);
	while ((v /= 10) && k);
	return msg_add(buf, n, cap, d + k);
}

/*
 * A stack limit below that is refused at once, with one line, rather
 * than die by SIGSEGV somewhere later (a segfault in machine_describe
 * under `ulimit -s 32`), for every command alike.  The line is made by
 * hand and written with write(2): under `ulimit -s 16` printf's own
 * frames overflow the stack (every command died by SIGSEGV writing it).
 * Called from a main() that has no large locals of its own.
 */
static void stack_check(void)
{
	struct rlimit rl;
	char m[192];
	size_t n;

	if (getrlimit(RLIMIT_STACK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= (rlim_t)STACK_NEED_KIB * 1024)
		return;
	n = msg_add(m, 0, sizeof(m), "lockbench: the stack limit (ulimit -s) is ");
	n = msg_num(m, n, sizeof(m), (unsigned long long)rl.rlim_cur / 1024);
	n = msg_add(m, n, sizeof(m), " KiB; lockbench needs at least ");
	n = msg_num(m, n, sizeof(m), STACK_NEED_KIB);
	n = msg_add(m, n, sizeof(m), " KiB: raise it (e.g. ulimit -s 8192)\n");
	if (write(STDERR_FILENO, m, n) < 0)
		_exit(2);
	_exit(2);
}

static int __attribute__((noinline)) lockbench_main(int argc, char **argv)
{
	const struct command *cmd = argc > 1 ? command_find(argv[1]) : NULL;
	struct cli c;
	char err[PATH_MAX + 512];
	int rc;

	/* A closed stdout fails the write (checked, one line), not the process. */
	signal(SIGPIPE, SIG_IGN);
	if (getenv("LOCKBENCH_MAX_INPUT") &&
	    input_limit_parse(getenv("LOCKBENCH_MAX_INPUT"), &(size_t){0}))
		cli_die("LOCKBENCH_MAX_INPUT (%s): not a size of 1K or more "
			"(bytes, or with K, M, G)", getenv("LOCKBENCH_MAX_INPUT"));
	if (cmd && cmd->parse)
		return cmd->parse(argc - 1, argv + 1);
	cli_parse(&c, argc, argv);
	if (c.help || c.version) {
		if (c.help)
			cli_usage(stdout);
		else
			printf("lockbench %s\n", provenance_version());
		cli_free(&c);
		return 0;
	}
	cmd = command_word(&c);
	/* A command refuses the run options it does not read, before it
	 * loads a plugin or touches the machine. */
	if (cmd->opts)
		cli_only(&c, cmd->name, cmd->opts);
	sysfs_set_root(getenv("LOCKBENCH_SYSROOT"));
	machine_set_state_path(getenv("LOCKBENCH_STATE"));
	if (plugins_load(c.plugins.v, c.plugins.n, err, sizeof(err)))
		cli_die_msg(err);
	ktrees_load(&c);
	rc = cmd->run(&c);
	cli_free(&c);
	return rc;
}

int main(int argc, char **argv)
{
	stack_check();
	return lockbench_main(argc, argv);
}
