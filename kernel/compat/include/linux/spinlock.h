/* SPDX-License-Identifier: MIT */
/* <linux/spinlock.h> as the kernel's lock sources use it: what they need of it is in
 * <lockbench/kernel.h> and linux/kconfig.h (see docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_LINUX_SPINLOCK_H
#define LB_KCOMPAT_LINUX_SPINLOCK_H
#include <linux/kconfig.h>
/* As the kernel's: the arch's types first (linux/spinlock_types_raw.h). */
#include <linux/spinlock_types_raw.h>
/* qrwlock.c takes its wait lock with arch_spin_lock(): the tree's
 * queued spinlock, as on x86 and arm64. */
#include <asm/qspinlock.h>
#include <asm/qrwlock.h>
#endif
