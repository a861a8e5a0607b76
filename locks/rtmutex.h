/* SPDX-License-Identifier: MIT */
/*
 * The body of the rtmutex lock: its types and its lock and unlock paths
 * (locks/rtmutex.c holds the ops table, init and tunables), in a header
 * so that the worker loops instantiated for the lock in
 * workloads/loops/rtmutex.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_RTMUTEX_H
#define LOCKBENCH_LOCK_RTMUTEX_H

#include <stddef.h>

#include "futex_sys.h"
#include "lockbench/lock.h"

#define RTM_HAS_WAITERS ((uintptr_t)1)
/* The kernel's DEFAULT_PRIO: SCHED_OTHER at nice 0.  Lower is higher. */
#define RTM_DEFAULT_PRIO 120

/* Variant flags; every entry point is specialised on a constant set. */
enum rtm_variant {
	RTM_STOCK = 0,
	RTM_RELAXED_OWNER = 1u << 0, /* k1 rmacq */
	RTM_READ_ONCE = 1u << 1,     /* k2 readonce */
	RTM_FETCH_OR = 1u << 2,      /* k3 alongor */
};

enum {
	RTM_CNT_SLOWLOCK,     /* lock() calls that took the slow path */
	RTM_CNT_SLEEPS,       /* waits on the per-waiter futex word */
	RTM_CNT_WAKEUPS,      /* unlocks that woke the top waiter */
	RTM_CNT_SLOWUNLOCK,   /* unlocks that found HAS_WAITERS set */
	RTM_CNT_MARK_RETRIES, /* failed CASes in mark_rt_mutex_waiters */
	RTM_CNT_OWNER_SPINS,  /* top-waiter spins that saw the owner leave */
	RTM_NCNT
};

/* struct rt_mutex_waiter: links and priority are only touched under
 * the wait_lock; `awake` is the task state (see wait_on_word()). */
struct rtm_waiter {
	struct rtm_waiter *next, *prev;
	int prio;
	_Atomic uint32_t awake;
};

/* The per-thread context plays the task: its address is the owner. */
struct rtm_ctx {
	struct rtm_waiter waiter;
	int prio;
};

struct rtmutex {
	_Atomic uintptr_t owner;
	struct waitlock wait_lock;
	/* Waiters, top (highest priority, then oldest) first. */
	struct rtm_waiter *head, *tail;
	uint32_t spin_max; /* written by init only */
	LB_ALIGNED _Atomic uint64_t cnt[RTM_NCNT];
};

#define rtm_inline static inline __attribute__((always_inline))

/*
 * smp_mb__after_atomic() after the relaxed mark-waiters RMW.  TSan does
 * not model fences (GCC refuses them under -Wtsan), so a TSan build
 * folds the fence into the RMW as acq_rel instead: the same
 * happens-before edge (an acquire of the release the RMW read from), so
 * TSan checks the ordering argument of k1 rather than skipping it.
 */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RTM_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(RTM_TSAN)
#define RTM_MARK_ORDER lb_ar
#define rtm_mb_after_atomic() do { } while (0)
#else
#define RTM_MARK_ORDER lb_rlx
#define rtm_mb_after_atomic() atomic_thread_fence(lb_sc)
#endif

static void rtm_count(struct rtmutex *l, unsigned i)
{
	atomic_fetch_add_explicit(&l->cnt[i], 1, lb_rlx);
}

/* rt_mutex_owner(): the owner without the flag bit (READ_ONCE). */
static uintptr_t rtm_owner(struct rtmutex *l)
{
	return atomic_load_explicit(&l->owner, lb_rlx) & ~RTM_HAS_WAITERS;
}

/* rt_mutex_waiter_less(): strictly higher priority (lower number). */
static bool rtm_prio_less(int a, int b)
{
	return a < b;
}

/*
 * Queue w behind every waiter of equal or higher priority (the kernel's
 * rbtree insert: FIFO among equals).  Walk from the tail, so the usual
 * all-equal case is O(1).  Caller holds the wait_lock.
 */
