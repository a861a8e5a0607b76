/* SPDX-License-Identifier: MIT */
/*
 * A plugin whose lock is named like a built-in (`ticket`): refused
 * unless loaded with a tag (--plugin mine=...), which names it
 * ticket_mine.
 */
#include <lockbench/lock.h>

#include "tas_acquire.h"

struct dup {
	_Atomic uint32_t held;
};

static void dup_lock(void *lock, void *ctx)
{
	struct dup *l = lock;

	(void)ctx;
	tas_acquire(&l->held);
}

static void dup_unlock(void *lock, void *ctx)
{
	struct dup *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->held, 0, lb_rel);
}

static const struct lock_ops dup_ops = {
	.name = "ticket",
	.desc = "a test-and-set lock that borrows the name of a built-in",
	.ref = "lockbench tests/plugins/dup_builtin.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct dup),
	.lock = dup_lock,
	.unlock = dup_unlock,
};

LOCKBENCH_PLUGIN(&dup_ops);
