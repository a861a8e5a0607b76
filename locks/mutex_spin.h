/* SPDX-License-Identifier: MIT */
/*
 * The body of the mutex_spin lock: its types and its lock and unlock
 * paths (locks/mutex_spin.c holds the ops table, init and tunables), in
 * a header so that the worker loops instantiated for the lock in
 * workloads/loops/mutex_spin.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_MUTEX_SPIN_H
#define LOCKBENCH_LOCK_MUTEX_SPIN_H

#include <sched.h>
#include <stddef.h>

#include "futex_sys.h"
#include "lockbench/lock.h"

#define MSP_WAITERS ((uintptr_t)0x1)
#define MSP_HANDOFF ((uintptr_t)0x2)
#define MSP_PICKUP ((uintptr_t)0x4)
#define MSP_FLAGS (MSP_WAITERS | MSP_HANDOFF | MSP_PICKUP)

enum {
	MSP_CNT_SPIN_ACQUIRED, /* taken by optimistic spinning */
	MSP_CNT_SLEEPS,        /* waits on the per-waiter futex word */
	MSP_CNT_WAKEUPS,       /* unlocks that woke the first waiter */
	MSP_CNT_HANDOFFS,      /* unlocks that handed the lock over */
	MSP_NCNT
};

/* struct optimistic_spin_node: the thread's place in the osq. */
struct osq_node {
	_Atomic(struct osq_node *) next, prev;
	_Atomic uint32_t locked;
};

/* struct mutex_waiter: links under the wait_lock, `awake` is the task
 * state (see wait_on_word()). */
struct msp_waiter {
	struct msp_waiter *next, *prev;
	_Atomic uint32_t awake;
};

/* The per-thread context plays the task: its address is the owner. */
struct msp_ctx {
	struct osq_node osq;
	struct msp_waiter waiter;
	uint32_t budget; /* need_resched() model, private to the thread */
};

struct mutex_spin {
	_Atomic uintptr_t owner;
	struct waitlock wait_lock;
	_Atomic(struct osq_node *) osq; /* tail of the spinner queue */
	/* Wait list, changed under the wait_lock; `first` is also read
	 * without it by a woken waiter (__mutex_waiter_is_first()). */
	_Atomic(struct msp_waiter *) first;
	struct msp_waiter *last;
	uint32_t spin_max; /* written by init only */
	LB_ALIGNED _Atomic uint64_t cnt[MSP_NCNT];
};

static void msp_count(struct mutex_spin *l, unsigned i)
{
	atomic_fetch_add_explicit(&l->cnt[i], 1, lb_rlx);
}

static struct msp_ctx *msp_waiter_task(struct msp_waiter *w)
{
	return (struct msp_ctx *)((char *)w - offsetof(struct msp_ctx, waiter));
}

/* need_resched(): true once this attempt's spin budget is used up. */
static bool msp_need_resched(struct msp_ctx *me)
{
	if (!me->budget)
		return true;
	me->budget--;
	return false;
}

/*
 * __mutex_trylock_common(): take the lock if it has no owner, or pick
 * it up if it was handed to us.  With `handoff` (the first waiter after
 * a wake-up) and an owner present, set HANDOFF so the owner hands the
 * lock to us instead of releasing it.  Return 0 when the lock is ours,
 * otherwise the owner seen.
 */
static inline uintptr_t msp_trylock_common(struct mutex_spin *l, uintptr_t me,
				    bool handoff)
{
	uintptr_t owner = atomic_load_explicit(&l->owner, lb_rlx);

	for (;;) {
		uintptr_t flags = owner & MSP_FLAGS, task = owner & ~MSP_FLAGS;

		if (task) {
			if (flags & MSP_PICKUP) {
				/* Handed over: only its new owner may pick
				 * it up. */
				if (task != me)
					break;
				flags &= ~MSP_PICKUP;
			} else if (handoff) {
				if (flags & MSP_HANDOFF)
					break;
				flags |= MSP_HANDOFF;
			} else {
				break;
			}
		} else {
			task = me;
		}
		/* Acquire: pairs with the release of the unlock or handoff. */
		if (atomic_compare_exchange_weak_explicit(
			    &l->owner, &owner, task | flags, lb_acq, lb_rlx)) {
			if (task == me)
				return 0;
			break;
		}
	}
	return owner & ~MSP_FLAGS;
}

