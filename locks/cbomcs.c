/* SPDX-License-Identifier: MIT */
/*
 * cbomcs - the C-BO-MCS cohort lock.  Two levels: one global,
 * thread-oblivious test-and-test-and-set lock with backoff, and one MCS
 * lock per NUMA node.  A thread first takes its node's MCS lock; the
 * first of a cohort then takes the global lock too.  On release, while
 * another thread of the same node is queued (and fewer than `batch`
 * local hand-offs happened in a row), the holder passes both locks to it
 * by handing over the MCS lock with a "global already held" mark;
 * otherwise it releases the global lock, then the MCS lock with a "take
 * the global lock yourself" mark.  The lock stays on one node for a
 * batch, so its data stays in that node's caches.
 * D. Dice, V. J. Marathe, N. Shavit, "Lock cohorting: a general
 * technique for designing NUMA locks", ACM TOPC 1(2), 2015 (PPoPP 2012).
 */
#include "cbomcs.h"
#include "registry.h"

static const struct lock_opt cbomcs_opts[] = {
	[COHORT_OPT_LIMIT] = {"batch", "local hand-offs before the global lock is released (0: none)", 100, 0, 1u << 30},
};

/* Allocate one cohort per NUMA node.  Returns 0, -EINVAL or -ENOMEM. */
static int cbomcs_init(void *lock, const struct lock_init *in)
{
	return cohort_init(lock, in, sizeof(struct cbomcs_node),
			   offsetof(struct cbomcs_node, counts));
}

/* Remember our node and seed the backoff.  Returns 0 or -EINVAL. */
static int cbomcs_thread_init(void *lock, void *ctx,
			      const struct lock_thread *t)
{
	struct cbomcs *l = lock;
	struct cbomcs_qnode *me = ctx;

	if (t->node >= l->c.nnodes)
		return -EINVAL;
	me->node = t->node;
	me->rng = 0x9e3779b97f4a7c15ull * (t->tid + 1);
	return 0;
}

const struct lock_ops lock_cbomcs_ops = {
	COHORT_OPS(cbomcs, struct cbomcs_qnode, "global_releases"),
	.desc = "C-BO-MCS cohort lock: global TTAS-backoff + per-node MCS",
	.ref = "Dice, Marathe & Shavit, ACM TOPC 2015 (PPoPP 2012)",
};
