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

/* The largest system-check file read as a floor (one is a few tens of
 * KiB), unless LOCKBENCH_MAX_INPUT sets another limit. */
#define FLOOR_MAX_BYTES ((size_t)4 << 20)

/*
 * The floor of --OPT ARG: a percentage ("4", "4%", "0.5%") gives
 * {"rel_pct": 4, "source": "--OPT PCT"}; anything else is read as a
 * system-check file (read through infile_read(), at most
 * FLOOR_MAX_BYTES) and gives a copy of its `floor` object with "file"
 * set to ARG.  Bad input (no such file, a file above the limit, not
 * JSON, another schema, no floor.rel_pct >= 0, a percentage outside
 * [0, 100]; in a file a schema_version other than 1.x, a floor the
 * check refused (busy), a floor.refused that is not a string, a
 * floor.host whose hostname or arch is not a string or pus not a count,
 * a rel_pct outside [0, 100], invocations below 2, a negative
 * sd_between_pct) exits 2 with one line.  The file's machine is kept as
 * "host" ({hostname, arch, pus}) when the floor does not name one.
 * Returns a new reference.
 */
json_t *floor_from_arg(const char *opt, const char *arg);

/*
 * A floor measured on another machine than `machine` (a results file's
 * machine description; `what` names the file) exits 2 with one line
 * naming both: hostname, arch or CPU count differ where both say.  A
 * floor or a machine that does not say is let through.
 */
void floor_check_host(const json_t *floor, const json_t *machine, const char *what);

#endif