/*
 * osq_wait_next(): we are leaving the osq (unlock or unqueue).  If we
 * are still its tail, move the tail back to `prev` and return NULL;
 * otherwise wait for our successor to link itself and return it,
 * detached from our node.
 */
static struct osq_node *osq_wait_next(struct mutex_spin *l,
				      struct osq_node *node,
				      struct osq_node *prev)
{
	struct osq_node *next, *cur;

	for (;;) {
		cur = node;
		if (atomic_load_explicit(&l->osq, lb_rlx) == node &&
		    atomic_compare_exchange_strong_explicit(&l->osq, &cur, prev,
							    lb_acq, lb_rlx))
			return NULL;
		/* Take next with an exchange, so that a successor that is
		 * unqueueing itself cannot still think we are its prev. */
		if (atomic_load_explicit(&node->next, lb_rlx)) {
			next = atomic_exchange_explicit(&node->next, NULL, lb_ar);
			if (next)
				return next;
		}
		cpu_relax();
	}
}

/*
 * osq_unqueue(): the spin budget ran out while queued behind prev.
 * Unlink ourselves (the three steps of the kernel's osq_lock()).  Return
 * true if the osq was passed to us meanwhile, false once we are out.
 */
static bool osq_unqueue(struct mutex_spin *l, struct osq_node *node,
			struct osq_node *prev)
{
	struct osq_node *next, *exp;

	/* Step A: undo prev->next = node, so prev's unlock waits for a new
	 * next.  The CAS fails only against prev's unlock (then we are
	 * handed the osq) or prev's own unqueue (then it gives us a new
	 * prev in its step C). */
	for (;;) {
		exp = node;
		if (atomic_load_explicit(&prev->next, lb_rlx) == node &&
		    atomic_compare_exchange_strong_explicit(&prev->next, &exp,
							    NULL, lb_ar, lb_rlx))
			break;
		if (atomic_load_explicit(&node->locked, lb_acq))
			return true;
		cpu_relax();
		prev = atomic_load_explicit(&node->prev, lb_rlx);
	}
	/* Step B: get a stable next, or move the tail back to prev. */
	next = osq_wait_next(l, node, prev);
	if (!next)
		return false;
	/* Step C: link prev and next around us. */
	atomic_store_explicit(&next->prev, prev, lb_rlx);
	atomic_store_explicit(&prev->next, next, lb_rel);
	return false;
}

/* osq_lock(): join the spinner queue; return true at its head, false
 * if the budget ran out first (and we left the queue). */
static bool osq_lock(struct mutex_spin *l, struct msp_ctx *me)
{
	struct osq_node *node = &me->osq, *prev;

	atomic_store_explicit(&node->locked, 0, lb_rlx);
	atomic_store_explicit(&node->next, NULL, lb_rlx);
	/* Swap ourselves in as the tail; NULL means nobody spins. */
	prev = atomic_exchange_explicit(&l->osq, node, lb_ar);
	if (!prev)
		return true;
	/* Link behind prev and wait for it to pass the osq to us. */
	atomic_store_explicit(&node->prev, prev, lb_rlx);
	atomic_store_explicit(&prev->next, node, lb_rel);
	while (!atomic_load_explicit(&node->locked, lb_acq)) {
		if (msp_need_resched(me))
			return osq_unqueue(l, node, prev);
		cpu_relax();
	}
	return true;
}

