/* SPDX-License-Identifier: MIT */
/*
 * What one run is asked to do: the runner's input (runner.h), which its
 * noise hooks (noise_run.h) read too.  In a header of its own so that
 * the hooks need not include the runner that calls them.
 */
#ifndef LOCKBENCH_RUN_SPEC_H
#define LOCKBENCH_RUN_SPEC_H

#include <signal.h>
#include <stdint.h>

struct lock_ops;
struct lock_loops;
struct workload_ops;
struct wl_params;
struct thread_place;
struct noise_opts;
struct perf_set;

struct run_spec {
	const struct lock_ops *ops;
	const struct lock_loops *loops;    /* its inlined loops (wl_loops_find), or NULL */
	const uint64_t *lock_opt;          /* values of ops->opts */
	const struct workload_ops *wl;
	const struct wl_params *params;
	unsigned nthreads;
	const struct thread_place *place;  /* nthreads entries */
	unsigned fake_nodes;               /* >0: node = tid % fake_nodes */
	int mem_node;                      /* OS node, MEM_NODE_LOCAL/INTERLEAVE */
	double warmup_s, duration_s, interval_s;
	double watchdog_s;                 /* no progress this long = hung */
	/* Set by the SIGINT/SIGTERM handlers (the signal's number); a
	 * second signal adds RUN_HURRY: stop waiting for the workers too. */
	volatile sig_atomic_t *interrupted;
	const struct noise_opts *noise;    /* probe/steal/samples; NULL: off */
	/* perf_event counters over the window (perf_counters.h); NULL or
	 * no events: off. */
	const struct perf_set *perf;
};

#endif
