/* SPDX-License-Identifier: MIT */
/*
 * Provenance: what made a results file, recorded in every JSON so a
 * result can be audited and run again (`lockbench rerun FILE.json`).
 */
#ifndef LOCKBENCH_CLI_PROVENANCE_H
#define LOCKBENCH_CLI_PROVENANCE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* "0.1.0 (git 1a2b3c4d5e6f)": the version and the build's revision. */
const char *provenance_version(void);

/*
 * A new object: command (the argv words, argv[0] as "lockbench"),
 * version, git, compiler, cflags, kernel (uname release and version),
 * host, date (UTC, ISO 8601) and, when has_seed, seed (the run order's).
 */
json_t *provenance_json(int argc, char *const *argv, bool has_seed, uint64_t seed);

#endif
