/* SPDX-License-Identifier: MIT */
/* <asm/atomic.h> as the kernel's lock sources use it: what they need of it is in
 * <lockbench/kernel.h> and linux/kconfig.h (see docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_ASM_ATOMIC_H
#define LB_KCOMPAT_ASM_ATOMIC_H
#include <linux/kconfig.h>
/* The kernel's x86 atomics come with asm/alternative.h (LOCK_PREFIX), which
 * the tree's arch/x86/include/asm/qspinlock.h uses through them. */
#if defined(__x86_64__) || defined(__i386__)
#include <asm/alternative.h>
#endif
#endif
