/* SPDX-License-Identifier: MIT */
/*
 * futex - the three-state futex mutex ("mutex3") of U. Drepper,
 * "Futexes Are Tricky" (Red Hat, 2011), section 6.
 *
 * The word is 0 (free), 1 (locked, nobody sleeps) or 2 (locked, maybe
 * sleepers).  Lock takes 0->1 with one CAS; a contended locker marks
 * the word 2 with an exchange and sleeps in FUTEX_WAIT while it stays 2.
 * Unlock decrements: from 1 it reaches 0 and nobody needs waking; from
 * 2 it stores 0 and wakes one sleeper, which re-marks the word 2 when it
 * takes the lock (it cannot know whether others still sleep).
 */
#include "futex.h"
#include "registry.h"

static const char *const futex_counter_names[FUTEX_NCNT] = {
	[FUTEX_CNT_WAITS] = "futex_waits",
	[FUTEX_CNT_WAKES] = "futex_wakes",
};

static void futex_read_counters(void *lock, uint64_t *out)
{
	struct futex_lock *l = lock;

	futex_read_counts(l->cnt, FUTEX_NCNT, out);
}

const struct lock_ops lock_futex_ops = {
	LOCK_KIND(futex, SLEEP, LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS),
	.desc = "Drepper's three-state futex mutex (0 free / 1 locked / 2 contended)",
	.ref = "U. Drepper, \"Futexes Are Tricky\" (2011), mutex3; futex(2)",
	.lock_size = sizeof(struct futex_lock),
	LOCK_CALLS(futex_lock, futex_unlock, futex_trylock),
	LOCK_COUNTERS(futex_counter_names, futex_read_counters),
};
