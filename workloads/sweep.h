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

struct config {
	const struct lock_entry **locks;   /* the variants, in column order */
	uint64_t **lock_opt;               /* per variant: its option values */
	unsigned nlocks;
	unsigned baseline;
	double min_effect_pct;             /* --min-effect, percent */
	json_t *inv_floor;                 /* --floor as recorded (cli/floor.h), or NULL */
	const struct workload_ops *workload;
	unsigned *threads;
	unsigned nthreads;
	unsigned runs;
	double warmup_s, duration_s, interval_s, watchdog_s;
	struct wl_params params;
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
	/* A workload with variants of its own (WL_OPT_VARIANTS, -w layout):
	 * per variant its index into the option's choices (each run with
	 * the `null` lock); NULL otherwise. */
	unsigned *layouts;
	struct noise_opts noise;           /* probe, flags, -r auto (noise.h) */
	/* --counters: the events every run measures (those the kernel
	 * refused are in perf.refused); perf_request is the argument. */
	struct perf_set perf;
	const char *perf_request;
	/*
	 * A sweep (list-valued options, --lock-opt L.K=A,B): the variants
	 * are locks x parameter combinations.  Per variant its workload
	 * parameters, its name ("ticket cs_ns=100 cs_lines=4") and its
	 * swept parameters as a JSON object; base_of[v] is the variant v's
	 * rel% is computed against (the baseline lock with the same
	 * workload parameters).  sweep: {"cs_ns": [0, 100], ...}.  All NULL
	 * without a sweep.
	 */
	struct wl_params *vparams;
	char **vnames;
	json_t **vswept;
	unsigned *base_of;
	json_t *sweep;
};

/* The option whose values are wl's own variants (WL_OPT_VARIANTS: the
 * layouts of -w layout), or NULL: wl's variants are locks. */
const struct wl_option *workload_variants(const struct workload_ops *wl);

/* Column name of variant v: its layout under -w layout, else its lock. */
const char *config_variant_name(const struct config *c, unsigned v);

/* One step of the plan. */
struct plan_step {
	unsigned variant, row, run;
};

/*
 * The run order: for each thread count, round k runs every variant once
 * (interleaved, order shuffled per round from `seed`), or all runs of a
 * variant together (sequential).  Malloc'ed; n = nlocks*nthreads*runs.
 */
struct plan_step *plan_build(const struct config *c, unsigned *n);

/*
 * Run the plan on `topo`, filling `r` (already results_init'ed with the
 * variants and rows).  Each variant's parameters are built once here:
 * c->params and its layout.  Steps whose point already holds that run
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
