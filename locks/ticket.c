/* SPDX-License-Identifier: MIT */
/*
 * ticket - FIFO ticket lock.  A waiter takes the next ticket with one
 * fetch_add and spins until the owner field reaches it; unlock advances
 * the owner.  Both halves live in one 64-bit word so trylock can take
 * the lock with a single CAS when they are equal.
 * Mellor-Crummey & Scott, ACM TOCS 9(1), 1991; Linux's pre-3.15 x86
 * spinlock (arch/x86/include/asm/spinlock.h).
 */
#include "lockbench/lock.h"
#include "../workloads/loop.h"

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

static bool ticket_trylock(void *lock, void *ctx)
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

const struct lock_ops lock_ticket_ops = {
	.name = "ticket",
	.desc = "FIFO ticket lock (fetch_add a ticket, spin on now-serving)",
	.ref = "Mellor-Crummey & Scott, TOCS 1991; Linux x86 ticket spinlock",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK,
	.lock_size = sizeof(struct ticket),
	.lock = ticket_lock,
	.unlock = ticket_unlock,
	.trylock = ticket_trylock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(ticket, ticket_lock, ticket_unlock, ticket_lock, ticket_unlock);
