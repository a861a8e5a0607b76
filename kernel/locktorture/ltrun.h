/* SPDX-License-Identifier: MIT */
/*
 * ltrun.h - run the kernel's locktorture: one module load per (writer
 * count, run), its kthreads pinned where the placement puts them, its
 * statistics read from the kernel log and turned into the same results
 * as `lockbench import locktorture` (output/import.h).
 *
 * The mapping onto module parameters (kernel/locking/locktorture.c):
 *   torture_type     --torture-type
 *   nwriters_stress  each value of -t (a row)
 *   nreaders_stress  --nreaders (0 unless given)
 *   stat_interval    --stat-interval, whole seconds (at least 1)
 *   long_hold        --long-hold MS, 0 by default: the published rtmutex
 *                    runs turned the random 100 ms holds off
 *   shutdown_secs    0 always: locktorture's shutdown powers the machine
 *                    off (torture_shutdown() -> kernel_power_off()); the
 *                    module is removed explicitly instead
 *   onoff_interval   0: no CPU hotplug
 *   shuffle_interval 0 unless -p none: locktorture's shuffler would
 *                    otherwise move the pinned kthreads every interval
 * Timeline of one load: the first report comes one stat_interval after
 * the load (the start-up interval, never used), then ceil(warmup / SI)
 * warm-up intervals (dropped), then ceil(duration / SI) measured ones;
 * the module is removed half an interval after the last, and the two
 * reports it prints while stopping are dropped as in any import.
 */
#ifndef LOCKBENCH_LTRUN_H
#define LOCKBENCH_LTRUN_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "../../output/results/results.h"
#include "../../topology/placement.h"

struct lt_opts {
	const char *type;          /* torture_type */
	const unsigned *writers;   /* nwriters_stress of each row */
	unsigned nwriters;
	unsigned nreaders;         /* nreaders_stress */
	unsigned runs;             /* loads per writer count */
	unsigned stat_interval;    /* seconds, >= 1 */
	double warmup, duration;   /* seconds */
	unsigned long_hold;        /* ms; 0: off */
	const char *label;         /* --label, or NULL */
	const struct topo *topo;
	const struct placement_policy *place;
	FILE *progress;            /* one line per load, or NULL */
	FILE *warn;                /* warnings (pinning), or NULL */
	/* Set by the caller's signal handler: stop after removing the module. */
	volatile sig_atomic_t *stop;
};

/* The seconds one load lasts under @o (for --dry-run and progress). */
double lt_load_seconds(const struct lt_opts *o);

/*
 * Run the sweep: for run k = 1..runs, for every writer count (run k of
 * every row before run k + 1 of any, as userspace sweeps interleave).
 * Each load: cursor on the kernel log, load, find and pin the kthreads,
 * wait, remove (always, on every path), read the log to its End of test.
 *
 * Returns 0 with @r filled (rows nwriters_stress, one column named after
 * the torture type, points FAILED where locktorture reported failures,
 * r->placement listing every kthread's CPU and whether pinning worked);
 * 1 when *stop was set: @r holds the completed loads, marked incomplete
 * (it may have none: r->nvariants 0); -EIO when the module would not
 * load or unload, -EINVAL when no load gave a complete interval, with
 * one line in @err (@r then empty).
 */
int lt_sweep(const struct lt_opts *o, struct results *r, char *err, size_t errlen);

#endif /* LOCKBENCH_LTRUN_H */
