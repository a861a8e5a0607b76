/* SPDX-License-Identifier: MIT */
/*
 * A plugin whose lock_size is 0: the harness would hand lock() a
 * zero-byte object, so lock_ops_check() refuses it at load time.
 */
#include <lockbench/lock.h>

static void nop(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops zero_size_ops = {
	.name = "zero_size",
	.desc = "never loaded: lock_size 0",
	.ref = "lockbench tests/plugins/zero_size.c",
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock = nop,
	.unlock = nop,
};

LOCKBENCH_PLUGIN(&zero_size_ops);
