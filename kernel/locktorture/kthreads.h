/* SPDX-License-Identifier: MIT */
/*
 * kthreads.h - find locktorture's kthreads and pin them.
 *
 * locktorture starts its writers and readers with kthread_create(),
 * named after their functions, lock_torture_writer and
 * lock_torture_reader.  The task's comm is cut to TASK_COMM_LEN - 1 =
 * 15 characters, "lock_torture_wr" and "lock_torture_re", which is what
 * /proc/PID/comm shows on older kernels; newer ones show a kthread's
 * full name there (fs/proc/array.c, proc_task_name() through
 * get_kthread_comm(); so Debian's 6.1 does), so both are taken.  They
 * are ordinary tasks for sched_setaffinity(2) (no PF_NO_SETAFFINITY),
 * which is how lockbench applies its placement to them, as the
 * published runs did with taskset.
 * /proc is read under the sysfs root (tests: a fake tree listing the
 * fake's worker processes).
 */
#ifndef LOCKBENCH_KTHREADS_H
#define LOCKBENCH_KTHREADS_H

#include <stddef.h>

#define KT_WRITER_COMM "lock_torture_wr"
#define KT_READER_COMM "lock_torture_re"
#define KT_WRITER_NAME "lock_torture_writer"
#define KT_READER_NAME "lock_torture_reader"

struct kthread_ent {
	int pid;
	char role;       /* 'w' writer, 'r' reader */
};

/*
 * Every task of "<root>/proc" whose comm is a writer's or a reader's,
 * writers first, each group by pid (creation order).  Returns 0 with a
 * malloc'ed array in *@out (NULL when none) and the count in *@n, or
 * -errno (/proc unreadable, -ENOMEM).
 */
int kthreads_find(struct kthread_ent **out, unsigned *n);

/*
 * Pin task @pid to OS CPU @cpu.  Returns 0 or -errno of
 * sched_setaffinity() (-ESRCH: gone; -EINVAL: the CPU is not usable or
 * the task may not move).
 */
int kthread_pin(int pid, int cpu);

#endif /* LOCKBENCH_KTHREADS_H */
