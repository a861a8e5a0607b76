/* SPDX-License-Identifier: MIT */
/* No architecture override of the MCS waits: the tree's generic header
 * (include/asm-generic/mcs_spinlock.h) and the kernel's defaults, whose
 * smp_cond_load_acquire() waits in WFE on arm64 (<lockbench/kernel.h>). */
#include <linux/kconfig.h>
#include <asm-generic/mcs_spinlock.h>
