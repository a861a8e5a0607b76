/* SPDX-License-Identifier: MIT */
/*
 * The body of the ttas lock: its types and its lock and unlock paths
 * (locks/ttas.c holds the ops table, init and tunables), in a header so
 * that the worker loops instantiated for the lock in
 * workloads/loops/ttas.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_TTAS_H
#define LOCKBENCH_LOCK_TTAS_H

#include "lockbench/lock.h"

struct ttas {
	_Atomic uint32_t locked;
	uint32_t min, max; /* written by init only */
};

struct ttas_ctx {
	uint64_t rng; /* xorshift state, private to the thread */
};

static uint32_t ttas_rand(struct ttas_ctx *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return (uint32_t)(c->rng >> 32);
}

/* The contended path, out of line so that the loops inline only the
 * uncontended test and test-and-set of ttas_lock().  `lost`: the
 * test-and-set failed (back off first), else the test saw it taken. */
static __attribute__((noinline)) void ttas_lock_slow(struct ttas *l,
						     struct ttas_ctx *c, bool lost)
{
	uint32_t lim = l->min;

	for (;;) {
		if (lost) {
			/* Lost the race: back off for a random time below lim. */
			for (uint32_t i = ttas_rand(c) % lim; i; i--)
				cpu_relax();
			lim = lim * 2 > l->max ? l->max : lim * 2;
		}
		/* Test: wait on our cached copy until the lock looks free. */
		while (atomic_load_explicit(&l->locked, lb_rlx))
			cpu_relax();
		/* Test-and-set: the acquire pairs with the unlock's release. */
		if (!atomic_exchange_explicit(&l->locked, 1, lb_acq))
			return;
		lost = true;
	}
}

static inline __attribute__((always_inline)) void ttas_lock(void *lock, void *ctx)
{
	struct ttas *l = lock;

	/* Test, then test-and-set (the acquire pairs with the unlock's
	 * release); anything else is contention, for the slow path. */
	if (__builtin_expect(atomic_load_explicit(&l->locked, lb_rlx), 0)) {
		ttas_lock_slow(l, ctx, false);
		return;
	}
	if (__builtin_expect(atomic_exchange_explicit(&l->locked, 1, lb_acq), 0))
		ttas_lock_slow(l, ctx, true);
}

static inline bool ttas_trylock(void *lock, void *ctx)
{
	struct ttas *l = lock;

	(void)ctx;
	return !atomic_load_explicit(&l->locked, lb_rlx) &&
	       !atomic_exchange_explicit(&l->locked, 1, lb_acq);
}

static inline __attribute__((always_inline)) void ttas_unlock(void *lock, void *ctx)
{
	struct ttas *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->locked, 0, lb_rel);
}

#endif
