/* SPDX-License-Identifier: MIT */
/*
 * pthread_spin - glibc's pthread_spinlock_t, the libc baseline for
 * spinlocks.  POSIX.1-2001 pthread_spin_lock(3).
 */
#include <errno.h>
#include <pthread.h>

#include "lockbench/lock.h"
#include "../workloads/loop.h"

static int pspin_init(void *lock, const struct lock_init *in)
{
	(void)in;
	return -pthread_spin_init(lock, PTHREAD_PROCESS_PRIVATE);
}

static void pspin_destroy(void *lock)
{
	pthread_spin_destroy(lock);
}

static void pspin_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_spin_lock(lock);
}

static bool pspin_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return pthread_spin_trylock(lock) == 0;
}

static void pspin_unlock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_spin_unlock(lock);
}

const struct lock_ops lock_pthread_spin_ops = {
	.name = "pthread_spin",
	.desc = "glibc pthread_spinlock_t",
	.ref = "POSIX pthread_spin_lock(3), glibc nptl",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK,
	.lock_size = sizeof(pthread_spinlock_t),
	.init = pspin_init,
	.destroy = pspin_destroy,
	.lock = pspin_lock,
	.unlock = pspin_unlock,
	.trylock = pspin_trylock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(pthread_spin, pspin_lock, pspin_unlock, pspin_lock, pspin_unlock);
