/* SPDX-License-Identifier: MIT */
/*
 * rtmutex - the shape of the kernel's rt_mutex (kernel/locking/rtmutex.c
 * as of v6.2, Documentation/locking/rt-mutex-design.rst), and the
 * variants of the rtmutex memory-ordering patch set measured on Kunpeng
 * (taishan200) with locktorture, one catalogue entry per kernel column.
 *
 * The owner word holds the owning "task" (the thread context's address,
 * 128-byte aligned) with RT_MUTEX_HAS_WAITERS in bit 0.  While bit 0 is
 * clear, lock is CAS(NULL -> me, acquire) and unlock CAS(me -> NULL,
 * release).  Once a slow-path locker sets bit 0 every change of the word
 * goes through the wait_lock (a test-and-test-and-set spinlock, see
 * futex_sys.h), which also guards the waiter list.  Under it a locker
 * marks waiters, tries to take the lock (try_to_take_rt_mutex), and
 * otherwise enqueues its waiter in priority order (FIFO among equal
 * priorities: all lockbench threads have the same one, the kernel's
 * rbtree degenerates to this list) and sleeps on the futex word in its
 * context.  Unlock with waiters queued sets the word to "no owner, has
 * waiters" and wakes the top waiter, which retries try_to_take_rt_mutex
 * itself (rt_mutex_slowunlock); since equal priorities never steal, the
 * woken waiter gets it.  Before sleeping, the top waiter spins while
 * the owner holds the lock (rtmutex_spin_on_owner(), in the kernel since
 * v5.15); as in mutex_spin, a holder counts as running for its whole
 * hold and the spin is bounded by a need_resched() budget, the lock
 * option `spin_max` (0: sleep at once, the pre-v5.15 behaviour).  No PI
 * chain walk: nobody is boosted when all priorities are equal.
 *
 * The variants, as compile-time flags of one implementation:
 *
 *   k0 stock  rt_mutex_set_owner() and fixup_rt_mutex_waiters() take the
 *             owner word with xchg_acquire; mark_rt_mutex_waiters() reads
 *             lock->owner with a plain load and loops on cmpxchg_relaxed,
 *             then smp_mb__after_atomic().
 *   k1 rmacq  the owner xchg is relaxed.  Still correct here: a previous
 *             owner that released on the slow path did so under the
 *             wait_lock we now hold, and one that released on the fast
 *             path (release CAS) is read by our mark-waiters RMW, which
 *             the following full fence turns into an acquire.
 *   k2 readonce  the mark-waiters load is a marked READ_ONCE.  C11 has
 *             no plain racy read, so the difference is modelled by what
 *             each allows the compiler: stock loads the word once
 *             (relaxed) and then retries with the value the failed CAS
 *             returned (the try_cmpxchg idiom a compiler may turn the
 *             plain re-read into); readonce issues a fresh relaxed load
 *             before every CAS attempt, as READ_ONCE forces.
 *   k3 alongor  one relaxed fetch_or(HAS_WAITERS) instead of the loop
 *             (LDSET on arm64 LSE, LOCK OR on x86), result unused; the
 *             fence after it stays.
 *   k4 = k1 + k2,  k5 = k1 + k3.
 */
#include <errno.h>
#include <stddef.h>

#include "futex_sys.h"
#include "lockbench/lock.h"
#include "../workloads/loop.h"

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

enum { RTM_OPT_SPIN_MAX };

