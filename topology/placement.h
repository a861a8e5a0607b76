/* SPDX-License-Identifier: MIT */
/*
 * Placement: a pure function from (topology, policy, thread count) to
 * the CPU of every thread.  No hardware access: it is tested on hwloc
 * synthetic topologies and XML files.
 */
#ifndef LOCKBENCH_PLACEMENT_H
#define LOCKBENCH_PLACEMENT_H

#include <stdbool.h>

#include "topo.h"

enum placement_kind {
	PL_CORES,  /* one PU per core, node by node, SMT siblings last */
	PL_SMT,    /* fill every PU of a core before the next core */
	PL_SPREAD, /* round-robin over NUMA nodes (alternating packages) */
	PL_NODES,  /* like cores, only on the listed NUMA nodes */
	PL_CPUS,   /* an explicit list of OS CPUs, in that order */
	PL_NONE,   /* no pinning */
};

struct placement_policy {
	enum placement_kind kind;
	unsigned *list;    /* nodes (PL_NODES) or OS CPUs (PL_CPUS) */
	unsigned nlist;
	bool use_isolated; /* include isolated CPUs (excluded by default) */
	char text[128];    /* as the user wrote it */
};

struct thread_place {
	int cpu;           /* OS CPU, -1 when not pinned */
	int pu;            /* index in topo->pu, -1 when unknown */
	unsigned core, l3, node, package;
	int node_os;
	bool shared;       /* another thread got the same CPU (oversubscribed) */
	bool not_allowed;  /* pinned outside the process's allowed CPUs */
	/* Mapped (placement_map): cpu is a CPU of this machine, and
	 * synth_cpu the OS index of the PU the placement chose on the
	 * given (synthetic) topology, whose core, l3, node and package the
	 * thread keeps. */
	bool mapped;
	int synth_cpu;
};

/* Names and one-line descriptions, for --help and `list placements`. */
struct placement_info {
	const char *name;
	const char *desc;
};
extern const struct placement_info placement_infos[];
extern const unsigned nplacement_infos;

/* Parse a -p argument.  0, or -EINVAL with err naming the valid choices. */
int placement_parse(const char *s, struct placement_policy *p, char *err,
		    size_t errlen);
void placement_policy_free(struct placement_policy *p);

/*
 * The ordered CPU list a policy uses on a topology (indices into
 * t->pu), before any thread count is applied.  Malloc'ed into *order.
 * Returns 0, or -EINVAL with err (unknown node or CPU, nothing usable).
 */
int placement_order(const struct topo *t, const struct placement_policy *p,
		    unsigned **order, unsigned *n, char *err, size_t errlen);

/*
 * Place `nthreads` threads: thread i gets order[i % n]; threads beyond
 * the list share CPUs and are marked so.  out has nthreads entries.
 * Returns 0 or -EINVAL with err.
 */
int placement_assign(const struct topo *t, const struct placement_policy *p,
		     unsigned nthreads, struct thread_place *out, char *err,
		     size_t errlen);

/*
 * The distinct CPUs of n placed threads, in thread order, into cpus (n
 * entries): a pinned thread's CPU; an unpinned one's PU when t is given
 * and the PU is known (where it would run), else nothing.  Returns how
 * many were written (0 when memory runs out).
 */
unsigned placement_distinct_cpus(const struct topo *t, const struct thread_place *pl,
				 unsigned n, int *cpus);

/*
 * The CPUs a placement over another topology is mapped onto
 * (--map-topology, docs/guide.md "Placement"): this machine's PUs in
 * hwloc logical order that this process may run on, not isolated unless
 * use_isolated.  Their OS numbers into cpus (here->npu entries) if not
 * NULL; returns how many.
 */
unsigned placement_map_cpus(const struct topo *here, bool use_isolated, int *cpus);

/*
 * Map n threads placed on another topology onto this machine (`here`):
 * thread i is pinned to the (i mod N)-th of the N CPUs
 * placement_map_cpus() gives, so two threads share a CPU only when
 * there are more threads than CPUs; each keeps its placed core, l3,
 * node and package (what NUMA-aware locks read), its node_os becomes
 * the real CPU's (memory is bound on this machine).  Unpinned threads
 * (-p none) are left as they are.  Returns N, or -EINVAL with err when
 * no CPU is usable.
 */
int placement_map(const struct topo *here, bool use_isolated, struct thread_place *pl,
		  unsigned n, char *err, size_t errlen);

#endif
