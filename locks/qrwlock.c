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

#include "qrwlock.h"
#include "registry.h"

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

static const char *const qrw_counter_names[] = {
	"read_slowpath",     /* readers that queued behind a writer */
	"write_slowpath",    /* writers that did not get in with one CAS */
	"waitlock_pending",  /* wait_lock taken through its pending bit */
	"waitlock_queued",   /* wait_lock MCS queueings */
};

static const unsigned qrw_counter_slots[] = {
	RWSTAT_READ_SLOW, RWSTAT_WRITE_SLOW, QSTAT_PENDING, QSTAT_QUEUED,
};


static void qrw_read_counters(void *lock, uint64_t *out)
{
	struct qrwlock *l = lock;

	qspin_sum_stats(&l->wait_lock, qrw_counter_slots,
			LOCK_NELEMS(qrw_counter_slots), out);
}

/* What the two kinds share: everything but read_lock. */
#define QRW_OPS(n, read_lock_fn)                                               \
	LOCK_KIND(n, RW, LOCK_CAP_EXCLUSIVE | LOCK_CAP_RW | LOCK_CAP_TRYLOCK),  \
	LOCK_SIZES(struct qrwlock, struct qspin_node),                         \
	LOCK_SETUP(qrw_init, qrw_destroy, qrw_thread_init),                    \
	LOCK_CALLS(qrw_write_lock, qrw_write_unlock, qrw_write_trylock),       \
	.read_lock = (read_lock_fn), .read_unlock = qrw_read_unlock,           \
	LOCK_COUNTERS(qrw_counter_names, qrw_read_counters)

const struct lock_ops lock_qrwlock_ops = {
	QRW_OPS(qrwlock, qrw_read_lock),
	.desc = "Linux queued rwlock: fair, readers queue behind a waiting writer",
	.ref = "Linux kernel/locking/qrwlock.c (Long)",
};

const struct lock_ops lock_qrwlock_steal_ops = {
	QRW_OPS(qrwlock_steal, qrw_steal_read_lock),
	.desc = "qrwlock where readers overtake waiting writers (classic rwlock behaviour)",
	.ref = "Linux kernel/locking/qrwlock.c (Long); classic column of the qrwlock thread",
};
