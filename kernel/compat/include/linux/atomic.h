/* SPDX-License-Identifier: MIT */
/* <linux/atomic.h> as the kernel's lock sources use it: what they need of it
 * is in <lockbench/kernel.h> and linux/kconfig.h (see docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_ATOMIC_H
#define LB_KCOMPAT_ATOMIC_H
#include <linux/kconfig.h>
#include <asm/atomic.h>
#endif
