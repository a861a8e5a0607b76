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

/* Low half: owner (now serving).  High half: next ticket. */
#define TICKET_NEXT_ONE (1ull << 32)

struct ticket {
	_Atomic uint64_t word;
};

static inline uint32_t ticket_owner(uint64_t w)
{
	return (uint32_t)w;
}

static inline uint32_t ticket_next(uint64_t w)
{
	return (uint32_t)(w >> 32);
}

static void ticket_lock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	uint64_t w;
	uint32_t my;

	(void)ctx;
	/* Take a ticket.  Acquire: if it is already being served we own
	 * the lock, and the previous holder's release must be visible. */
	w = atomic_fetch_add_explicit(&l->word, TICKET_NEXT_ONE, lb_acq);
	my = ticket_next(w);
	/* Wait for our turn with acquire loads (the kernel's
	 * atomic_cond_read_acquire): the load that sees our number pairs
	 * with the release in unlock. */
	while (ticket_owner(w) != my) {
		cpu_relax();
		w = atomic_load_explicit(&l->word, lb_acq);
	}
}

static inline bool ticket_trylock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	uint64_t w = atomic_load_explicit(&l->word, lb_rlx);

	(void)ctx;
	if (ticket_owner(w) != ticket_next(w))
		return false;
	return atomic_compare_exchange_strong_explicit(
		&l->word, &w, w + TICKET_NEXT_ONE, lb_acq, lb_rlx);
}

static void ticket_unlock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	uint32_t owner;
	uint64_t delta = 1;

	(void)ctx;
	/* Only the holder writes the owner half, so a relaxed read of it is
	 * exact.  Waiters bump the next half concurrently, so advance the
	 * owner with one RMW on the whole word; when the owner wraps from
	 * 2^32-1 to 0 cancel the carry into the next half. */
	owner = ticket_owner(atomic_load_explicit(&l->word, lb_rlx));
	if (owner == UINT32_MAX)
		delta -= TICKET_NEXT_ONE;
	atomic_fetch_add_explicit(&l->word, delta, lb_rel);
}

#endif
