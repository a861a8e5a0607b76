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

/* One 32-bit word, as x86's ticket spinlock before v4.2
 * (arch/x86/include/asm/spinlock_types.h, NR_CPUS >= 256): now serving
 * (head) in the low half, written only by the holder, and the next
 * ticket (tail) in the high half, taken by every locker with one
 * fetch_add whose result also says whether the lock was free.  16-bit
 * counters that wrap apart: the holder's 16-bit store of head never
 * carries into tail. */
struct ticket {
	_Atomic uint32_t val;
};

#define TICKET_TAIL_INC (1u << 16)

/* The head half as a 16-bit atomic, as the kernel's arch_spinlock_t
 * union names it; with -DLB_STRICT_C11 (or no known byte order) the
 * waits load the whole word and unlock is a CAS loop on it. */
#if defined(LB_STRICT_C11) || !defined(__BYTE_ORDER__)
#define TICKET_MIXED 0
static inline uint16_t ticket_head_acq(struct ticket *l)
{
	return (uint16_t)atomic_load_explicit(&l->val, lb_acq);
}
#else
#define TICKET_MIXED 1
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define TICKET_HEAD_HALF 1
#else
#define TICKET_HEAD_HALF 0
#endif
static inline _Atomic uint16_t *ticket_head(struct ticket *l)
{
	return (_Atomic uint16_t *)&l->val + TICKET_HEAD_HALF;
}
static inline uint16_t ticket_head_acq(struct ticket *l)
{
	return atomic_load_explicit(ticket_head(l), lb_acq);
}
#endif

static void ticket_lock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	uint32_t v;
	uint16_t my;

	(void)ctx;
	/* Take a ticket; if it is the one being served, the lock is ours
	 * (the fetch_add's acquire pairs with the last release).  Else
	 * wait for our turn with acquire loads of head (the kernel's
	 * atomic_cond_read_acquire): the load that sees our number pairs
	 * with the release in unlock. */
	v = atomic_fetch_add_explicit(&l->val, TICKET_TAIL_INC, lb_acq);
	my = (uint16_t)(v >> 16);
	if ((uint16_t)v == my)
		return;
	while (ticket_head_acq(l) != my)
		cpu_relax();
}

/* Free when tail == head: take ticket head with a CAS of the word from
 * the value that says so.  The acquire pairs with the last holder's
 * release. */
static inline bool ticket_trylock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	uint32_t v = atomic_load_explicit(&l->val, lb_rlx);

	(void)ctx;
	if ((uint16_t)(v >> 16) != (uint16_t)v)
		return false;
	return atomic_compare_exchange_strong_explicit(&l->val, &v, v + TICKET_TAIL_INC,
						       lb_acq, lb_rlx);
}

#if TICKET_MIXED
static void ticket_unlock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	_Atomic uint16_t *h = ticket_head(l);

	(void)ctx;
	/* Only the holder writes head: a relaxed read of it is exact, and
	 * the 16-bit store leaves tail alone (x86's `addw` on the head). */
	atomic_store_explicit(h, (uint16_t)(atomic_load_explicit(h, lb_rlx) + 1), lb_rel);
}
#else
static void ticket_unlock(void *lock, void *ctx)
{
	struct ticket *l = lock;
	uint32_t v = atomic_load_explicit(&l->val, lb_rlx), n;

	(void)ctx;
	/* Whole-word only: bump head inside the word, without a carry into
	 * tail, while lockers may add to tail. */
	do
		n = (v & ~0xffffu) | (uint16_t)(v + 1);
	while (!atomic_compare_exchange_weak_explicit(&l->val, &v, n, lb_rel, lb_rlx));
}
#endif

#endif
