/* SPDX-License-Identifier: MIT */
/*
 * ttas - test-and-test-and-set with randomised exponential backoff.
 * Waiters spin on a shared read (the line stays in their caches) and only
 * try the exchange once the lock looks free; a failed exchange backs off
 * for a random number of pauses below a limit that doubles up to a cap.
 * Anderson, IEEE TPDS 1990; Mellor-Crummey & Scott, ACM TOCS 9(1), 1991.
 */
#include "lockbench/lock.h"
#include "../workloads/loop.h"

enum { TTAS_OPT_MIN, TTAS_OPT_MAX };

static const struct lock_opt ttas_opts[] = {
	[TTAS_OPT_MIN] = {"backoff_min", "first backoff limit (pause iterations)", 4, 1, 1u << 20},
	[TTAS_OPT_MAX] = {"backoff_max", "backoff limit cap (pause iterations)", 1024, 1, 1u << 24},
};

struct ttas {
	_Atomic uint32_t locked;
	uint32_t min, max; /* written by init only */
};

struct ttas_ctx {
	uint64_t rng; /* xorshift state, private to the thread */
};

static int ttas_init(void *lock, const struct lock_init *in)
{
	struct ttas *l = lock;

	l->min = (uint32_t)in->opt[TTAS_OPT_MIN];
	l->max = (uint32_t)in->opt[TTAS_OPT_MAX];
	if (l->max < l->min)
		l->max = l->min;
	return 0;
}

static int ttas_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	struct ttas_ctx *c = ctx;

	(void)lock;
	c->rng = 0x9e3779b97f4a7c15ull * (t->tid + 1);
	return 0;
}

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

WL_INLINE void ttas_lock(void *lock, void *ctx)
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

static bool ttas_trylock(void *lock, void *ctx)
{
	struct ttas *l = lock;

	(void)ctx;
	return !atomic_load_explicit(&l->locked, lb_rlx) &&
	       !atomic_exchange_explicit(&l->locked, 1, lb_acq);
}

WL_INLINE void ttas_unlock(void *lock, void *ctx)
{
	struct ttas *l = lock;

	(void)ctx;
	atomic_store_explicit(&l->locked, 0, lb_rel);
}

const struct lock_ops lock_ttas_ops = {
	.name = "ttas",
	.desc = "test-and-test-and-set with randomised exponential backoff",
	.ref = "Anderson, IEEE TPDS 1990; Mellor-Crummey & Scott, TOCS 1991",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK,
	.lock_size = sizeof(struct ttas),
	.ctx_size = sizeof(struct ttas_ctx),
	.opts = ttas_opts,
	.nopts = sizeof(ttas_opts) / sizeof(ttas_opts[0]),
	.init = ttas_init,
	.thread_init = ttas_thread_init,
	.lock = ttas_lock,
	.unlock = ttas_unlock,
	.trylock = ttas_trylock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(ttas, ttas_lock, ttas_unlock, ttas_lock, ttas_unlock);