static const struct lock_opt rtm_opts[] = {
	[RTM_OPT_SPIN_MAX] = {"spin_max",
			      "top waiter's owner-spin budget in cpu_relax iterations (0: never spin)",
			      1000, 0, 1u << 24},
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

static const char *const rtm_counter_names[RTM_NCNT] = {
	[RTM_CNT_SLOWLOCK] = "slowlock",
	[RTM_CNT_SLEEPS] = "sleeps",
	[RTM_CNT_WAKEUPS] = "wakeups",
	[RTM_CNT_SLOWUNLOCK] = "slowunlock",
	[RTM_CNT_MARK_RETRIES] = "mark_retries",
	[RTM_CNT_OWNER_SPINS] = "owner_spins",
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

static int rtm_init(void *lock, const struct lock_init *in)
{
	struct rtmutex *l = lock;

	l->spin_max = (uint32_t)in->opt[RTM_OPT_SPIN_MAX];
	return 0;
}

static int rtm_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	struct rtm_ctx *me = ctx;

	(void)lock;
	(void)t;
	/* The owner encoding needs bit 0 of the context address free. */
	if ((uintptr_t)ctx & RTM_HAS_WAITERS)
		return -EINVAL;
	me->prio = RTM_DEFAULT_PRIO;
	return 0;
}

static void rtm_read_counters(void *lock, uint64_t *out)
{
	struct rtmutex *l = lock;

	for (unsigned i = 0; i < RTM_NCNT; i++)
		out[i] = atomic_load_explicit(&l->cnt[i], lb_rlx);
}

/* One variant: specialised slow lock and trylock, its ops table and its
 * worker loops with lock and unlock inlined (workloads/loop.h). */
#define RTM_VARIANT(sfx, v, d)                                                 \
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
	static bool rtm_trylock_##sfx(void *lock, void *ctx)                   \
	{                                                                      \
		return rtm_fast_lock(lock, ctx) ||                             \
		       rtm_slowtrylock(lock, ctx, v);                          \
	}                                                                      \
	const struct lock_ops lock_##sfx##_ops = {                             \
		.name = #sfx,                                                  \
		.desc = d,                                                     \
		.ref = "kernel/locking/rtmutex.c (v6.2); rtmutex ordering "    \
		       "patch set, Kunpeng locktorture k0-stock..k5",          \
		.family = LOCK_FAMILY_SLEEP,                                   \
		.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK |                \
			LOCK_CAP_SLEEPS,                                       \
		.lock_size = sizeof(struct rtmutex),                           \
		.ctx_size = sizeof(struct rtm_ctx),                            \
		.opts = rtm_opts,                                              \
		.nopts = sizeof(rtm_opts) / sizeof(rtm_opts[0]),               \
		.init = rtm_init,                                              \
		.thread_init = rtm_thread_init,                                \
		.lock = rtm_lock_##sfx,                                        \
		.unlock = rtm_unlock,                                          \
		.trylock = rtm_trylock_##sfx,                                  \
		.counter_names = rtm_counter_names,                            \
		.ncounters = RTM_NCNT,                                         \
		.read_counters = rtm_read_counters,                            \
	};                                                                     \
	LB_LOOPS(sfx, rtm_lock_##sfx, rtm_unlock, rtm_lock_##sfx, rtm_unlock)

RTM_VARIANT(rtmutex, RTM_STOCK,
	    "rt_mutex shape, k0-stock: xchg_acquire owner, CAS loop marks waiters");
RTM_VARIANT(rtmutex_relaxed_owner, RTM_RELAXED_OWNER,
	    "rtmutex k1-rmacq: relaxed xchg when setting the owner");
RTM_VARIANT(rtmutex_readonce, RTM_READ_ONCE,
	    "rtmutex k2-readonce: READ_ONCE reload in the mark-waiters CAS loop");
RTM_VARIANT(rtmutex_fetch_or, RTM_FETCH_OR,
	    "rtmutex k3-alongor: fetch_or sets HAS_WAITERS, no CAS loop");
RTM_VARIANT(rtmutex_relaxed_owner_readonce, RTM_RELAXED_OWNER | RTM_READ_ONCE,
	    "rtmutex k4-rmacq+readonce: k1 and k2 together");
RTM_VARIANT(rtmutex_relaxed_owner_fetch_or, RTM_RELAXED_OWNER | RTM_FETCH_OR,
	    "rtmutex k5-rmacq+alongor: k1 and k3 together");
