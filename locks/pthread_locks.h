/* SPDX-License-Identifier: MIT */
/*
 * The lock and unlock paths of the glibc locks (pthread_spin.c,
 * pthread_mutex.c and pthread_rwlock.c hold their ops tables and init),
 * in a header so that the worker loops instantiated for them in
 * workloads/loops/ see them and inline them.  Each is one call to
 * glibc; the lock object is the glibc type itself.
 */
#ifndef LOCKBENCH_LOCK_PTHREAD_LOCKS_H
#define LOCKBENCH_LOCK_PTHREAD_LOCKS_H

#include <pthread.h>

#include "lockbench/lock.h"

/* <p>_lock, <p>_trylock and <p>_unlock of a glibc lock, one call each. */
#define PTHREAD_CALLS(p, lock_call, trylock_call, unlock_call)                 \
	static inline void p##_lock(void *lock, void *ctx)                     \
	{                                                                      \
		(void)ctx;                                                     \
		lock_call(lock);                                               \
	}                                                                      \
	static inline bool p##_trylock(void *lock, void *ctx)                  \
	{                                                                      \
		(void)ctx;                                                     \
		return trylock_call(lock) == 0;                                \
	}                                                                      \
	static inline void p##_unlock(void *lock, void *ctx)                   \
	{                                                                      \
		(void)ctx;                                                     \
		unlock_call(lock);                                             \
	}

PTHREAD_CALLS(pspin, pthread_spin_lock, pthread_spin_trylock,
	      pthread_spin_unlock)
PTHREAD_CALLS(pmutex, pthread_mutex_lock, pthread_mutex_trylock,
	      pthread_mutex_unlock)

/* lock/unlock of pthread_rwlock take it for writing. */
static inline void prw_write_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_rwlock_wrlock(lock);
}

static inline bool prw_write_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return pthread_rwlock_trywrlock(lock) == 0;
}

static inline void prw_read_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_rwlock_rdlock(lock);
}

/* Both kinds of holder release with the same call. */
static inline void prw_unlock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_rwlock_unlock(lock);
}

#endif
