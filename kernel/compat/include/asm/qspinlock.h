/* SPDX-License-Identifier: MIT */
/* The architecture's queued spinlock is the tree's generic one
 * (include/asm-generic/qspinlock.h), native: no paravirt hooks. */
#include <linux/kconfig.h>
#include <asm-generic/qspinlock.h>
