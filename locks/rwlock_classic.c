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

#include "rwlock_classic.h"
#include "registry.h"

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

const struct lock_ops lock_rwlock_classic_ops = {
	LOCK_KIND(rwlock_classic, RW, LOCK_CAP_EXCLUSIVE | LOCK_CAP_RW | LOCK_CAP_TRYLOCK),
	.desc = "pre-qrwlock x86 rwlock: BIAS counter, readers preferred",
	.ref = "Linux x86 rwlock before qrwlock: asm/spinlock.h, lib/rwlock.S (< v3.16)",
	.lock_size = sizeof(struct rwlock_classic),
	.init = rwc_init,
	LOCK_CALLS(rwc_write_lock, rwc_write_unlock, rwc_write_trylock),
	.read_lock = rwc_read_lock,
	.read_unlock = rwc_read_unlock,
};
