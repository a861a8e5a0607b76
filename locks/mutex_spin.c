/* SPDX-License-Identifier: MIT */
/*
 * mutex_spin - the shape of the kernel's struct mutex with optimistic
 * spinning (kernel/locking/mutex.c, kernel/locking/osq_lock.c, v6.x).
 *
 * The owner word holds the owning "task" (the thread context's address,
 * 128-byte aligned) and three flags in its low bits: WAITERS (the wait
 * list is not empty, unlock must wake someone), HANDOFF (the first
 * waiter failed to get the lock after a wake-up: the unlocker must hand
 * it over instead of releasing it) and PICKUP (handed over, the named
 * task must pick it up).  A locker first tries a CAS, then spins while
 * the owner runs, queued on the osq (an MCS lock of spinners, node in
 * the thread context) so that one spinner at a time polls the owner
 * word; when spinning fails it queues FIFO on the wait list (under the
 * wait_lock, see futex_sys.h) and sleeps on the futex word in its
 * context.  Unlock releases the word (keeping the flags) and wakes the
 * first waiter, or hands the lock to it when it asked for HANDOFF.  A
 * woken first waiter spins on the owner again before sleeping.
 *
 * User-space approximations of kernel state:
 *  - owner_on_cpu(): a lock holder counts as running for its whole hold
 *    (user space cannot see it being preempted), so spinning is bounded
 *    only by need_resched();
 *  - need_resched(): a budget of `spin_max` cpu_relax() iterations per
 *    spinning attempt, shared by the osq wait and the owner spin; when
 *    it runs out the spinner leaves the osq (the kernel's unqueue path)
 *    and yields the CPU (schedule()) before queueing to sleep.  With
 *    spin_max=0 the lock never spins: a plain FIFO sleeping mutex.
 */
#include <errno.h>
#include <sched.h>
#include <stddef.h>

#include "mutex_spin.h"
#include "registry.h"

enum { MSP_OPT_SPIN_MAX };

static const struct lock_opt msp_opts[] = {
	[MSP_OPT_SPIN_MAX] = FUTEX_SPIN_MAX_OPT(
		"need_resched budget: cpu_relax iterations per spin attempt (0: never spin)"),
};

static const char *const msp_counter_names[MSP_NCNT] = {
	[MSP_CNT_SPIN_ACQUIRED] = "spin_acquired",
	[MSP_CNT_SLEEPS] = "sleeps",
	[MSP_CNT_WAKEUPS] = "wakeups",
	[MSP_CNT_HANDOFFS] = "handoffs",
};

static int msp_init(void *lock, const struct lock_init *in)
{
	struct mutex_spin *l = lock;

	l->spin_max = (uint32_t)in->opt[MSP_OPT_SPIN_MAX];
	return 0;
}

static int msp_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	(void)lock;
	(void)t;
	/* The owner encoding needs the flag bits of the address free. */
	return ((uintptr_t)ctx & MSP_FLAGS) ? -EINVAL : 0;
}

static void msp_read_counters(void *lock, uint64_t *out)
{
	struct mutex_spin *l = lock;

	futex_read_counts(l->cnt, MSP_NCNT, out);
}

const struct lock_ops lock_mutex_spin_ops = {
	LOCK_KIND(mutex_spin, SLEEP, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS),
	.desc = "kernel mutex shape: osq optimistic spinning, FIFO sleep, handoff",
	.ref = "kernel/locking/mutex.c, kernel/locking/osq_lock.c",
	LOCK_SIZES(struct mutex_spin, struct msp_ctx),
	LOCK_SETUP(msp_init, NULL, msp_thread_init),
	LOCK_CALLS(msp_lock, msp_unlock, msp_trylock),
	LOCK_OPTIONS(msp_opts),
	LOCK_COUNTERS(msp_counter_names, msp_read_counters),
};
