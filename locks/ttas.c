/* SPDX-License-Identifier: MIT */
/*
 * ttas - test-and-test-and-set with randomised exponential backoff.
 * Waiters spin on a shared read (the line stays in their caches) and only
 * try the exchange once the lock looks free; a failed exchange backs off
 * for a random number of pauses below a limit that doubles up to a cap.
 * Anderson, IEEE TPDS 1990; Mellor-Crummey & Scott, ACM TOCS 9(1), 1991.
 */
#include "ttas.h"
#include "registry.h"

enum { TTAS_OPT_MIN, TTAS_OPT_MAX };

static const struct lock_opt ttas_opts[] = {
	[TTAS_OPT_MIN] = {"backoff_min", "first backoff limit (pause iterations)", 4, 1, 1u << 20},
	[TTAS_OPT_MAX] = {"backoff_max", "backoff limit cap (pause iterations)", 1024, 1, 1u << 24},
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

const struct lock_ops lock_ttas_ops = {
	LOCK_KIND(ttas, SPIN, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK),
	.desc = "test-and-test-and-set with randomised exponential backoff",
	.ref = "Anderson, IEEE TPDS 1990; Mellor-Crummey & Scott, TOCS 1991",
	LOCK_SIZES(struct ttas, struct ttas_ctx),
	LOCK_SETUP(ttas_init, NULL, ttas_thread_init),
	LOCK_CALLS(ttas_lock, ttas_unlock, ttas_trylock),
	LOCK_OPTIONS(ttas_opts),
};
