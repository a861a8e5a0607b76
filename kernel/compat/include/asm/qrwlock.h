/* SPDX-License-Identifier: MIT */
/* The architecture's queued rwlock is the tree's generic one
 * (include/asm-generic/qrwlock.h). */
#include <linux/kconfig.h>
#include <asm-generic/qrwlock.h>
