/* SPDX-License-Identifier: MIT */
/*
 * The body of the mcs lock: its types and its lock and unlock paths
 * (locks/mcs.c holds the ops table, init and tunables), in a header so
 * that the worker loops instantiated for the lock in
 * workloads/loops/mcs.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_MCS_H
#define LOCKBENCH_LOCK_MCS_H

#include <stddef.h>

#include "lockbench/lock.h"

struct mcs_node {
	_Atomic(struct mcs_node *) next;
	_Atomic uint32_t locked;
};

struct mcs {
	_Atomic(struct mcs_node *) tail;
};

/* Queued behind `prev`: link behind it, then spin on our own flag,
 * which the predecessor sets with a release when it hands the lock
 * over.  Out of line: the loops inline only the uncontended path. */
static __attribute__((noinline)) void mcs_lock_wait(struct mcs_node *prev,
						    struct mcs_node *me)
{
	atomic_store_explicit(&prev->next, me, lb_rel);
	while (!atomic_load_explicit(&me->locked, lb_acq))
		cpu_relax();
}

static inline __attribute__((always_inline)) void mcs_lock(void *lock, void *ctx)
{
	struct mcs *l = lock;
	struct mcs_node *me = ctx, *prev;

	atomic_store_explicit(&me->next, NULL, lb_rlx);
	atomic_store_explicit(&me->locked, 0, lb_rlx);
	/* Swap ourselves in as the tail.  acq_rel: release publishes our
	 * initialised node to the successor that will find it; acquire
	 * orders us after the previous tail's initialisation.  NULL means
	 * the queue was empty and the lock is ours. */
	prev = atomic_exchange_explicit(&l->tail, me, lb_ar);
	if (__builtin_expect(prev != NULL, 0))
		mcs_lock_wait(prev, me);
}

static inline bool mcs_trylock(void *lock, void *ctx)
{
	struct mcs *l = lock;
	struct mcs_node *me = ctx, *expect = NULL;

	atomic_store_explicit(&me->next, NULL, lb_rlx);
	atomic_store_explicit(&me->locked, 0, lb_rlx);
	return atomic_compare_exchange_strong_explicit(&l->tail, &expect, me,
						       lb_ar, lb_rlx);
}

/* A successor swapped in behind us but has not linked yet: wait for
 * the link.  Out of line (rare). */
static __attribute__((noinline)) struct mcs_node *mcs_wait_next(struct mcs_node *me)
{
	struct mcs_node *next;

	while (!(next = atomic_load_explicit(&me->next, lb_acq)))
		cpu_relax();
	return next;
}

static inline __attribute__((always_inline)) void mcs_unlock(void *lock, void *ctx)
{
	struct mcs *l = lock;
	struct mcs_node *me = ctx, *expect = me;
	struct mcs_node *next = atomic_load_explicit(&me->next, lb_acq);

	if (!next) {
		/* No successor visible: if we are still the tail, empty the
		 * queue and we are done. */
		if (__builtin_expect(atomic_compare_exchange_strong_explicit(
				&l->tail, &expect, NULL, lb_rel, lb_rlx), 1))
			return;
		next = mcs_wait_next(me);
	}
	/* Hand over: release our critical section to the successor. */
	atomic_store_explicit(&next->locked, 1, lb_rel);
}

#endif
