/* SPDX-License-Identifier: MIT */
/*
 * The sweep: the configuration of a whole invocation and the loop that
 * turns it into measured points (plan -> runner -> results model).
 */
#ifndef LOCKBENCH_SWEEP_H
#define LOCKBENCH_SWEEP_H

#include <signal.h>
#include <stdint.h>

#include "../locks/registry.h"
#include "../output/results/results.h"
#include "../topology/placement.h"
#include "perf_counters.h"
#include "workload.h"

enum run_order { ORDER_INTERLEAVED, ORDER_SEQUENTIAL };

/*
 * One variant, one column of the results: a lock (the `null` lock under
 * a workload with variants of its own, -w layout) with its option
 * values, and what its workers do.  A sweep (list-valued options,
 * --lock-opt L.K=A,B) makes a variant per lock and combination of the
 * swept values.
 */
struct config_variant {
	const struct lock_entry *lock;
	uint64_t *opt;                     /* its values of lock->ops->opts */
	/* -w layout: its index into the WL_OPT_VARIANTS option's choices
	 * (also in params, at the option's field); 0 otherwise. */
	unsigned layout;
	struct wl_params params;           /* its workload parameters */
	char *name;                        /* "ticket cs_ns=100 cs_lines=4" */
	json_t *swept;                     /* {"cs_ns": 100, ...}; NULL: no sweep */
	/* The variant its rel% is computed against: the baseline lock
	 * with the same workload parameters. */
	unsigned base;
};

struct config {
	struct config_variant *v;          /* the variants, in column order */
	unsigned nvariants;
	unsigned baseline;
	double min_effect_pct;             /* --min-effect, percent */
	json_t *inv_floor;                 /* --floor as recorded (cli/floor.h), or NULL */
	const struct workload_ops *workload;
	unsigned *threads;
	unsigned nthreads;
	unsigned runs;
	double warmup_s, duration_s, interval_s, watchdog_s;
	struct wl_params params;           /* the first values of a sweep */
	struct placement_policy placement;
	const char *topology;              /* --topology, NULL = this machine */
	/* --map-topology: this machine, onto which the placement made on
	 * --topology is mapped (placement_map()); NULL otherwise. */
	const struct topo *here;
	unsigned fake_nodes;
	int mem_node;
	enum run_order order;
	uint64_t seed;
	const char *label;
	const char *row_heading;
	bool quiet;
	struct noise_opts noise;           /* probe, flags, -r auto (noise.h) */
	/* --counters: the events every run measures (those the kernel
	 * refused are in perf.refused); perf_request is the argument. */
	struct perf_set perf;
	const char *perf_request;
	/* The swept values, {"cs_ns": [0, 100], ...}; NULL: no sweep. */
	json_t *sweep;
};

/* The option whose values are wl's own variants (WL_OPT_VARIANTS: the
 * layouts of -w layout), or NULL: wl's variants are locks. */
const struct wl_option *workload_variants(const struct workload_ops *wl);

/* One step of the plan. */
struct plan_step {
	unsigned variant, row, run;
};

/*
 * The run order: for each thread count, round k runs every variant once
 * (interleaved, order shuffled per round from `seed`), or all runs of a
 * variant together (sequential).  Malloc'ed; n = nvariants*nthreads*runs.
 */
struct plan_step *plan_build(const struct config *c, unsigned *n);

/*
 * Run the plan on `topo`, filling `r` (already results_init'ed with the
 * variants and rows).  Steps whose point already holds that run
 * (kept from --resume) are skipped.  Returns 0 when every point ran and
 * passed, 1 when a lock failed, hung or the sweep was interrupted
 * (r->incomplete set for the last two), 2 when the first failure was a
 * run that could not be set up (a lock's init failed, placement failed:
 * r->incomplete set, a plugin's lock named with its file); err holds the
 * first such message.
 */
int sweep_run(const struct config *c, const struct topo *topo, struct results *r,
	      volatile sig_atomic_t *interrupted, char *err, size_t errlen);

#endif
