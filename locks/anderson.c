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

#include "anderson.h"
#include "registry.h"

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

const struct lock_ops lock_anderson_ops = {
	LOCK_KIND(anderson, SPIN, LOCK_CAP_EXCLUSIVE),
	.desc = "Anderson array queue lock: FIFO, one spin slot per waiter",
	.ref = "Anderson, IEEE TPDS 1990",
	LOCK_SIZES(struct anderson, struct anderson_ctx),
	LOCK_SETUP(anderson_init, anderson_destroy, NULL),
	LOCK_CALLS(anderson_lock, anderson_unlock, NULL),
};
