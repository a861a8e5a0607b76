/* SPDX-License-Identifier: MIT */
/*
 * anderson - Anderson's array-based queue lock.  A waiter takes a slot
 * index with one fetch_add on the tail and spins on its own slot, each
 * slot on its own cache line; unlock clears the holder's slot and sets
 * the next one, so a release touches one waiter's line only.  FIFO.
 * T. E. Anderson, "The performance of spin lock alternatives for
 * shared-memory multiprocessors", IEEE TPDS 1(1), 1990.
 */
#include <errno.h>

#include "lockbench/lock.h"
#include "../workloads/loop.h"

/* One flag per cache line: 1 = the holder of this slot may enter. */
struct anderson_slot {
	LB_ALIGNED _Atomic uint32_t go;
};

struct anderson {
	/* Read-only after init, on their own line. */
	struct anderson_slot *slots;
	uint32_t mask;          /* nslots - 1, nslots a power of two */
	size_t bytes;           /* size of slots, for free_mem */
	void (*free_mem)(void *p, size_t size);
	/* Next slot index to hand out; written by every lock(). */
	LB_ALIGNED _Atomic uint32_t tail;
};

struct anderson_ctx {
	uint32_t slot; /* our slot while we wait or hold, private */
};

/* Smallest power of two >= n (n >= 1, n <= 2^31). */
static uint32_t anderson_pow2(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/*
 * Allocate one slot per thread, rounded up to a power of two so that the
 * index arithmetic stays right when the 32-bit tail wraps.  At most
 * nthreads tickets are outstanding at once, so no two waiters share a
 * slot.  Slot 0 starts open: the first ticket finds the lock free.
 * Returns 0, -EINVAL for a thread count we cannot index, or -ENOMEM.
 */
static int anderson_init(void *lock, const struct lock_init *in)
{
	struct anderson *l = lock;
	uint32_t n;

	if (!in->nthreads || in->nthreads > (1u << 20))
		return -EINVAL;
	n = anderson_pow2(in->nthreads);
	l->bytes = (size_t)n * sizeof(struct anderson_slot);
	l->slots = in->alloc(l->bytes);
	if (!l->slots)
		return -ENOMEM;
	l->free_mem = in->free_mem;
	l->mask = n - 1;
	atomic_store_explicit(&l->slots[0].go, 1, lb_rlx);
	atomic_store_explicit(&l->tail, 0, lb_rlx);
	return 0;
}

/* Free the slot array. */
static void anderson_destroy(void *lock)
{
	struct anderson *l = lock;

	if (l->slots)
		l->free_mem(l->slots, l->bytes);
	l->slots = NULL;
}

/*
 * Take the next slot and wait until its flag is set.  The acquire load
 * that sees it set pairs with the release store in unlock, ordering our
 * critical section after the previous holder's.  (Acquire loads rather
 * than relaxed loads and a fence: ThreadSanitizer does not model fences.)
 */
WL_INLINE void anderson_lock(void *lock, void *ctx)
{
	struct anderson *l = lock;
	struct anderson_ctx *c = ctx;
	struct anderson_slot *s;

	/* Take a ticket; relaxed: ordering comes from the slot flag. */
	c->slot = atomic_fetch_add_explicit(&l->tail, 1, lb_rlx) & l->mask;
	s = &l->slots[c->slot];
	/* Spin on our own line until the previous holder opens it. */
	while (!atomic_load_explicit(&s->go, lb_acq))
		cpu_relax();
	/* Close the slot behind us for the thread that gets it next time
	 * round.  Relaxed: our release in unlock orders it before anyone
	 * can be handed this slot again. */
	atomic_store_explicit(&s->go, 0, lb_rlx);
}

/* Open the next slot: release our critical section to its waiter. */
WL_INLINE void anderson_unlock(void *lock, void *ctx)
{
	struct anderson *l = lock;
	struct anderson_ctx *c = ctx;

	atomic_store_explicit(&l->slots[(c->slot + 1) & l->mask].go, 1,
			      lb_rel);
}

const struct lock_ops lock_anderson_ops = {
	.name = "anderson",
	.desc = "Anderson array queue lock: FIFO, one spin slot per waiter",
	.ref = "Anderson, IEEE TPDS 1990",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct anderson),
	.ctx_size = sizeof(struct anderson_ctx),
	.init = anderson_init,
	.destroy = anderson_destroy,
	.lock = anderson_lock,
	.unlock = anderson_unlock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(anderson, anderson_lock, anderson_unlock, anderson_lock, anderson_unlock);
