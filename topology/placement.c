/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "placement.h"

const struct placement_info placement_infos[] = {
	{"cores", "one PU per core, node by node, SMT siblings last (default)"},
	{"smt", "fill every hyperthread of a core before the next core"},
	{"spread", "round-robin over NUMA nodes, alternating packages"},
	{"node:N[,M]", "like cores, only on NUMA nodes N, M (dense ids)"},
	{"cpus:LIST", "explicit OS CPU order, e.g. cpus:1-95 or cpus:0,2,4"},
	{"none", "no pinning: the scheduler places threads"},
};
const unsigned nplacement_infos =
	sizeof(placement_infos) / sizeof(placement_infos[0]);

int placement_parse(const char *s, struct placement_policy *p, char *err,
		    size_t errlen)
{
	char why[128] = "";
	const char *arg = NULL;

	memset(p, 0, sizeof(*p));
	snprintf(p->text, sizeof(p->text), "%s", s);
	if (!strcmp(s, "cores"))
		p->kind = PL_CORES;
	else if (!strcmp(s, "smt"))
		p->kind = PL_SMT;
	else if (!strcmp(s, "spread"))
		p->kind = PL_SPREAD;
	else if (!strcmp(s, "none"))
		p->kind = PL_NONE;
	else if (!strncmp(s, "node:", 5))
		p->kind = PL_NODES, arg = s + 5;
	else if (!strncmp(s, "cpus:", 5))
		p->kind = PL_CPUS, arg = s + 5;
	else {
		snprintf(err, errlen,
			 "lockbench: unknown placement (%s): valid: cores, smt, "
			 "spread, node:N[,M], cpus:LIST, none", s);
		return -EINVAL;
	}
	if (arg && (numlist_parse(arg, 0, 0, &p->list, &p->nlist, why,
				  sizeof(why)) || !p->nlist)) {
		snprintf(err, errlen, "lockbench: placement (%s): %s", s,
			 *why ? why : "empty list");
		placement_policy_free(p);
		return -EINVAL;
	}
	return 0;
}

void placement_policy_free(struct placement_policy *p)
{
	free(p->list);
	p->list = NULL;
	p->nlist = 0;
}

/*
 * Every step below is linear in the number of PUs (plus the number of
 * nodes, packages or SMT ranks), so machines of thousands of PUs plan in
 * milliseconds; the orders are the ones docs/placement.md describes.
 */

static bool pu_usable(const struct topo *t, const struct placement_policy *p,
		      unsigned i)
{
	return t->pu[i].allowed && (p->use_isolated || !t->pu[i].isolated);
}

/* A table of nnodes flags: the nodes of a node:N,M list.  NULL on ENOMEM. */
static bool *node_filter(const struct topo *t, const struct placement_policy *p)
{
	bool *want = calloc(t->nnodes + 1, sizeof(*want));

	for (unsigned i = 0; want && i < p->nlist; i++)
		if (p->list[i] < t->nnodes)
			want[p->list[i]] = true;
	return want;
}

/*
 * Reorder o[0..n) by SMT rank (every PU of rank 0, then rank 1, ...),
 * keeping hwloc order within a rank: a counting sort, stable.
 * -ENOMEM or 0.
 */
static int sort_by_smt(const struct topo *t, unsigned *o, unsigned n)
{
	unsigned nranks = 0, *start, *tmp;

	for (unsigned i = 0; i < n; i++)
		if (t->pu[o[i]].smt >= nranks)
			nranks = t->pu[o[i]].smt + 1;
	start = calloc(nranks + 1, sizeof(*start));
	tmp = malloc((n + 1) * sizeof(*tmp));
	if (!start || !tmp) {
		free(start);
		free(tmp);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++)
		start[t->pu[o[i]].smt + 1]++;
	for (unsigned r = 1; r <= nranks; r++)
		start[r] += start[r - 1];
	for (unsigned i = 0; i < n; i++)
		tmp[start[t->pu[o[i]].smt]++] = o[i];
	memcpy(o, tmp, n * sizeof(*o));
	free(start);
	free(tmp);
	return 0;
}

/* Usable PUs in `cores` order (or hwloc order for smt), node-filtered,
 * into o; their number into *n.  -ENOMEM or 0. */
static int base_order(const struct topo *t, const struct placement_policy *p,
		      unsigned *o, unsigned *n)
{
	bool *want = p->kind == PL_NODES ? node_filter(t, p) : NULL;

	if (p->kind == PL_NODES && !want)
		return -ENOMEM;
	*n = 0;
	for (unsigned i = 0; i < t->npu; i++)
		if (pu_usable(t, p, i) && (!want || want[t->pu[i].node]))
			o[(*n)++] = i;
	free(want);
	return p->kind == PL_SMT ? 0 : sort_by_smt(t, o, *n);
}

