/* SPDX-License-Identifier: MIT */
/*
 * The body of the tas lock: its types and its lock and unlock paths
 * (locks/tas.c holds the ops table, init and tunables), in a header so
 * that the worker loops instantiated for the lock in
 * workloads/loops/tas.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_TAS_H
#define LOCKBENCH_LOCK_TAS_H

#include "lockbench/lock.h"

struct tas {
	_Atomic uint32_t locked;
};

static void tas_lock(void *lock, void *ctx)
{
	struct tas *l = lock;

	(void)ctx;
	while (atomic_exchange_explicit(&l->locked, 1, lb_acq))
		cpu_relax();
}

static inline bool tas_trylock(void *lock, void *ctx)
{
	struct tas *l = lock;

	(void)ctx;
	return atomic_exchange_explicit(&l->locked, 1, lb_acq) == 0;
}

static void tas_unlock(void *lock, void *ctx)
{
	struct tas *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->locked, 0, lb_rel);
}

#endif
