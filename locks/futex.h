/* SPDX-License-Identifier: MIT */
/*
 * The body of the futex lock: its types and its lock and unlock paths
 * (locks/futex.c holds the ops table, init and tunables), in a header so
 * that the worker loops instantiated for the lock in
 * workloads/loops/futex.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_FUTEX_H
#define LOCKBENCH_LOCK_FUTEX_H

#include "futex_sys.h"
#include "lockbench/lock.h"

enum { FUTEX_FREE, FUTEX_LOCKED, FUTEX_CONTENDED };

enum { FUTEX_CNT_WAITS, FUTEX_CNT_WAKES, FUTEX_NCNT };

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

static inline bool futex_trylock(void *lock, void *ctx)
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

#endif
