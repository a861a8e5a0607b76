/* SPDX-License-Identifier: MIT */
/*
 * cs - the critical-section workload (METHOD.md "The worker loop"):
 * lock, check and take the owner field, read-modify-write --cs-lines
 * shared lines, busy-wait --cs-ns, bump the unprotected counter, release
 * the owner field, unlock, then --ncs-ns of thread-local busy work drawn
 * from an exponential distribution so threads do not fall into lockstep.
 */
#include "sample.h"
#include "workload.h"

/* The loop's pieces are inlined with `timed` constant: the common path
 * carries no trace of the sampling. */
#define LB_ALWAYS_INLINE static inline __attribute__((always_inline))

/*
 * The critical section proper.  The owner field and counter are relaxed
 * atomics accessed with separate load and store (never an atomic RMW):
 * if the lock fails to exclude, two holders overwrite each other and the
 * counter ends below the operation count, and the owner check sees the
 * other holder.  The data lines are plain memory on purpose, so that
 * ThreadSanitizer checks the lock's happens-before edges.
 */
LB_ALWAYS_INLINE void cs_body(struct worker *w, bool timed)
{
	struct wl_shared *sh = w->sh;
	uint32_t me = w->tid + 1;
	uint64_t c;

	if (atomic_load_explicit(&sh->owner, lb_rlx) != 0)
		atomic_fetch_add_explicit(&sh->violations, 1, lb_rlx);
	atomic_store_explicit(&sh->owner, me, lb_rlx);
	for (unsigned i = 0; i < w->p->cs_lines; i++)
		sh->lines[i].w[0]++;
	if (timed && w->p->cs_loops)
		cs_sample_delay(w->samp, w->p->cs_loops);
	else
		lb_delay(w->p->cs_loops);
	c = atomic_load_explicit(&sh->counter, lb_rlx);
	atomic_store_explicit(&sh->counter, c + 1, lb_rlx);
	if (atomic_load_explicit(&sh->owner, lb_rlx) != me)
		atomic_fetch_add_explicit(&sh->violations, 1, lb_rlx);
	atomic_store_explicit(&sh->owner, 0, lb_rlx);
}

LB_ALWAYS_INLINE void ncs_body(struct worker *w, bool timed)
{
	uint64_t loops = w->p->ncs_loops;
	unsigned mult = 256;

	if (!loops)
		return;
	if (!w->p->ncs_fixed) {
		mult = lb_exp_table[lb_rand(&w->rng) & 255];
		loops = loops * mult / 256;
	}
	if (timed)
		ncs_sample_delay(w->samp, loops, mult);
	else
		lb_delay(loops);
}

/* One operation; `timed` (a constant at each call) samples its lengths. */
LB_ALWAYS_INLINE void cs_op(struct worker *w, const struct lock_ops *ops,
			 void *lock, void *ctx, bool timed)
{
	ops->lock(lock, ctx);
	cs_body(w, timed);
	ops->unlock(lock, ctx);
	ncs_body(w, timed);
}

static void cs_loop(struct worker *w)
{
	const struct lock_ops *ops = w->ops;
	void *lock = w->lock, *ctx = w->ctx;
	uint64_t n = 0;
	unsigned left = CS_SAMPLE_EVERY; /* ops until the next sampled one */

	while (!atomic_load_explicit(w->stop, lb_rlx)) {
		if (__builtin_expect(--left != 0, 1)) {
			cs_op(w, ops, lock, ctx, false);
		} else {
			left = CS_SAMPLE_EVERY;
			if (w->samp)
				cs_op(w, ops, lock, ctx, true);
			else
				cs_op(w, ops, lock, ctx, false);
		}
		atomic_store_explicit(&w->slot->ops, ++n, lb_rlx);
	}
}

const struct workload_ops workload_cs_ops = {
	.name = "cs",
	.desc = "lock, write --cs-lines shared lines, wait --cs-ns, unlock, "
		"wait ~--ncs-ns (exponential)",
	.needs_caps = 0,
	.loop = cs_loop,
};
