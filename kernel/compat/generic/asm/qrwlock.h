/* SPDX-License-Identifier: MIT */
/* An architecture without asm/qrwlock.h of its own (`generic-y`, as the
 * kernel's build generates it): the tree's generic queued rwlock
 * (include/asm-generic/qrwlock.h).  After the tree's arch directory on
 * the include path (docs/kernel-tree.md). */
#include <linux/kconfig.h>
#include <asm-generic/qrwlock.h>
