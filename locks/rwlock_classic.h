/* SPDX-License-Identifier: MIT */
/*
 * The body of the rwlock_classic lock: its types and its lock and unlock
 * paths (locks/rwlock_classic.c holds the ops table, init and tunables),
 * in a header so that the worker loops instantiated for the lock in
 * workloads/loops/rwlock_classic.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_RWLOCK_CLASSIC_H
#define LOCKBENCH_LOCK_RWLOCK_CLASSIC_H

#include "lockbench/lock.h"

#define RWC_BIAS 0x01000000ll

struct rwlock_classic {
	/* BIAS - readers - BIAS * writers (including ones about to back out). */
	_Atomic int64_t cnt;
};

/*
 * Take a read share: subtract 1; a negative result means a writer holds
 * (or is trying for) the lock, so give the 1 back, wait until the count
 * is positive and retry.  The acquire on the successful RMW pairs with
 * the writer's release in write_unlock.
 */
static void rwc_read_lock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;

	(void)ctx;
	while (atomic_fetch_sub_explicit(&l->cnt, 1, lb_acq) - 1 < 0) {
		atomic_fetch_add_explicit(&l->cnt, 1, lb_rlx);
		while (atomic_load_explicit(&l->cnt, lb_rlx) <= 0)
			cpu_relax();
	}
}

/* Give the read share back; release our reads to the next writer. */
static void rwc_read_unlock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;

	(void)ctx;
	atomic_fetch_add_explicit(&l->cnt, 1, lb_rel);
}

/*
 * Take the write lock: subtract BIAS; we own it only if the old value
 * was exactly BIAS.  Otherwise give BIAS back, spin until the count
 * reads BIAS (no reader, no writer) and retry.  The acquire pairs with
 * the releases of earlier readers and writers.
 */
static void rwc_write_lock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;

	(void)ctx;
	while (atomic_fetch_sub_explicit(&l->cnt, RWC_BIAS, lb_acq) !=
	       RWC_BIAS) {
		atomic_fetch_add_explicit(&l->cnt, RWC_BIAS, lb_rlx);
		while (atomic_load_explicit(&l->cnt, lb_rlx) != RWC_BIAS)
			cpu_relax();
	}
}

/* Take the write lock only if it is free right now. */
static inline bool rwc_write_trylock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;
	int64_t expect = RWC_BIAS;

	(void)ctx;
	return atomic_compare_exchange_strong_explicit(&l->cnt, &expect, 0,
						       lb_acq, lb_rlx);
}

/* Give BIAS back: release our critical section to readers and writers. */
static void rwc_write_unlock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;

	(void)ctx;
	atomic_fetch_add_explicit(&l->cnt, RWC_BIAS, lb_rel);
}

#endif
