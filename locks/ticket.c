/* SPDX-License-Identifier: MIT */
/*
 * ticket - FIFO ticket lock.  A waiter takes the next ticket with one
 * fetch_add and spins until the owner field reaches it; unlock advances
 * the owner with a plain release store, since only the holder writes
 * it (as the kernel's x86 ticket lock did: a non-atomic increment of
 * the head, so one atomic instruction per acquisition and release).
 * The two are the halves of one word, as the kernel's head and tail.
 * Mellor-Crummey & Scott, ACM TOCS 9(1), 1991; Linux's x86 ticket
 * spinlock before v4.2 (arch/x86/include/asm/spinlock.h).
 */
#include "ticket.h"
#include "registry.h"

const struct lock_ops lock_ticket_ops = {
	LOCK_KIND(ticket, SPIN, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK),
	.desc = "FIFO ticket lock (fetch_add a ticket, spin on now-serving)",
	.ref = "Mellor-Crummey & Scott, TOCS 1991; Linux x86 ticket spinlock",
	.lock_size = sizeof(struct ticket),
	LOCK_CALLS(ticket_lock, ticket_unlock, ticket_trylock),
};
