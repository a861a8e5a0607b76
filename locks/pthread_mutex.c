/* SPDX-License-Identifier: MIT */
/*
 * pthread_mutex, pthread_adaptive, pi_mutex - glibc's pthread_mutex_t in
 * the three kinds kernel and libc developers compare; they differ only
 * by the attribute set at init, and share lock, trylock and unlock.
 *
 * pthread_mutex: the default mutex (futex based, no spinning), the
 * baseline most users compare against.  POSIX pthread_mutex_lock(3).
 *
 * pthread_adaptive: PTHREAD_MUTEX_ADAPTIVE_NP.  A contended locker
 * first spins, retrying the lock, for a bounded and self-tuning number
 * of iterations (a running average kept in the mutex, capped by the
 * glibc.pthread.mutex_spin_count tunable, default 100), then sleeps on
 * the futex like the default mutex.  glibc nptl/pthread_mutex_lock.c.
 *
 * pi_mutex: PTHREAD_PRIO_INHERIT, the user-space face of the kernel's
 * rtmutex.  glibc takes an uncontended lock with a CAS of the futex word
 * 0 -> TID; a contended locker calls FUTEX_LOCK_PI, and the kernel backs
 * the word (owner TID plus the FUTEX_WAITERS bit) with an rt_mutex,
 * queues the caller by priority and boosts the owner.  Unlock CASes
 * TID -> 0, or calls FUTEX_UNLOCK_PI when FUTEX_WAITERS is set, which
 * hands the lock to the top waiter inside the kernel.
 * Documentation/locking/pi-futex.rst; kernel/futex/pi.c;
 * pthread_mutexattr_setprotocol(3).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "pthread_locks.h"
#include "registry.h"

/* The attribute a kind other than the default sets before
 * pthread_mutex_init(). */
enum pmutex_kind { PMUTEX_ADAPTIVE, PMUTEX_PI };

/* The default kind needs no attributes. */
static int pmutex_init(void *lock, const struct lock_init *in)
{
	(void)in;
	return -pthread_mutex_init(lock, NULL);
}

/* Initialise the mutex as `kind`.  Returns 0 or -errno (ENOTSUP for
 * pi_mutex when the system has no PI futexes). */
static int pmutex_init_kind(void *lock, enum pmutex_kind kind)
{
	pthread_mutexattr_t attr;
	int err;

	err = pthread_mutexattr_init(&attr);
	if (err)
		return -err;
	if (kind == PMUTEX_ADAPTIVE)
		err = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	else
		err = pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
	if (!err)
		err = pthread_mutex_init(lock, &attr);
	pthread_mutexattr_destroy(&attr);
	return -err;
}

static int padaptive_init(void *lock, const struct lock_init *in)
{
	(void)in;
	return pmutex_init_kind(lock, PMUTEX_ADAPTIVE);
}

static int pimutex_init(void *lock, const struct lock_init *in)
{
	(void)in;
	return pmutex_init_kind(lock, PMUTEX_PI);
}

static void pmutex_destroy(void *lock)
{
	pthread_mutex_destroy(lock);
}

/* What the three kinds share: everything but the attribute set at init. */
#define PMUTEX_OPS(n, init_fn)                                                 \
	LOCK_KIND(n, SLEEP,                                                    \
		  LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS),    \
	.lock_size = sizeof(pthread_mutex_t),                                  \
	LOCK_SETUP(init_fn, pmutex_destroy, NULL),                             \
	LOCK_CALLS(pmutex_lock, pmutex_unlock, pmutex_trylock)

const struct lock_ops lock_pthread_mutex_ops = {
	PMUTEX_OPS(pthread_mutex, pmutex_init),
	.desc = "glibc default pthread_mutex_t (futex, no spinning)",
	.ref = "POSIX pthread_mutex_lock(3), glibc nptl",
};

const struct lock_ops lock_pthread_adaptive_ops = {
	PMUTEX_OPS(pthread_adaptive, padaptive_init),
	.desc = "glibc PTHREAD_MUTEX_ADAPTIVE_NP (bounded spin, then futex)",
	.ref = "glibc nptl pthread_mutex_lock.c, PTHREAD_MUTEX_ADAPTIVE_NP",
};

const struct lock_ops lock_pi_mutex_ops = {
	PMUTEX_OPS(pi_mutex, pimutex_init),
	.desc = "PTHREAD_PRIO_INHERIT pthread mutex (FUTEX_LOCK_PI: kernel rt_mutex)",
	.ref = "pthread_mutexattr_setprotocol(3); kernel/futex/pi.c, "
	       "Documentation/locking/pi-futex.rst",
};
