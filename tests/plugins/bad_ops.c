/* SPDX-License-Identifier: MIT */
/*
 * A plugin with an incomplete ops table (no unlock): lock_ops_check()
 * refuses it at load time, before any thread could call through NULL.
 */
#include <lockbench/lock.h>

static void nop(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops bad_ops_ops = {
	.name = "bad_ops",
	.desc = "never loaded: lock without unlock",
	.ref = "lockbench tests/plugins/bad_ops.c",
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock = nop,
};

LOCKBENCH_PLUGIN(&bad_ops_ops);
