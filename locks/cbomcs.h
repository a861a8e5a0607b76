/* SPDX-License-Identifier: MIT */
/*
 * The body of the cbomcs lock: its types and its lock and unlock paths
 * (locks/cbomcs.c holds the ops table, init and tunables), in a header
 * so that the worker loops instantiated for the lock in
 * workloads/loops/cbomcs.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_CBOMCS_H
#define LOCKBENCH_LOCK_CBOMCS_H

#include "cohort.h"

/* Global lock backoff limits (pause iterations). */
#define CBOMCS_BACKOFF_MIN 4
#define CBOMCS_BACKOFF_MAX 1024

/* Values of cbomcs_qnode.status. */
enum {
	CBOMCS_WAIT,        /* still queued */
	CBOMCS_LOCAL_PASS,  /* handed the node lock with the global lock */
	CBOMCS_GLOBAL_FREE, /* handed the node lock, must take the global */
};

/* A thread's MCS node: its per-thread context. */
struct cbomcs_qnode {
	_Atomic(struct cbomcs_qnode *) next;
	_Atomic uint32_t status;
	uint32_t node;  /* our NUMA node, private */
	uint64_t rng;   /* backoff randomness, private */
};

/* One per NUMA node. */
struct cbomcs_node {
	/* The node's MCS queue; written by every arriving thread. */
	LB_ALIGNED _Atomic(struct cbomcs_qnode *) tail;
	/* Touched only by the holder of this node's MCS lock (relaxed
	 * atomics so that read_counters may look at them). */
	LB_ALIGNED _Atomic uint32_t passes; /* local hand-offs in a row */
	struct cohort_counts counts; /* releases: of the global lock */
};

struct cbomcs {
	struct cohort c; /* the nodes; limit: the batch */
	/* The global lock: 1 while a cohort holds it. */
	LB_ALIGNED _Atomic uint32_t global;
};

static uint32_t cbomcs_rand(struct cbomcs_qnode *me)
{
	me->rng ^= me->rng << 13;
	me->rng ^= me->rng >> 7;
	me->rng ^= me->rng << 17;
	return (uint32_t)(me->rng >> 32);
}

/*
 * Take the global lock: TTAS with randomised exponential backoff.  Only
 * the heads of node cohorts compete here.  Acquire pairs with the
 * release in cbomcs_global_release(), whichever thread did it.
 */
static void cbomcs_global_acquire(struct cbomcs *l, struct cbomcs_qnode *me)
{
	uint32_t lim = CBOMCS_BACKOFF_MIN;

	for (;;) {
		while (atomic_load_explicit(&l->global, lb_rlx))
			cpu_relax();
		if (!atomic_exchange_explicit(&l->global, 1, lb_acq))
			return;
		for (uint32_t i = cbomcs_rand(me) % lim; i; i--)
			cpu_relax();
		lim = lim * 2 > CBOMCS_BACKOFF_MAX ? CBOMCS_BACKOFF_MAX
						   : lim * 2;
	}
}

/* Release the global lock; any thread of the cohort may do it. */
static void cbomcs_global_release(struct cbomcs *l, struct cbomcs_node *n)
{
	uint64_t r = atomic_load_explicit(&n->counts.releases, lb_rlx);

	atomic_store_explicit(&n->counts.releases, r + 1, lb_rlx);
	atomic_store_explicit(&l->global, 0, lb_rel);
}

/*
 * Queue on our node's MCS lock.  If the previous holder passed the
 * global lock along with it we are done; otherwise (empty queue, or a
 * holder that released the global lock) take the global lock.
 */
static void cbomcs_lock(void *lock, void *ctx)
{
	struct cbomcs *l = lock;
	struct cbomcs_qnode *me = ctx, *prev;
	struct cbomcs_node *n =
		COHORT_NODE(&l->c, struct cbomcs_node, me->node);
	uint32_t st;

	atomic_store_explicit(&me->next, NULL, lb_rlx);
	atomic_store_explicit(&me->status, CBOMCS_WAIT, lb_rlx);
	/* Swap ourselves in as the node's tail (acq_rel as in mcs.c).
	 * NULL: the node queue was empty, we head a new cohort. */
	prev = atomic_exchange_explicit(&n->tail, me, lb_ar);
	if (prev) {
		/* Link behind the predecessor and wait for its hand-off;
		 * the acquire load pairs with its release store. */
		atomic_store_explicit(&prev->next, me, lb_rel);
		while ((st = atomic_load_explicit(&me->status, lb_acq)) ==
		       CBOMCS_WAIT)
			cpu_relax();
		/* The cohort still owns the global lock: it is ours now. */
		if (st == CBOMCS_LOCAL_PASS)
			return;
	}
	/* We start a cohort: take the global lock, reset the batch. */
	cbomcs_global_acquire(l, me);
	atomic_store_explicit(&n->passes, 0, lb_rlx);
}

/*
 * Find our MCS successor: NULL if we are still the node's tail, else
 * wait out the short window between its tail swap and its link.
 */
static struct cbomcs_qnode *cbomcs_successor(struct cbomcs_node *n,
					     struct cbomcs_qnode *me)
{
	struct cbomcs_qnode *next = atomic_load_explicit(&me->next, lb_acq);

	if (next || atomic_load_explicit(&n->tail, lb_rlx) == me)
		return next;
	while (!(next = atomic_load_explicit(&me->next, lb_acq)))
		cpu_relax();
	return next;
}

/*
 * Pass within the node while a local waiter exists and the batch allows
 * it; otherwise release the global lock, then the node lock.
 */
static void cbomcs_unlock(void *lock, void *ctx)
{
	struct cbomcs *l = lock;
	struct cbomcs_qnode *me = ctx, *next, *expect = me;
	struct cbomcs_node *n =
		COHORT_NODE(&l->c, struct cbomcs_node, me->node);
	uint32_t passes = atomic_load_explicit(&n->passes, lb_rlx);

	if (passes < l->c.limit) {
		next = cbomcs_successor(n, me);
		if (next) {
			/* Local hand-off: the global lock stays with the
			 * cohort.  Update the holder-only fields first; the
			 * release below publishes them to the successor. */
			uint64_t p = atomic_load_explicit(
				&n->counts.local_passes, lb_rlx);

			atomic_store_explicit(&n->counts.local_passes, p + 1,
					      lb_rlx);
			atomic_store_explicit(&n->passes, passes + 1, lb_rlx);
			atomic_store_explicit(&next->status,
					      CBOMCS_LOCAL_PASS, lb_rel);
			return;
		}
	}
	/* Batch spent or nobody local: give the global lock back first, so
	 * the next holder of the node lock must compete for it again. */
	cbomcs_global_release(l, n);
	/* Then release the node lock as in MCS: empty the queue if we are
	 * still its tail, else tell the successor to take the global lock. */
	next = atomic_load_explicit(&me->next, lb_acq);
	if (!next) {
		if (atomic_compare_exchange_strong_explicit(
			    &n->tail, &expect, NULL, lb_rel, lb_rlx))
			return;
		while (!(next = atomic_load_explicit(&me->next, lb_acq)))
			cpu_relax();
	}
	atomic_store_explicit(&next->status, CBOMCS_GLOBAL_FREE, lb_rel);
}

#endif
