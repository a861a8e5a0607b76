/* SPDX-License-Identifier: MIT */
/*
 * pthread_rwlock, pthread_rwlock_wpref - glibc's pthread_rwlock_t, the
 * baseline reader-writer lock.  The default kind prefers readers (a
 * reader may enter while a writer waits); the _wpref kind is
 * PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP, where new readers queue
 * behind a waiting writer.  lock/unlock take the lock for writing.
 * POSIX pthread_rwlock_rdlock(3), glibc nptl/pthread_rwlock_common.c,
 * pthread_rwlockattr_setkind_np(3).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>

#include "pthread_locks.h"
#include "registry.h"

/* The default kind prefers readers (glibc's PTHREAD_RWLOCK_DEFAULT_NP
 * is PTHREAD_RWLOCK_PREFER_READER_NP): no attributes needed. */
static int prw_init(void *lock, const struct lock_init *in)
{
	(void)in;
	return -pthread_rwlock_init(lock, NULL);
}

/* Returns 0 or -errno. */
static int prw_init_wpref(void *lock, const struct lock_init *in)
{
	pthread_rwlockattr_t attr;
	int err;

	(void)in;
	err = pthread_rwlockattr_init(&attr);
	if (err)
		return -err;
	err = pthread_rwlockattr_setkind_np(
		&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP);
	if (!err)
		err = pthread_rwlock_init(lock, &attr);
	pthread_rwlockattr_destroy(&attr);
	return -err;
}

static void prw_destroy(void *lock)
{
	pthread_rwlock_destroy(lock);
}

/* What the two kinds share: everything but the kind set at init. */
#define PRW_OPS(n, init_fn)                                                    \
	LOCK_KIND(n, RW,                                                       \
		  LOCK_CAP_EXCLUSIVE | LOCK_CAP_RW | LOCK_CAP_TRYLOCK |        \
			  LOCK_CAP_SLEEPS),                                    \
	.lock_size = sizeof(pthread_rwlock_t),                                 \
	LOCK_SETUP(init_fn, prw_destroy, NULL),                                \
	LOCK_CALLS(prw_write_lock, prw_unlock, prw_write_trylock),             \
	.read_lock = prw_read_lock, .read_unlock = prw_unlock

const struct lock_ops lock_pthread_rwlock_ops = {
	PRW_OPS(pthread_rwlock, prw_init),
	.desc = "glibc pthread_rwlock_t, default kind (prefers readers)",
	.ref = "POSIX pthread_rwlock_rdlock(3), glibc nptl",
};

const struct lock_ops lock_pthread_rwlock_wpref_ops = {
	PRW_OPS(pthread_rwlock_wpref, prw_init_wpref),
	.desc = "glibc pthread_rwlock_t, PREFER_WRITER_NONRECURSIVE kind",
	.ref = "pthread_rwlockattr_setkind_np(3), glibc nptl",
};
