/* SPDX-License-Identifier: MIT */
/*
 * cs - the critical-section workload (docs/method.md "The worker loop"):
 * lock, read the unprotected counter word (a word we did not leave is
 * a handover, noted out of line), store it plus one with our id, write
 * --cs-write-pct of the --cs-lines shared lines and read the rest,
 * busy-wait --cs-ns, check the word is still ours, unlock, then
 * --ncs-ns of thread-local busy work drawn from an exponential
 * distribution so threads do not fall into lockstep.
 */
#include "loop.h"

/* The generic loop (plugins): the template through the ops table. */
static void cs_loop(struct worker *w)
{
	wl_cs_loop_t(w, w->ops->lock, w->ops->unlock, NULL, 0);
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
		"Mutual exclusion is checked by an unprotected counter word (a count\n"
		"and the holder's id); handovers and sampled acquisition latency\n"
		"are recorded.",
	.needs_caps = 0,
	.loop = cs_loop,
	.inline_loop = WL_LOOP_CS,
};
