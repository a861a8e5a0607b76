/* SPDX-License-Identifier: MIT */
/*
 * qspinlock - the Linux queued spinlock in C11 atomics: a 32-bit word
 * holding a locked byte, a pending bit and the MCS queue tail.  One CAS
 * takes a free lock; the first contender spins on the word as "pending"
 * instead of queueing; everyone else queues on a per-thread MCS node and
 * only the queue head spins on the lock word.
 * Linux kernel/locking/qspinlock.c (W. Long, P. Zijlstra), v4.2+, in
 * the v6 form with the CNA series' slow-path hooks; see qspinlock.h for
 * the word layout and how it maps to C11.
 *
 * This file also holds the node-table helpers that cna.c and qrwlock.c
 * share, and qspin_lock_slowpath(), which qrwlock's wait_lock uses.
 */
#include <errno.h>

#include "qspinlock.h"
#include "registry.h"

/*
 * Allocate the tail -> node table and the per-thread counters for
 * in->nthreads threads.  Returns 0, -EINVAL if the thread ids do not fit
 * the 14 tail cpu bits, or -ENOMEM (nothing left allocated).
 */
int qspin_table_init(struct qspinlock *l, const struct lock_init *in)
{
	if (!in->nthreads || in->nthreads > Q_MAX_THREADS)
		return -EINVAL;
	l->nthreads = in->nthreads;
	l->free_mem = in->free_mem;
	l->nodes = in->alloc(in->nthreads * sizeof(*l->nodes));
	l->stats = in->alloc(in->nthreads * sizeof(*l->stats));
	if (!l->nodes || !l->stats) {
		qspin_table_destroy(l);
		return -ENOMEM;
	}
	atomic_store_explicit(&l->val, 0, lb_rlx);
	return 0;
}

/* Free what qspin_table_init() allocated. */
void qspin_table_destroy(struct qspinlock *l)
{
	if (l->nodes)
		l->free_mem(l->nodes, l->nthreads * sizeof(*l->nodes));
	if (l->stats)
		l->free_mem(l->stats, l->nthreads * sizeof(*l->stats));
	l->nodes = NULL;
	l->stats = NULL;
}

/*
 * Register the calling thread's node under its tid and give it its
 * encoded tail.  Returns 0, or -EINVAL for a tid outside the table.
 */
int qspin_table_register(struct qspinlock *l, struct qspin_node *node,
			 const struct lock_thread *t)
{
	if (!l->nodes || t->tid >= l->nthreads)
		return -EINVAL;
	node->tail = qspin_encode_tail(t->tid, 0);
	node->stats = &l->stats[t->tid];
	l->nodes[t->tid] = node;
	return 0;
}

/*
 * out[i] = sum over the threads of counter slots[i].  Safe while the
 * lock is in use (relaxed atomics) and after the threads and their
 * contexts are gone (the counters belong to the lock).
 */
void qspin_sum_stats(const struct qspinlock *l, const unsigned *slots,
		     unsigned n, uint64_t *out)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = 0;
	for (unsigned t = 0; l->stats && t < l->nthreads; t++)
		for (unsigned i = 0; i < n; i++)
			out[i] += atomic_load_explicit(
				&l->stats[t].v[slots[i]], lb_rlx);
}

static const struct qspin_hooks qspin_mcs_hooks = {
	.init_node = qspin_mcs_init_node,
	.wait_head = qspin_mcs_wait_head,
	.try_clear_tail = qspin_mcs_try_clear_tail,
	.handoff = qspin_mcs_handoff,
};

/*
 * queued_spin_lock_slowpath(): entered from qspin_lock() with the value
 * its CAS saw; returns with the lock held.  Out of line so the fast path
 * stays one CAS.
 */
__attribute__((noinline)) void qspin_lock_slowpath(struct qspinlock *l,
						   struct qspin_node *node,
						   uint32_t val)
{
	if (qspin_try_pending(l, node, val))
		return;
	qspin_queue_tmpl(l, node, &qspin_mcs_hooks);
}

/* lock_ops glue: the lock object is a struct qspinlock, the context a
 * struct qspin_node. */

static int qspinlock_init(void *lock, const struct lock_init *in)
{
	return qspin_table_init(lock, in);
}

static void qspinlock_destroy(void *lock)
{
	qspin_table_destroy(lock);
}

static int qspinlock_thread_init(void *lock, void *ctx,
				 const struct lock_thread *t)
{
	return qspin_table_register(lock, ctx, t);
}

static const char *const qspinlock_counter_names[] = {
	"pending",  /* acquired as the pending owner, without queueing */
	"queued",   /* queued on the MCS queue */
};

static const unsigned qspinlock_counter_slots[] = {QSTAT_PENDING, QSTAT_QUEUED};

static void qspinlock_read_counters(void *lock, uint64_t *out)
{
	qspin_sum_stats(lock, qspinlock_counter_slots, 2, out);
}

const struct lock_ops lock_qspinlock_ops = {
	LOCK_KIND(qspinlock, SPIN, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK),
	.desc = "Linux queued spinlock: locked byte + pending bit + MCS tail in one word",
	.ref = "Linux kernel/locking/qspinlock.c (Long, Zijlstra)",
	LOCK_SIZES(struct qspinlock, struct qspin_node),
	LOCK_SETUP(qspinlock_init, qspinlock_destroy, qspinlock_thread_init),
	LOCK_CALLS(qspinlock_lock, qspinlock_unlock, qspinlock_trylock),
	LOCK_COUNTERS(qspinlock_counter_names, qspinlock_read_counters),
};
