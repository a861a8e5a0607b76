/* SPDX-License-Identifier: MIT */
/*
 * pthread_spin - glibc's pthread_spinlock_t, the libc baseline for
 * spinlocks.  POSIX.1-2001 pthread_spin_lock(3).
 */
#include <errno.h>
#include <pthread.h>

#include "pthread_spin.h"

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
