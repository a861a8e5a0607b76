/* SPDX-License-Identifier: MIT */
/* <linux/irqflags.h> as the kernel's lock sources use it: what they need of it
 * is in <lockbench/kernel.h> and linux/kconfig.h (see docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_IRQFLAGS_H
#define LB_KCOMPAT_IRQFLAGS_H
#include <linux/kconfig.h>

/* A worker thread runs with interrupts on (CNA's priority waiters,
 * kernel/locking/qspinlock_cna.h). */
#ifndef irqs_disabled
#define irqs_disabled() 0
#endif
#endif
