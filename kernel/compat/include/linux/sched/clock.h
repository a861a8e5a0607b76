/* SPDX-License-Identifier: MIT */
/* <linux/sched/clock.h>: local_clock(), nanoseconds of the monotonic
 * clock (the kernel's is a per-CPU sched_clock; CNA compares it with a
 * threshold, kernel/locking/qspinlock_cna.h).  Defined in the glue. */
#ifndef LB_KCOMPAT_LINUX_SCHED_CLOCK_H
#define LB_KCOMPAT_LINUX_SCHED_CLOCK_H
#include <linux/kconfig.h>

u64 lb_kc_local_clock(void);
#define local_clock() lb_kc_local_clock()
#endif
