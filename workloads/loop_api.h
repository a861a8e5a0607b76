/* SPDX-License-Identifier: MIT */
/*
 * The loop ABI between lockbench and a plugin that carries its own
 * worker loops (<lockbench/loops.h>, LOCKBENCH_PLUGIN_LOOPS()).
 *
 * A plugin's loops are the template of workloads/loop.h instantiated in
 * the plugin over the plugin's own lock and unlock, so that they inline
 * them as the built-ins' loops do.  They read struct worker and the
 * shared data directly: their layout must be the binary's exactly.  The
 * installed <lockbench/loop_template.h> is these headers (clock.h,
 * sample.h, workload.h, loop.h and this one) joined by the Makefile,
 * which stamps it with LOCKBENCH_LOOP_ABI, the first 32 bits of their
 * SHA-256; the binary is built with the same value, and a plugin whose
 * loops carry another runs the generic loop (workloads/loops/loops.c).
 *
 * What the loops call out of line (workloads/loop.c) and the two data
 * words they read reach the plugin through a table of pointers, struct
 * lockbench_loop_api, handed to its bind() before the first run: the
 * binary exports no symbol to plugins.
 */
#ifndef LOCKBENCH_LOOP_API_H
#define LOCKBENCH_LOOP_API_H

#include <stdbool.h>
#include <stdint.h>

struct worker;
struct wl_state;
struct wl_delay_cal;
struct lock_loops;

typedef void (*wl_lock_fn_)(void *lock, void *ctx);

/* The binary's side: loop.c's out-of-line functions and data. */
struct lockbench_loop_api {
	void (*loop_begin)(struct worker *w);
	void (*loop_end)(struct worker *w, uint64_t n, uint64_t reads);
	void (*enter_cold)(struct worker *w, uint64_t seen, bool readers);
	void (*violation)(struct worker *w);
	void (*probe_due)(struct worker *w);
	void (*delay_learn)(struct wl_delay_cal *dc, uint64_t span, uint64_t t,
			    int64_t moved, uint64_t read);
	unsigned (*cs_sampled)(struct worker *w, struct wl_state *st,
			       wl_lock_fn_ lk, wl_lock_fn_ ul);
	unsigned (*rw_sampled)(struct worker *w, struct wl_state *st,
			       wl_lock_fn_ lk, wl_lock_fn_ ul, wl_lock_fn_ rlk,
			       wl_lock_fn_ rul);
	unsigned (*torture_sampled)(struct worker *w, struct wl_state *st,
				    wl_lock_fn_ lk, wl_lock_fn_ ul);
	const uint16_t (*exp_table)[256];  /* lb_exp_table */
	const bool *ticks_hw;              /* lb_ticks_hw */
};

/*
 * The plugin's side, one per LOCKBENCH_PLUGIN_LOOPS(): chained from the
 * plugin's `lockbench_plugin_loops` by its constructors.  `abi` and
 * `next` come first and stay there, so that a loader of any loop ABI can
 * walk the chain and compare `abi` before it reads anything else.
 */
struct lockbench_loops {
	uint32_t abi;                      /* LOCKBENCH_LOOP_ABI */
	const struct lockbench_loops *next;
	const struct lock_ops *ops;        /* the lock these loops run */
	void (*bind)(const struct lockbench_loop_api *api);
	const struct lock_loops *loops;
};

#endif