/*
 * Node visiting order for spread: the first node of each package, then
 * the second, ... so consecutive threads alternate packages.  A node's
 * package is that of its first PU (package 0 for a node without PUs);
 * its rank is (index among the nodes of its package) * npackages +
 * package.  rank[] has nnodes entries; returns the largest rank, or -1
 * on ENOMEM.
 */
static long node_ranks(const struct topo *t, unsigned *rank)
{
	unsigned npkg = t->npackages, *pkg = malloc((t->nnodes + 1) * sizeof(*pkg));
	unsigned *before;
	bool *has = calloc(t->nnodes + 1, sizeof(*has));
	long maxrank = 0;

	for (unsigned i = 0; pkg && has && i < t->npu; i++) {
		unsigned nd = t->pu[i].node;

		if (nd < t->nnodes && !has[nd]) {
			has[nd] = true;
			pkg[nd] = t->pu[i].package;
			npkg = pkg[nd] >= npkg ? pkg[nd] + 1 : npkg;
		}
	}
	before = calloc(npkg + 1, sizeof(*before));
	for (unsigned m = 0; pkg && has && before && m < t->nnodes; m++) {
		unsigned pm = has[m] ? pkg[m] : 0;

		rank[m] = before[pm] * t->npackages + pm;
		maxrank = (long)rank[m] > maxrank ? (long)rank[m] : maxrank;
		before[pm] += has[m];
	}
	if (!pkg || !has || !before)
		maxrank = -1;
	free(pkg);
	free(has);
	free(before);
	return maxrank;
}

/*
 * Round-robin the cores order over NUMA nodes: each round takes, for
 * every node rank in turn, the first PU of that rank not yet taken (in
 * cores order).  Bucketed by rank, each round visits only the ranks
 * that still have PUs.  -ENOMEM or 0.
 */
static int spread_order(const struct topo *t, unsigned *o, unsigned n)
{
	unsigned *rank = malloc((t->nnodes + 1) * sizeof(*rank));
	long maxrank = rank ? node_ranks(t, rank) : -1;
	unsigned nr = (unsigned)(maxrank + 1), *head = NULL, *end = NULL;
	unsigned *bucket = NULL, *live = NULL, nlive = 0, k = 0;
	int rc = -ENOMEM;

	if (maxrank < 0)
		goto out;
	head = calloc(nr + 1, sizeof(*head));
	end = calloc(nr + 1, sizeof(*end));
	live = malloc((nr + 1) * sizeof(*live));
	bucket = malloc((n + 1) * sizeof(*bucket));
	if (!head || !end || !live || !bucket)
		goto out;
	for (unsigned i = 0; i < n; i++)
		end[rank[t->pu[o[i]].node] + 1]++;
	for (unsigned r = 1; r <= nr; r++)
		end[r] += end[r - 1];
	memcpy(head, end, (nr + 1) * sizeof(*head));
	for (unsigned i = 0; i < n; i++)
		bucket[end[rank[t->pu[o[i]].node]]++] = o[i];
	for (unsigned r = 0; r < nr; r++)
		if (head[r] < end[r])
			live[nlive++] = r;
	while (k < n) {
		unsigned still = 0;

		for (unsigned j = 0; j < nlive; j++) {
			unsigned r = live[j];

			o[k++] = bucket[head[r]++];
			if (head[r] < end[r])
				live[still++] = r;
		}
		nlive = still;
	}
	rc = 0;
out:
	free(rank);
	free(head);
	free(end);
	free(live);
	free(bucket);
	return rc;
}

/* OS CPU -> first index in t->pu with that number (-1: none), for OS
 * numbers 0..*maxos.  NULL on ENOMEM. */
static int *os_index(const struct topo *t, int *maxos)
{
	int *idx;

	*maxos = -1;
	for (unsigned i = 0; i < t->npu; i++)
		*maxos = t->pu[i].os > *maxos ? t->pu[i].os : *maxos;
	idx = malloc(((size_t)*maxos + 2) * sizeof(*idx));
	for (int c = 0; idx && c <= *maxos; c++)
		idx[c] = -1;
	for (unsigned i = t->npu; idx && i-- > 0;)
		if (t->pu[i].os >= 0)
			idx[t->pu[i].os] = (int)i;
	return idx;
}

static int cpus_order(const struct topo *t, const struct placement_policy *p,
		      unsigned *o, unsigned *n, char *err, size_t errlen)
{
	int maxos, *idx = os_index(t, &maxos);

	if (!idx)
		return -ENOMEM;
	for (unsigned i = 0; i < p->nlist; i++) {
		int k = p->list[i] <= (unsigned)maxos && maxos >= 0 ? idx[p->list[i]] : -1;

		if (k < 0) {
			snprintf(err, errlen,
				 "lockbench: placement (%s): CPU %u does not exist "
				 "(this topology has %u PUs)", p->text, p->list[i], t->npu);
			free(idx);
			return -EINVAL;
		}
		o[i] = (unsigned)k;
	}
	free(idx);
	*n = p->nlist;
	return 0;
}