/* osq_unlock(): leave the head of the osq, passing it on if queued. */
static void osq_unlock(struct mutex_spin *l, struct msp_ctx *me)
{
	struct osq_node *node = &me->osq, *next, *exp = node;

	if (atomic_compare_exchange_strong_explicit(&l->osq, &exp, NULL,
						    lb_rel, lb_rlx))
		return;
	next = atomic_exchange_explicit(&node->next, NULL, lb_ar);
	if (!next)
		next = osq_wait_next(l, node, NULL);
	if (next)
		atomic_store_explicit(&next->locked, 1, lb_rel);
}

/* mutex_spin_on_owner(): spin while `owner` holds the lock.  Return
 * false when the budget ran out (owner_on_cpu() is always true here). */
static bool msp_spin_on_owner(struct mutex_spin *l, uintptr_t owner,
			      struct msp_ctx *me)
{
	while ((atomic_load_explicit(&l->owner, lb_rlx) & ~MSP_FLAGS) == owner) {
		if (msp_need_resched(me))
			return false;
		cpu_relax();
	}
	return true;
}

/*
 * mutex_optimistic_spin(): spin for the lock while its owner runs.  A
 * newcomer first queues on the osq so one spinner at a time polls the
 * owner word; the woken first waiter (`waiter`) spins without it.
 * Return true with the lock taken.  When the budget ran out, yield the
 * CPU (schedule() on need_resched) before the caller goes to sleep.
 */
static bool msp_optimistic_spin(struct mutex_spin *l, struct msp_ctx *me,
				bool waiter)
{
	uintptr_t owner;
	bool got = false;

	me->budget = l->spin_max;
	/* mutex_can_spin_on_owner() is just !need_resched() here. */
	if (!waiter && (!me->budget || !osq_lock(l, me)))
		goto out;
	for (;;) {
		owner = msp_trylock_common(l, (uintptr_t)me, false);
		if (!owner) {
			got = true;
			msp_count(l, MSP_CNT_SPIN_ACQUIRED);
			break;
		}
		if (!msp_spin_on_owner(l, owner, me))
			break;
		cpu_relax();
	}
	if (!waiter)
		osq_unlock(l, me);
out:
	if (!got && l->spin_max && !me->budget)
		sched_yield();
	return got;
}

/* __mutex_add_waiter(): FIFO, WAITERS set by the first one.  The
 * caller holds the wait_lock. */
static void msp_add_waiter(struct mutex_spin *l, struct msp_waiter *w)
{
	w->next = NULL;
	w->prev = l->last;
	if (l->last) {
		l->last->next = w;
	} else {
		atomic_store_explicit(&l->first, w, lb_rlx);
		atomic_fetch_or_explicit(&l->owner, MSP_WAITERS, lb_rlx);
	}
	l->last = w;
}

/* __mutex_remove_waiter(): unlink w; the last one out clears all flags
 * (we own the lock, so no HANDOFF or PICKUP is pending).  The caller
 * holds the wait_lock. */
static void msp_remove_waiter(struct mutex_spin *l, struct msp_waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		atomic_store_explicit(&l->first, w->next, lb_rlx);
	if (w->next)
		w->next->prev = w->prev;
	else
		l->last = w->prev;
	if (!atomic_load_explicit(&l->first, lb_rlx))
		atomic_fetch_and_explicit(&l->owner, ~MSP_FLAGS, lb_rlx);
}

/*
 * The sleeping part of __mutex_lock_common(), entered with the
 * wait_lock held and left with the lock taken.  The task state is set
 * before every last look at the lock under the wait_lock, and an unlock
 * that look did not see picks the first waiter under the wait_lock
 * afterwards, so its wake-up lands after the reset and is never lost.
 * A woken first waiter that still finds the lock taken sets HANDOFF.
 */