static void rtm_enqueue(struct rtmutex *l, struct rtm_waiter *w)
{
	struct rtm_waiter *pos = l->tail;

	while (pos && rtm_prio_less(w->prio, pos->prio))
		pos = pos->prev;
	/* Link w after pos (or first when pos is NULL). */
	w->prev = pos;
	w->next = pos ? pos->next : l->head;
	if (w->next)
		w->next->prev = w;
	else
		l->tail = w;
	if (pos)
		pos->next = w;
	else
		l->head = w;
}

/* rt_mutex_dequeue(): unlink w.  Caller holds the wait_lock. */
static void rtm_dequeue(struct rtmutex *l, struct rtm_waiter *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		l->head = w->next;
	if (w->next)
		w->next->prev = w->prev;
	else
		l->tail = w->prev;
	w->next = w->prev = NULL;
}

/*
 * mark_rt_mutex_waiters(): set HAS_WAITERS so that the owner's fast
 * unlock fails and every change of the word serialises on the wait_lock
 * we hold.  The three ways of doing it are the k0/k2/k3 columns (see the
 * file header).  The full fence is the kernel's smp_mb__after_atomic():
 * it orders the relaxed RMW before the owner check that follows, and
 * makes it an acquire of a fast-path release it read from.
 */
rtm_inline void rtm_mark_waiters(struct rtmutex *l, unsigned v)
{
	uintptr_t o;

	if (v & RTM_FETCH_OR) {
		atomic_fetch_or_explicit(&l->owner, RTM_HAS_WAITERS,
					 RTM_MARK_ORDER);
	} else if (v & RTM_READ_ONCE) {
		/* READ_ONCE(lock->owner) before every attempt. */
		for (;;) {
			o = atomic_load_explicit(&l->owner, lb_rlx);
			if (atomic_compare_exchange_strong_explicit(
				    &l->owner, &o, o | RTM_HAS_WAITERS,
				    RTM_MARK_ORDER, lb_rlx))
				break;
			rtm_count(l, RTM_CNT_MARK_RETRIES);
		}
	} else {
		/* Plain read of lock->owner once; a failed cmpxchg hands
		 * back the current value for the next attempt. */
		o = atomic_load_explicit(&l->owner, lb_rlx);
		while (!atomic_compare_exchange_strong_explicit(
			&l->owner, &o, o | RTM_HAS_WAITERS, RTM_MARK_ORDER,
			lb_rlx))
			rtm_count(l, RTM_CNT_MARK_RETRIES);
	}
	rtm_mb_after_atomic();
}

/* The owner xchg of rt_mutex_set_owner()/fixup: acquire (k0) or
 * relaxed (k1 rmacq). */
rtm_inline void rtm_xchg_owner(struct rtmutex *l, uintptr_t val, unsigned v)
{
	atomic_exchange_explicit(&l->owner, val,
				 (v & RTM_RELAXED_OWNER) ? lb_rlx : lb_acq);
}

/*
 * try_to_take_rt_mutex(): with the wait_lock held, take the lock if it
 * has no owner and we may have it: as the top waiter (w, already
 * queued; dequeued on success), or as a newcomer (w NULL) when nobody
 * waits or we outrank the top waiter.  Return true when the lock is
 * ours; the owner word then carries HAS_WAITERS iff waiters remain.
 */
rtm_inline bool rtm_try_take(struct rtmutex *l, struct rtm_ctx *me,
			     struct rtm_waiter *w, unsigned v)
{
	/* Force every other locker and the owner's unlock into the slow
	 * path before looking at the owner. */
	rtm_mark_waiters(l, v);
	if (rtm_owner(l))
		return false;
	if (w) {
		if (w != l->head && !rtm_prio_less(w->prio, l->head->prio))
			return false;
		rtm_dequeue(l, w);
	} else if (l->head && !rtm_prio_less(me->prio, l->head->prio)) {
		/* Equal priority never steals from a queued waiter. */
		return false;
	}
	/* rt_mutex_set_owner(): owner, with HAS_WAITERS if any remain. */
	rtm_xchg_owner(l, (uintptr_t)me | (l->head ? RTM_HAS_WAITERS : 0), v);
	return true;
}

/*
 * fixup_rt_mutex_waiters(): try_to_take set HAS_WAITERS unconditionally;
 * clear it again when nobody is queued.  With the bit set and the
 * wait_lock held nobody else changes the word.
 */
