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

#include "lockbench/lock.h"
#include "../workloads/loop.h"

enum { HMCS_OPT_THRESHOLD };

static const struct lock_opt hmcs_opts[] = {
	[HMCS_OPT_THRESHOLD] = {"threshold", "node-level passes before the system lock is released", 64, 1, 1u << 30},
};

/* Status values besides a pass count 1..threshold (the paper's). */
#define HMCS_WAIT UINT32_MAX           /* still queued */
#define HMCS_ACQUIRE_PARENT (UINT32_MAX - 1) /* take the system lock */
#define HMCS_COHORT_START 1u           /* first holder of a batch */

struct hmcs_qnode {
	_Atomic(struct hmcs_qnode *) next;
	_Atomic uint32_t status; /* HMCS_WAIT, a pass count, or ACQUIRE_PARENT */
};

/* A thread's context: its node-level qnode and its node id. */
struct hmcs_ctx {
	struct hmcs_qnode q;
	uint32_t node; /* private */
};

/* One per NUMA node. */
struct hmcs_node {
	/* The node-level MCS queue; written by every arriving thread. */
	LB_ALIGNED _Atomic(struct hmcs_qnode *) tail;
	/* This node's qnode in the system queue, and counters: written by
	 * the holder of the node lock, and pq also by its neighbours in the
	 * system queue (the successor links in, the predecessor wakes it). */
	LB_ALIGNED struct hmcs_qnode pq;
	_Atomic uint64_t local_passes;
	_Atomic uint64_t system_releases;
};

struct hmcs {
	/* Read-only after init. */
	struct hmcs_node *nodes;
	unsigned nnodes;
	uint32_t threshold;
	size_t bytes;
	void (*free_mem)(void *p, size_t size);
	/* The system-level MCS queue. */
	LB_ALIGNED _Atomic(struct hmcs_qnode *) tail;
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

/*
 * Plain MCS acquire of the queue at *tail with qnode q; the released
 * successor finds a status other than HMCS_WAIT.
 */
static void hmcs_mcs_acquire(_Atomic(struct hmcs_qnode *) *tail,
			     struct hmcs_qnode *q)
{
	struct hmcs_qnode *prev;

	atomic_store_explicit(&q->next, NULL, lb_rlx);
	atomic_store_explicit(&q->status, HMCS_WAIT, lb_rlx);
	/* Swap q in as the tail (acq_rel as in mcs.c); NULL means the queue
	 * was empty and the lock is ours. */
	prev = atomic_exchange_explicit(tail, q, lb_ar);
	if (!prev)
		return;
	/* Link behind the predecessor and spin on our own status until its
	 * release store changes it; the acquire load pairs with that. */
	atomic_store_explicit(&prev->next, q, lb_rel);
	while (atomic_load_explicit(&q->status, lb_acq) == HMCS_WAIT)
		cpu_relax();
}

/*
 * Plain MCS release of the queue at *tail held with q: empty the queue
 * if we are its tail, else hand the successor `status` with a release.
 */
static void hmcs_mcs_release(_Atomic(struct hmcs_qnode *) *tail,
			     struct hmcs_qnode *q, uint32_t status)
{
	struct hmcs_qnode *next = atomic_load_explicit(&q->next, lb_acq);
	struct hmcs_qnode *expect = q;

	if (!next) {
		/* No successor visible: empty the queue if we are still its
		 * tail, else wait for the one that swapped in to link. */
		if (atomic_compare_exchange_strong_explicit(tail, &expect, NULL,
							    lb_rel, lb_rlx))
			return;
		while (!(next = atomic_load_explicit(&q->next, lb_acq)))
			cpu_relax();
	}
	atomic_store_explicit(&next->status, status, lb_rel);
}

/*
 * Queue on our node's lock.  A predecessor that passed us a count also
 * passed the system lock; with an empty queue or ACQUIRE_PARENT we start
 * a batch and take the system lock with our node's qnode.
 */
static void hmcs_lock(void *lock, void *ctx)
{
	struct hmcs *l = lock;
	struct hmcs_ctx *c = ctx;
	struct hmcs_node *n = &l->nodes[c->node];
	uint32_t st;

	hmcs_mcs_acquire(&n->tail, &c->q);
	st = atomic_load_explicit(&c->q.status, lb_rlx);
	if (st != HMCS_WAIT && st != HMCS_ACQUIRE_PARENT)
		return;
	/* Empty queue (status still WAIT) or told to take the parent. */
	atomic_store_explicit(&c->q.status, HMCS_COHORT_START, lb_rlx);
	hmcs_mcs_acquire(&l->tail, &n->pq);
}

/*
 * Pass within the node while below the threshold and a successor is
 * queued (waiting out one that swapped in but has not linked yet);
 * otherwise release the system lock, then the node lock with
 * ACQUIRE_PARENT.
 */
static void hmcs_unlock(void *lock, void *ctx)
{
	struct hmcs *l = lock;
	struct hmcs_ctx *c = ctx;
	struct hmcs_node *n = &l->nodes[c->node];
	struct hmcs_qnode *next;
	uint32_t count = atomic_load_explicit(&c->q.status, lb_rlx);
	uint64_t v;

	if (count < l->threshold) {
		next = atomic_load_explicit(&c->q.next, lb_acq);
		if (!next && atomic_load_explicit(&n->tail, lb_rlx) != &c->q)
			while (!(next = atomic_load_explicit(&c->q.next,
							     lb_acq)))
				cpu_relax();
		if (next) {
			/* Hand both locks over; the count travels along. */
			v = atomic_load_explicit(&n->local_passes, lb_rlx);
			atomic_store_explicit(&n->local_passes, v + 1, lb_rlx);
			atomic_store_explicit(&next->status, count + 1, lb_rel);
			return;
		}
	}
	v = atomic_load_explicit(&n->system_releases, lb_rlx);
	atomic_store_explicit(&n->system_releases, v + 1, lb_rlx);
	hmcs_mcs_release(&l->tail, &n->pq, 0);
	hmcs_mcs_release(&n->tail, &c->q, HMCS_ACQUIRE_PARENT);
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
	.name = "hmcs",
	.desc = "hierarchical MCS, two levels (NUMA node, system)",
	.ref = "Chabbi, Fagan & Mellor-Crummey, PPoPP 2015",
	.family = LOCK_FAMILY_NUMA,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_NUMA,
	.lock_size = sizeof(struct hmcs),
	.ctx_size = sizeof(struct hmcs_ctx),
	.opts = hmcs_opts,
	.nopts = sizeof(hmcs_opts) / sizeof(hmcs_opts[0]),
	.init = hmcs_init,
	.destroy = hmcs_destroy,
	.thread_init = hmcs_thread_init,
	.lock = hmcs_lock,
	.unlock = hmcs_unlock,
	.counter_names = hmcs_counter_names,
	.ncounters = 2,
	.read_counters = hmcs_read_counters,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(hmcs, hmcs_lock, hmcs_unlock, hmcs_lock, hmcs_unlock);
