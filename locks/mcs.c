/* SPDX-License-Identifier: MIT */
/*
 * mcs - the MCS queue lock.  Each waiter brings its own node (the
 * per-thread context), swaps itself into the tail and spins on its own
 * node's flag, so a release touches one waiter's line only.
 * J. M. Mellor-Crummey and M. L. Scott, "Algorithms for scalable
 * synchronization on shared-memory multiprocessors", ACM TOCS 9(1), 1991.
 */
#include <stddef.h>

#include "mcs.h"
#include "registry.h"

const struct lock_ops lock_mcs_ops = {
	LOCK_KIND(mcs, SPIN, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK),
	.desc = "MCS queue lock: FIFO, each waiter spins on its own node",
	.ref = "Mellor-Crummey & Scott, ACM TOCS 1991",
	LOCK_SIZES(struct mcs, struct mcs_node),
	LOCK_CALLS(mcs_lock, mcs_unlock, mcs_trylock),
};
