/* SPDX-License-Identifier: MIT */
/*
 * The invocation floor (docs/method.md "One invocation a side"): the
 * smallest change between two invocations that is more than the
 * variation from one invocation to the next on this machine.  Given as
 * a percentage or as the file `lockbench system check -o FILE.json`
 * writes; recorded in a run's JSON (`invocation_floor`) and chosen by
 * `compare`.
 */
#ifndef LOCKBENCH_CLI_FLOOR_H
#define LOCKBENCH_CLI_FLOOR_H

#include <jansson.h>

/* The schema name of a `lockbench system check` JSON file. */
#define FLOOR_CHECK_SCHEMA "lockbench-system-check"

/*
 * The floor of --OPT ARG: a percentage ("4", "4%", "0.5%") gives
 * {"rel_pct": 4, "source": "--OPT PCT"}; anything else is read as a
 * system-check file and gives a copy of its `floor` object with "file"
 * set to ARG.  Bad input (no such file, not JSON, another schema, no
 * floor.rel_pct >= 0, a percentage outside [0, 100]) exits 2 with one
 * line.  Returns a new reference.
 */
json_t *floor_from_arg(const char *opt, const char *arg);

#endif
