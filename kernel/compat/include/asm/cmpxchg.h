/* SPDX-License-Identifier: MIT */
/* <asm/cmpxchg.h> as the kernel's lock sources use it: what they need of it is in
 * <lockbench/kernel.h> and linux/kconfig.h (see docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_ASM_CMPXCHG_H
#define LB_KCOMPAT_ASM_CMPXCHG_H
#include <linux/kconfig.h>
#endif
