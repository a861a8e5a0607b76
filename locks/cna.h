/* SPDX-License-Identifier: MIT */
/*
 * The body of the cna lock: its types and its lock and unlock paths
 * (locks/cna.c holds the ops table, init and tunables), in a header so
 * that the worker loops instantiated for the lock in
 * workloads/loops/cna.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_CNA_H
#define LOCKBENCH_LOCK_CNA_H

#include <time.h>

#include "qspinlock.h"

/* Counter slots in struct qspin_stats, after the qspinlock ones. */
enum cna_stat {
	CSTAT_LOCAL = 2,   /* MCS hand-offs to a waiter on the preferred node */
	CSTAT_REMOTE,      /* MCS hand-offs to a waiter on another node */
	CSTAT_MOVED,       /* waiters moved to the secondary queue */
	CSTAT_SPLICE_EMPTY, /* secondary spliced back: main queue ran dry */
	CSTAT_SPLICE_FAIR,  /* secondary spliced back: fairness bound hit */
};

struct cna {
	struct qspinlock q;      /* first: the hooks get &q */
	uint64_t threshold_ns;
	uint64_t threshold_count;
};

struct cna_node {
	struct qspin_node mcs;   /* first: the table holds &mcs */
	/* Node preferred by the main queue: our own when we queue, the
	 * holder's when it hands us the lock with a secondary queue. */
	uint32_t numa_node;
	uint32_t real_numa_node; /* lock_thread.node */
	/* While a secondary queue exists: when it was created and how many
	 * local hand-offs happened since, passed from head to head. */
	uint64_t start_time;
	uint64_t intra_count;
	bool flush;              /* this head splices the secondary back */
};

/* The plain fields above are written by their own thread before it
 * links in (published by the release of the link) or by the holder
 * before the hand-off (published by its release), and read after the
 * matching acquire: they need no atomics. */

static inline struct cna *to_cna(struct qspinlock *l)
{
	return (struct cna *)l;
}

static inline struct cna_node *to_cn(struct qspin_node *node)
{
	return (struct cna_node *)node;
}

static uint64_t cna_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* cna_init_node(): a node queues with its own node as the preference. */
static inline void cna_init_node(struct qspin_node *node)
{
	struct cna_node *cn = to_cn(node);

	cn->numa_node = cn->real_numa_node;
	cn->start_time = 0;
	cn->intra_count = 0;
	cn->flush = false;
}

/*
 * cna_splice_head(): put the whole secondary queue in front of @next
 * (the rest of the main queue).  With @next NULL the main queue is empty
 * and the secondary tail must become the lock's tail: that needs a CAS
 * from @val, which fails if a newcomer swapped the tail meanwhile; then
 * the circular link is restored and NULL returned.  On success returns
 * the new main-queue head (the old secondary head).
 */
static struct qspin_node *cna_splice_head(struct qspinlock *l, uint32_t val,
					  struct qspin_node *node,
					  struct qspin_node *next)
{
	uint32_t sec = atomic_load_explicit(&node->locked, lb_rlx);
	struct qspin_node *tail_2nd = qspin_decode_tail(l, sec);
	struct qspin_node *head_2nd =
		atomic_load_explicit(&tail_2nd->next, lb_rlx);

	/* Main queue not empty: its tail stays the lock's tail, just link
	 * the secondary tail to the old main head. */
	if (next) {
		atomic_store_explicit(&tail_2nd->next, next, lb_rlx);
		return head_2nd;
	}

	/* Main queue empty: break the circle first, so that a newcomer that
	 * swaps in behind tail_2nd finds next == NULL and links there.  The
	 * CAS takes the lock and makes tail_2nd the tail; release orders the
	 * NULL before the newcomer's store into tail_2nd->next. */
	atomic_store_explicit(&tail_2nd->next, NULL, lb_rlx);
	if (!atomic_compare_exchange_strong_explicit(
		    &l->val, &val, tail_2nd->tail | Q_LOCKED_VAL, lb_rel,
		    lb_rlx)) {
		atomic_store_explicit(&tail_2nd->next, head_2nd, lb_rlx);
		return NULL;
	}
	return head_2nd;
}

/*
 * Hand the MCS head role to @next with @val (1, or the secondary queue's
 * encoded tail), counting whether it stays on the preferred node.
 */
static inline void cna_pass(struct cna_node *cn, struct qspin_node *next,
			    uint32_t val)
{
	if (to_cn(next)->real_numa_node == cn->numa_node)
		qspin_stat_inc(&cn->mcs, CSTAT_LOCAL);
	else
		qspin_stat_inc(&cn->mcs, CSTAT_REMOTE);
	atomic_store_explicit(&next->locked, val, lb_rel);
}

/*
 * cna_try_clear_tail(): we are the last node of the main queue.  With
 * waiters on the secondary queue, make it the main queue (taking the
 * lock in the same CAS) and pass it the head role; otherwise do what MCS
 * does.  Returns false if a newcomer got in, and the caller hands off.
 */
static inline bool cna_try_clear_tail(struct qspinlock *l, uint32_t val,
				      struct qspin_node *node)
{
	struct qspin_node *next;

	if (atomic_load_explicit(&node->locked, lb_rlx) <= 1)
		return qspin_mcs_try_clear_tail(l, val, node);

	next = cna_splice_head(l, val, node, NULL);
	if (!next)
		return false;
	/* Count the splice under the reason this head had for it. */
	qspin_stat_inc(node, to_cn(node)->flush ? CSTAT_SPLICE_FAIR
						: CSTAT_SPLICE_EMPTY);
	cna_pass(to_cn(node), next, 1);
	return true;
}

/*
 * cna_splice_next(): move @next, which is followed by @nnext, from the
 * main queue to the tail of the secondary queue.  Only the head touches
 * either queue's links, and @next is not the lock's tail, so plain
 * relaxed stores do.
 */
