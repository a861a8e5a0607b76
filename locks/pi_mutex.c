/* SPDX-License-Identifier: MIT */
/*
 * pi_mutex - a PTHREAD_PRIO_INHERIT pthread mutex: the user-space face
 * of the kernel's rtmutex.  glibc takes an uncontended lock with a CAS
 * of the futex word 0 -> TID; a contended locker calls FUTEX_LOCK_PI,
 * and the kernel backs the word (owner TID plus the FUTEX_WAITERS bit)
 * with an rt_mutex, queues the caller by priority and boosts the owner.
 * Unlock CASes TID -> 0, or calls FUTEX_UNLOCK_PI when FUTEX_WAITERS is
 * set, which hands the lock to the top waiter inside the kernel.
 * Documentation/locking/pi-futex.rst; kernel/futex/pi.c;
 * pthread_mutexattr_setprotocol(3).
 */
#include <errno.h>
#include <pthread.h>

#include "lockbench/lock.h"

/* Return 0 or -errno (ENOTSUP when the system has no PI futexes). */
static int pimutex_init(void *lock, const struct lock_init *in)
{
	pthread_mutexattr_t attr;
	int err;

	(void)in;
	err = pthread_mutexattr_init(&attr);
	if (err)
		return -err;
	err = pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT);
	if (!err)
		err = pthread_mutex_init(lock, &attr);
	pthread_mutexattr_destroy(&attr);
	return -err;
}

static void pimutex_destroy(void *lock)
{
	pthread_mutex_destroy(lock);
}

static void pimutex_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(lock);
}

static bool pimutex_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return pthread_mutex_trylock(lock) == 0;
}

static void pimutex_unlock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_mutex_unlock(lock);
}

const struct lock_ops lock_pi_mutex_ops = {
	.name = "pi_mutex",
	.desc = "PTHREAD_PRIO_INHERIT pthread mutex (FUTEX_LOCK_PI: kernel rt_mutex)",
	.ref = "pthread_mutexattr_setprotocol(3); kernel/futex/pi.c, "
	       "Documentation/locking/pi-futex.rst",
	.family = LOCK_FAMILY_SLEEP,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS,
	.lock_size = sizeof(pthread_mutex_t),
	.init = pimutex_init,
	.destroy = pimutex_destroy,
	.lock = pimutex_lock,
	.unlock = pimutex_unlock,
	.trylock = pimutex_trylock,
};
