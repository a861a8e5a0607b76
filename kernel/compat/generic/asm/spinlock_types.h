/* SPDX-License-Identifier: MIT */
/* For a tree without its arch's asm/spinlock_types.h: arch_spinlock_t and
 * arch_rwlock_t are the tree's generic queued ones.  After the tree's
 * arch directory on the include path (docs/kernel-tree.md). */
#include <linux/kconfig.h>
#include <asm-generic/qspinlock_types.h>
#include <asm-generic/qrwlock_types.h>
