/* SPDX-License-Identifier: MIT */
/*
 * Text output of the informational commands: `list` and `topo`.
 */
#ifndef LOCKBENCH_CMDS_H
#define LOCKBENCH_CMDS_H

#include <stdbool.h>
#include <stdio.h>

#include "../topology/placement.h"

/* `lockbench list [WHAT] [extra]`: 0, or 2 with one line on stderr. */
int cmd_list(const char *what, const char *extra, bool verbose, bool broken);
/* The machine summary of `lockbench topo`. */
void print_topo(const struct topo *t, FILE *f);
/* Where each of n threads goes under policy p; 0 or -EINVAL with err. */
int print_placement(const struct topo *t, const struct placement_policy *p,
		    unsigned n, FILE *f, char *err, size_t errlen);

/* The core-to-core matrix m[i * n + j] (ns; NAN: unknown) of `topo --c2c`. */
void print_c2c(const int *cpus, unsigned n, const double *m, unsigned reps,
	       FILE *f);

/*
 * `lockbench compare [options] A.json ...` and `lockbench import
 * locktorture [options] LOG ...` (compare.c): argv[0] is the command
 * word, the rest is parsed here.  Return the exit status: 0, or 2
 * (bad usage or input: they exit(2) after one line on stderr).
 */
int cmd_compare(int argc, char **argv);
int cmd_import(int argc, char **argv);

#endif
