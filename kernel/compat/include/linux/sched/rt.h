/* SPDX-License-Identifier: MIT */
/* <linux/sched/rt.h>: a worker thread is never a real-time task of the
 * kernel's scheduler (rt_task(), used by CNA's priority waiters in
 * kernel/locking/qspinlock_cna.h). */
#ifndef LB_KCOMPAT_LINUX_SCHED_RT_H
#define LB_KCOMPAT_LINUX_SCHED_RT_H
#include <linux/kconfig.h>

#ifndef current
#define current ((void *)0)
#endif
#define rt_task(p) ((void)(p), 0)
#endif
