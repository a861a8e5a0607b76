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

#include "rtmutex.h"
#include "registry.h"

enum { RTM_OPT_SPIN_MAX };

static const struct lock_opt rtm_opts[] = {
	[RTM_OPT_SPIN_MAX] = FUTEX_SPIN_MAX_OPT(
		"top waiter's owner-spin budget in cpu_relax iterations (0: never spin)"),
};

static const char *const rtm_counter_names[RTM_NCNT] = {
	[RTM_CNT_SLOWLOCK] = "slowlock",
	[RTM_CNT_SLEEPS] = "sleeps",
	[RTM_CNT_WAKEUPS] = "wakeups",
	[RTM_CNT_SLOWUNLOCK] = "slowunlock",
	[RTM_CNT_MARK_RETRIES] = "mark_retries",
	[RTM_CNT_OWNER_SPINS] = "owner_spins",
};

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

	futex_read_counts(l->cnt, RTM_NCNT, out);
}

/* One variant's ops table (its lock functions: rtmutex.h). */
#define RTM_VARIANT_OPS(sfx, v, d)                                             \
	const struct lock_ops lock_##sfx##_ops = {                             \
		LOCK_KIND(sfx, SLEEP,                                          \
			  LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK |              \
				  LOCK_CAP_SLEEPS),                            \
		.desc = d,                                                     \
		.ref = "kernel/locking/rtmutex.c (v6.2); rtmutex ordering "    \
		       "patch set, Kunpeng locktorture k0-stock..k5",          \
		LOCK_SIZES(struct rtmutex, struct rtm_ctx),                    \
		LOCK_SETUP(rtm_init, NULL, rtm_thread_init),                   \
		LOCK_CALLS(rtm_lock_##sfx, rtm_unlock, rtm_trylock_##sfx),     \
		LOCK_OPTIONS(rtm_opts),                                        \
		LOCK_COUNTERS(rtm_counter_names, rtm_read_counters),           \
	};
RTM_VARIANTS(RTM_VARIANT_OPS)
