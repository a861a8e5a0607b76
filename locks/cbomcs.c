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
#include <errno.h>

#include "cbomcs.h"
#include "registry.h"

enum { CBOMCS_OPT_BATCH };

static const struct lock_opt cbomcs_opts[] = {
	[CBOMCS_OPT_BATCH] = {"batch", "local hand-offs before the global lock is released (0: none)", 100, 0, 1u << 30},
};

static const char *const cbomcs_counter_names[] = {
	"local_passes",
	"global_releases",
};

/* Allocate one cohort per NUMA node.  Returns 0, -EINVAL or -ENOMEM. */
static int cbomcs_init(void *lock, const struct lock_init *in)
{
	struct cbomcs *l = lock;

	if (!in->nnodes || in->nnodes > 4096)
		return -EINVAL;
	l->bytes = (size_t)in->nnodes * sizeof(struct cbomcs_node);
	l->nodes = in->alloc(l->bytes);
	if (!l->nodes)
		return -ENOMEM;
	l->free_mem = in->free_mem;
	l->nnodes = in->nnodes;
	l->batch = (uint32_t)in->opt[CBOMCS_OPT_BATCH];
	return 0;
}

static void cbomcs_destroy(void *lock)
{
	struct cbomcs *l = lock;

	if (l->nodes)
		l->free_mem(l->nodes, l->bytes);
	l->nodes = NULL;
}

/* Remember our node and seed the backoff.  Returns 0 or -EINVAL. */
static int cbomcs_thread_init(void *lock, void *ctx,
			      const struct lock_thread *t)
{
	struct cbomcs *l = lock;
	struct cbomcs_qnode *me = ctx;

	if (t->node >= l->nnodes)
		return -EINVAL;
	me->node = t->node;
	me->rng = 0x9e3779b97f4a7c15ull * (t->tid + 1);
	return 0;
}

/* Sum the per-node counters; called when no thread runs. */
static void cbomcs_read_counters(void *lock, uint64_t *out)
{
	struct cbomcs *l = lock;

	out[0] = out[1] = 0;
	for (unsigned i = 0; l->nodes && i < l->nnodes; i++) {
		out[0] += atomic_load_explicit(&l->nodes[i].local_passes,
					       lb_rlx);
		out[1] += atomic_load_explicit(&l->nodes[i].global_releases,
					       lb_rlx);
	}
}

const struct lock_ops lock_cbomcs_ops = {
	LOCK_KIND(cbomcs, NUMA, LOCK_CAP_EXCLUSIVE | LOCK_CAP_NUMA),
	.desc = "C-BO-MCS cohort lock: global TTAS-backoff + per-node MCS",
	.ref = "Dice, Marathe & Shavit, ACM TOPC 2015 (PPoPP 2012)",
	LOCK_SIZES(struct cbomcs, struct cbomcs_qnode),
	LOCK_SETUP(cbomcs_init, cbomcs_destroy, cbomcs_thread_init),
	LOCK_CALLS(cbomcs_lock, cbomcs_unlock, NULL),
	LOCK_OPTIONS(cbomcs_opts),
	LOCK_COUNTERS(cbomcs_counter_names, cbomcs_read_counters),
};
