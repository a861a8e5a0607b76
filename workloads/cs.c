/* SPDX-License-Identifier: MIT */
/*
 * cs - the critical-section workload (docs/method.md "The worker loop"):
 * lock, check and take the owner field, note the handover, write
 * --cs-write-pct of the --cs-lines shared lines and read the rest,
 * busy-wait --cs-ns, bump the unprotected counter, release the owner
 * field, unlock, then --ncs-ns of thread-local busy work drawn from an
 * exponential distribution so threads do not fall into lockstep.
 */
#include "cs_body.h"

static void cs_loop(struct worker *w)
{
	const struct lock_ops *ops = w->ops;
	struct wl_hand h = {0};
	uint64_t n = 0;
	unsigned left = CS_SAMPLE_EVERY; /* ops until the next sampled one */

	while (!atomic_load_explicit(w->stop, lb_rlx)) {
		/* 1 op in CS_SAMPLE_EVERY times its sections:
		 * a countdown, no clock read on the common path. */
		bool timed = false;

		if (__builtin_expect(--left == 0, 0)) {
			left = CS_SAMPLE_EVERY;
			timed = w->samp != NULL;
		}
		wl_acquire(w, ops->lock);
		wl_cs_body_timed(w, &h, timed);
		ops->unlock(w->lock, w->ctx);
		wl_ncs_body_timed(w, timed);
		wl_publish(w, ++n, 0, &h);
	}
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
};
