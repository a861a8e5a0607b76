/* SPDX-License-Identifier: MIT */
/*
 * Which worker loops a lock runs.  A built-in lock listed in loops.def
 * has its own cs, rw and torture loops, instantiated in this folder from
 * the template of workloads/loop.h with its lock and unlock inlined;
 * a plugin's lock runs the loops its plugin carries
 * (LOCKBENCH_PLUGIN_LOOPS()) when they were built for this binary's
 * loop ABI, any other lock the workloads' generic loops, which call
 * through the ops table.
 */
#ifndef LOCKBENCH_WL_LOOPS_H
#define LOCKBENCH_WL_LOOPS_H

#include "../workload.h"

/* The inlined loops of the built-in lock `ops`, or NULL when it has none
 * (plugins). */
const struct lock_loops *wl_loops_find(const struct lock_ops *ops);

/* The loops a plugin carries for `ops` (<lockbench/loops.h>), bound to
 * this binary, or NULL (none, or built for another loop ABI: warned once
 * on stderr); workloads/loop_api.c. */
const struct lock_loops *wl_plugin_loops(const struct lock_ops *ops);

#endif
