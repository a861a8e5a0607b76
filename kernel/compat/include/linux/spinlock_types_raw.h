/* SPDX-License-Identifier: MIT */
/*
 * <linux/spinlock_types_raw.h>: the kernel's raw_spinlock_t (lockdep and
 * debug fields) is not needed; what the lock files take from it is the
 * arch's spinlock types, which arm64's asm/spinlock_types.h lets only
 * this header include (its #error otherwise), so the guard is the
 * kernel's own (include/linux/spinlock_types_raw.h).
 */
#ifndef __LINUX_SPINLOCK_TYPES_RAW_H
#define __LINUX_SPINLOCK_TYPES_RAW_H
#include <linux/kconfig.h>
#include <asm/spinlock_types.h>
#endif
