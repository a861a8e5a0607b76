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

/* Sort keys for the `cores` order: SMT rank first, then hwloc order. */
static const struct topo *cmp_topo;

static int cmp_cores(const void *a, const void *b)
{
	const struct topo_pu *x = &cmp_topo->pu[*(const unsigned *)a];
	const struct topo_pu *y = &cmp_topo->pu[*(const unsigned *)b];

	if (x->smt != y->smt)
		return x->smt < y->smt ? -1 : 1;
	return *(const unsigned *)a < *(const unsigned *)b ? -1 : 1;
}

static bool pu_usable(const struct topo *t, const struct placement_policy *p,
		      unsigned i)
{
	return t->pu[i].allowed && (p->use_isolated || !t->pu[i].isolated);
}

static bool in_list(const unsigned *l, unsigned n, unsigned x)
{
	for (unsigned i = 0; i < n; i++)
		if (l[i] == x)
			return true;
	return false;
}

/* Usable PUs in `cores` order (or hwloc order for smt), node-filtered. */
static unsigned base_order(const struct topo *t,
			   const struct placement_policy *p, unsigned *o)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->npu; i++)
		if (pu_usable(t, p, i) &&
		    (p->kind != PL_NODES || in_list(p->list, p->nlist, t->pu[i].node)))
			o[n++] = i;
	if (p->kind != PL_SMT) {
		/* qsort's comparator has no context argument; placement runs
		 * on the main thread only. */
		cmp_topo = t;
		qsort(o, n, sizeof(*o), cmp_cores);
	}
	return n;
}

/* Node visiting order for spread: first node of each package, then the
 * second, ... so consecutive threads alternate packages. */
static int node_rank(const struct topo *t, unsigned node)
{
	unsigned pkg = 0, before = 0;

	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].node == node) {
			pkg = t->pu[i].package;
			break;
		}
	/* Index of `node` among the nodes of its package. */
	for (unsigned m = 0; m < node; m++)
		for (unsigned i = 0; i < t->npu; i++)
			if (t->pu[i].node == m) {
				before += t->pu[i].package == pkg;
				break;
			}
	return (int)(before * t->npackages + pkg);
}

/* Round-robin the cores order over NUMA nodes. */
static void spread_order(const struct topo *t, unsigned *o, unsigned n)
{
	unsigned *out = malloc(n * sizeof(*out)), k = 0;
	bool *used = calloc(n, sizeof(*used));
	int maxrank = 0;

	if (!out || !used)
		goto out;
	for (unsigned i = 0; i < t->nnodes; i++)
		if (node_rank(t, i) > maxrank)
			maxrank = node_rank(t, i);
	while (k < n)
		for (int r = 0; r <= maxrank && k < n; r++)
			for (unsigned i = 0; i < n; i++)
				if (!used[i] && node_rank(t, t->pu[o[i]].node) == r) {
					used[i] = true;
					out[k++] = o[i];
					break;
				}
	memcpy(o, out, n * sizeof(*o));
out:
	free(out);
	free(used);
}

static int cpus_order(const struct topo *t, const struct placement_policy *p,
		      unsigned *o, unsigned *n, char *err, size_t errlen)
{
	for (unsigned i = 0; i < p->nlist; i++) {
		int k = topo_find_os(t, (int)p->list[i]);

		if (k < 0) {
			snprintf(err, errlen,
				 "lockbench: placement (%s): CPU %u does not exist "
				 "(this topology has %u PUs)", p->text, p->list[i], t->npu);
			return -EINVAL;
		}
		o[i] = (unsigned)k;
	}
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
		*n = base_order(t, p, o);
		if (p->kind == PL_SPREAD)
			spread_order(t, o, *n);
		if (!*n) {
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

unsigned placement_distinct_cpus(const struct topo *t, const struct thread_place *pl,
				 unsigned n, int *cpus)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		int cpu = pl[i].cpu;
		bool seen;

		if (cpu < 0 && t && pl[i].pu >= 0 && (unsigned)pl[i].pu < t->npu)
			cpu = t->pu[pl[i].pu].os;
		seen = cpu < 0;
		for (unsigned j = 0; j < k && !seen; j++)
			seen = cpus[j] == cpu;
		if (!seen)
			cpus[k++] = cpu;
	}
	return k;
}
