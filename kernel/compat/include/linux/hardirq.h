/* SPDX-License-Identifier: MIT */
/* <linux/hardirq.h> as the kernel's lock sources use it: what they need of it
 * is in <lockbench/kernel.h> and linux/kconfig.h (see docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_HARDIRQ_H
#define LB_KCOMPAT_HARDIRQ_H
#include <linux/kconfig.h>
#include <linux/irqflags.h>
#endif
