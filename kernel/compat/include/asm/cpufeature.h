/* SPDX-License-Identifier: MIT */
/* <asm/cpufeature.h>: the kernel's boot-time CPU feature tables and
 * static_cpu_has() patching have no user-space counterpart, and the
 * lock headers that include it (arch/x86/include/asm/qspinlock.h) use
 * nothing of it on the native path (docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_ASM_CPUFEATURE_H
#define LB_KCOMPAT_ASM_CPUFEATURE_H
#include <linux/kconfig.h>
#endif
