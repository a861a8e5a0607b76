/* SPDX-License-Identifier: MIT */
/*
 * futex_sys.h - what the sleeping locks share: thin futex(2) wrappers
 * and the small wait_lock that guards a wait list.
 *
 * Internal to locks/ (futex.c, mutex_spin.c, rtmutex.c); not part of
 * the plugin contract.  Futex words are _Atomic uint32_t: the kernel
 * reads them with its own (fully ordered) access, everything in user
 * space goes through C11 atomics.  See futex(2) and Drepper, "Futexes
 * Are Tricky" (2011).
 */
#ifndef LOCKBENCH_FUTEX_SYS_H
#define LOCKBENCH_FUTEX_SYS_H

#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lockbench/atomics.h"

/*
 * Sleep while *uaddr == val (the kernel re-checks the value under its
 * hash-bucket lock, so a wake that changed the word first is never
 * lost).  Return 0 when woken, -EAGAIN when the word already differed,
 * -EINTR on a signal; callers re-check their condition in a loop, as
 * spurious returns are allowed.
 */
static inline int futex_wait(_Atomic uint32_t *uaddr, uint32_t val)
{
	if (syscall(SYS_futex, (uint32_t *)uaddr, FUTEX_WAIT_PRIVATE, val,
		    NULL, NULL, 0) == 0)
		return 0;
	return -errno;
}

/* Wake up to n sleepers on uaddr.  Return how many woke, or -errno. */
static inline int futex_wake(_Atomic uint32_t *uaddr, int n)
{
	long r = syscall(SYS_futex, (uint32_t *)uaddr, FUTEX_WAKE_PRIVATE, n,
			 NULL, NULL, 0);

	return r < 0 ? -errno : (int)r;
}

/*
 * The per-waiter "task state" of the sleeping locks: a waiter sets its
 * word to 0 (set_current_state(TASK_UNINTERRUPTIBLE)) before its last
 * check of the lock, a waker stores 1 (wake_up_process()) and wakes the
 * futex.  wait_on_word() is schedule(): it returns once the word is 1.
 * A stale wake only costs the waiter one more look at the lock.
 */
static inline void wait_on_word(_Atomic uint32_t *w)
{
	while (!atomic_load_explicit(w, lb_acq))
		futex_wait(w, 0);
}

static inline void wake_word(_Atomic uint32_t *w)
{
	atomic_store_explicit(w, 1, lb_rel);
	futex_wake(w, 1);
}

/*
 * wait_lock: a test-and-test-and-set spinlock (the kernel's
 * raw_spinlock_t).  The kernel holds it with preemption disabled; a
 * user thread can be preempted while holding it, so a waiter that has
 * polled WAITLOCK_SPINS times yields the CPU to let the holder run
 * instead of burning its whole time slice.  Critical sections under it
 * are a few list operations long.
 */
#define WAITLOCK_SPINS 256

struct waitlock {
	_Atomic uint32_t locked;
};

static inline void waitlock_lock(struct waitlock *w)
{
	unsigned spins = 0;

	/* Try the exchange only when the lock looks free; the acquire
	 * orders the wait-list reads after the previous holder's writes. */
	while (atomic_load_explicit(&w->locked, lb_rlx) ||
	       atomic_exchange_explicit(&w->locked, 1, lb_acq)) {
		if (++spins < WAITLOCK_SPINS) {
			cpu_relax();
		} else {
			spins = 0;
			sched_yield();
		}
	}
}

static inline void waitlock_unlock(struct waitlock *w)
{
	atomic_store_explicit(&w->locked, 0, lb_rel);
}

/* The event counters of a sleeping lock, n of them, copied to out once
 * the threads are done (relaxed: they are plain statistics). */
static inline void futex_read_counts(_Atomic uint64_t *cnt, unsigned n,
				     uint64_t *out)
{
	for (unsigned i = 0; i < n; i++)
		out[i] = atomic_load_explicit(&cnt[i], lb_rlx);
}

/* The lock option `spin_max` of mutex_spin and rtmutex: the budget that
 * stands for need_resched(), in cpu_relax() iterations (0: never spin). */
#define FUTEX_SPIN_MAX_OPT(help) {"spin_max", help, 1000, 0, 1u << 24}

#endif /* LOCKBENCH_FUTEX_SYS_H */
