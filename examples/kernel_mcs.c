/* SPDX-License-Identifier: MIT */
/*
 * kernel_mcs - the kernel's MCS spinlock (kernel/locking/mcs_spinlock.h)
 * written as kernel code against <lockbench/kernel.h>: xchg(),
 * cmpxchg_release(), READ_ONCE()/WRITE_ONCE(), smp_cond_load_acquire()
 * and smp_store_release() keep the kernel's names and ordering, so a
 * patch to the kernel's version applies to mcs_spin_lock() and
 * mcs_spin_unlock() below as it is.  Compare it with the built-in `mcs`:
 *
 *   cc -O2 -shared -fPIC $(pkg-config --cflags lockbench) \
 *      kernel_mcs.c -o kernel_mcs.so
 *   lockbench --plugin ./kernel_mcs.so -l mcs,kernel_mcs -t 1-8
 *
 * On arm64 a waiter sleeps in WFE on its node's `locked` word (the
 * kernel's arch_mcs_spin_lock_contended()); on x86 it spins with pause.
 */
#include <lockbench/lock.h>
#include <lockbench/kernel.h>

struct mcs_spinlock {
	struct mcs_spinlock *next;
	int locked; /* 1 once the predecessor has handed the lock over */
};

/* What the kernel leaves to the architecture; these are its defaults. */
#define arch_mcs_spin_lock_contended(l) smp_cond_load_acquire(l, VAL)
#define arch_mcs_spin_unlock_contended(l) smp_store_release((l), 1)

/*
 * Queue `node` at the tail.  xchg() is fully ordered: it publishes the
 * node's initialisation to the successor that will find it, and orders
 * us after the previous tail.  A NULL previous tail means the lock was
 * free; otherwise link behind the predecessor and wait for it to set
 * our `locked` (acquire: its critical section happens before ours).
 */
static inline void mcs_spin_lock(struct mcs_spinlock **lock, struct mcs_spinlock *node)
{
	struct mcs_spinlock *prev;

	node->locked = 0;
	node->next = NULL;
	prev = xchg(lock, node);
	if (likely(prev == NULL))
		return;
	WRITE_ONCE(prev->next, node);
	arch_mcs_spin_lock_contended(&node->locked);
}

/*
 * Hand the lock to the successor, or empty the queue when there is
 * none: the release cmpxchg fails only when a waiter has swapped itself
 * in but not yet linked, so wait for the link, then hand over.
 */
static inline void mcs_spin_unlock(struct mcs_spinlock **lock, struct mcs_spinlock *node)
{
	struct mcs_spinlock *next = READ_ONCE(node->next);

	if (likely(!next)) {
		if (likely(cmpxchg_release(lock, node, NULL) == node))
			return;
		while (!(next = READ_ONCE(node->next)))
			cpu_relax();
	}
	arch_mcs_spin_unlock_contended(&next->locked);
}

/* ---- the lockbench side: one tail pointer, one node per thread ---- */

struct kernel_mcs {
	struct mcs_spinlock *tail;
};

static void kmcs_lock(void *lock, void *ctx)
{
	mcs_spin_lock(&((struct kernel_mcs *)lock)->tail, ctx);
}

static void kmcs_unlock(void *lock, void *ctx)
{
	mcs_spin_unlock(&((struct kernel_mcs *)lock)->tail, ctx);
}

static const struct lock_ops kernel_mcs_ops = {
	.name = "kernel_mcs",
	.desc = "the kernel's MCS spinlock as kernel code on <lockbench/kernel.h> (example plugin)",
	.ref = "Linux kernel/locking/mcs_spinlock.h; Mellor-Crummey & Scott, TOCS 1991",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE,
	.lock_size = sizeof(struct kernel_mcs),
	.ctx_size = sizeof(struct mcs_spinlock),
	.lock = kmcs_lock,
	.unlock = kmcs_unlock,
};

LOCKBENCH_PLUGIN(&kernel_mcs_ops);
