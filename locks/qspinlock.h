/* SPDX-License-Identifier: MIT */
/*
 * qspinlock.h - internals of the Linux queued spinlock, shared by
 * qspinlock.c, cna.c (which plugs the CNA hooks into the same slow path)
 * and qrwlock.c (whose wait_lock is a qspinlock).
 *
 * Follows Linux kernel/locking/qspinlock.c (Waiman Long, Peter Zijlstra)
 * and include/asm-generic/qspinlock{,_types}.h, with the slow-path hooks
 * of the CNA series (Alex Kogan, "locking/qspinlock: Refactor the
 * qspinlock slow path", v15, 2021): init_node, wait_head_or_lock,
 * try_clear_tail and lock_handoff.
 *
 * The 32-bit lock word, as in the kernel for NR_CPUS < 16K:
 *
 *   bits  0- 7: locked byte
 *   bits  8-15: pending byte (only bit 8 is ever set)
 *   bits 16-17: tail index (the kernel's nesting level, 0..3)
 *   bits 18-31: tail cpu + 1 (0 = empty queue)
 *
 * "cpu" is the harness thread id.  The kernel keeps four MCS nodes per
 * CPU for task/softirq/hardirq/NMI nesting; a user thread never nests,
 * so each thread has one node (its context), index 0 is the only index
 * ever encoded, and the tail decodes through a table of context pointers
 * that thread_init fills.
 *
 * The kernel updates the locked byte, the pending byte and the 16-bit
 * tail with byte and half-word stores and a half-word xchg (the
 * _Q_PENDING_BITS == 8 half of kernel/locking/qspinlock.c), and so does
 * this file: each such access is a C11 atomic on a uint8_t or uint16_t
 * view of the word (qspin_locked() and friends below).  Strict C11 has
 * no mixed-size access to one object, but both architectures (and the
 * kernel, and gcc's __atomic builtins) give it the meaning used here: a
 * byte or half-word access is atomic and ordered with the word's other
 * accesses like any access to the same location.  Building with
 * -DLB_STRICT_C11 turns every one back into a whole-word RMW (fetch_and,
 * fetch_add, fetch_or, a CAS loop for xchg_tail): the _Q_PENDING_BITS
 * == 1 half of the kernel file, with locked instructions where the
 * kernel has plain stores.
 *
 * The pending bit is set as the compiler's target sets it in the
 * kernel: on x86 with `lock btsl` and a separate read of the rest of the
 * word (queued_fetch_set_pending_acquire() in
 * arch/x86/include/asm/qspinlock.h), elsewhere with asm-generic's
 * atomic_fetch_or_acquire() (arm64 lists qspinlock.h as generic-y in
 * arch/arm64/include/asm/Kbuild).  Where the kernel relies on an address
 * dependency (decode_tail() of a value read by a relaxed xchg,
 * READ_ONCE(node->next) then a store through it), C11 has no dependency
 * ordering we may rely on, so those accesses are acquire / acq_rel
 * instead; on x86 that is the same instruction.
 *
 * Spin loops that end in an acquire (the kernel's smp_cond_load_acquire)
 * spin with acquire loads rather than relaxed loads and a fence: the
 * same code on x86, what arm64's own smp_cond_load_acquire does (LDAR
 * in the loop), and visible to ThreadSanitizer, which ignores fences.
 * Between two loads a waiter waits as the kernel's smp_cond_load_*()
 * do on its target: x86 `pause` (cpu_relax), arm64 a load-exclusive of
 * the word and WFE until another CPU writes its line (__cmpwait() in
 * arch/arm64/include/asm/cmpxchg.h), see qspin_cmpwait().
 */
#ifndef LOCKS_QSPINLOCK_H
#define LOCKS_QSPINLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lockbench/lock.h"

