/* SPDX-License-Identifier: MIT */
/*
 * The commands (commands[], help.c): run (run.c), list, topo, system
 * (system.c; its check: syscheck.c), compare and merge (compare.c),
 * rerun, import, locktorture, build-kernel-lock (ktree.c), help and
 * completion (help.c); and the text output of list and topo.
 */
#ifndef LOCKBENCH_CMDS_H
#define LOCKBENCH_CMDS_H

#include <stdbool.h>
#include <stdio.h>

#include "../topology/placement.h"
#include "options.h"

/* `lockbench [run]`, `topo`, `system`: the exit status. */
int cmd_run(const struct cli *c);
int cmd_topo(const struct cli *c);
/* -f of topo and system show: true for json, false for table (text);
 * anything else exits 2 naming @cmd. */
bool want_json(const char *cmd, const char *formats);
int cmd_system(const struct cli *c);
/* The part of `lockbench help system` about `system check` (system.c). */
void system_check_usage(FILE *f);

/* `lockbench list [WHAT]`: 0, or 2 with one line on stderr. */
int cmd_list(const struct cli *c);
/* The machine summary of `lockbench topo`. */
void print_topo(const struct topo *t, FILE *f);
/* Node @node's OS CPUs as a list with ranges ("0-11,24-35") into @buf. */
const char *topo_node_cpus(const struct topo *t, unsigned node, char *buf, size_t len);
/* A byte count as "32 KiB", "1 MiB" (exact units only) into @buf. */
const char *size_text(unsigned long long b, char *buf, size_t len);
/* Where each of n threads goes under policy p; 0 or -EINVAL with err. */
int print_placement(const struct topo *t, const struct placement_policy *p,
		    unsigned n, FILE *f, char *err, size_t errlen);

/* The core-to-core matrix m[i * n + j] (ns; NAN: unknown) of `topo --c2c`. */
void print_c2c(const int *cpus, unsigned n, const double *m, unsigned reps,
	       FILE *f);

/*
 * `lockbench compare [options] A.json ...` (compare.c) and `lockbench
 * import locktorture [options] LOG ...` (import.c): argv[0] is the
 * command word, the rest is parsed with their own option tables.
 * Return the exit status: 0; 1 (import) a log reported a failure; 2 bad
 * usage or input (they exit(2) after one line on stderr); 4 (compare
 * --fail-if-regressed) a point regressed; 5 (compare
 * --fail-if-regressed) a point the test could not have seen regress.
 */
int cmd_compare(int argc, char **argv);
/* `lockbench merge [-o OUT.json] A.json B.json ...` (compare.c): the
 * inputs joined into one JSON document as compare joins them. */
int cmd_merge(int argc, char **argv);
/* `lockbench rerun FILE.json [options]` (rerun.c): execs, or exits 2. */
int cmd_rerun(int argc, char **argv);
int cmd_import(int argc, char **argv);
extern const struct opt_cmd compare_options, import_options, merge_options;
void compare_usage(FILE *f);
void merge_usage(FILE *f);
void import_usage(FILE *f);

/*
 * `lockbench locktorture [options]` (locktorture.c): run the kernel's
 * locktorture module.  The exit status: 0; 1 a run reported failures or
 * was interrupted; 2 bad usage; 3 locktorture cannot run here (one line
 * saying what is missing) or a --freq/--numa-balancing request failed.
 */
int cmd_locktorture(int argc, char **argv);
extern const struct opt_cmd locktorture_options;
void locktorture_usage(FILE *f);

/*
 * `lockbench build-kernel-lock DIR [--lock L] [-o FILE.so]` (ktree.c):
 * 0, or 2 with one line (bad usage, a tree that cannot be built).
 */
int cmd_build_kernel_lock(int argc, char **argv);
extern const struct opt_cmd bkl_options;
void bkl_usage(FILE *f);
/* Build and load the locks of every --kernel-tree; without -l they join
 * the default sweep (c->locks).  Exits 2 with one line when a tree cannot
 * be built or loaded. */
void ktrees_load(struct cli *c);

/* `lockbench help [CMD | completion]`. */
int cmd_help(int argc, char **argv);
/* `lockbench completion [bash]`: the bash completion script. */
int cmd_completion(int argc, char **argv);

/*
 * The commands.  Those with .parse read argv themselves (own option
 * table); the others get the run options parsed (options.c).
 */
struct command {
	const char *name;
	const char *usage;                  /* after "lockbench " */
	const char *summary;
	int (*parse)(int argc, char **argv);
	int (*run)(const struct cli *c);
	const char *const *opts;            /* run options it reads (help) */
};
extern const struct command commands[];
extern const unsigned ncommands;
const struct command *command_find(const char *name);

#endif
