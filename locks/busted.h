/* SPDX-License-Identifier: MIT */
/*
 * The body of the busted lock: its types and its lock and unlock paths
 * (locks/busted.c holds the ops table, init and tunables), in a header
 * so that the worker loops instantiated for the lock in
 * workloads/loops/busted.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_BUSTED_H
#define LOCKBENCH_LOCK_BUSTED_H

#include "lockbench/lock.h"

struct busted {
	_Atomic uint32_t held;
};

static void busted_lock(void *lock, void *ctx)
{
	struct busted *l = lock;

	(void)ctx;
	/* Looks busy, excludes nothing. */
	atomic_store_explicit(&l->held, 1, lb_rlx);
}

static void busted_unlock(void *lock, void *ctx)
{
	struct busted *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->held, 0, lb_rlx);
}

#endif
