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
#include <errno.h>

#include "hmcs.h"
#include "registry.h"

enum { HMCS_OPT_THRESHOLD };

static const struct lock_opt hmcs_opts[] = {
	[HMCS_OPT_THRESHOLD] = {"threshold", "node-level passes before the system lock is released", 64, 1, 1u << 30},
};

static const char *const hmcs_counter_names[] = {
	"local_passes",
	"system_releases",
};

/* Allocate one node-level lock per NUMA node.  0, -EINVAL or -ENOMEM. */
static int hmcs_init(void *lock, const struct lock_init *in)
{
	struct hmcs *l = lock;

	if (!in->nnodes || in->nnodes > 4096)
		return -EINVAL;
	l->bytes = (size_t)in->nnodes * sizeof(struct hmcs_node);
	l->nodes = in->alloc(l->bytes);
	if (!l->nodes)
		return -ENOMEM;
	l->free_mem = in->free_mem;
	l->nnodes = in->nnodes;
	l->threshold = (uint32_t)in->opt[HMCS_OPT_THRESHOLD];
	return 0;
}

static void hmcs_destroy(void *lock)
{
	struct hmcs *l = lock;

	if (l->nodes)
		l->free_mem(l->nodes, l->bytes);
	l->nodes = NULL;
}

/* Remember our node.  Returns 0 or -EINVAL. */
static int hmcs_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	struct hmcs *l = lock;
	struct hmcs_ctx *c = ctx;

	if (t->node >= l->nnodes)
		return -EINVAL;
	c->node = t->node;
	return 0;
}

/* Sum the per-node counters; called when no thread runs. */
static void hmcs_read_counters(void *lock, uint64_t *out)
{
	struct hmcs *l = lock;

	out[0] = out[1] = 0;
	for (unsigned i = 0; l->nodes && i < l->nnodes; i++) {
		out[0] += atomic_load_explicit(&l->nodes[i].local_passes,
					       lb_rlx);
		out[1] += atomic_load_explicit(&l->nodes[i].system_releases,
					       lb_rlx);
	}
}

const struct lock_ops lock_hmcs_ops = {
	LOCK_KIND(hmcs, NUMA, LOCK_CAP_EXCLUSIVE | LOCK_CAP_NUMA),
	.desc = "hierarchical MCS, two levels (NUMA node, system)",
	.ref = "Chabbi, Fagan & Mellor-Crummey, PPoPP 2015",
	LOCK_SIZES(struct hmcs, struct hmcs_ctx),
	LOCK_SETUP(hmcs_init, hmcs_destroy, hmcs_thread_init),
	LOCK_CALLS(hmcs_lock, hmcs_unlock, NULL),
	LOCK_OPTIONS(hmcs_opts),
	LOCK_COUNTERS(hmcs_counter_names, hmcs_read_counters),
};
