/* SPDX-License-Identifier: MIT */
/*
 * A plugin lock claiming LOCK_CAP_NOLOCK, which would switch off the
 * mutual-exclusion check: refused, since only the built-in `null`
 * control may skip it.
 */
#include <lockbench/lock.h>

static void nop(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops nolock_ops = {
	.name = "sneaky_nolock",
	.desc = "never loaded: asks to skip the exclusion check",
	.ref = "lockbench tests/plugins/nolock.c",
	.family = LOCK_FAMILY_CONTROL,
	.caps = LOCK_CAP_NOLOCK,
	.lock_size = sizeof(int),
	.lock = nop,
	.unlock = nop,
};

LOCKBENCH_PLUGIN(&nolock_ops);
