/* SPDX-License-Identifier: MIT */
/*
 * busted - claims to be a lock, excludes nobody.  The negative control of
 * the mutual-exclusion check (locktorture's lock_busted): with two or more
 * threads the harness must report it FAILED.  Hidden unless
 * --include-broken is given.
 */
#include "lockbench/lock.h"
#include "../workloads/loop.h"

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

const struct lock_ops lock_busted_ops = {
	.name = "busted",
	.desc = "does not exclude: negative control for the exclusion check",
	.ref = "kernel/locking/locktorture.c (lock_busted)",
	.family = LOCK_FAMILY_CONTROL,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_BROKEN,
	.lock_size = sizeof(struct busted),
	.lock = busted_lock,
	.unlock = busted_unlock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(busted, busted_lock, busted_unlock, busted_lock, busted_unlock);
