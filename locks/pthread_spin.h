/* SPDX-License-Identifier: MIT */
/*
 * The body of the pthread_spin lock: its types and its lock and unlock
 * paths (locks/pthread_spin.c holds the ops table, init and tunables),
 * in a header so that the worker loops instantiated for the lock in
 * workloads/loops/pthread_spin.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_PTHREAD_SPIN_H
#define LOCKBENCH_LOCK_PTHREAD_SPIN_H

#include <pthread.h>

#include "lockbench/lock.h"

static void pspin_lock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_spin_lock(lock);
}

static inline bool pspin_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return pthread_spin_trylock(lock) == 0;
}

static void pspin_unlock(void *lock, void *ctx)
{
	(void)ctx;
	pthread_spin_unlock(lock);
}

#endif
