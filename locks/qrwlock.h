/* SPDX-License-Identifier: MIT */
/*
 * The body of the qrwlock lock: its types and its lock and unlock paths
 * (locks/qrwlock.c holds the ops table, init and tunables), in a header
 * so that the worker loops instantiated for the lock in
 * workloads/loops/qrwlock.c see them and inline them.
 */
#ifndef LOCKBENCH_LOCK_QRWLOCK_H
#define LOCKBENCH_LOCK_QRWLOCK_H

#include "qspinlock.h"

#define QW_WAITING 0x100u  /* a writer is waiting */
#define QW_LOCKED 0x0ffu   /* a writer holds the lock */
#define QW_WMASK 0x1ffu    /* writer mask */
#define QR_SHIFT 9         /* reader count shift */
#define QR_BIAS (1u << QR_SHIFT)

/* Counter slots in struct qspin_stats, after the wait_lock ones. */
enum qrw_stat {
	RWSTAT_READ_SLOW = 2, /* readers that queued on wait_lock */
	RWSTAT_WRITE_SLOW,    /* writers that queued on wait_lock */
};

struct qrwlock {
	_Atomic uint32_t cnts;
	struct qspinlock wait_lock;
};

/*
 * queued_read_lock_slowpath(): our bias went in while a writer holds or
 * (fair variant) waits for the lock.  Take it out, queue on wait_lock
 * behind earlier writers and readers, put it back, and wait for the
 * writer byte to clear.  Returns with a read hold.
 */
static __attribute__((noinline)) void
qrw_read_lock_slowpath(struct qrwlock *l, struct qspin_node *node)
{
	uint32_t cnts;

	qspin_stat_inc(node, RWSTAT_READ_SLOW);
	atomic_fetch_sub_explicit(&l->cnts, QR_BIAS, lb_rlx);

	/* Put the reader into the wait queue. */
	qspin_lock(&l->wait_lock, node);
	atomic_fetch_add_explicit(&l->cnts, QR_BIAS, lb_rlx);

	/* Acquire, so our read section cannot move up past the writer's
	 * release of the writer byte.  A WAITING writer behind us cannot
	 * take the lock now: our bias keeps cnts != WAITING. */
	while ((cnts = atomic_load_explicit(&l->cnts, lb_acq)) & QW_LOCKED)
		qspin_cmpwait(&l->cnts, cnts);

	/* Let the next waiter become the queue head. */
	qspin_unlock(&l->wait_lock);
}

/*
 * queued_read_lock(): add our bias with acquire; done unless a writer bit
 * in @wmask is set (QW_WMASK: fair; QW_LOCKED: steal).
 */
static inline void qrw_read_lock_mask(struct qrwlock *l,
				      struct qspin_node *node, uint32_t wmask)
{
	uint32_t cnts = atomic_fetch_add_explicit(&l->cnts, QR_BIAS, lb_acq) +
			QR_BIAS;

	if (q_likely(!(cnts & wmask)))
		return;
	qrw_read_lock_slowpath(l, node);
}

static void qrw_read_lock(void *lock, void *ctx)
{
	qrw_read_lock_mask(lock, ctx, QW_WMASK);
}

static void qrw_steal_read_lock(void *lock, void *ctx)
{
	qrw_read_lock_mask(lock, ctx, QW_LOCKED);
}

/* queued_read_unlock(): drop our bias with release. */
static void qrw_read_unlock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	(void)ctx;
	atomic_fetch_sub_explicit(&l->cnts, QR_BIAS, lb_rel);
}

/*
 * queued_write_lock_slowpath(): queue on wait_lock; as its holder, take
 * the lock directly if it is free, else announce ourselves with WAITING
 * (which turns away new fair readers) and wait until only WAITING is
 * left, then swap it for LOCKED.
 */
static __attribute__((noinline)) void
qrw_write_lock_slowpath(struct qrwlock *l, struct qspin_node *node)
{
	uint32_t cnts;

	qspin_stat_inc(node, RWSTAT_WRITE_SLOW);
	/* Put the writer into the wait queue. */
	qspin_lock(&l->wait_lock, node);

	/* Try to acquire the lock directly if no reader is present. */
	cnts = atomic_load_explicit(&l->cnts, lb_rlx);
	if (!cnts && atomic_compare_exchange_strong_explicit(
			     &l->cnts, &cnts, QW_LOCKED, lb_acq, lb_rlx))
		goto unlock;

	/* Set the waiting flag to notify readers that a writer is pending. */
	atomic_fetch_or_explicit(&l->cnts, QW_WAITING, lb_rlx);

	/* When no more readers or writers, set the locked flag. */
	do {
		while ((cnts = atomic_load_explicit(&l->cnts, lb_rlx)) !=
		       QW_WAITING)
			qspin_cmpwait(&l->cnts, cnts);
	} while (!atomic_compare_exchange_weak_explicit(
		&l->cnts, &cnts, QW_LOCKED, lb_acq, lb_rlx));
unlock:
	qspin_unlock(&l->wait_lock);
}

/* queued_write_lock(): CAS 0 -> LOCKED with acquire, else queue. */
static void qrw_write_lock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;
	uint32_t cnts = 0;

	if (q_likely(atomic_compare_exchange_strong_explicit(
		    &l->cnts, &cnts, QW_LOCKED, lb_acq, lb_rlx)))
		return;
	qrw_write_lock_slowpath(l, ctx);
}

/* queued_write_trylock(): only from a completely idle word. */
static inline bool qrw_write_trylock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;
	uint32_t cnts = atomic_load_explicit(&l->cnts, lb_rlx);

	(void)ctx;
	if (q_unlikely(cnts))
		return false;
	return atomic_compare_exchange_strong_explicit(&l->cnts, &cnts,
						       QW_LOCKED, lb_acq, lb_rlx);
}

/*
 * queued_write_unlock(): as the kernel (include/asm-generic/qrwlock.h,
 * which x86 and arm64 both use), a release store of 0 to the writer
 * byte alone (wlocked): a plain `mov` on x86, `stlrb` on arm64.  Only
 * the writer writes that byte; readers add and remove their bias and a
 * writer sets WAITING in the other bytes meanwhile.  Pairs with the
 * acquire of the readers' fetch_add / spin and of the next writer's CAS.
 * The byte view of the word is qspinlock.h's (QSPIN_MIXED); without it,
 * a whole-word subtraction with release.
 */
static void qrw_write_unlock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	(void)ctx;
#if QSPIN_MIXED
	atomic_store_explicit((_Atomic uint8_t *)&l->cnts + QSPIN_BYTE(0), 0,
			      lb_rel);
#else
	atomic_fetch_sub_explicit(&l->cnts, QW_LOCKED, lb_rel);
#endif
}

#endif