int placement_order(const struct topo *t, const struct placement_policy *p,
		    unsigned **order, unsigned *n, char *err, size_t errlen)
{
	unsigned *o = malloc((t->npu + p->nlist + 1) * sizeof(*o));
	int rc = 0;

	if (!o)
		return -ENOMEM;
	for (unsigned i = 0; p->kind == PL_NODES && i < p->nlist; i++)
		if (p->list[i] >= t->nnodes) {
			snprintf(err, errlen,
				 "lockbench: placement (%s): node %u does not exist "
				 "(nodes 0-%u)", p->text, p->list[i], t->nnodes - 1);
			rc = -EINVAL;
		}
	if (!rc && p->kind == PL_CPUS)
		rc = cpus_order(t, p, o, n, err, errlen);
	else if (!rc) {
		rc = base_order(t, p, o, n);
		if (!rc && p->kind == PL_SPREAD)
			rc = spread_order(t, o, *n);
		if (!rc && !*n) {
			snprintf(err, errlen,
				 "lockbench: placement (%s): no usable CPU "
				 "(allowed and not isolated; see --isolated)", p->text);
			rc = -EINVAL;
		}
	}
	if (rc) {
		free(o);
		return rc;
	}
	*order = o;
	return 0;
}

int placement_assign(const struct topo *t, const struct placement_policy *p,
		     unsigned nthreads, struct thread_place *out, char *err,
		     size_t errlen)
{
	unsigned *o, n;
	int rc = placement_order(t, p, &o, &n, err, errlen);

	if (rc)
		return rc;
	for (unsigned i = 0; i < nthreads; i++) {
		const struct topo_pu *pu = &t->pu[o[i % n]];

		out[i] = (struct thread_place){
			.cpu = p->kind == PL_NONE ? -1 : pu->os,
			.pu = (int)o[i % n],
			.core = pu->core,
			.l3 = pu->l3,
			.node = pu->node,
			.node_os = pu->node_os,
			.package = pu->package,
			/* Wrapped round: PU i % n also runs thread i + n. */
			.shared = i % n + n < nthreads,
			.not_allowed = !pu->allowed,
		};
	}
	free(o);
	return 0;
}

/* The CPU thread i runs on (pinned, else its PU's when t knows it), or -1. */
static int place_cpu(const struct topo *t, const struct thread_place *pl)
{
	if (pl->cpu < 0 && t && pl->pu >= 0 && (unsigned)pl->pu < t->npu)
		return t->pu[pl->pu].os;
	return pl->cpu;
}

unsigned placement_distinct_cpus(const struct topo *t, const struct thread_place *pl,
				 unsigned n, int *cpus)
{
	unsigned k = 0;
	int maxcpu = -1;
	unsigned char *seen;

	for (unsigned i = 0; i < n; i++)
		maxcpu = place_cpu(t, &pl[i]) > maxcpu ? place_cpu(t, &pl[i]) : maxcpu;
	if (maxcpu < 0)
		return 0;
	/* A bitmap of the CPUs written so far: linear in threads + CPUs. */
	seen = calloc((size_t)maxcpu / 8 + 2, 1);
	if (!seen)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		int cpu = place_cpu(t, &pl[i]);

		if (cpu < 0 || seen[cpu / 8] & (1u << (cpu % 8)))
			continue;
		seen[cpu / 8] |= (unsigned char)(1u << (cpu % 8));
		cpus[k++] = cpu;
	}
	free(seen);
	return k;
}

unsigned placement_map_cpus(const struct topo *here, bool use_isolated, int *cpus)
{
	unsigned k = 0;

	for (unsigned i = 0; i < here->npu; i++) {
		const struct topo_pu *pu = &here->pu[i];

		if (!pu->allowed || (pu->isolated && !use_isolated))
			continue;
		if (cpus)
			cpus[k] = pu->os;
		k++;
	}
	return k;
}

int placement_map(const struct topo *here, bool use_isolated, struct thread_place *pl,
		  unsigned n, char *err, size_t errlen)
{
	int *cpus = calloc(here->npu + 1, sizeof(*cpus));
	unsigned k = cpus ? placement_map_cpus(here, use_isolated, cpus) : 0;

	if (!k) {
		free(cpus);
		snprintf(err, errlen, "lockbench: --map-topology: %s", cpus ?
			 "no usable CPU on this machine (allowed and not isolated; "
			 "see --isolated)" : "out of memory");
		return -EINVAL;
	}
	for (unsigned i = 0; i < n; i++) {
		int pu = topo_find_os(here, cpus[i % k]);

		if (pl[i].cpu < 0)
			continue;
		pl[i].synth_cpu = pl[i].cpu;
		pl[i].mapped = true;
		pl[i].cpu = cpus[i % k];
		pl[i].node_os = pu >= 0 ? here->pu[pu].node_os : -1;
		pl[i].shared = i % k + k < n;
		pl[i].not_allowed = false;
	}
	free(cpus);
	return (int)k;
}
