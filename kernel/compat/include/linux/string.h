/* SPDX-License-Identifier: MIT */
/* <linux/string.h>: the C library's (strcmp() of a boot parameter's
 * handler, kernel/locking/qspinlock_cna.h). */
#ifndef LB_KCOMPAT_LINUX_STRING_H
#define LB_KCOMPAT_LINUX_STRING_H
#include <string.h>
#endif
