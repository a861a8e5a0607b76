/* SPDX-License-Identifier: MIT */
/*
 * broken_plugin - an out-of-tree lock that does not exclude, and does
 * not say so (no LOCK_CAP_BROKEN): the negative control for plugins.
 * lockbench must run it through the same mutual-exclusion check as a
 * built-in lock, print it FAILED and exit 1.
 *
 * The bug is a classic one: test, then set, as two separate steps, so
 * two threads can both see the lock free and both take it.
 */
#include <lockbench/lock.h>

struct broken {
	_Atomic uint32_t held;
};

static void broken_lock(void *lock, void *ctx)
{
	struct broken *l = lock;

	(void)ctx;
	while (atomic_load_explicit(&l->held, lb_acq))
		cpu_relax();
	/* The window: another thread may pass the loop right here. */
	for (int i = 0; i < 64; i++)
		lb_barrier();
	atomic_store_explicit(&l->held, 1, lb_rlx);
}

static void broken_unlock(void *lock, void *ctx)
{
	struct broken *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->held, 0, lb_rel);
}

static const struct lock_ops broken_plugin_ops = {
	.name = "broken_plugin",
	.desc = "test-then-set with a race: does not exclude (example plugin)",
	.ref = "lockbench examples/broken_plugin.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct broken),
	.lock = broken_lock,
	.unlock = broken_unlock,
};

LOCKBENCH_PLUGIN(&broken_plugin_ops);
