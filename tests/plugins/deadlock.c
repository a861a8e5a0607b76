/* SPDX-License-Identifier: MIT */
/*
 * A plugin lock that never releases (unlock forgets to clear the flag):
 * with two threads the second waits forever.  lockbench's watchdog must
 * end the run with an error naming the lock, as for a built-in lock.
 */
#include <lockbench/lock.h>

#include "tas_acquire.h"

struct deadlock {
	_Atomic uint32_t held;
};

static void deadlock_lock(void *lock, void *ctx)
{
	struct deadlock *l = lock;

	(void)ctx;
	tas_acquire(&l->held);
}

static void deadlock_unlock(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
	/* Bug on purpose: the lock stays held. */
}

static const struct lock_ops deadlock_ops = {
	.name = "deadlock",
	.desc = "never released: the watchdog's test for plugins",
	.ref = "lockbench tests/plugins/deadlock.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct deadlock),
	.lock = deadlock_lock,
	.unlock = deadlock_unlock,
};

LOCKBENCH_PLUGIN(&deadlock_ops);
