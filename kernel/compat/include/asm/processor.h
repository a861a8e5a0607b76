/* SPDX-License-Identifier: MIT */
/* <asm/processor.h> as the kernel's lock sources use it: what they need of it is in
 * <lockbench/kernel.h> and linux/kconfig.h (see docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_ASM_PROCESSOR_H
#define LB_KCOMPAT_ASM_PROCESSOR_H
#include <linux/kconfig.h>
#endif
