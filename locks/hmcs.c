/* SPDX-License-Identifier: MIT */
/*
 * hmcs - hierarchical MCS lock, two levels (NUMA node, system).  Each
 * node has an MCS lock whose nodes are the threads' contexts; the system
 * lock is an MCS lock whose nodes are the node locks themselves.  The
 * first thread of a node's queue takes the system lock on behalf of its
 * node.  On release, the holder passes the node lock to its local
 * successor together with the system lock, writing the running pass
 * count into the successor's status, until the count reaches the node
 * level's threshold; then it releases the system lock (its node's qnode
 * there) and hands the node lock on with "acquire the parent".  Any
 * thread of the node may release the system lock because the qnode
 * queued there belongs to the node, not to a thread.
 * M. Chabbi, M. Fagan, J. Mellor-Crummey, "High performance locks for
 * multi-level NUMA systems", PPoPP 2015.
 */
#include "hmcs.h"
#include "registry.h"

static const struct lock_opt hmcs_opts[] = {
	[COHORT_OPT_LIMIT] = {"threshold", "node-level passes before the system lock is released", 64, 1, 1u << 30},
};

/* Allocate one node-level lock per NUMA node.  0, -EINVAL or -ENOMEM. */
static int hmcs_init(void *lock, const struct lock_init *in)
{
	return cohort_init(lock, in, sizeof(struct hmcs_node),
			   offsetof(struct hmcs_node, counts));
}

/* Remember our node.  Returns 0 or -EINVAL. */
static int hmcs_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	struct hmcs *l = lock;
	struct hmcs_ctx *c = ctx;

	if (t->node >= l->c.nnodes)
		return -EINVAL;
	c->node = t->node;
	return 0;
}

const struct lock_ops lock_hmcs_ops = {
	COHORT_OPS(hmcs, struct hmcs_ctx, "system_releases"),
	.desc = "hierarchical MCS, two levels (NUMA node, system)",
	.ref = "Chabbi, Fagan & Mellor-Crummey, PPoPP 2015",
};
