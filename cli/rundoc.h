/* SPDX-License-Identifier: MIT */
/*
 * The documents a run carries into its results (JSON): the machine, the
 * configuration echo, the placement and the run order, all built from
 * the finished struct config (never from the command line).
 */
#ifndef LOCKBENCH_CLI_RUNDOC_H
#define LOCKBENCH_CLI_RUNDOC_H

#include <jansson.h>

#include "../topology/topo.h"
#include "../workloads/sweep.h"
#include "outfile.h"

json_t *machine_json(const struct topo *t);
json_t *config_json(const struct config *cf, const struct outputs *o);
json_t *placement_json(const struct config *cf, const struct topo *t);
/* --map-topology: the given topology and this machine's CPUs the
 * workers run on; null when not mapped. */
json_t *map_json(const struct config *cf);
json_t *run_order_json(const struct config *cf);
/* The clock the delays and the sampled timings use, and how each
 * requested delay is made (docs/json.md, "calibration"). */
json_t *calibration_json(const struct wl_params *p);

/* CPUs the placement offers; the distinct CPUs the sweep pins onto. */
unsigned usable_cpus(const struct config *cf, const struct topo *t);
int *used_cpus(const struct config *cf, const struct topo *t, unsigned *n);

#endif
