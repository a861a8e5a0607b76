/* SPDX-License-Identifier: MIT */
/* <asm/paravirt.h>: the layer builds the native path (no CONFIG_PARAVIRT,
 * no CONFIG_PARAVIRT_SPINLOCKS), so an arch header that includes it
 * (arch/x86/include/asm/qspinlock.h) needs nothing from it; the tree's
 * own pulls in the hypervisor call machinery (docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_ASM_PARAVIRT_H
#define LB_KCOMPAT_ASM_PARAVIRT_H
#include <linux/kconfig.h>

/* CONFIG_NUMA_AWARE_SPINLOCKS: CNA's boot-time switch
 * (cna_configure_spin_lock_slowpath(), kernel/locking/qspinlock_cna.h)
 * compares and sets the paravirt slot of the spinlock slow path; here the
 * slot is a plain pointer the glue reads, the native slow path is the
 * tree's queued_spin_lock_slowpath (the name the CNA pass of qspinlock.c
 * redefines as a macro, so it is reached by its symbol). */
#ifdef CONFIG_NUMA_AWARE_SPINLOCKS
struct qspinlock;
struct lb_kc_pv_ops {
	struct {
		void (*queued_spin_lock_slowpath)(struct qspinlock *lock, u32 val);
	} lock;
};
extern struct lb_kc_pv_ops pv_ops;
void native_queued_spin_lock_slowpath(struct qspinlock *lock, u32 val)
	__asm__("queued_spin_lock_slowpath");
#endif
#endif
