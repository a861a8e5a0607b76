/* SPDX-License-Identifier: MIT */
/* arch_spinlock_t and arch_rwlock_t are the tree's generic queued ones. */
#include <linux/kconfig.h>
#include <asm-generic/qspinlock_types.h>
#include <asm-generic/qrwlock_types.h>
