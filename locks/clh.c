/* SPDX-License-Identifier: MIT */
/*
 * clh - the CLH queue lock.  The queue is an implicit list: each waiter
 * swaps its node into the tail and spins on its predecessor's node.  On
 * release the holder clears its own node's flag (waking the successor)
 * and takes over the predecessor's node, which nobody else can touch any
 * more.  Nodes therefore migrate between threads: a lock used by N
 * threads owns N+1 nodes, one of them the initial dummy.  FIFO.
 * T. S. Craig, "Building FIFO and priority-queuing spin locks from
 * atomic swap", TR 93-02-02, U. of Washington, 1993;
 * P. Magnussen, A. Landin, E. Hagersten, "Queue locks on cache coherent
 * multiprocessors", IPPS 1994.
 */
#include <errno.h>

#include "lockbench/lock.h"
#include "../workloads/loop.h"

struct clh_node {
	LB_ALIGNED _Atomic uint32_t locked; /* 1 while its owner holds or waits */
};

struct clh {
	/* Read-only after init. */
	struct clh_node *nodes; /* nthreads + 1 nodes */
	unsigned nthreads;
	size_t bytes;
	void (*free_mem)(void *p, size_t size);
	/* Last node queued; written by every lock(). */
	LB_ALIGNED _Atomic(struct clh_node *) tail;
};

/* Private to the thread. */
struct clh_ctx {
	struct clh_node *node; /* the node we queue with next */
	struct clh_node *pred; /* our predecessor while we wait or hold */
};

/*
 * Allocate nthreads + 1 nodes: node i starts as thread i's, and the last
 * one is the dummy the tail points at, unlocked, so the first waiter
 * finds the lock free.  Returns 0, -EINVAL or -ENOMEM.
 */
static int clh_init(void *lock, const struct lock_init *in)
{
	struct clh *l = lock;

	if (!in->nthreads || in->nthreads > (1u << 20))
		return -EINVAL;
	l->bytes = ((size_t)in->nthreads + 1) * sizeof(struct clh_node);
	l->nodes = in->alloc(l->bytes);
	if (!l->nodes)
		return -ENOMEM;
	l->free_mem = in->free_mem;
	l->nthreads = in->nthreads;
	atomic_store_explicit(&l->nodes[in->nthreads].locked, 0, lb_rlx);
	atomic_store_explicit(&l->tail, &l->nodes[in->nthreads], lb_rlx);
	return 0;
}

/* Free the nodes; whichever thread held each one last is gone by now. */
static void clh_destroy(void *lock)
{
	struct clh *l = lock;

	if (l->nodes)
		l->free_mem(l->nodes, l->bytes);
	l->nodes = NULL;
}

/* Give thread tid its first node.  Returns 0 or -EINVAL. */
static int clh_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	struct clh *l = lock;
	struct clh_ctx *c = ctx;

	if (!l->nodes || t->tid >= l->nthreads)
		return -EINVAL;
	c->node = &l->nodes[t->tid];
	c->pred = NULL;
	return 0;
}

/*
 * Mark our node locked, swap it into the tail and spin on the node we
 * displaced until its owner releases it.
 */
static void clh_lock(void *lock, void *ctx)
{
	struct clh *l = lock;
	struct clh_ctx *c = ctx;
	struct clh_node *me = c->node, *pred;

	/* Our node is ours alone: we adopted it after seeing it unlocked. */
	atomic_store_explicit(&me->locked, 1, lb_rlx);
	/* Swap ourselves in as the tail.  acq_rel: release publishes
	 * locked=1 to the successor that will spin on it; acquire orders us
	 * after the predecessor's own store of locked=1, so we cannot read
	 * a stale 0 from before it queued. */
	pred = atomic_exchange_explicit(&l->tail, me, lb_ar);
	c->pred = pred;
	/* Spin on the predecessor's flag; its release store of 0 hands the
	 * lock (and the node) over, and our acquire load that sees it orders
	 * us after its critical section. */
	while (atomic_load_explicit(&pred->locked, lb_acq))
		cpu_relax();
}

/*
 * Release our node to the successor (who may be spinning on it) and
 * adopt the predecessor's node, which nobody references any more.
 */
static void clh_unlock(void *lock, void *ctx)
{
	struct clh_ctx *c = ctx;

	(void)lock;
	atomic_store_explicit(&c->node->locked, 0, lb_rel);
	c->node = c->pred;
}

const struct lock_ops lock_clh_ops = {
	.name = "clh",
	.desc = "CLH queue lock: FIFO, spin on the predecessor's node",
	.ref = "Craig, UW TR 93-02-02, 1993; Magnussen, Landin & Hagersten, IPPS 1994",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct clh),
	.ctx_size = sizeof(struct clh_ctx),
	.init = clh_init,
	.destroy = clh_destroy,
	.thread_init = clh_thread_init,
	.lock = clh_lock,
	.unlock = clh_unlock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(clh, clh_lock, clh_unlock, clh_lock, clh_unlock);
