/* SPDX-License-Identifier: MIT */
/* <linux/topology.h> as the CNA slow path uses it (kernel/locking/
 * qspinlock_cna.h, CONFIG_NUMA_AWARE_SPINLOCKS): a CPU is a worker thread
 * (<lockbench/kernel.h>, lb_k_cpu_enter()), and its NUMA node is the node
 * lockbench's placement gave that worker (lock_thread.node, so a synthetic
 * `--topology ... numa:2 ...` gives two nodes on a one-node machine).  The
 * glue (kernel/compat/glue.c) fills lb_kc_cpu_node[] in each worker's
 * thread_init and lb_kc_nr_nodes in init.  docs/kernel-tree.md. */
#ifndef LB_KCOMPAT_LINUX_TOPOLOGY_H
#define LB_KCOMPAT_LINUX_TOPOLOGY_H
#include <linux/kconfig.h>
#include <linux/cpumask.h>

extern unsigned lb_kc_cpu_node[CONFIG_NR_CPUS];
extern unsigned lb_kc_nr_nodes;

#define cpu_to_node(cpu) ((int)lb_kc_cpu_node[(cpu)])
#define numa_node_id() cpu_to_node(smp_processor_id())
#define nr_node_ids lb_kc_nr_nodes

/* The kernel log is not lockbench's output. */
#ifndef pr_info
#define pr_info(...) ((void)0)
#endif
#endif
