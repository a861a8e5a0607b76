/* SPDX-License-Identifier: MIT */
/*
 * The binary's side of the loop ABI (loop_api.h): the table a plugin's
 * loops call out through, and the check of a plugin's loops before they
 * run.
 */
#include <stdio.h>
#include <stdlib.h>

#include "../locks/plugin.h"
#include "loop.h"
#include "loop_api.h"
#include "loops/loops.h"

#ifndef LOCKBENCH_LOOP_ABI
#error "LOCKBENCH_LOOP_ABI: built by the Makefile (scripts/gen-loop-template.sh --abi)"
#endif

static const struct lockbench_loop_api api = {
	.loop_begin = wl_loop_begin,
	.loop_end = wl_loop_end,
	.enter_cold = wl_enter_cold,
	.violation = wl_violation,
	.delay_learn = wl_delay_learn,
	.cs_sampled = wl_cs_sampled,
	.rw_sampled = wl_rw_sampled,
	.torture_sampled = wl_torture_sampled,
	.ticks_slow = lb_ticks_slow,
	.relax_slow = lb_relax_slow,
	.exp_table = &lb_exp_table,
	.ticks_hw = &lb_ticks_hw,
	.relax_sim = &lb_relax_sim,
};

/* What wl_plugin_loops() decided for a lock: looked up once, so that a
 * mismatch warns once however many runs ask. */
static struct seen {
	const struct lock_ops *ops;
	const struct lock_loops *loops;
} *seen;
static unsigned nseen;

/* Loops built with LOCKBENCH_PLUGIN_LOOPS_PRIVATE() copy the thread's
 * context into a local of their type: that type must be the context
 * lockbench allocates (ops->ctx_size bytes), or the copy would read past
 * it or leave part of it behind.  false (warned): run the generic loop. */
static bool ctx_fits(const struct lock_ops *ops, const struct lockbench_loops *l)
{
	if (!l->ctx_private || l->ctx_private == ops->ctx_size)
		return true;
	fprintf(stderr, "lockbench: warning: plugin lock %s: its inline loops "
		"keep a private context of %zu bytes, its ctx_size is %zu: "
		"running the generic loop (LOCKBENCH_PLUGIN_LOOPS_PRIVATE's "
		"ctx_type must be the context's type)\n", ops->name,
		l->ctx_private, ops->ctx_size);
	return false;
}

/* Find, check and bind the loops of `ops` in its plugin's chain. */
static const struct lock_loops *loops_bind(const struct lock_ops *ops)
{
	const struct lock_ops *orig = NULL;
	const struct lockbench_loops *l = plugin_loops(ops, &orig);

	for (; l; l = l->next) {
		if (l->abi != LOCKBENCH_LOOP_ABI) {
			/* ops and the rest of the entry may be laid out
			 * otherwise: read nothing more of it */
			fprintf(stderr, "lockbench: warning: plugin lock %s: its "
				"inline loops were built for loop ABI %#x, this "
				"lockbench has %#x: running the generic loop "
				"(rebuild the plugin against this lockbench's "
				"headers)\n", ops->name, (unsigned)l->abi,
				(unsigned)LOCKBENCH_LOOP_ABI);
			return NULL;
		}
		if (l->ops == orig && l->bind && l->loops) {
			if (!ctx_fits(ops, l))
				return NULL;
			l->bind(&api);
			return l->loops;
		}
	}
	return NULL;
}

const struct lock_loops *wl_plugin_loops(const struct lock_ops *ops)
{
	const struct lock_loops *loops;
	struct seen *t;

	for (unsigned i = 0; i < nseen; i++)
		if (seen[i].ops == ops)
			return seen[i].loops;
	loops = loops_bind(ops);
	t = realloc(seen, (nseen + 1) * sizeof(*t));
	if (t) {
		seen = t;
		seen[nseen++] = (struct seen){ops, loops};
	}
	return loops;
}
