/* SPDX-License-Identifier: MIT */
/*
 * Which worker loops a lock runs.  A built-in lock listed in loops.def
 * has its own cs, rw and torture loops, instantiated in this folder from
 * the template of workloads/loop.h with its lock and unlock inlined;
 * any other lock (a plugin) runs the workloads' generic loops, which
 * call through the ops table.
 */
#ifndef LOCKBENCH_WL_LOOPS_H
#define LOCKBENCH_WL_LOOPS_H

#include "../workload.h"

/* The inlined loops of the built-in lock `ops`, or NULL when it has none
 * (plugins). */
const struct lock_loops *wl_loops_find(const struct lock_ops *ops);

#endif
