/* SPDX-License-Identifier: MIT */
/* <linux/cpumask.h> as the kernel's lock sources use it: what they need of it
 * is in <lockbench/kernel.h> and linux/kconfig.h (see docs/kernel-tree.md). */
#ifndef LB_KCOMPAT_CPUMASK_H
#define LB_KCOMPAT_CPUMASK_H
#include <linux/kconfig.h>

/* A CPU exists here once its worker thread entered (lb_k_cpu_enter()),
 * and its per-CPU data is that thread's: boot-time set-up that walks the
 * possible CPUs (CNA's cna_init_nodes()) runs on each worker for its own
 * CPU, so this walks the calling CPU alone. */
#define for_each_possible_cpu(cpu)                                             \
	for ((cpu) = (unsigned)smp_processor_id(); (cpu) != CONFIG_NR_CPUS;    \
	     (cpu) = CONFIG_NR_CPUS)
#endif
