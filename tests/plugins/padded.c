/* SPDX-License-Identifier: MIT */
/*
 * padded - a test-and-test-and-set spinlock that can be made slower on
 * purpose: after taking the lock it spins `pad` iterations of an empty
 * loop the compiler must keep.  Loaded twice (--plugin a=padded.so
 * --plugin b=padded.so) it is the same lock twice (an A/A comparison);
 * with `--lock-opt padded_b.pad=N` one copy is a known amount slower,
 * which is how scripts/aa-significance.sh measures the false-significance
 * rate and the power of lockbench's tests.
 */
#include <lockbench/lock.h>

struct padded {
	_Atomic uint32_t held;
	uint32_t pad; /* written by init only */
};

static const struct lock_opt padded_opts[] = {
	{"pad", "empty-loop iterations added to every acquisition", 0, 0, 1u << 20},
};

static int padded_init(void *lock, const struct lock_init *in)
{
	struct padded *l = lock;

	l->pad = (uint32_t)in->opt[0];
	return 0;
}

static void padded_lock(void *lock, void *ctx)
{
	struct padded *l = lock;

	(void)ctx;
	for (;;) {
		/* Acquire pairs with the release in unlock. */
		if (!atomic_exchange_explicit(&l->held, 1, lb_acq))
			break;
		while (atomic_load_explicit(&l->held, lb_rlx))
			cpu_relax();
	}
	/* The extra work: an empty loop kept by the asm barrier. */
	for (uint32_t i = 0; i < l->pad; i++)
		__asm__ __volatile__("" ::: "memory");
}

static void padded_unlock(void *lock, void *ctx)
{
	struct padded *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->held, 0, lb_rel);
}

static const struct lock_ops padded_ops = {
	.name = "padded",
	.desc = "test-and-test-and-set with optional extra work (test plugin)",
	.ref = "lockbench tests/plugins/padded.c",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct padded),
	.opts = padded_opts,
	.nopts = sizeof(padded_opts) / sizeof(padded_opts[0]),
	.init = padded_init,
	.lock = padded_lock,
	.unlock = padded_unlock,
};

LOCKBENCH_PLUGIN(&padded_ops);
