/* SPDX-License-Identifier: MIT */
/*
 * The body of the pthread_mutex lock: its types and its lock and unlock
 * paths (locks/pthread_mutex.c holds the ops table, init and tunables),
 * in a header so that the worker loops instantiated for the lock in
 * workloads/loops/pthread_mutex.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_PTHREAD_MUTEX_H
#define LOCKBENCH_LOCK_PTHREAD_MUTEX_H

#include <pthread.h>

#include "lockbench/lock.h"

static void pmutex_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(lock);
}

static inline bool pmutex_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return pthread_mutex_trylock(lock) == 0;
}

static void pmutex_unlock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_mutex_unlock(lock);
}

#endif