rtm_inline void rtm_fixup_waiters(struct rtmutex *l, bool acquire, unsigned v)
{
	uintptr_t o;

	if (l->head)
		return;
	o = atomic_load_explicit(&l->owner, lb_rlx);
	if (!(o & RTM_HAS_WAITERS))
		return;
	if (acquire)
		rtm_xchg_owner(l, o & ~RTM_HAS_WAITERS, v);
	else
		atomic_store_explicit(&l->owner, o & ~RTM_HAS_WAITERS, lb_rlx);
}

/*
 * rtmutex_spin_on_owner(): spin while `owner` holds the lock, up to the
 * spin_max budget (owner_on_cpu() is always true here, and we stay the
 * top waiter until we leave: equal priorities never overtake).  Return
 * true when the owner changed (try again), false when the budget ran
 * out (sleep).
 */
static bool rtm_spin_on_owner(struct rtmutex *l, uintptr_t owner)
{
	for (uint32_t budget = l->spin_max; rtm_owner(l) == owner; budget--) {
		if (!budget)
			return false;
		cpu_relax();
	}
	rtm_count(l, RTM_CNT_OWNER_SPINS);
	return true;
}

/*
 * rt_mutex_slowlock_block(): w is queued and its task state set; until
 * try_to_take succeeds, drop the wait_lock, spin on the owner if we are
 * the top waiter, else (or when that fails) sleep until an unlock wakes
 * us, then retake the wait_lock and set the task state again.  A wake-up
 * cannot be lost: the state is set under the wait_lock before each
 * attempt, and any unlock our attempt did not see picks us under the
 * wait_lock afterwards, so its wake lands after our reset.
 */
rtm_inline void rtm_block(struct rtmutex *l, struct rtm_ctx *me, unsigned v)
{
	struct rtm_waiter *w = &me->waiter;
	uintptr_t owner;

	while (!rtm_try_take(l, me, w, v)) {
		owner = l->head == w ? rtm_owner(l) : 0;
		waitlock_unlock(&l->wait_lock);
		if (!owner || !rtm_spin_on_owner(l, owner)) {
			rtm_count(l, RTM_CNT_SLEEPS);
			wait_on_word(&w->awake);
		}
		waitlock_lock(&l->wait_lock);
		atomic_store_explicit(&w->awake, 0, lb_rlx);
	}
}

/* rt_mutex_slowlock(): take the lock, sleeping as long as needed. */
rtm_inline void rtm_slowlock(struct rtmutex *l, struct rtm_ctx *me, unsigned v)
{
	struct rtm_waiter *w = &me->waiter;

	waitlock_lock(&l->wait_lock);
	rtm_count(l, RTM_CNT_SLOWLOCK);
	/* Serialised with unlockers now: try once more before queueing. */
	if (!rtm_try_take(l, me, NULL, v)) {
		atomic_store_explicit(&w->awake, 0, lb_rlx);
		w->prio = me->prio;
		rtm_enqueue(l, w);
		rtm_block(l, me, v);
	}
	rtm_fixup_waiters(l, true, v);
	waitlock_unlock(&l->wait_lock);
}

/* rt_mutex_slowtrylock(): the racy owner peek, then one attempt under
 * the wait_lock.  Return true when the lock is ours. */
rtm_inline bool rtm_slowtrylock(struct rtmutex *l, struct rtm_ctx *me,
				unsigned v)
{
	bool ret;

	if (rtm_owner(l))
		return false;
	waitlock_lock(&l->wait_lock);
	ret = rtm_try_take(l, me, NULL, v);
	rtm_fixup_waiters(l, true, v);
	waitlock_unlock(&l->wait_lock);
	return ret;
}

/*
 * rt_mutex_slowunlock(): HAS_WAITERS was set.  With nobody queued, clear
 * the bit, drop the wait_lock and release with a CAS, retrying if a new
 * waiter marked the word in between (unlock_rt_mutex_safe).  Otherwise
 * leave the lock ownerless but marked, so no newcomer can take it from
 * the top waiter, and wake that waiter after dropping the wait_lock
 * (mark_wakeup_next_waiter + rt_mutex_wake_up_q).  The waiter stays
 * queued and takes the lock itself.
 */
