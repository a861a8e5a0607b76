/* SPDX-License-Identifier: MIT */
/*
 * rwlock_classic - the x86 rwlock Linux used before qrwlock (3.16): one
 * signed counter that starts at BIAS.  A reader subtracts 1 and owns a
 * read share while the result stays non-negative; a writer subtracts the
 * whole BIAS and owns the lock only if it found exactly BIAS (no reader,
 * no writer).  A loser adds back what it took and spins until the lock
 * looks free before trying again.  Readers keep entering while a writer
 * waits, so it prefers readers and writers can starve: the "classic
 * behaviour" qrwlock was measured against.
 * The kernel's word was 32 bits wide (64 bits for huge NR_CPUS); ours is
 * 64 bits so that any number of writers backing out at once cannot wrap
 * it, which changes nothing else.
 * Linux arch/x86/include/asm/spinlock.h, rwlock.h, arch/x86/lib/rwlock.S
 * (before v3.16).
 */
#include <errno.h>

#include "lockbench/lock.h"
#include "../workloads/loop.h"

#define RWC_BIAS 0x01000000ll

struct rwlock_classic {
	/* BIAS - readers - BIAS * writers (including ones about to back out). */
	_Atomic int64_t cnt;
};

/*
 * Start at BIAS (free).  Up to BIAS - 1 readers fit below a writer's
 * share; refuse more threads than that with -EINVAL.
 */
static int rwc_init(void *lock, const struct lock_init *in)
{
	struct rwlock_classic *l = lock;

	if (in->nthreads >= RWC_BIAS)
		return -EINVAL;
	atomic_store_explicit(&l->cnt, RWC_BIAS, lb_rlx);
	return 0;
}

/*
 * Take a read share: subtract 1; a negative result means a writer holds
 * (or is trying for) the lock, so give the 1 back, wait until the count
 * is positive and retry.  The acquire on the successful RMW pairs with
 * the writer's release in write_unlock.
 */
static void rwc_read_lock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;

	(void)ctx;
	while (atomic_fetch_sub_explicit(&l->cnt, 1, lb_acq) - 1 < 0) {
		atomic_fetch_add_explicit(&l->cnt, 1, lb_rlx);
		while (atomic_load_explicit(&l->cnt, lb_rlx) <= 0)
			cpu_relax();
	}
}

/* Give the read share back; release our reads to the next writer. */
static void rwc_read_unlock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;

	(void)ctx;
	atomic_fetch_add_explicit(&l->cnt, 1, lb_rel);
}

/*
 * Take the write lock: subtract BIAS; we own it only if the old value
 * was exactly BIAS.  Otherwise give BIAS back, spin until the count
 * reads BIAS (no reader, no writer) and retry.  The acquire pairs with
 * the releases of earlier readers and writers.
 */
static void rwc_write_lock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;

	(void)ctx;
	while (atomic_fetch_sub_explicit(&l->cnt, RWC_BIAS, lb_acq) !=
	       RWC_BIAS) {
		atomic_fetch_add_explicit(&l->cnt, RWC_BIAS, lb_rlx);
		while (atomic_load_explicit(&l->cnt, lb_rlx) != RWC_BIAS)
			cpu_relax();
	}
}

/* Take the write lock only if it is free right now. */
static bool rwc_write_trylock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;
	int64_t expect = RWC_BIAS;

	(void)ctx;
	return atomic_compare_exchange_strong_explicit(&l->cnt, &expect, 0,
						       lb_acq, lb_rlx);
}

/* Give BIAS back: release our critical section to readers and writers. */
static void rwc_write_unlock(void *lock, void *ctx)
{
	struct rwlock_classic *l = lock;

	(void)ctx;
	atomic_fetch_add_explicit(&l->cnt, RWC_BIAS, lb_rel);
}

const struct lock_ops lock_rwlock_classic_ops = {
	.name = "rwlock_classic",
	.desc = "pre-qrwlock x86 rwlock: BIAS counter, readers preferred",
	.ref = "Linux x86 rwlock before qrwlock: asm/spinlock.h, lib/rwlock.S (< v3.16)",
	.family = LOCK_FAMILY_RW,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_RW | LOCK_CAP_TRYLOCK,
	.lock_size = sizeof(struct rwlock_classic),
	.init = rwc_init,
	.lock = rwc_write_lock,
	.unlock = rwc_write_unlock,
	.trylock = rwc_write_trylock,
	.read_lock = rwc_read_lock,
	.read_unlock = rwc_read_unlock,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(rwlock_classic, rwc_write_lock, rwc_write_unlock, rwc_read_lock, rwc_read_unlock);
