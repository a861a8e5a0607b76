/* SPDX-License-Identifier: MIT */
/*
 * The body of the null lock: its types and its lock and unlock paths
 * (locks/null.c holds the ops table, init and tunables), in a header so
 * that the worker loops instantiated for the lock in
 * workloads/loops/null.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_NULL_H
#define LOCKBENCH_LOCK_NULL_H

#include "lockbench/lock.h"

static void null_lock(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static inline bool null_trylock(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
	return true;
}

#endif
