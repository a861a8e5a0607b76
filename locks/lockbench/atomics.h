/* SPDX-License-Identifier: MIT */
/*
 * lockbench/atomics.h - the one atomics header every lock uses.
 *
 * C11 <stdatomic.h> with explicit memory orders, plus cpu_relax() for
 * the spin loops.  Nothing here relies on x86's TSO: every shared access
 * in a lock states its ordering, so the same code is correct on arm64.
 */
#ifndef LOCKBENCH_ATOMICS_H
#define LOCKBENCH_ATOMICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Align locks, nodes and per-thread slots to this: adjacent-line
 * prefetchers pull 64-byte lines in pairs, so 128 bytes is the unit
 * that really stops false sharing (x86 and Kunpeng/Neoverse alike). */
#define LB_CACHELINE 128
#define LB_ALIGNED _Alignas(LB_CACHELINE)

#define lb_rlx memory_order_relaxed
#define lb_acq memory_order_acquire
#define lb_rel memory_order_release
#define lb_ar memory_order_acq_rel
#define lb_sc memory_order_seq_cst

/* Tell the core we are spinning: x86 `pause`, arm64 `yield`. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ __volatile__("pause" ::: "memory");
#elif defined(__aarch64__) || defined(__arm__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	atomic_signal_fence(memory_order_seq_cst);
#endif
}

/* Compiler barrier only: keeps a busy loop from being optimised away. */
static inline void lb_barrier(void)
{
	atomic_signal_fence(memory_order_seq_cst);
}

/* Spin until *p == v (32-bit) with acquire loads, like the kernel's
 * smp_cond_load_acquire().  Acquire loads rather than relaxed loads and
 * a fence: free on x86, what arm64's kernel does, and visible to
 * ThreadSanitizer, which does not model fences. */
static inline void lb_spin_until_eq32(_Atomic uint32_t *p, uint32_t v)
{
	while (atomic_load_explicit(p, lb_acq) != v)
		cpu_relax();
}

#endif /* LOCKBENCH_ATOMICS_H */
