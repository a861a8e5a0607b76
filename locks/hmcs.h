/* SPDX-License-Identifier: MIT */
/*
 * The body of the hmcs lock: its types and its lock and unlock paths
 * (locks/hmcs.c holds the ops table, init and tunables), in a header so
 * that the worker loops instantiated for the lock in
 * workloads/loops/hmcs.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_HMCS_H
#define LOCKBENCH_LOCK_HMCS_H

#include "cohort.h"

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
	struct cohort_counts counts; /* releases: of the system lock */
};

struct hmcs {
	struct cohort c; /* the nodes; limit: the threshold */
	/* The system-level MCS queue. */
	LB_ALIGNED _Atomic(struct hmcs_qnode *) tail;
};

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
	struct hmcs_node *n = COHORT_NODE(&l->c, struct hmcs_node, c->node);
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
	struct hmcs_node *n = COHORT_NODE(&l->c, struct hmcs_node, c->node);
	struct hmcs_qnode *next;
	uint32_t count = atomic_load_explicit(&c->q.status, lb_rlx);
	uint64_t v;

	if (count < l->c.limit) {
		next = atomic_load_explicit(&c->q.next, lb_acq);
		if (!next && atomic_load_explicit(&n->tail, lb_rlx) != &c->q)
			while (!(next = atomic_load_explicit(&c->q.next,
							     lb_acq)))
				cpu_relax();
		if (next) {
			/* Hand both locks over; the count travels along. */
			v = atomic_load_explicit(&n->counts.local_passes,
						 lb_rlx);
			atomic_store_explicit(&n->counts.local_passes, v + 1,
					      lb_rlx);
			atomic_store_explicit(&next->status, count + 1, lb_rel);
			return;
		}
	}
	v = atomic_load_explicit(&n->counts.releases, lb_rlx);
	atomic_store_explicit(&n->counts.releases, v + 1, lb_rlx);
	hmcs_mcs_release(&l->tail, &n->pq, 0);
	hmcs_mcs_release(&n->tail, &c->q, HMCS_ACQUIRE_PARENT);
}

#endif
