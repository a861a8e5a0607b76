/* SPDX-License-Identifier: MIT */
/*
 * rare_skip - a test-and-set lock that skips one acquisition in 1000:
 * every thousandth lock() of a thread returns without taking the lock
 * (and the matching unlock() releases nothing).  The rare bug the
 * mutual-exclusion check must still catch.
 */
#include <lockbench/lock.h>

struct rare_skip {
	_Atomic uint32_t held;
};

struct rare_skip_ctx {
	uint64_t n;             /* lock() calls of this thread */
	bool skipped;           /* the last lock() did not take the lock */
};

static void rare_skip_lock(void *lock, void *ctx)
{
	struct rare_skip *l = lock;
	struct rare_skip_ctx *c = ctx;

	c->skipped = ++c->n % 1000 == 0;
	if (c->skipped)
		return;
	while (atomic_exchange_explicit(&l->held, 1, lb_acq))
		while (atomic_load_explicit(&l->held, lb_rlx))
			cpu_relax();
}

static void rare_skip_unlock(void *lock, void *ctx)
{
	struct rare_skip *l = lock;
	struct rare_skip_ctx *c = ctx;

	if (!c->skipped)
		atomic_store_explicit(&l->held, 0, lb_rel);
}

static const struct lock_ops rare_skip_ops = {
	.name = "rare_skip",
	.desc = "test-and-set that skips one acquisition in 1000 (test plugin)",
	.ref = "lockbench tests/plugins/rare_skip.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct rare_skip),
	.ctx_size = sizeof(struct rare_skip_ctx),
	.lock = rare_skip_lock,
	.unlock = rare_skip_unlock,
};

LOCKBENCH_PLUGIN(&rare_skip_ops);
