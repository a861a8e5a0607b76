/* SPDX-License-Identifier: MIT */
/*
 * pthread_adaptive - glibc's adaptive mutex (PTHREAD_MUTEX_ADAPTIVE_NP):
 * a contended locker first spins, retrying the lock, for a bounded and
 * self-tuning number of iterations (a running average kept in the mutex,
 * capped by the glibc.pthread.mutex_spin_count tunable, default 100),
 * then sleeps on the futex like the default mutex.
 * glibc nptl/pthread_mutex_lock.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "lockbench/lock.h"

/* Initialise the mutex as adaptive.  Returns 0 or -errno. */
static int padaptive_init(void *lock, const struct lock_init *in)
{
	pthread_mutexattr_t attr;
	int err;

	(void)in;
	err = pthread_mutexattr_init(&attr);
	if (err)
		return -err;
	err = pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
	if (!err)
		err = pthread_mutex_init(lock, &attr);
	pthread_mutexattr_destroy(&attr);
	return -err;
}

static void padaptive_destroy(void *lock)
{
	pthread_mutex_destroy(lock);
}

static void padaptive_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(lock);
}

static bool padaptive_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return pthread_mutex_trylock(lock) == 0;
}

static void padaptive_unlock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_mutex_unlock(lock);
}

const struct lock_ops lock_pthread_adaptive_ops = {
	.name = "pthread_adaptive",
	.desc = "glibc PTHREAD_MUTEX_ADAPTIVE_NP (bounded spin, then futex)",
	.ref = "glibc nptl pthread_mutex_lock.c, PTHREAD_MUTEX_ADAPTIVE_NP",
	.family = LOCK_FAMILY_SLEEP,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS,
	.lock_size = sizeof(pthread_mutex_t),
	.init = padaptive_init,
	.destroy = padaptive_destroy,
	.lock = padaptive_lock,
	.unlock = padaptive_unlock,
	.trylock = padaptive_trylock,
};