static void rtm_slowunlock(struct rtmutex *l, struct rtm_ctx *me)
{
	struct rtm_waiter *top;
	uintptr_t o;

	waitlock_lock(&l->wait_lock);
	rtm_count(l, RTM_CNT_SLOWUNLOCK);
	while (!l->head) {
		atomic_store_explicit(&l->owner, (uintptr_t)me, lb_rlx);
		waitlock_unlock(&l->wait_lock);
		o = (uintptr_t)me;
		if (atomic_compare_exchange_strong_explicit(&l->owner, &o, 0,
							    lb_rel, lb_rlx))
			return;
		waitlock_lock(&l->wait_lock);
	}
	top = l->head;
	/* The kernel's plain store; release so this is the lock's release
	 * even though the wait_lock unlock below also orders it. */
	atomic_store_explicit(&l->owner, RTM_HAS_WAITERS, lb_rel);
	rtm_count(l, RTM_CNT_WAKEUPS);
	waitlock_unlock(&l->wait_lock);
	wake_word(&top->awake);
}

/* Fast paths: only while HAS_WAITERS is clear. */
static bool rtm_fast_lock(struct rtmutex *l, struct rtm_ctx *me)
{
	uintptr_t o = 0;

	return atomic_compare_exchange_strong_explicit(
		&l->owner, &o, (uintptr_t)me, lb_acq, lb_rlx);
}

static void rtm_unlock(void *lock, void *ctx)
{
	struct rtmutex *l = lock;
	uintptr_t o = (uintptr_t)ctx;

	if (!atomic_compare_exchange_strong_explicit(&l->owner, &o, 0, lb_rel,
						     lb_rlx))
		rtm_slowunlock(l, ctx);
}

/* The catalogue entries, one per kernel column of the patch set: name,
 * variant flags, description.  rtmutex.c makes each an ops table,
 * workloads/loops/rtmutex.c its worker loops. */
#define RTM_VARIANTS(X)                                                        \
	X(rtmutex, RTM_STOCK,                                                  \
	  "rt_mutex shape, k0-stock: xchg_acquire owner, CAS loop marks waiters") \
	X(rtmutex_relaxed_owner, RTM_RELAXED_OWNER,                            \
	  "rtmutex k1-rmacq: relaxed xchg when setting the owner")             \
	X(rtmutex_readonce, RTM_READ_ONCE,                                     \
	  "rtmutex k2-readonce: READ_ONCE reload in the mark-waiters CAS loop") \
	X(rtmutex_fetch_or, RTM_FETCH_OR,                                      \
	  "rtmutex k3-alongor: fetch_or sets HAS_WAITERS, no CAS loop")        \
	X(rtmutex_relaxed_owner_readonce, RTM_RELAXED_OWNER | RTM_READ_ONCE,   \
	  "rtmutex k4-rmacq+readonce: k1 and k2 together")                     \
	X(rtmutex_relaxed_owner_fetch_or, RTM_RELAXED_OWNER | RTM_FETCH_OR,    \
	  "rtmutex k5-rmacq+alongor: k1 and k3 together")

/* One variant's lock, trylock and the slow lock they specialise on the
 * constant flags `v`. */
#define RTM_VARIANT_FNS(sfx, v, d)                                             \
	static void __attribute__((noinline))                                  \
	rtm_slowlock_##sfx(struct rtmutex *l, struct rtm_ctx *me)              \
	{                                                                      \
		rtm_slowlock(l, me, v);                                        \
	}                                                                      \
	static void rtm_lock_##sfx(void *lock, void *ctx)                      \
	{                                                                      \
		if (!rtm_fast_lock(lock, ctx))                                 \
			rtm_slowlock_##sfx(lock, ctx);                         \
	}                                                                      \
	static inline bool rtm_trylock_##sfx(void *lock, void *ctx)            \
	{                                                                      \
		return rtm_fast_lock(lock, ctx) ||                             \
		       rtm_slowtrylock(lock, ctx, v);                          \
	}
RTM_VARIANTS(RTM_VARIANT_FNS)

#endif
