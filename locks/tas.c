/* SPDX-License-Identifier: MIT */
/*
 * tas - test-and-set spinlock: every attempt is an atomic exchange, so
 * waiters keep the line bouncing between caches.
 * T. E. Anderson, "The performance of spin lock alternatives for
 * shared-memory multiprocessors", IEEE TPDS 1(1), 1990.
 */
#include "tas.h"
#include "registry.h"

const struct lock_ops lock_tas_ops = {
	LOCK_KIND(tas, SPIN, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK),
	.desc = "test-and-set spinlock (xchg until it returns 0)",
	.ref = "Anderson, IEEE TPDS 1990",
	.lock_size = sizeof(struct tas),
	LOCK_CALLS(tas_lock, tas_unlock, tas_trylock),
};
