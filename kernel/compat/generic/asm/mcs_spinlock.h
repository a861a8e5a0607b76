/* SPDX-License-Identifier: MIT */
/* x86 and arm64 list mcs_spinlock.h as `generic-y` (arch/ * /include/asm/
 * Kbuild): the tree's generic header (include/asm-generic/mcs_spinlock.h),
 * as the kernel's build generates it.  After the tree's arch directory
 * on the include path, so an arch that has its own (arm32) keeps it. */
#include <linux/kconfig.h>

/* CONFIG_NUMA_AWARE_SPINLOCKS: the CNA series hands the MCS lock over
 * with a value (arch_mcs_lock_handoff(), kernel/locking/mcs_spinlock.h
 * after its patch 1/6): 1, or more than 1 when it passes along a
 * secondary queue of waiters moved off the main queue for being on
 * another NUMA node (kernel/locking/qspinlock_cna.h).  The layer counts
 * both per worker (the glue sums them: the lock's counters mcs_handoff
 * and mcs_handoff_2nd). */
#ifdef CONFIG_NUMA_AWARE_SPINLOCKS
extern __thread unsigned long lb_kc_cna_handoff[2];
#define arch_mcs_lock_handoff(l, val)                                          \
	do {                                                                   \
		unsigned int v_ = (val);                                       \
		lb_kc_cna_handoff[0]++;                                        \
		lb_kc_cna_handoff[1] += v_ > 1;                                \
		smp_store_release((l), v_);                                    \
	} while (0)
#endif
#include <asm-generic/mcs_spinlock.h>
