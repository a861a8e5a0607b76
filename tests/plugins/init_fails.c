/* SPDX-License-Identifier: MIT */
/*
 * A plugin whose init() refuses every run (as a lock would that needs a
 * resource the machine lacks): the run exits 2 naming the plugin, and
 * its JSON says "incomplete": true.
 */
#include <errno.h>

#include <lockbench/lock.h>

struct init_fails_lock {
	int word;
};

static int init_fails_init(void *lock, const struct lock_init *in)
{
	(void)lock;
	(void)in;
	return -ENODEV;
}

static void nop(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops init_fails_ops = {
	.name = "init_fails",
	.desc = "init() always fails with -ENODEV",
	.ref = "lockbench tests/plugins/init_fails.c",
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct init_fails_lock),
	.init = init_fails_init,
	.lock = nop,
	.unlock = nop,
};

LOCKBENCH_PLUGIN(&init_fails_ops);
