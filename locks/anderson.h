/* SPDX-License-Identifier: MIT */
/*
 * The body of the anderson lock: its types and its lock and unlock paths
 * (locks/anderson.c holds the ops table, init and tunables), in a header
 * so that the worker loops instantiated for the lock in
 * workloads/loops/anderson.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_ANDERSON_H
#define LOCKBENCH_LOCK_ANDERSON_H

#include "lockbench/lock.h"

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

/*
 * Take the next slot and wait until its flag is set.  The acquire load
 * that sees it set pairs with the release store in unlock, ordering our
 * critical section after the previous holder's.  (Acquire loads rather
 * than relaxed loads and a fence: ThreadSanitizer does not model fences.)
 */
static inline __attribute__((always_inline)) void anderson_lock(void *lock, void *ctx)
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
static inline __attribute__((always_inline)) void anderson_unlock(void *lock, void *ctx)
{
	struct anderson *l = lock;
	struct anderson_ctx *c = ctx;

	atomic_store_explicit(&l->slots[(c->slot + 1) & l->mask].go, 1,
			      lb_rel);
}

#endif
