/* SPDX-License-Identifier: MIT */
/*
 * lockbench's kernel compatibility layer, included first into every file
 * of a kernel tree that lockbench compiles (-include, as the kernel's
 * own build includes include/linux/kconfig.h).  The layer maps what the
 * kernel's lock sources use onto user space: the atomics, barriers and
 * per-CPU data of <lockbench/kernel.h> (a worker thread is a CPU), the
 * compiler attributes of include/linux/compiler_types.h, and no-ops for
 * what only instruments (lockevent, qstat, tracepoints).  See
 * docs/kernel-tree.md.
 *
 * The configuration is a native, non-paravirt SMP kernel without lock
 * debugging: no CONFIG_PARAVIRT_SPINLOCKS, CONFIG_LOCK_EVENT_COUNTS,
 * CONFIG_QUEUED_LOCK_STAT, CONFIG_DEBUG_SPINLOCK; CONFIG_NR_CPUS comes
 * from the build (-DCONFIG_NR_CPUS=N).
 */
#ifndef LB_KCOMPAT_KCONFIG_H
#define LB_KCOMPAT_KCONFIG_H

#define CONFIG_SMP 1
#define CONFIG_64BIT 1
#define CONFIG_QUEUED_SPINLOCKS 1
#define CONFIG_QUEUED_RWLOCKS 1
#define CONFIG_ARCH_USE_QUEUED_SPINLOCKS 1
#define CONFIG_ARCH_USE_QUEUED_RWLOCKS 1

#include <linux/compiler_types.h>
#include <linux/types.h>
#include <lockbench/lock.h>
#include <lockbench/kernel.h>

/* ---- what the rest of the kernel provides around a lock ------------ */

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL_NS_GPL(sym, ns)
/* Workers are tasks: never in interrupt context, never preempted, never
 * asked to reschedule (but see need_resched below). */
#define in_interrupt() 0
#define in_irq() 0
#define in_nmi() 0
#define in_task() 1
#define preempt_disable() barrier()
#define preempt_enable() barrier()
#define cpu_relax_lowlatency() cpu_relax()
#define vcpu_is_preempted(cpu) false
#define num_possible_cpus() CONFIG_NR_CPUS
#define nr_cpu_ids CONFIG_NR_CPUS
#define lockdep_assert_held(l) do { } while (0)
#define smp_mb__after_spinlock() smp_mb()
#define smp_mb__after_unlock_lock() do { } while (0)

/*
 * need_resched(): the osq lock gives up its queue place when the task
 * should reschedule.  A worker has no scheduler tick, so the glue gives
 * it a budget of need_resched() polls per attempt (lb_kc_resched_budget,
 * the osq lock's `spins` option; 0 never gives up) and this says yes
 * once it is spent.
 */
extern __thread unsigned long lb_kc_resched_budget;
static inline bool need_resched(void)
{
	return lb_kc_resched_budget && !--lb_kc_resched_budget;
}

/*
 * Spin waits that give up the CPU (the tree's locks' option `spin_yield`,
 * set by the glue; docs/kernel-tree.md): a kernel waiter spins with
 * preemption off, so the CPU it spins on is its own; a worker is an
 * ordinary thread, and with more workers than CPUs the one the queue
 * waits for (the MCS head, the lock's next owner) may sit preempted
 * while the others spin out their time slices.  With the option on,
 * every wait of the tree's code (cpu_relax() and the smp_cond_load_*()
 * waits under it) calls sched_yield() instead of pausing, so the CPU
 * goes to a worker that can make progress.  Off (the default), a wait
 * costs one load of a flag and a predicted branch more than the pause.
 */
#include <sched.h>
extern int lb_kc_spin_yield;
/*
 * Built with -DLB_KC_NO_SPIN_YIELD (LOCKBENCH_KTREE_CFLAGS) the waits
 * are the kernel's own, a pause and nothing else (arch/x86/include/asm/
 * vdso/processor.h: cpu_relax() is `rep; nop`), and the option
 * spin_yield accepts only 0 (kernel/compat/glue.c).  That one load more
 * per spin is not free under contention: on a 2-vCPU AMD EPYC guest it
 * made the tree's qspinlock 5-22% faster at 2 threads than the same
 * tree built without it (docs/kernel-tree.md, "The tree's
 * qspinlock against the built-in"), so scripts/bench-ktree.sh builds
 * the tree so to compare its lock with the built-in one.
 */
#ifdef LB_KC_NO_SPIN_YIELD
#define lb_kc_yielding() false
#else
#define lb_kc_yielding() unlikely(__atomic_load_n(&lb_kc_spin_yield, __ATOMIC_RELAXED))
#endif
static inline void lb_kc_relax(void)
{
	if (lb_kc_yielding())
		sched_yield();
	else
		cpu_relax();
}
#define cpu_relax() lb_kc_relax()
#if defined(__aarch64__)
/* arm64 waits in WFE (<lockbench/kernel.h>, lb_k_wait): yield instead. */
#undef lb_k_wait
#define lb_k_wait(p, val)                                                      \
	do {                                                                   \
		if (lb_kc_yielding())                                          \
			sched_yield();                                         \
		else                                                           \
			lb_k_cmpwait((p), (uint64_t)(uintptr_t)(val), sizeof(*(p))); \
	} while (0)
#endif

/* Endianness as asm/byteorder.h states it. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#ifndef __LITTLE_ENDIAN
#define __LITTLE_ENDIAN 1234
#endif
#else
#ifndef __BIG_ENDIAN
#define __BIG_ENDIAN 4321
#endif
#endif

#endif