static void msp_wait(struct mutex_spin *l, struct msp_ctx *me)
{
	struct msp_waiter *w = &me->waiter;
	uintptr_t self = (uintptr_t)me;
	bool first;

	msp_add_waiter(l, w);
	atomic_store_explicit(&w->awake, 0, lb_rlx);
	for (;;) {
		if (!msp_trylock_common(l, self, false))
			break;
		waitlock_unlock(&l->wait_lock);
		msp_count(l, MSP_CNT_SLEEPS);
		wait_on_word(&w->awake);

		first = atomic_load_explicit(&l->first, lb_rlx) == w;
		atomic_store_explicit(&w->awake, 0, lb_rlx);
		if (!msp_trylock_common(l, self, first) ||
		    (first && msp_optimistic_spin(l, me, true))) {
			waitlock_lock(&l->wait_lock);
			break;
		}
		waitlock_lock(&l->wait_lock);
	}
	msp_remove_waiter(l, w);
}

/* __mutex_lock_slowpath(): try, spin, then queue and sleep. */
static void __attribute__((noinline))
msp_slowlock(struct mutex_spin *l, struct msp_ctx *me)
{
	if (!msp_trylock_common(l, (uintptr_t)me, false) ||
	    msp_optimistic_spin(l, me, false))
		return;
	waitlock_lock(&l->wait_lock);
	/* After waiting for the wait_lock, try again. */
	if (msp_trylock_common(l, (uintptr_t)me, false))
		msp_wait(l, me);
	waitlock_unlock(&l->wait_lock);
}

/* __mutex_handoff(): give the lock to `w` (PICKUP), or release it when
 * nobody waits, keeping WAITERS.  Release: ends our critical section. */
static void msp_handoff(struct mutex_spin *l, struct msp_waiter *w)
{
	uintptr_t owner = atomic_load_explicit(&l->owner, lb_rlx), val;

	do {
		val = owner & MSP_WAITERS;
		if (w)
			val |= (uintptr_t)msp_waiter_task(w) | MSP_PICKUP;
	} while (!atomic_compare_exchange_weak_explicit(&l->owner, &owner, val,
							lb_rel, lb_rlx));
}

/*
 * __mutex_unlock_slowpath(): a flag is set.  Unless HANDOFF asks us to
 * hand over, release the owner (flags stay) and stop if nobody waits.
 * Then, under the wait_lock, pick the first waiter, hand over if asked,
 * and wake it once the wait_lock is dropped.
 */
static void __attribute__((noinline))
msp_slowunlock(struct mutex_spin *l)
{
	uintptr_t owner = atomic_load_explicit(&l->owner, lb_rlx);
	struct msp_waiter *next;

	while (!(owner & MSP_HANDOFF)) {
		if (atomic_compare_exchange_weak_explicit(
			    &l->owner, &owner, owner & MSP_FLAGS, lb_rel, lb_rlx)) {
			if (!(owner & MSP_WAITERS))
				return;
			break;
		}
	}
	waitlock_lock(&l->wait_lock);
	next = atomic_load_explicit(&l->first, lb_rlx);
	if (owner & MSP_HANDOFF) {
		msp_handoff(l, next);
		msp_count(l, MSP_CNT_HANDOFFS);
	}
	waitlock_unlock(&l->wait_lock);
	if (next) {
		msp_count(l, MSP_CNT_WAKEUPS);
		wake_word(&next->awake);
	}
}

static void msp_lock(void *lock, void *ctx)
{
	struct mutex_spin *l = lock;
	uintptr_t o = 0;

	/* __mutex_trylock_fast(): no owner, no flags. */
	if (!atomic_compare_exchange_strong_explicit(
		    &l->owner, &o, (uintptr_t)ctx, lb_acq, lb_rlx))
		msp_slowlock(l, ctx);
}

static inline bool msp_trylock(void *lock, void *ctx)
{
	return !msp_trylock_common(lock, (uintptr_t)ctx, false);
}

static void msp_unlock(void *lock, void *ctx)
{
	struct mutex_spin *l = lock;
	uintptr_t o = (uintptr_t)ctx;

	/* __mutex_unlock_fast(): only when no flag is set. */
	if (!atomic_compare_exchange_strong_explicit(&l->owner, &o, 0, lb_rel,
						     lb_rlx))
		msp_slowunlock(l);
}

#endif
