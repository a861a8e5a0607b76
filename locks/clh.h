/* SPDX-License-Identifier: MIT */
/*
 * The body of the clh lock: its types and its lock and unlock paths
 * (locks/clh.c holds the ops table, init and tunables), in a header so
 * that the worker loops instantiated for the lock in
 * workloads/loops/clh.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_CLH_H
#define LOCKBENCH_LOCK_CLH_H

#include "lockbench/lock.h"

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

#endif
