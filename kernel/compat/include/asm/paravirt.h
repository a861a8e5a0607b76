/* SPDX-License-Identifier: MIT */
/* <asm/paravirt.h>: the layer builds the native path (no CONFIG_PARAVIRT,
 * no CONFIG_PARAVIRT_SPINLOCKS), so an arch header that includes it
 * (arch/x86/include/asm/qspinlock.h) needs nothing from it; the tree's
 * own pulls in the hypervisor call machinery (docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_ASM_PARAVIRT_H
#define LB_KCOMPAT_ASM_PARAVIRT_H
#include <linux/kconfig.h>
#endif
