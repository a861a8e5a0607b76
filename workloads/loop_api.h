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
#include <stddef.h>
#include <stdint.h>

#include "../topology/host/clock.h"
#include "loop.h"

/*
 * The binary's side: what the inline code of clock.h and loop.h calls
 * out of line, and the data it reads.  Each member has the type of the
 * function it stands for, so that the table follows their declarations.
 */
struct lockbench_loop_api {
	__typeof__(wl_loop_begin) *loop_begin;
	__typeof__(wl_loop_end) *loop_end;
	__typeof__(wl_enter_cold) *enter_cold;
	__typeof__(wl_violation) *violation;
	__typeof__(wl_delay_learn) *delay_learn;
	__typeof__(wl_cs_sampled) *cs_sampled;
	__typeof__(wl_rw_sampled) *rw_sampled;
	__typeof__(wl_torture_sampled) *torture_sampled;
	__typeof__(lb_ticks_slow) *ticks_slow;
	__typeof__(lb_relax_slow) *relax_slow;
	const uint16_t (*exp_table)[256];  /* lb_exp_table */
	const bool *ticks_hw;              /* lb_ticks_hw */
	const bool *relax_sim;             /* lb_relax_sim */
};

/*
 * The plugin's side, one per LOCKBENCH_PLUGIN_LOOPS() or
 * LOCKBENCH_PLUGIN_LOOPS_PRIVATE(): chained from the
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
	/* LOCKBENCH_PLUGIN_LOOPS_PRIVATE(): sizeof the type the loops copy
	 * the thread's context into, which must be ops->ctx_size; 0: the
	 * loops run on the worker's context (LOCKBENCH_PLUGIN_LOOPS()). */
	size_t ctx_private;
};

#endif