#define Q_LOCKED_VAL 1u
#define Q_LOCKED_MASK 0x000000ffu
#define Q_PENDING_VAL (1u << 8)
#define Q_PENDING_MASK 0x0000ff00u
#define Q_LOCKED_PENDING_MASK (Q_LOCKED_MASK | Q_PENDING_MASK)
#define Q_TAIL_IDX_OFFSET 16
#define Q_TAIL_CPU_OFFSET 18
#define Q_TAIL_MASK 0xffff0000u
/* Largest thread count the 14 tail cpu bits can name (cpu + 1 < 2^14). */
#define Q_MAX_THREADS ((1u << 14) - 1)

/*
 * How long a newcomer waits out a pending -> locked hand-over before it
 * queues: _Q_PENDING_LOOPS, 1 in asm-generic, 1 << 9 on x86.  At 2
 * threads with empty sections this decides who takes the lock next
 * (docs/locks.md, "Kernel locks and the arch code they follow"); a build
 * with -DLB_Q_PENDING_LOOPS=N uses N instead, to see the other arch's
 * behaviour on this CPU (the binary's cflags in its JSON record it).
 */
#if defined(LB_Q_PENDING_LOOPS)
#define Q_PENDING_LOOPS (LB_Q_PENDING_LOOPS)
#elif defined(__x86_64__) || defined(__i386__)
#define Q_PENDING_LOOPS (1 << 9)
#else
#define Q_PENDING_LOOPS 1
#endif

#define q_likely(x) __builtin_expect(!!(x), 1)
#define q_unlikely(x) __builtin_expect(!!(x), 0)

/* Event counter slots, shared by the users of this header. */
enum qspin_stat {
	QSTAT_PENDING,  /* acquired through the pending bit */
	QSTAT_QUEUED,   /* queued on the MCS queue */
	QSTAT_NSLOTS = 8,
};

/*
 * One thread's event counters.  They belong to the lock (allocated by
 * init, one cache line per thread, so that counting never bounces a
 * line) and outlive the thread's context, which the harness frees before
 * it reads the counters.  Written by that thread only, read by
 * read_counters at any time: relaxed atomics.
 */
struct qspin_stats {
	LB_ALIGNED _Atomic uint64_t v[QSTAT_NSLOTS];
};

/*
 * The MCS node, one per thread: the thread's lock context (or the first
 * member of it).  next and locked are written by the neighbours; tail
 * (this node's encoded tail) and stats are set by thread_init.
 */
struct qspin_node {
	_Atomic(struct qspin_node *) next;
	_Atomic uint32_t locked;
	uint32_t tail;
	struct qspin_stats *stats;
};

/*
 * The lock.  val is the only word that changes; the rest is written by
 * init/thread_init and read-only afterwards (thread_init happens-before
 * every lock operation, so plain reads of the table are fine).
 */
struct qspinlock {
	_Atomic uint32_t val;
	uint32_t nthreads;
	struct qspin_node **nodes;  /* tail cpu -> node, filled by thread_init */
	struct qspin_stats *stats;  /* [nthreads] */
	void (*free_mem)(void *p, size_t size);
};

/*
 * The kernel's views of the word (struct qspinlock in
 * include/asm-generic/qspinlock_types.h): the locked and pending bytes,
 * locked_pending (both, as a half-word) and the 16-bit tail.  With
 * QSPIN_MIXED 0 (-DLB_STRICT_C11, or no known byte order) none of them
 * is used.
 */
#if defined(LB_STRICT_C11) || !defined(__BYTE_ORDER__)
#define QSPIN_MIXED 0
#else
#define QSPIN_MIXED 1
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define QSPIN_BYTE(n) (3 - (n))
#define QSPIN_HALF(n) (1 - (n))
#else
#define QSPIN_BYTE(n) (n)
#define QSPIN_HALF(n) (n)
#endif
static inline _Atomic uint8_t *qspin_locked(struct qspinlock *l)
{
	return (_Atomic uint8_t *)&l->val + QSPIN_BYTE(0);
}

