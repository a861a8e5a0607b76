/* SPDX-License-Identifier: MIT */
/*
 * The body of the ticket_prop lock: its types and its lock and unlock
 * paths (locks/ticket_prop.c holds the ops table, init and tunables), in
 * a header so that the worker loops instantiated for the lock in
 * workloads/loops/ticket_prop.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_TICKET_PROP_H
#define LOCKBENCH_LOCK_TICKET_PROP_H

#include "lockbench/lock.h"

/* Low half: owner (now serving).  High half: next ticket. */
#define TPROP_NEXT_ONE (1ull << 32)

struct ticket_prop {
	_Atomic uint64_t word;
	uint32_t unit; /* written by init only */
};

static inline uint32_t tprop_owner(uint64_t w)
{
	return (uint32_t)w;
}

static inline uint32_t tprop_next(uint64_t w)
{
	return (uint32_t)(w >> 32);
}

/*
 * Take a ticket, then alternate between reading now-serving and pausing
 * for (distance to our turn) * unit iterations until it is our turn.
 */
static void tprop_lock(void *lock, void *ctx)
{
	struct ticket_prop *l = lock;
	uint64_t w;
	uint32_t my, owner, unit = l->unit;

	(void)ctx;
	/* Take a ticket.  Acquire, like the loads below: whichever of them
	 * sees now-serving reach our ticket reads the release in unlock (or
	 * a later RMW of its release sequence), so the previous holder's
	 * critical section happens before ours. */
	w = atomic_fetch_add_explicit(&l->word, TPROP_NEXT_ONE, lb_acq);
	my = tprop_next(w);
	owner = tprop_owner(w);
	while (owner != my) {
		/* my - owner holders go before us (mod 2^32); wait about as
		 * long as they will take, then look again. */
		uint64_t n = (uint64_t)(uint32_t)(my - owner) * unit;

		if (!n)
			n = 1;
		while (n--)
			cpu_relax();
		owner = tprop_owner(atomic_load_explicit(&l->word, lb_acq));
	}
}

/* Take the lock only if nobody holds or waits for it. */
static inline bool tprop_trylock(void *lock, void *ctx)
{
	struct ticket_prop *l = lock;
	uint64_t w = atomic_load_explicit(&l->word, lb_rlx);

	(void)ctx;
	if (tprop_owner(w) != tprop_next(w))
		return false;
	return atomic_compare_exchange_strong_explicit(
		&l->word, &w, w + TPROP_NEXT_ONE, lb_acq, lb_rlx);
}

/*
 * Advance now-serving.  Only the holder writes the owner half, so a
 * relaxed read of it is exact; waiters bump the next half concurrently,
 * so advance with one RMW on the whole word, cancelling the carry into
 * the next half when the owner wraps.
 */
static void tprop_unlock(void *lock, void *ctx)
{
	struct ticket_prop *l = lock;
	uint64_t delta = 1;

	(void)ctx;
	if (tprop_owner(atomic_load_explicit(&l->word, lb_rlx)) == UINT32_MAX)
		delta -= TPROP_NEXT_ONE;
	atomic_fetch_add_explicit(&l->word, delta, lb_rel);
}

#endif
