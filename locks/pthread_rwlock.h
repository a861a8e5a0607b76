/* SPDX-License-Identifier: MIT */
/*
 * The body of the pthread_rwlock lock: its types and its lock and unlock
 * paths (locks/pthread_rwlock.c holds the ops table, init and tunables),
 * in a header so that the worker loops instantiated for the lock in
 * workloads/loops/pthread_rwlock.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_PTHREAD_RWLOCK_H
#define LOCKBENCH_LOCK_PTHREAD_RWLOCK_H

#include <pthread.h>

#include "lockbench/lock.h"

static void prw_write_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_rwlock_wrlock(lock);
}

static inline bool prw_write_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return pthread_rwlock_trywrlock(lock) == 0;
}

static void prw_read_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_rwlock_rdlock(lock);
}

/* Both kinds of holder release with the same call. */
static void prw_unlock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_rwlock_unlock(lock);
}

#endif