static inline _Atomic uint8_t *qspin_pending(struct qspinlock *l)
{
	return (_Atomic uint8_t *)&l->val + QSPIN_BYTE(1);
}

static inline _Atomic uint16_t *qspin_locked_pending(struct qspinlock *l)
{
	return (_Atomic uint16_t *)&l->val + QSPIN_HALF(0);
}

static inline _Atomic uint16_t *qspin_tail16(struct qspinlock *l)
{
	return (_Atomic uint16_t *)&l->val + QSPIN_HALF(1);
}
#endif

/*
 * Wait until *p may have changed from @val (1, 4 or 8 bytes), as the
 * kernel's smp_cond_load_*() waits between two loads.  arm64: SEVL+WFE
 * consumes a stale event, the load-exclusive arms the monitor so that a
 * write to the line by another CPU ends the second WFE, which is skipped
 * if *p already differs.  Elsewhere cpu_relax().  The caller reloads *p
 * with the ordering it needs; this wait orders nothing.
 */
#if defined(__aarch64__)
#define QSPIN_CMPWAIT(bits, w, sfx)                                            \
	static inline void qspin_cmpwait##bits(const volatile void *p,         \
					       uint##bits##_t val)             \
	{                                                                      \
		uint64_t tmp;                                                  \
		__asm__ __volatile__("	sevl\n	wfe\n"                          \
				     "	ldxr" sfx "	%" w "0, %1\n"          \
				     "	eor	%" w "0, %" w "0, %" w "2\n"   \
				     "	cbnz	%" w "0, 1f\n	wfe\n1:"       \
				     : "=&r"(tmp)                              \
				     : "Q"(*(const volatile uint##bits##_t *)p), \
				       "r"(val)                                \
				     : "memory");                              \
	}
QSPIN_CMPWAIT(8, "w", "b")
QSPIN_CMPWAIT(32, "w", "")
QSPIN_CMPWAIT(64, "x", "")
#undef QSPIN_CMPWAIT
static inline void qspin_cmpwait_n(const volatile void *p, uint64_t val,
				   size_t size)
{
	if (size == 1)
		qspin_cmpwait8(p, (uint8_t)val);
	else if (size == 4)
		qspin_cmpwait32(p, (uint32_t)val);
	else
		qspin_cmpwait64(p, val);
}
#define qspin_cmpwait(p, val)                                                  \
	qspin_cmpwait_n((const volatile void *)(p), (uint64_t)(uintptr_t)(val), \
			sizeof(*(p)))
#else
#define qspin_cmpwait(p, val) ((void)(p), (void)(val), cpu_relax())
#endif

/*
 * Slow-path hooks, the kernel's pv_/cna_ overrides.  The template below is
 * always inlined with a constant table, so the calls become direct.
 */
struct qspin_hooks {
	/* Set up the extra fields of a node about to be queued. */
	void (*init_node)(struct qspin_node *node);
	/* Called once at the head of the queue, before waiting for the
	 * locked and pending bits to clear (CNA sorts the queue here). */
	void (*wait_head)(struct qspinlock *l, struct qspin_node *node);
	/* We are the only queued node: take the lock and empty the queue.
	 * Return false if a newcomer made that impossible. */
	bool (*try_clear_tail)(struct qspinlock *l, uint32_t val,
			       struct qspin_node *node);
	/* Lock taken with waiters behind us: pass the MCS head role on. */
	void (*handoff)(struct qspinlock *l, struct qspin_node *node,
			struct qspin_node *next);
};

int qspin_table_init(struct qspinlock *l, const struct lock_init *in);
void qspin_table_destroy(struct qspinlock *l);
int qspin_table_register(struct qspinlock *l, struct qspin_node *node,
			 const struct lock_thread *t);
void qspin_sum_stats(const struct qspinlock *l, const unsigned *slots,
		     unsigned n, uint64_t *out);
void qspin_lock_slowpath(struct qspinlock *l, struct qspin_node *node,
			 uint32_t val);

/* Count one event in the calling thread's counters: it is the only
 * writer, so a relaxed load and store are enough (no locked RMW). */
static inline void qspin_stat_inc(struct qspin_node *node, unsigned slot)
{
	_Atomic uint64_t *c = &node->stats->v[slot];

	atomic_store_explicit(c, atomic_load_explicit(c, lb_rlx) + 1, lb_rlx);
}

static inline uint32_t qspin_encode_tail(unsigned tid, unsigned idx)
{
	return ((uint32_t)(tid + 1) << Q_TAIL_CPU_OFFSET) |
	       ((uint32_t)idx << Q_TAIL_IDX_OFFSET);
}

/* The node a tail names.  idx is always 0 here (no nesting), so the
 * cpu field alone selects the node. */
static inline struct qspin_node *qspin_decode_tail(const struct qspinlock *l,
						   uint32_t tail)
{
	return l->nodes[(tail >> Q_TAIL_CPU_OFFSET) - 1];
}

/*
 * queued_spin_trylock(): take a free lock with one CAS.  A non-zero word
 * (locked, pending or queued) fails at once without a write.
 */
static inline bool qspin_trylock(struct qspinlock *l)
{
	uint32_t val = atomic_load_explicit(&l->val, lb_rlx);

	if (q_unlikely(val))
		return false;
	return q_likely(atomic_compare_exchange_strong_explicit(
		&l->val, &val, Q_LOCKED_VAL, lb_acq, lb_rlx));
}

/*
 * queued_spin_lock(): the uncontended case is one CAS 0 -> LOCKED with
 * acquire; anything else goes to the out-of-line slow path with the value
 * the CAS saw.
 */
static inline void qspin_lock(struct qspinlock *l, struct qspin_node *node)
{
	uint32_t val = 0;

	if (q_likely(atomic_compare_exchange_strong_explicit(
		    &l->val, &val, Q_LOCKED_VAL, lb_acq, lb_rlx)))
		return;
	qspin_lock_slowpath(l, node, val);
}

/*
 * queued_spin_unlock(): like the kernel (asm-generic, and x86's
 * native_queued_spin_unlock()), a release store of 0 to the locked byte
 * alone: a plain `mov` on x86, `stlrb` on arm64.  Only the holder writes
 * that byte, while others may set pending or swap the tail in the same
 * word, so a whole-word store would lose their updates.  Pairs with the
 * acquire loads of the locked byte / word in the waiters' spins.
 * QSPIN_MIXED 0: a whole-word fetch_sub, which clears the same bit with
 * a locked RMW.
 */
static inline void qspin_unlock(struct qspinlock *l)
{
#if QSPIN_MIXED
	atomic_store_explicit(qspin_locked(l), 0, lb_rel);
#else
	atomic_fetch_sub_explicit(&l->val, Q_LOCKED_VAL, lb_rel);
#endif
}

/*
 * xchg_tail(): publish @tail, keeping the locked and pending bytes, and
 * return the old tail (the other bits of the result are not the word's:
 * callers use only old & Q_TAIL_MASK).  The kernel exchanges the 16-bit
 * tail (`xchgw` on x86, swph / ldxrh-stxrh on arm64), relaxed after an
 * smp_wmb(), and relies on the address dependency through decode_tail()
 * for what it then reads of the previous node.  Here acq_rel: release
 * publishes our initialised node to whoever decodes the new tail (pairs
 * with the acquire of the next xchg_tail); acquire orders us after the
 * previous tail's initialisation, since we are about to store into
 * prev->next.  On x86 the same `xchg`.  QSPIN_MIXED 0: a whole-word CAS
 * loop, the kernel's _Q_PENDING_BITS == 1 xchg_tail().
 */
static inline uint32_t qspin_xchg_tail(struct qspinlock *l, uint32_t tail)
{
#if QSPIN_MIXED
	uint16_t old = atomic_exchange_explicit(
		qspin_tail16(l), (uint16_t)(tail >> Q_TAIL_IDX_OFFSET), lb_ar);

	return (uint32_t)old << Q_TAIL_IDX_OFFSET;
#else
	uint32_t old = atomic_load_explicit(&l->val, lb_rlx), new;

	do {
		new = (old & Q_LOCKED_PENDING_MASK) | tail;
	} while (!atomic_compare_exchange_weak_explicit(&l->val, &old, new,
							lb_ar, lb_rlx));
	return old;
#endif
}

/*
 * queued_fetch_set_pending_acquire(): set PENDING with acquire and
 * return the word as it was.  x86 (arch/x86/include/asm/qspinlock.h):
 * `lock btsl` returns only the old PENDING bit, the rest of the word is
 * a plain read after it (the kernel's "val |= atomic_read(...)"): gcc
 * compiles a fetch_or of one bit of which only that bit is used into
 * `lock bts`, where the whole old value would need a `lock cmpxchg`
 * loop, which under contention fails and retries.  Elsewhere
 * asm-generic's atomic_fetch_or_acquire() (arm64: LSE ldseta, or an
 * ldaxr/stxr loop, chosen at run time by gcc's outline atomics as the
 * kernel chooses by its alternatives).  The acquire pairs with the
 * holder's release of the locked byte in qspin_unlock().
 */
static inline uint32_t qspin_fetch_set_pending_acquire(struct qspinlock *l)
{
#if defined(__x86_64__) || defined(__i386__)
	uint32_t val = atomic_fetch_or_explicit(&l->val, Q_PENDING_VAL, lb_acq) &
		       Q_PENDING_VAL;

	return val | (atomic_load_explicit(&l->val, lb_rlx) & ~Q_PENDING_MASK);
#else
	return atomic_fetch_or_explicit(&l->val, Q_PENDING_VAL, lb_acq);
#endif
}

/* clear_pending(): *,1,* -> *,0,*, undoing our PENDING.  Only its setter
 * writes the pending byte: a relaxed byte store (WRITE_ONCE in the
 * kernel).  QSPIN_MIXED 0: a whole-word fetch_and. */
static inline void qspin_clear_pending(struct qspinlock *l)
{
#if QSPIN_MIXED
	atomic_store_explicit(qspin_pending(l), 0, lb_rlx);
#else
	atomic_fetch_and_explicit(&l->val, ~Q_PENDING_VAL, lb_rlx);
#endif
}

/* clear_pending_set_locked(): 0,1,0 -> 0,0,1.  While we are pending
 * nobody else writes locked or pending, so the kernel stores the
 * locked_pending half-word (relaxed: the acquire came from our wait for
 * the locked byte).  QSPIN_MIXED 0: one whole-word fetch_add. */
static inline void qspin_clear_pending_set_locked(struct qspinlock *l)
{
#if QSPIN_MIXED
	atomic_store_explicit(qspin_locked_pending(l), Q_LOCKED_VAL, lb_rlx);
#else
	atomic_fetch_add_explicit(&l->val, Q_LOCKED_VAL - Q_PENDING_VAL, lb_rlx);
#endif
}

/* set_locked(): *,*,0 -> *,*,1 by the queue head, the only one that may
 * set locked now: a relaxed byte store as in the kernel (the acquire came
 * from qspin_wait_lock_free()).  QSPIN_MIXED 0: a whole-word fetch_or. */
static inline void qspin_set_locked(struct qspinlock *l)
{
#if QSPIN_MIXED
	atomic_store_explicit(qspin_locked(l), Q_LOCKED_VAL, lb_rlx);
#else
	atomic_fetch_or_explicit(&l->val, Q_LOCKED_VAL, lb_rlx);
#endif
}

/* smp_cond_load_acquire(&lock->locked, !VAL): spin with acquire loads of
 * the locked byte (of the word with QSPIN_MIXED 0) until it is clear. */
static inline void qspin_wait_unlocked(struct qspinlock *l)
{
#if QSPIN_MIXED
	uint8_t v;

	while ((v = atomic_load_explicit(qspin_locked(l), lb_acq)))
		qspin_cmpwait(qspin_locked(l), v);
#else
	uint32_t v;

	while ((v = atomic_load_explicit(&l->val, lb_acq)) & Q_LOCKED_MASK)
		qspin_cmpwait(&l->val, v);
#endif
}

/*
 * The pending-bit path of queued_spin_lock_slowpath(), entered with the
 * value the fast path saw.  Return true if the lock was taken as the
 * pending owner, false if the caller must queue.
 */
static inline bool qspin_try_pending(struct qspinlock *l,
				     struct qspin_node *node, uint32_t val)
{
	int cnt = Q_PENDING_LOOPS;

	/* Wait out an in-progress pending -> locked hand-over (0,1,0 ->
	 * 0,0,1), for a bounded number of spins so that we are guaranteed
	 * forward progress. */
	while (val == Q_PENDING_VAL && cnt--) {
		qspin_cmpwait(&l->val, val);
		val = atomic_load_explicit(&l->val, lb_rlx);
	}

	/* Any contention beyond a lone holder (pending or queued): queue. */
	if (val & ~Q_LOCKED_MASK)
		return false;

	/* Trylock or pending: 0,0,* -> 0,1,*. */
	val = qspin_fetch_set_pending_acquire(l);

	/* A concurrent locker got in between: undo PENDING if we were the
	 * one to set it (our PENDING may have failed the queue head's
	 * n,0,0 -> 0,0,1 CAS, so it will now wait for us as its next) and
	 * queue. */
	if (q_unlikely(val & ~Q_LOCKED_MASK)) {
		if (!(val & Q_PENDING_MASK))
			qspin_clear_pending(l);
		return false;
	}

	/* We are pending: wait for the owner to go away, 0,1,1 -> 0,1,0,
	 * with acquire loads of the locked byte matching its release in
	 * qspin_unlock() (clear_pending_set_locked() implies no barrier). */
	if (val & Q_LOCKED_MASK)
		qspin_wait_unlocked(l);

	qspin_clear_pending_set_locked(l);
	qspin_stat_inc(node, QSTAT_PENDING);
	return true;
}

/* Spin on our own node until the predecessor hands us the MCS head role;
 * returns what it stored (1, or CNA's secondary queue tail). */
static inline uint32_t qspin_wait_node(struct qspin_node *node)
{
	uint32_t v;

	while (!(v = atomic_load_explicit(&node->locked, lb_acq)))
		qspin_cmpwait(&node->locked, v);
	return v;
}

/* As queue head, wait for the owner and the pending owner to go away,
 * *,x,y -> *,0,0, with acquire (set_locked below does not imply one). */
static inline uint32_t qspin_wait_lock_free(struct qspinlock *l)
{
	uint32_t val;

	while ((val = atomic_load_explicit(&l->val, lb_acq)) &
	       Q_LOCKED_PENDING_MASK)
		qspin_cmpwait(&l->val, val);
	return val;
}

/* Wait for a successor that swapped the tail to link itself in. */
static inline struct qspin_node *qspin_wait_next(struct qspin_node *node)
{
	struct qspin_node *next;

	while (!(next = atomic_load_explicit(&node->next, lb_acq)))
		qspin_cmpwait(&node->next, next);
	return next;
}

/*
 * The queueing half of queued_spin_lock_slowpath(), as a template: @h is
 * a constant hook table, so every hook call is inlined.  Returns with the
 * lock held and the node free for reuse.
 */
static inline __attribute__((always_inline)) void
qspin_queue_tmpl(struct qspinlock *l, struct qspin_node *node,
		 const struct qspin_hooks *h)
{
	struct qspin_node *prev, *next = NULL;
	uint32_t tail = node->tail, old, val;

	/* Initialise our node: the stores are published by the release in
	 * xchg_tail (the kernel's smp_wmb()). */
	atomic_store_explicit(&node->locked, 0, lb_rlx);
	atomic_store_explicit(&node->next, NULL, lb_rlx);
	h->init_node(node);

	/* We touched a possibly cold node: try the lock once more in case
	 * it was released while we were not watching. */
	if (qspin_trylock(l))
		return;
	qspin_stat_inc(node, QSTAT_QUEUED);

	/* Publish ourselves as the tail: p,*,* -> n,*,*. */
	old = qspin_xchg_tail(l, tail);

	/* If there was a previous node, link behind it and wait to become
	 * the head of the queue.  The release pairs with the acquire load of
	 * prev->next before prev stores into our locked field. */
	if (old & Q_TAIL_MASK) {
		prev = qspin_decode_tail(l, old);
		atomic_store_explicit(&prev->next, node, lb_rel);
		qspin_wait_node(node);
		/* A successor may have linked while we waited: load it now
		 * so the hand-off below does not wait for it. */
		next = atomic_load_explicit(&node->next, lb_acq);
	}

	/* We are the head: give the hook its chance, then wait for the
	 * owner and pending to go away. */
	h->wait_head(l, node);
	val = qspin_wait_lock_free(l);

	/* Claim the lock.  If we are the only queued node (tail == ours)
	 * and nobody is pending, clear the tail and take the lock in one
	 * CAS: n,0,0 -> 0,0,1.  A concurrent PENDING makes it fail, and
	 * that locker will then see our tail and queue behind us. */
	if ((val & Q_TAIL_MASK) == tail && h->try_clear_tail(l, val, node))
		return;

	/* Somebody is queued behind us: *,*,0 -> *,*,1. */
	qspin_set_locked(l);

	/* Wait for the successor to link in if it has not yet, then hand
	 * it the head of the queue. */
	if (!next)
		next = qspin_wait_next(node);
	h->handoff(l, node, next);
}

/* The stock hooks: plain MCS. */
static inline void qspin_mcs_init_node(struct qspin_node *node)
{
	(void)node;
}

static inline void qspin_mcs_wait_head(struct qspinlock *l,
				       struct qspin_node *node)
{
	(void)l;
	(void)node;
}

/* __try_clear_tail(): n,0,0 -> 0,0,1.  Relaxed as in the kernel: the
 * acquire already came from waiting for the lock to be free. */
static inline bool qspin_mcs_try_clear_tail(struct qspinlock *l, uint32_t val,
					    struct qspin_node *node)
{
	(void)node;
	return atomic_compare_exchange_strong_explicit(
		&l->val, &val, Q_LOCKED_VAL, lb_rlx, lb_rlx);
}

/* arch_mcs_spin_unlock_contended(): release our lock-claiming writes to
 * the next head. */
static inline void qspin_mcs_handoff(struct qspinlock *l,
				     struct qspin_node *node,
				     struct qspin_node *next)
{
	(void)l;
	(void)node;
	atomic_store_explicit(&next->locked, 1, lb_rel);
}

/* The lock_ops glue of the qspinlock lock (locks/qspinlock.c), here so
 * that the worker loops instantiated for it (workloads/loops/) inline
 * the fast paths. */
static inline void qspinlock_lock(void *lock, void *ctx)
{
	qspin_lock(lock, ctx);
}

static inline bool qspinlock_trylock(void *lock, void *ctx)
{
	(void)ctx;
	return qspin_trylock(lock);
}

static inline void qspinlock_unlock(void *lock, void *ctx)
{
	(void)ctx;
	qspin_unlock(lock);
}

#endif /* LOCKS_QSPINLOCK_H */
