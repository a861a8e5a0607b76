/* SPDX-License-Identifier: MIT */
/*
 * A plugin whose init() never returns (as a lock would that waits for a
 * resource that never comes): the watchdog ends the run with one line,
 * exit 2, the machine restored and the points measured before it kept.
 */
#include <unistd.h>

#include <lockbench/lock.h>

struct init_hangs_lock {
	int word;
};

static int init_hangs_init(void *lock, const struct lock_init *in)
{
	(void)lock;
	(void)in;
	for (;;)
		pause();	/* a signal handler returns here: wait again */
	return 0;
}

static void nop(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops init_hangs_ops = {
	.name = "init_hangs",
	.desc = "init() never returns",
	.ref = "lockbench tests/plugins/init_hangs.c",
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct init_hangs_lock),
	.init = init_hangs_init,
	.lock = nop,
	.unlock = nop,
};

LOCKBENCH_PLUGIN(&init_hangs_ops);
