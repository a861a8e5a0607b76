/* SPDX-License-Identifier: MIT */
/*
 * From the parsed command line to the run's configuration (struct
 * config, workloads/sweep.h): every cross-option check that can be made
 * before a thread starts.  After config_build() the command-line struct
 * is no longer read by the run.
 */
#ifndef LOCKBENCH_CLI_CONFIG_H
#define LOCKBENCH_CLI_CONFIG_H

#include "../topology/topo.h"
#include "../workloads/sweep.h"
#include "options.h"

/* Build cf from c on topology t, the placement made on t mapped onto
 * this machine's topology `here` (--map-topology; NULL: not mapped);
 * bad usage: one line, exit 2. */
void config_build(struct config *cf, const struct cli *c, const struct topo *t,
		  const struct topo *here);
void config_free(struct config *cf);

#endif
