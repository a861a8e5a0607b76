/* SPDX-License-Identifier: MIT */
/*
 * `lockbench system show|tune|reset|check`: the machine's noise sources,
 * the settings a run would make (kept until reset), their undoing, and
 * what this machine can measure (syscheck.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "../kernel/locktorture/kmod.h"
#include "../output/render/render.h"
#include "../topology/machine.h"
#include "cmds.h"
#include "err.h"
#include "syscheck.h"

/* The machine's report on stdout, its text (a host name, a CPU model,
 * sysfs values) terminal-safe (render_safe_stream()); 0 or -1. */
static int safe_report(const json_t *d)
{
	FILE *t = render_safe_stream(stdout);
	int rc;

	if (!t)
		return -1;
	rc = render_machine_report(d, t);
	return fclose(t) || rc < 0 ? -1 : rc;
}

/* The description as the report, or with -f json as the JSON every run
 * records (machine.state_before; its environment part is also
 * machine.environment, docs/json.md). */
static int system_show(bool json)
{
	json_t *d = machine_describe(NULL, 0);
	char cmd[PATH_MAX + 64], why[PATH_MAX + 256];
	int rc;

	if (!d) {
		cli_warn("system show: cannot describe the machine: out of memory");
		return 1;
	}
	rc = machine_state_probe(why, sizeof(why));
	if (rc < 0)
		cli_warn_msg(why);
	else if (rc > 0)
		cli_warn("machine state (%s): settings changed by a lockbench that "
			 "has not restored them (running, killed, or 'system tune'); "
			 "restore them with: %s", machine_state_path(),
			 machine_reset_command(cmd, sizeof(cmd)));
	if (json)
		rc = json_dumpf(d, stdout, JSON_INDENT(2)) || putchar('\n') == EOF ? -1 : 0;
	else
		rc = safe_report(d);
	json_decref(d);
	return rc < 0 ? 1 : 0;
}

/* `system tune --dry-run`: what tune would change, changing nothing. */
static int system_tune_plan(const struct machine_req *req)
{
	json_t *plan = NULL, *e;
	char msg[512] = "", why[PATH_MAX + 256];
	int rc = machine_tune_plan(req, NULL, 0, &plan, msg, sizeof(msg)), state;
	size_t i;

	if (*msg)
		cli_warn_msg(msg);
	printf("lockbench: system tune --dry-run: %zu setting%s would change "
	       "(nothing changed)\n", plan ? json_array_size(plan) : 0,
	       plan && json_array_size(plan) == 1 ? "" : "s");
	json_array_foreach(plan, i, e)
		printf("  %s: %s -> %s\n", json_string_value(json_object_get(e, "path")),
		       json_is_string(json_object_get(e, "old")) ?
		       json_string_value(json_object_get(e, "old")) : "(none)",
		       json_string_value(json_object_get(e, "new")));
	state = machine_state_probe(why, sizeof(why));
	if (state < 0)
		cli_warn_msg(why);
	else if (state > 0)
		cli_warn("machine state (%s): left by another lockbench; 'system tune' "
			 "would refuse until 'lockbench system reset'", machine_state_path());
	json_decref(plan);
	return rc < 0 ? 3 : 0;
}

static int system_tune(const struct machine_req *req)
{
	json_t *changes = NULL;
	char msg[512] = "", why[PATH_MAX + 256], cmd[PATH_MAX + 64];
	int rc = machine_state_probe(why, sizeof(why));

	/* tuning is what was asked: a state file it cannot claim is a
	 * refusal, not "0 settings changed" */
	if (rc < 0) {
		cli_warn("%s; nothing tuned", why + strlen("lockbench: "));
		return 2;
	}
	if (rc > 0) {
		cli_warn("machine state (%s): left by another lockbench (running, killed, "
			 "or 'system tune'); nothing tuned; restore it with: %s",
			 machine_state_path(), machine_reset_command(cmd, sizeof(cmd)));
		return 3;
	}
	rc = machine_tune(req, NULL, 0, &changes, msg, sizeof(msg));
	if (*msg)
		cli_warn_msg(msg);
	if (rc < 0)
		return 3;
	machine_tune_persist();
	printf("lockbench: machine tuned (%zu setting%s changed); undo with "
	       "'lockbench system reset'\n", changes ? json_array_size(changes) : 0,
	       (changes ? json_array_size(changes) : 0) == 1 ? "" : "s");
	json_decref(changes);
	return 0;
}

static int system_reset(void)
{
	char msg[512] = "";
	/* Undo in the reverse order of a run: the module, then the machine. */
	int rc = kmod_reset_from_state(msg, sizeof(msg));

	if (*msg)
		fprintf(rc ? stderr : stdout, "%s\n", msg);
	if (rc)
		return rc == -EINVAL ? 2 : 1;
	msg[0] = '\0';
	rc = machine_reset_from_state(msg, sizeof(msg));
	if (*msg)
		fprintf(rc ? stderr : stdout, "%s\n", msg);
	/* Not a state file lockbench wrote, or not for this root: bad input. */
	return rc == -EINVAL ? 2 : rc ? 1 : 0;
}

void system_check_usage(FILE *f)
{
	fprintf(f,
		"\nusage: lockbench system check [-f table|json|table,json] [-o FILE] [-d S] [-q]\n"
		"Measure, in about 40 s and changing nothing on the machine, what the\n"
		"numbers depend on here: the clock's read cost and tick, cpu_relax(), the\n"
		"empty loop, the shortest delay held within 5%%, the core-to-core round\n"
		"trip by distance class (probed again and again), the 1-thread\n"
		"run-to-run spread of tas, the invocation floor (the spread between 12\n"
		"separate invocations), the time the host takes from each CPU without\n"
		"reporting it as steal, steal and the hypervisor; then one line per\n"
		"finding (\"1-thread differences below X%% are not resolvable here\").\n\n"
		"    -f, --format FORMAT          table (the text report), json, or table,json\n"
		"                                 (the text on stdout, the JSON to -o) [table]\n"
		"    -o, --output FILE            write the report to FILE (FILE.json: the JSON) [stdout]\n"
		"    -d, --duration S             the window of each of its short runs, at most 1 [0.1]\n"
		"    -q, --quiet                  no progress on stderr\n"
		"\nExit status: 0; 1 a measure could not be taken (the report says which);\n"
		"2 bad usage, or -o could not be written (the report follows on stdout);\n"
		"5 the invocation floor was refused (the machine was busy: one line on\n"
		"stderr says so whatever -q and -o say, and the JSON's floor.refused).\n");
}

int cmd_system(const struct cli *c)
{
	static const char *const show[] = {"format", NULL};
	static const char *const tune[] = {"freq", "numa-balancing", "no-tune", "dry-run",
					   NULL};
	static const char *const check[] = {"format", "output", "duration", "topology", NULL};
	const char *sub = c->argc ? c->argv[0] : "show";

	if (c->argc > 1)
		cli_die("system: unexpected argument (%s)", c->argv[1]);
	if (!strcmp(sub, "show")) {
		cli_only(c, "system show", show);
		return system_show(want_json("system show", c->formats));
	}
	if (!strcmp(sub, "tune")) {
		cli_only(c, "system tune", tune);
		return c->dry_run ? system_tune_plan(&c->machine) : system_tune(&c->machine);
	}
	if (!strcmp(sub, "reset")) {
		cli_only(c, "system reset", NULL);
		return system_reset();
	}
	if (!strcmp(sub, "check")) {
		cli_only(c, "system check", check);
		return cmd_system_check(c);
	}
	cli_die("system (%s): valid: show, tune, reset, check", sub);
}
