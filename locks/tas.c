/* SPDX-License-Identifier: MIT */
/*
 * tas - test-and-set spinlock: every attempt is an atomic exchange, so
 * waiters keep the line bouncing between caches.
 * T. E. Anderson, "The performance of spin lock alternatives for
 * shared-memory multiprocessors", IEEE TPDS 1(1), 1990.
 */
#include "lockbench/lock.h"
#include "../workloads/loop.h"

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

static bool tas_trylock(void *lock, void *ctx)
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

const struct lock_ops lock_tas_ops = {
	.name = "tas",
	.desc = "test-and-set spinlock (xchg until it returns 0)",
	.ref = "Anderson, IEEE TPDS 1990",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK,
	.lock_size = sizeof(struct tas),
	.lock = tas_lock,
	.unlock = tas_unlock,
	.trylock = tas_trylock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(tas, tas_lock, tas_unlock, tas_lock, tas_unlock);
