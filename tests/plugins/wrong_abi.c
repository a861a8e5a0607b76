/* SPDX-License-Identifier: MIT */
/*
 * A plugin that claims another ABI version: lockbench must refuse it
 * before calling anything in it.  Written out by hand rather than with
 * LOCKBENCH_PLUGIN(), which always stamps the current version.
 */
#include <lockbench/lock.h>

static void nop(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops wrong_abi_ops = {
	.name = "wrong_abi",
	.desc = "never loaded: built for another ABI version",
	.ref = "lockbench tests/plugins/wrong_abi.c",
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock = nop,
	.unlock = nop,
};

static const struct lock_ops *const locks[] = {&wrong_abi_ops};

const struct lockbench_plugin lockbench_plugin = {
	LOCKBENCH_ABI_VERSION + 1, locks, 1,
};
