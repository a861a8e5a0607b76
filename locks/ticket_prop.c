/* SPDX-License-Identifier: MIT */
/*
 * ticket_prop - ticket lock with proportional backoff.  A waiter knows
 * how many holders are ahead of it (its ticket minus now-serving), so
 * instead of hammering the shared word it pauses for that distance times
 * a unit before looking again.  Word layout as in ticket.c: now-serving
 * in the low half, next ticket in the high half, so trylock is one CAS.
 * J. M. Mellor-Crummey and M. L. Scott, "Algorithms for scalable
 * synchronization on shared-memory multiprocessors", ACM TOCS 9(1), 1991
 * (section 2.2, "ticket lock with proportional backoff").
 */
#include "lockbench/lock.h"
#include "../workloads/loop.h"

/* Low half: owner (now serving).  High half: next ticket. */
#define TPROP_NEXT_ONE (1ull << 32)

enum { TPROP_OPT_UNIT };

static const struct lock_opt tprop_opts[] = {
	[TPROP_OPT_UNIT] = {"unit", "pause iterations per holder ahead of us", 32, 0, 1u << 16},
};

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

static int tprop_init(void *lock, const struct lock_init *in)
{
	struct ticket_prop *l = lock;

	l->unit = (uint32_t)in->opt[TPROP_OPT_UNIT];
	return 0;
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
static bool tprop_trylock(void *lock, void *ctx)
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

const struct lock_ops lock_ticket_prop_ops = {
	.name = "ticket_prop",
	.desc = "ticket lock with backoff proportional to the queue position",
	.ref = "Mellor-Crummey & Scott, ACM TOCS 1991",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK,
	.lock_size = sizeof(struct ticket_prop),
	.opts = tprop_opts,
	.nopts = sizeof(tprop_opts) / sizeof(tprop_opts[0]),
	.init = tprop_init,
	.lock = tprop_lock,
	.unlock = tprop_unlock,
	.trylock = tprop_trylock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(ticket_prop, tprop_lock, tprop_unlock, tprop_lock, tprop_unlock);
