/* SPDX-License-Identifier: MIT */
/*
 * pthread_spin - glibc's pthread_spinlock_t, the libc baseline for
 * spinlocks.  POSIX.1-2001 pthread_spin_lock(3).
 */
#include <errno.h>
#include <pthread.h>

#include "pthread_locks.h"
#include "registry.h"

static int pspin_init(void *lock, const struct lock_init *in)
{
	(void)in;
	return -pthread_spin_init(lock, PTHREAD_PROCESS_PRIVATE);
}

static void pspin_destroy(void *lock)
{
	pthread_spin_destroy(lock);
}

const struct lock_ops lock_pthread_spin_ops = {
	LOCK_KIND(pthread_spin, SPIN, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK),
	.desc = "glibc pthread_spinlock_t",
	.ref = "POSIX pthread_spin_lock(3), glibc nptl",
	.lock_size = sizeof(pthread_spinlock_t),
	LOCK_SETUP(pspin_init, pspin_destroy, NULL),
	LOCK_CALLS(pspin_lock, pspin_unlock, pspin_trylock),
};
