/* SPDX-License-Identifier: MIT */
/*
 * The options of `lockbench [run]` (and of list, topo and system, which
 * read a few of them): one table, run_options(), and the struct it
 * fills.  Adding an option is one row in options.c plus its use; the
 * options a workload declares (struct wl_option, workloads/workload.h)
 * are rows of the same table, added from the workload registry.
 */
#ifndef LOCKBENCH_CLI_OPTIONS_H
#define LOCKBENCH_CLI_OPTIONS_H

#include <stdbool.h>

#include "../topology/machine.h"
#include "opt.h"

/*
 * The most threads one point may have: a worker's id + 1 is kept in the
 * low WL_SEQ_SHIFT (16) bits of the shared counter word
 * (workloads/workload.h), so 65535; the options.c assertion keeps the two
 * in step.  Planning has no other limit (docs/method.md, Placement).
 */
#define MAX_THREADS 65535
/* A spinning lock takes at most this many threads per usable CPU
 * (config.c, config_spin_bound(); docs/method.md, "Oversubscription"). */
#define SPIN_OVERSUB_MAX 16
#define MAX_WL_OPTIONS 32       /* distinct options of all workloads */

struct wl_option;

/* The value of one workload option, set by the option engine (the
 * member its type uses) and copied into struct wl_params by config.c. */
struct cli_wlval {
	unsigned long long u;   /* WL_OPT_UINT, WL_OPT_MS */
	double d;               /* WL_OPT_SECONDS */
	const char *s;          /* WL_OPT_VARIANTS: the list as typed */
	bool given;
};
#define DEFAULT_LOCKS "pthread_mutex,ticket,mcs,qspinlock"

/* What the command line said (parsed and range-checked, not yet
 * validated against each other: config.c does that). */
struct cli {
	/* what */
	const char *locks, *workload, *baseline;
	bool locks_given, include_broken;
	struct opt_strlist lock_opts, plugins, ktrees;
	bool lock_events;                /* --lock-events (kernel trees) */
	/* how many, how long */
	const char *threads, *order, *seed;
	double warmup, duration, interval, watchdog;
	bool duration_given;
	unsigned long long runs, min_runs, max_runs;
	bool runs_auto, min_runs_given, max_runs_given, ci_target_given, time_budget_given;
	double ci_target, time_budget;
	/* critical and parallel sections, workloads */
	unsigned long long cs_ns, ncs_ns, cs_lines, cs_write_pct;
	const char *ncs_dist;
	unsigned long long lat_sample;
	/* the workloads' options, in the table's order (cli_wl_value()) */
	struct cli_wlval wl[MAX_WL_OPTIONS];
	/* where, the machine */
	const char *placement, *mem_node, *topology;
	unsigned long long fake_nodes;
	bool map_topology;
	bool isolated;
	struct machine_req machine;      /* --freq, --numa-balancing, --no-tune */
	/* noise */
	double min_effect;
	const char *floor;               /* --floor FILE|PCT (cli/floor.h) */
	bool no_probe, c2c;
	/* counters */
	const char *counters;
	/* output */
	const char *formats, *output, *label, *unit, *row_name, *resume, *rows;
	unsigned long long width;        /* --width: split wider tables */
	bool row_name_given, formats_given;
	/* the .list rows given with several values: the sweep's dimensions */
	struct opt_dims dims;
	/* what the command line said for each row of run_options() (NULL:
	 * not given): commands that take a few of these refuse the rest */
	const char **said;
	bool no_marks, header, dry_run, quiet, verbose, help, version;
	/* the words that are not options, after the command word */
	int argc;
	char **argv;
	char **argv_base;                /* the allocation argv points into */
	int full_argc;                   /* the whole command line (provenance) */
	char **full_argv;
};

/* The table: the front end's rows and, where the "Workloads" section
 * starts, one row per distinct workload option (built on the first call;
 * a workload option that clashes with another row is a bug: exit 2). */
const struct opt_cmd *run_options(void);

/* The workload option row o stands for; NULL for the front end's own. */
const struct wl_option *cli_wl_option(const struct opt *o);

/* The value in c of workload option `name`; NULL when none declares it. */
const struct cli_wlval *cli_wl_value(const struct cli *c, const char *name);

/* Defaults, then argv: exits 2 on bad usage. */
void cli_parse(struct cli *c, int argc, char **argv);

/*
 * LOCKBENCH_TIME_SCALE (lockbench(1), ENVIRONMENT): a factor in (0, 1]
 * every duration is multiplied by (warm-up, window, locktorture's,
 * system check's), for tests that run the README's commands as written;
 * 1 when unset; a bad value is one line, exit 2.  The results record
 * the durations as run.
 */
double cli_time_scale(void);
void cli_free(struct cli *c);

/*
 * Refuse every run option given to command `cmd` (e.g. "system tune")
 * that is not in `takes` (NULL-terminated long names; --help, --version
 * and -q, which every command honours, always pass): one line naming the
 * option and the command,
 * exit 2.  A command that took an option and ignored it would look as if
 * it had honoured it.
 */
void cli_only(const struct cli *c, const char *cmd, const char *const *takes);

/* `lockbench --help`. */
void cli_usage(FILE *f);

#endif
