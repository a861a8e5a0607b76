/* SPDX-License-Identifier: MIT */
/*
 * qrwlock - the Linux queued reader/writer lock.  One counts word holds a
 * writer byte (0xff when a writer owns the lock), a WAITING bit (a writer
 * is next) and the reader count from bit 9; contended readers and writers
 * queue in FIFO order on wait_lock, a qspinlock, whose MCS node is the
 * thread's context.  Readers and writers both get in with one atomic when
 * uncontended.
 * Linux kernel/locking/qrwlock.c and include/asm-generic/qrwlock.h
 * (W. Long, 2013-), as of v6.x.
 *
 * qrwlock (fair): once a writer waits (WAITING set), new readers queue
 * behind it on wait_lock.
 * qrwlock_steal: readers back off only for a writer that holds the lock,
 * not for a WAITING one, so they overtake queued writers - the "queue
 * read/write lock in classic read/write lock behavior" column of the
 * qrwlock patch thread, and what the kernel still lets readers in
 * interrupt context do.  Writers can starve under a steady read load.
 */
#include <errno.h>

#include "qspinlock.h"
#include "../workloads/loop.h"

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

static int qrw_init(void *lock, const struct lock_init *in)
{
	struct qrwlock *l = lock;

	atomic_store_explicit(&l->cnts, 0, lb_rlx);
	return qspin_table_init(&l->wait_lock, in);
}

static void qrw_destroy(void *lock)
{
	struct qrwlock *l = lock;

	qspin_table_destroy(&l->wait_lock);
}

static int qrw_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	struct qrwlock *l = lock;

	return qspin_table_register(&l->wait_lock, ctx, t);
}

/*
 * queued_read_lock_slowpath(): our bias went in while a writer holds or
 * (fair variant) waits for the lock.  Take it out, queue on wait_lock
 * behind earlier writers and readers, put it back, and wait for the
 * writer byte to clear.  Returns with a read hold.
 */
static __attribute__((noinline)) void
qrw_read_lock_slowpath(struct qrwlock *l, struct qspin_node *node)
{
	qspin_stat_inc(node, RWSTAT_READ_SLOW);
	atomic_fetch_sub_explicit(&l->cnts, QR_BIAS, lb_rlx);

	/* Put the reader into the wait queue. */
	qspin_lock(&l->wait_lock, node);
	atomic_fetch_add_explicit(&l->cnts, QR_BIAS, lb_rlx);

	/* Acquire, so our read section cannot move up past the writer's
	 * release of the writer byte.  A WAITING writer behind us cannot
	 * take the lock now: our bias keeps cnts != WAITING. */
	while (atomic_load_explicit(&l->cnts, lb_acq) & QW_LOCKED)
		cpu_relax();

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
			cpu_relax();
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
static bool qrw_write_trylock(void *lock, void *ctx)
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
 * queued_write_unlock(): the kernel stores 0 to the writer byte with
 * release.  Readers may add and remove their bias and a writer may set
 * WAITING meanwhile, so clear the byte with a whole-word subtraction.
 */
static void qrw_write_unlock(void *lock, void *ctx)
{
	struct qrwlock *l = lock;

	(void)ctx;
	atomic_fetch_sub_explicit(&l->cnts, QW_LOCKED, lb_rel);
}

static const char *const qrw_counter_names[] = {
	"read_slowpath",     /* readers that queued behind a writer */
	"write_slowpath",    /* writers that did not get in with one CAS */
	"waitlock_pending",  /* wait_lock taken through its pending bit */
	"waitlock_queued",   /* wait_lock MCS queueings */
};

static const unsigned qrw_counter_slots[] = {
	RWSTAT_READ_SLOW, RWSTAT_WRITE_SLOW, QSTAT_PENDING, QSTAT_QUEUED,
};

#define QRW_NCOUNTERS (sizeof(qrw_counter_slots) / sizeof(qrw_counter_slots[0]))

static void qrw_read_counters(void *lock, uint64_t *out)
{
	struct qrwlock *l = lock;

	qspin_sum_stats(&l->wait_lock, qrw_counter_slots, QRW_NCOUNTERS, out);
}

#define QRW_OPS_COMMON                                                         \
	.family = LOCK_FAMILY_RW,                                              \
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_RW | LOCK_CAP_TRYLOCK,           \
	.lock_size = sizeof(struct qrwlock),                                   \
	.ctx_size = sizeof(struct qspin_node),                                 \
	.init = qrw_init,                                                      \
	.destroy = qrw_destroy,                                                \
	.thread_init = qrw_thread_init,                                        \
	.lock = qrw_write_lock,                                                \
	.unlock = qrw_write_unlock,                                            \
	.trylock = qrw_write_trylock,                                          \
	.read_unlock = qrw_read_unlock,                                        \
	.counter_names = qrw_counter_names,                                    \
	.ncounters = QRW_NCOUNTERS,                                            \
	.read_counters = qrw_read_counters

const struct lock_ops lock_qrwlock_ops = {
	.name = "qrwlock",
	.desc = "Linux queued rwlock: fair, readers queue behind a waiting writer",
	.ref = "Linux kernel/locking/qrwlock.c (Long)",
	.read_lock = qrw_read_lock,
	QRW_OPS_COMMON,
};

const struct lock_ops lock_qrwlock_steal_ops = {
	.name = "qrwlock_steal",
	.desc = "qrwlock where readers overtake waiting writers (classic rwlock behaviour)",
	.ref = "Linux kernel/locking/qrwlock.c (Long); classic column of the qrwlock thread",
	.read_lock = qrw_steal_read_lock,
	QRW_OPS_COMMON,
};

/* The worker loops with lock and unlock inlined (workloads/loop.h). */
LB_LOOPS(qrwlock, qrw_write_lock, qrw_write_unlock, qrw_read_lock, qrw_read_unlock);
LB_LOOPS(qrwlock_steal, qrw_write_lock, qrw_write_unlock, qrw_steal_read_lock, qrw_read_unlock);
