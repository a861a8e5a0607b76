/* SPDX-License-Identifier: MIT */
/*
 * A shared object that forgot LOCKBENCH_PLUGIN(...): it defines a lock
 * but exports no `lockbench_plugin`.  lockbench must refuse it.
 */
#include <lockbench/lock.h>

static void nop(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

const struct lock_ops no_symbol_ops = {
	.name = "no_symbol",
	.desc = "never loaded: no lockbench_plugin symbol",
	.ref = "lockbench tests/plugins/no_symbol.c",
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock = nop,
	.unlock = nop,
};
