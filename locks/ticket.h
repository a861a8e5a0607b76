/* SPDX-License-Identifier: MIT */
/*
 * The body of the ticket lock: its types and its lock and unlock paths
 * (locks/ticket.c holds the ops table, init and tunables), in a header
 * so that the worker loops instantiated for the lock in
 * workloads/loops/ticket.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_TICKET_H
#define LOCKBENCH_LOCK_TICKET_H

#include "lockbench/lock.h"

/* Now serving, written only by the holder; and the next ticket, taken
 * by every locker.  32-bit counters that wrap together. */
struct ticket {
	_Atomic uint32_t owner;
	_Atomic uint32_t next;
};

static void ticket_lock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	uint32_t my;

	(void)ctx;
	/* Take a ticket, then wait for our turn with acquire loads (the
	 * kernel's atomic_cond_read_acquire): the load that sees our
	 * number pairs with the release in unlock.  Owner only reaches a
	 * ticket that was taken, so seeing ours is never early. */
	my = atomic_fetch_add_explicit(&l->next, 1, lb_acq);
	while (atomic_load_explicit(&l->owner, lb_acq) != my)
		cpu_relax();
}

/* Free when next == owner: take ticket `owner` with a CAS of next.  If
 * it succeeds, next was o, and owner (monotonic, read as o, never past
 * next) is still o: ours is the ticket being served.  The acquire load
 * of owner pairs with the last holder's release. */
static inline bool ticket_trylock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	uint32_t o = atomic_load_explicit(&l->owner, lb_acq), n = o;

	(void)ctx;
	return atomic_compare_exchange_strong_explicit(&l->next, &n, o + 1, lb_acq,
						       lb_rlx);
}

static void ticket_unlock(void *lock, void *ctx)
{
	struct ticket *l = lock;

	(void)ctx;
	/* Only the holder writes owner: a relaxed read of it is exact. */
	atomic_store_explicit(&l->owner, atomic_load_explicit(&l->owner, lb_rlx) + 1,
			      lb_rel);
}

#endif