static void cna_splice_next(struct qspinlock *l, struct qspin_node *node,
			    struct qspin_node *next, struct qspin_node *nnext)
{
	struct cna *c = to_cna(l);
	struct cna_node *cn = to_cn(node);
	uint32_t sec = atomic_load_explicit(&node->locked, lb_rlx);

	/* Unlink next from the main queue. */
	atomic_store_explicit(&node->next, nnext, lb_rlx);

	if (sec <= 1) {
		/* No secondary queue yet: next alone forms the circle, and
		 * the fairness clock starts now. */
		atomic_store_explicit(&next->next, next, lb_rlx);
		if (c->threshold_ns)
			cn->start_time = cna_now();
		cn->intra_count = 0;
	} else {
		/* Append after the secondary tail, before its head. */
		struct qspin_node *tail_2nd = qspin_decode_tail(l, sec);
		struct qspin_node *head_2nd =
			atomic_load_explicit(&tail_2nd->next, lb_rlx);

		atomic_store_explicit(&tail_2nd->next, next, lb_rlx);
		atomic_store_explicit(&next->next, head_2nd, lb_rlx);
	}
	/* next is the new secondary tail. */
	atomic_store_explicit(&node->locked, next->tail, lb_rlx);
	qspin_stat_inc(node, CSTAT_MOVED);
}

/*
 * cna_order_queue(): look at the main-queue successor.  Returns true if
 * it runs on the preferred node (stop sorting).  If it does not and it
 * has a successor of its own, move it to the secondary queue; the last
 * main-queue waiter is never moved, since that would change the tail.
 */
static bool cna_order_queue(struct qspinlock *l, struct qspin_node *node)
{
	struct qspin_node *next = atomic_load_explicit(&node->next, lb_acq);
	struct qspin_node *nnext;

	if (!next)
		return false;
	if (to_cn(next)->numa_node == to_cn(node)->numa_node)
		return true;
	nnext = atomic_load_explicit(&next->next, lb_acq);
	if (nnext)
		cna_splice_next(l, node, next, nnext);
	return false;
}

/* Has the secondary queue (if any) waited long enough, by either bound? */
static bool cna_threshold_reached(struct cna *c, struct cna_node *cn)
{
	if (atomic_load_explicit(&cn->mcs.locked, lb_rlx) <= 1)
		return false;
	if (c->threshold_count && cn->intra_count >= c->threshold_count)
		return true;
	return c->threshold_ns && cna_now() - cn->start_time >= c->threshold_ns;
}

/*
 * cna_wait_head_or_lock(): as the queue head, put the time otherwise
 * spent waiting for the lock word to use by sorting the main queue -
 * unless a fairness bound expired, in which case we decide to splice the
 * secondary queue back at hand-off time and do not sort.
 */
static inline void cna_wait_head(struct qspinlock *l, struct qspin_node *node)
{
	struct cna_node *cn = to_cn(node);

	if (cna_threshold_reached(to_cna(l), cn)) {
		cn->flush = true;
		return;
	}
	while ((atomic_load_explicit(&l->val, lb_rlx) & Q_LOCKED_PENDING_MASK) &&
	       !cna_order_queue(l, node))
		cpu_relax();
}

/*
 * cna_lock_handoff(): pass the head role on.  Normally to the main-queue
 * successor (re-read: sorting may have changed it) together with the
 * secondary queue, the preferred node and the fairness state; after a
 * fairness decision, to the head of the secondary queue spliced in front
 * of the main queue, which resets the preference to its node.
 */
static inline void cna_handoff(struct qspinlock *l, struct qspin_node *node,
			       struct qspin_node *next)
{
	struct cna_node *cn = to_cn(node), *cnext;
	uint32_t sec = atomic_load_explicit(&node->locked, lb_rlx);

	if (cn->flush) {
		next = cna_splice_head(l, 0, node, next);
		qspin_stat_inc(node, CSTAT_SPLICE_FAIR);
		cna_pass(cn, next, 1);
		return;
	}
	if (sec <= 1) {
		cna_pass(cn, next, 1);
		return;
	}
	next = atomic_load_explicit(&node->next, lb_rlx);
	cnext = to_cn(next);
	cnext->numa_node = cn->numa_node;
	cnext->start_time = cn->start_time;
	cnext->intra_count = cn->intra_count + 1;
	cna_pass(cn, next, sec);
}

static const struct qspin_hooks cna_hooks = {
	.init_node = cna_init_node,
	.wait_head = cna_wait_head,
	.try_clear_tail = cna_try_clear_tail,
	.handoff = cna_handoff,
};

/* The qspinlock slow path with the CNA hooks, out of line. */
static __attribute__((noinline)) void
cna_lock_slowpath(struct qspinlock *l, struct qspin_node *node, uint32_t val)
{
	if (qspin_try_pending(l, node, val))
		return;
	qspin_queue_tmpl(l, node, &cna_hooks);
}

static void cna_lock(void *lock, void *ctx)
{
	struct cna *c = lock;
	uint32_t val = 0;

	/* The qspinlock fast path: one CAS 0 -> LOCKED. */
	if (q_likely(atomic_compare_exchange_strong_explicit(
		    &c->q.val, &val, Q_LOCKED_VAL, lb_acq, lb_rlx)))
		return;
	cna_lock_slowpath(&c->q, ctx, val);
}

static inline bool cna_trylock(void *lock, void *ctx)
{
	struct cna *c = lock;

	(void)ctx;
	return qspin_trylock(&c->q);
}

static void cna_unlock(void *lock, void *ctx)
{
	struct cna *c = lock;

	(void)ctx;
	qspin_unlock(&c->q);
}

#endif
