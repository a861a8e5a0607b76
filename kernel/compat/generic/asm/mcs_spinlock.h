/* SPDX-License-Identifier: MIT */
/* x86 and arm64 list mcs_spinlock.h as `generic-y` (arch/ * /include/asm/
 * Kbuild): the tree's generic header (include/asm-generic/mcs_spinlock.h),
 * as the kernel's build generates it.  After the tree's arch directory
 * on the include path, so an arch that has its own (arm32) keeps it. */
#include <linux/kconfig.h>
#include <asm-generic/mcs_spinlock.h>
