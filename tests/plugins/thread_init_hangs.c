/* SPDX-License-Identifier: MIT */
/*
 * A plugin whose thread_init() never returns in its second thread (as a
 * lock would that waits there for its peers): the workers are never
 * released; the run ends as a start-up failure (one line, exit 2), or
 * at once at the first SIGINT, with the machine restored and the points
 * measured before it kept.
 */
#include <unistd.h>

#include <lockbench/lock.h>

struct thread_init_hangs_lock {
	int word;
};

static int thread_init_hangs_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	(void)lock;
	(void)ctx;
	while (t->tid == 1)
		pause();	/* a signal handler returns here: wait again */
	return 0;
}

static void nop(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops thread_init_hangs_ops = {
	.name = "thread_init_hangs",
	.desc = "thread_init() never returns in thread 1",
	.ref = "lockbench tests/plugins/thread_init_hangs.c",
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct thread_init_hangs_lock),
	.thread_init = thread_init_hangs_thread_init,
	.lock = nop,
	.unlock = nop,
};

LOCKBENCH_PLUGIN(&thread_init_hangs_ops);
