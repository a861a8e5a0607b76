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

#include "clh.h"
#include "registry.h"

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

const struct lock_ops lock_clh_ops = {
	LOCK_KIND(clh, SPIN, LOCK_CAP_EXCLUSIVE),
	.desc = "CLH queue lock: FIFO, spin on the predecessor's node",
	.ref = "Craig, UW TR 93-02-02, 1993; Magnussen, Landin & Hagersten, IPPS 1994",
	LOCK_SIZES(struct clh, struct clh_ctx),
	LOCK_SETUP(clh_init, clh_destroy, clh_thread_init),
	LOCK_CALLS(clh_lock, clh_unlock, NULL),
};
