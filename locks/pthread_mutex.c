/* SPDX-License-Identifier: MIT */
/*
 * pthread_mutex - the default glibc mutex (futex based, no spinning):
 * the baseline most users compare against.  POSIX pthread_mutex_lock(3).
 */
#include <errno.h>
#include <pthread.h>

#include "lockbench/lock.h"

static int pmutex_init(void *lock, const struct lock_init *in)
{
	(void)in;
	return -pthread_mutex_init(lock, NULL);
}

static void pmutex_destroy(void *lock)
{
	pthread_mutex_destroy(lock);
}

static void pmutex_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(lock);
}

static bool pmutex_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return pthread_mutex_trylock(lock) == 0;
}

static void pmutex_unlock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_mutex_unlock(lock);
}

const struct lock_ops lock_pthread_mutex_ops = {
	.name = "pthread_mutex",
	.desc = "glibc default pthread_mutex_t (futex, no spinning)",
	.ref = "POSIX pthread_mutex_lock(3), glibc nptl",
	.family = LOCK_FAMILY_SLEEP,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS,
	.lock_size = sizeof(pthread_mutex_t),
	.init = pmutex_init,
	.destroy = pmutex_destroy,
	.lock = pmutex_lock,
	.unlock = pmutex_unlock,
	.trylock = pmutex_trylock,
};
