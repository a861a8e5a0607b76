/* SPDX-License-Identifier: MIT */
/*
 * A plugin lock that crashes (a write through a bad pointer) on its
 * 1000th acquisition: the process dies by SIGSEGV, and the machine
 * settings must be restored on the way.
 */
#include <lockbench/lock.h>

/* NULL, hidden from the compiler so that the write is kept. */
static int *volatile bad_pointer;

struct crash {
	_Atomic uint64_t n;
};

static void crash_lock(void *lock, void *ctx)
{
	struct crash *l = lock;

	(void)ctx;
	if (atomic_fetch_add_explicit(&l->n, 1, lb_rlx) == 1000)
		*bad_pointer = 1;
}

static void crash_unlock(void *lock, void *ctx)
{
	(void)lock;
	(void)ctx;
}

static const struct lock_ops crash_ops = {
	.name = "crash",
	.desc = "segfaults on its 1000th acquisition (test plugin)",
	.ref = "lockbench tests/plugins/crash.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct crash),
	.lock = crash_lock,
	.unlock = crash_unlock,
};

LOCKBENCH_PLUGIN(&crash_ops);
