/* SPDX-License-Identifier: MIT */
/*
 * The machine as lockbench sees it: a flat list of PUs (hardware
 * threads) in hwloc logical order, each with the dense ids of its core,
 * L3 group, NUMA node and package.  Loaded from this machine, an hwloc
 * synthetic description ("package:2 numa:2 core:12 pu:2") or an hwloc
 * XML file, so placement can be previewed and tested without the box.
 */
#ifndef LOCKBENCH_TOPO_H
#define LOCKBENCH_TOPO_H

/*
 * Limits of a synthetic --topology, checked before hwloc builds it: a
 * machine of 100000 PUs takes hwloc minutes and gigabytes, and hwloc
 * inserts the children of one parent in quadratic time (pu:8192 alone
 * takes it about a minute).
 */
#define TOPO_MAX_PUS 8192
#define TOPO_MAX_ARITY 1024
#define TOPO_MAX_DEPTH 16
/*
 * The largest CPU or NUMA node index a --topology may name (a synthetic
 * description's indexes=, an XML file's os_index and the bitmaps of its
 * cpusets and nodesets), checked before hwloc reads it: hwloc sizes its
 * bitmaps by the largest index, and pu:2(indexes=4294967295,1) took it
 * gigabytes.  Linux numbers CPUs below NR_CPUS, at most 8192
 * (arch/x86/Kconfig, NR_CPUS_RANGE_END), and nodes below 1 << NODES_SHIFT,
 * at most 1024 (mm/Kconfig): this bound is far above both.
 */
#define TOPO_MAX_INDEX (1u << 20)

#include <stdbool.h>

struct topo_pu {
	int os;            /* OS CPU number */
	unsigned core;     /* dense core id (hwloc logical index) */
	unsigned l3;       /* dense L3 group id (package id when no L3) */
	unsigned node;     /* dense NUMA node id */
	int node_os;       /* OS NUMA node number (for libnuma) */
	unsigned package;  /* dense package id */
	unsigned smt;      /* rank among the PUs of its core: 0, 1, ... */
	bool allowed;      /* in this process's CPU affinity */
	bool isolated;     /* in /sys/devices/system/cpu/isolated */
};

struct topo {
	struct topo_pu *pu;
	unsigned npu;
	unsigned ncores, nl3, nnodes, npackages;
	bool real;         /* describes this machine (pinning makes sense) */
	char source[256];  /* "this machine", "synthetic: ...", "xml: path" */
	char cpu_model[128];
	/* Data/unified caches by level (index 0..3 = L1..L4): bytes of the
	 * first one of that level (0: none) and how many there are. */
	unsigned long long cache_size[4];
	unsigned ncache[4];
	/* The NUMA distance matrix the OS reports (ACPI SLIT), nnodes x
	 * nnodes in dense node order, row = from; NULL when none. */
	unsigned *dist;
};

/*
 * Load a topology.  spec NULL or "" = this machine; a path ending in
 * ".xml" or naming an existing file = hwloc XML; anything else = hwloc
 * synthetic string.  isolated_list, if not NULL, is the text of
 * /sys/devices/system/cpu/isolated (a CPU list).  Returns 0, or -EINVAL
 * with err set to one line describing the problem.
 */
int topo_load(struct topo *t, const char *spec, const char *isolated_list,
	      char *err, size_t errlen);
void topo_free(struct topo *t);
/* Index in t->pu of OS CPU `os`, or -1. */
int topo_find_os(const struct topo *t, int os);

#endif
