/* SPDX-License-Identifier: MIT */
/*
 * kernel_ticket - a ticket spinlock written the way the kernel's generic
 * one is (include/asm-generic/spinlock.h since v5.19: one 32-bit word,
 * the next ticket in the high half, the one being served in the low
 * half), on <lockbench/kernel.h> alone.  It exercises what pasting that
 * file into a plugin needs beyond the atomics: IS_ENABLED(CONFIG_*),
 * BUILD_BUG_ON, WARN_ON_ONCE, prefetchw, ARRAY_SIZE, BIT/GENMASK and the
 * per-CPU names (smp_processor_id, DEFINE_PER_CPU, this_cpu_ptr,
 * per_cpu_ptr), which count each CPU's acquisitions as a lock counter.
 */
#define CONFIG_TICKET_STATS 1
#include <lockbench/lock.h>
#include <lockbench/kernel.h>

#define TICKET_SHIFT 16
#define TICKET_NEXT BIT(TICKET_SHIFT)
#define TICKET_OWNER_MASK GENMASK(TICKET_SHIFT - 1, 0)

typedef struct {
	atomic_t val;
} arch_spinlock_t;

static DEFINE_PER_CPU(unsigned long, ticket_acquired);

/*
 * Take the next ticket; when it is already being served the lock was
 * free.  Otherwise wait, with acquire, until the owner half reaches our
 * ticket: the releasing owner's increment hands the lock over.
 */
static __attribute__((always_inline)) inline void arch_spin_lock(arch_spinlock_t *lock)
{
	u32 val = atomic_fetch_add(TICKET_NEXT, &lock->val);
	u16 ticket = val >> TICKET_SHIFT;

	BUILD_BUG_ON(TICKET_SHIFT * 2 != 8 * sizeof(u32));
	if (ticket != (u16)val)
		atomic_cond_read_acquire(&lock->val, ticket == (u16)VAL);
	if (IS_ENABLED(CONFIG_TICKET_STATS))
		this_cpu_inc(ticket_acquired);
}

/* Serve the next ticket: only the owner writes the low half, so a
 * release store of owner + 1 is enough (the high half is not touched). */
static __attribute__((always_inline)) inline void arch_spin_unlock(arch_spinlock_t *lock)
{
	u16 *owner = (u16 *)&lock->val.counter;
	u16 now = (u16)(atomic_read(&lock->val) & TICKET_OWNER_MASK);

	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		owner++;
	WARN_ON_ONCE(now != __atomic_load_n(owner, __ATOMIC_RELAXED));
	smp_store_release(owner, (u16)(now + 1));
}

/* Free when the two halves agree. */
static inline bool arch_spin_trylock(arch_spinlock_t *lock)
{
	u32 old = atomic_read(&lock->val);

	if ((old >> TICKET_SHIFT) != (old & TICKET_OWNER_MASK))
		return false;
	prefetchw(lock);
	return atomic_try_cmpxchg(&lock->val, (int *)&old, old + TICKET_NEXT);
}

/* ---- the lockbench side --------------------------------------------- */

static unsigned ticket_ncpus;

static int kt_init(void *lock, const struct lock_init *in)
{
	(void)lock;
	ticket_ncpus = in->nthreads;
	return in->nthreads > CONFIG_NR_CPUS ? -34 /* ERANGE */ : 0;
}

static int kt_thread_init(void *lock, void *ctx, const struct lock_thread *t)
{
	(void)lock;
	(void)ctx;
	if (lb_k_cpu_enter(t->tid))
		return -34;
	*this_cpu_ptr(&ticket_acquired) = 0;
	return 0;
}

static void kt_lock(void *lock, void *ctx)
{
	(void)ctx;
	arch_spin_lock(lock);
}

static void kt_unlock(void *lock, void *ctx)
{
	(void)ctx;
	arch_spin_unlock(lock);
}

static bool kt_trylock(void *lock, void *ctx)
{
	bool ok = arch_spin_trylock(lock);

	(void)ctx;
	if (ok)
		this_cpu_inc(ticket_acquired);
	return ok;
}

static const char *const kt_counters[] = {"acquired"};

/* Every CPU's count, read after the run through per_cpu_ptr(). */
static void kt_read_counters(void *lock, uint64_t *out)
{
	(void)lock;
	out[0] = 0;
	for (unsigned cpu = 0; cpu < ticket_ncpus; cpu++)
		out[0] += *per_cpu_ptr(&ticket_acquired, cpu);
}

static const struct lock_ops kernel_ticket_ops = {
	.name = "kernel_ticket",
	.desc = "ticket lock in the kernel's idiom (lockbench/kernel.h)",
	.ref = "include/asm-generic/spinlock.h",
	.family = LOCK_FAMILY_SPIN,
	.caps = LOCK_CAP_EXCLUSIVE | LOCK_CAP_TRYLOCK,
	.lock_size = sizeof(arch_spinlock_t),
	.init = kt_init,
	.thread_init = kt_thread_init,
	.lock = kt_lock,
	.unlock = kt_unlock,
	.trylock = kt_trylock,
	.counter_names = kt_counters,
	.ncounters = ARRAY_SIZE(kt_counters),
	.read_counters = kt_read_counters,
};

LOCKBENCH_PLUGIN(&kernel_ticket_ops);
