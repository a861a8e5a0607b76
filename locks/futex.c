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
#include "futex_sys.h"
#include "lockbench/lock.h"
#include "../workloads/loop.h"

enum { FUTEX_FREE, FUTEX_LOCKED, FUTEX_CONTENDED };

enum { FUTEX_CNT_WAITS, FUTEX_CNT_WAKES, FUTEX_NCNT };

static const char *const futex_counter_names[FUTEX_NCNT] = {
	[FUTEX_CNT_WAITS] = "futex_waits",
	[FUTEX_CNT_WAKES] = "futex_wakes",
};

struct futex_lock {
	_Atomic uint32_t word;
	/* Slow-path counters on their own line, away from the word. */
	LB_ALIGNED _Atomic uint64_t cnt[FUTEX_NCNT];
};

static void futex_count(struct futex_lock *l, unsigned i)
{
	atomic_fetch_add_explicit(&l->cnt[i], 1, lb_rlx);
}

/*
 * Contended path: mark the word 2 and sleep until an exchange finds it
 * free.  Every exchange leaves 2 behind, so the unlock that follows
 * ours always wakes the next sleeper.
 */
static void futex_lock_slow(struct futex_lock *l, uint32_t c)
{
	/* If the word was 1, make it 2; the old value tells whether it was
	 * freed meanwhile (0: ours, still marked contended). */
	if (c != FUTEX_CONTENDED)
		c = atomic_exchange_explicit(&l->word, FUTEX_CONTENDED, lb_acq);
	while (c != FUTEX_FREE) {
		/* Sleep only while the word is still 2: the kernel compares
		 * it under its bucket lock, so an unlock in between makes
		 * futex_wait return at once. */
		futex_count(l, FUTEX_CNT_WAITS);
		futex_wait(&l->word, FUTEX_CONTENDED);
		c = atomic_exchange_explicit(&l->word, FUTEX_CONTENDED, lb_acq);
	}
}

static void futex_lock(void *lock, void *ctx)
{
	struct futex_lock *l = lock;
	uint32_t c = FUTEX_FREE;

	(void)ctx;
	/* Uncontended: 0 -> 1, acquire.  On failure c holds the word. */
	if (atomic_compare_exchange_strong_explicit(&l->word, &c, FUTEX_LOCKED,
						    lb_acq, lb_rlx))
		return;
	futex_lock_slow(l, c);
}

static bool futex_trylock(void *lock, void *ctx)
{
	struct futex_lock *l = lock;
	uint32_t c = FUTEX_FREE;

	(void)ctx;
	return atomic_compare_exchange_strong_explicit(
		&l->word, &c, FUTEX_LOCKED, lb_acq, lb_rlx);
}

static void futex_unlock(void *lock, void *ctx)
{
	struct futex_lock *l = lock;

	(void)ctx;
	/* 1 -> 0: nobody sleeps.  Otherwise the word was 2: free it (the
	 * release store publishes the critical section to whoever takes it
	 * next) and wake one sleeper. */
	if (atomic_fetch_sub_explicit(&l->word, 1, lb_rel) != FUTEX_LOCKED) {
		atomic_store_explicit(&l->word, FUTEX_FREE, lb_rel);
		futex_count(l, FUTEX_CNT_WAKES);
		futex_wake(&l->word, 1);
	}
}

static void futex_read_counters(void *lock, uint64_t *out)
{
	struct futex_lock *l = lock;

	for (unsigned i = 0; i < FUTEX_NCNT; i++)
		out[i] = atomic_load_explicit(&l->cnt[i], lb_rlx);
}

const struct lock_ops lock_futex_ops = {
	.name = "futex",
	.desc = "Drepper's three-state futex mutex (0 free / 1 locked / 2 contended)",
	.ref = "U. Drepper, \"Futexes Are Tricky\" (2011), mutex3; futex(2)",
	.family = LOCK_FAMILY_SLEEP,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK | LOCK_CAP_SLEEPS,
	.lock_size = sizeof(struct futex_lock),
	.lock = futex_lock,
	.unlock = futex_unlock,
	.trylock = futex_trylock,
	.counter_names = futex_counter_names,
	.ncounters = FUTEX_NCNT,
	.read_counters = futex_read_counters,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(futex, futex_lock, futex_unlock, futex_lock, futex_unlock);
