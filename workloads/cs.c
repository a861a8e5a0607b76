/* SPDX-License-Identifier: MIT */
/*
 * cs - the critical-section workload (docs/method.md "The worker loop"):
 * lock, read the unprotected counter (a value we did not leave is a
 * handover, noted out of line), take the owner field, write
 * --cs-write-pct of the --cs-lines shared lines and read the rest,
 * busy-wait --cs-ns, store the counter plus one, check the owner field,
 * unlock, then --ncs-ns of thread-local busy work drawn from an
 * exponential distribution so threads do not fall into lockstep.
 */
#include "loop.h"

/* The generic loop (plugins): the template through the ops table. */
static void cs_loop(struct worker *w)
{
	wl_cs_loop_t(w, w->ops->lock, w->ops->unlock);
}

const struct workload_ops workload_cs_ops = {
	.name = "cs",
	.desc = "lock, write --cs-lines shared lines, wait --cs-ns, unlock, "
		"wait ~--ncs-ns (exponential)",
	.long_desc =
		"The recommended benchmark (docs/method.md, \"The worker loop\"): every\n"
		"thread loops lock; write --cs-write-pct of the --cs-lines shared\n"
		"lines and read the rest; busy-wait --cs-ns; unlock; busy-wait\n"
		"--ncs-ns (exponential around the mean unless --ncs-dist fixed).\n"
		"Mutual exclusion is checked by an owner field and an unprotected\n"
		"counter; handovers and sampled acquisition latency are recorded.",
	.needs_caps = 0,
	.loop = cs_loop,
	.inline_loop = WL_LOOP_CS,
};
