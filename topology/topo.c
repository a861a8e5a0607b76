/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <hwloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cpulist.h"
#include "machine.h"
#include "topo.h"

static bool looks_like_xml(const char *spec)
{
	size_t n = strlen(spec);
	struct stat st;

	return (n > 4 && !strcmp(spec + n - 4, ".xml")) ||
	       (stat(spec, &st) == 0 && S_ISREG(st.st_mode));
}

/*
 * A synthetic description's size, before hwloc builds it: the product of
 * the level arities ("package:2 core:4 pu:2" is 16 PUs), the widest
 * level and the number of levels: -EINVAL with err when above
 * TOPO_MAX_PUS, TOPO_MAX_ARITY or TOPO_MAX_DEPTH.  Tokens that carry no arity (attributes in
 * parentheses) are skipped; hwloc checks the syntax afterwards.
 */
static int synthetic_check(const char *spec, char *err, size_t errlen)
{
	unsigned long long pus = 1, wide = 0;
	unsigned depth = 0;
	const char *p = spec;

	while (*p) {
		size_t n = strcspn(p, " \t\n");
		const char *colon = memchr(p, ':', n), *num = colon ? colon + 1 : p;
		char *end;
		unsigned long long a;

		if (n && *p != '(' && *num >= '0' && *num <= '9') {
			a = strtoull(num, &end, 10);
			depth++;
			wide = a > wide ? a : wide;
			/* saturate: both factors stay at most TOPO_MAX_PUS + 1 */
			pus *= a > TOPO_MAX_PUS ? TOPO_MAX_PUS + 1 : a;
			pus = pus > TOPO_MAX_PUS ? TOPO_MAX_PUS + 1 : pus;
		}
		p += n;
		p += strspn(p, " \t\n");
	}
	if (depth > TOPO_MAX_DEPTH) {
		snprintf(err, errlen, "lockbench: topology (%s): %u levels; lockbench "
			 "handles at most %d", spec, depth, TOPO_MAX_DEPTH);
		return -EINVAL;
	}
	if (wide > TOPO_MAX_ARITY && pus <= TOPO_MAX_PUS) {
		snprintf(err, errlen, "lockbench: topology (%s): a level of %llu objects "
			 "per parent; at most %d (hwloc inserts them in quadratic time)",
			 spec, wide, TOPO_MAX_ARITY);
		return -EINVAL;
	}
	if (pus > TOPO_MAX_PUS) {
		snprintf(err, errlen, "lockbench: topology (%s): more than %d PUs "
			 "(the product of the arities); lockbench handles at most %d",
			 spec, TOPO_MAX_PUS, TOPO_MAX_PUS);
		return -EINVAL;
	}
	return 0;
}

#define INDEX_MAX_S "1048576" /* TOPO_MAX_INDEX */
_Static_assert(TOPO_MAX_INDEX == 1048576, "INDEX_MAX_S spells TOPO_MAX_INDEX");

static int index_refuse(const char *spec, const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "lockbench: topology (%s): %s; lockbench takes CPU and "
		 "node indexes below %u", spec, what, TOPO_MAX_INDEX);
	return -EINVAL;
}

/* A decimal number at p, saturated above TOPO_MAX_INDEX; *end after it. */
static unsigned long long index_num(const char *p, const char **end)
{
	unsigned long long v = 0;

	for (; *p >= '0' && *p <= '9'; p++)
		v = v > TOPO_MAX_INDEX ? v : v * 10 + (unsigned)(*p - '0');
	*end = p;
	return v;
}

/* Every number of a synthetic description's indexes= lists (indexes or
 * the counts of an interleaving) below TOPO_MAX_INDEX. */
static int synthetic_index_check(const char *spec, char *err, size_t errlen)
{
	for (const char *p = strstr(spec, "indexes="); p; p = strstr(p, "indexes=")) {
		for (p += 8; *p && *p != ')' && *p != ' '; ) {
			const char *end;
			unsigned long long v = index_num(p, &end);

			if (end != p && v >= TOPO_MAX_INDEX)
				return index_refuse(spec, "an index of " INDEX_MAX_S " or more", err, errlen);
			p = end == p ? p + 1 : end;
		}
	}
	return 0;
}

/*
 * An XML file's os_index attributes below TOPO_MAX_INDEX, and its
 * bitmaps (an attribute ending in "set": cpuset, nodeset, ...; words of
 * 32 bits, comma separated) no longer than that many bits; read as a
 * stream, before hwloc.
 */
static int xml_index_check(const char *spec, char *err, size_t errlen)
{
	FILE *f = fopen(spec, "r");
	char w[16] = "";
	unsigned long long v;
	int c, rc = 0;

	if (!f)
		return 0;	/* hwloc says it cannot read it */
	while (!rc && (c = getc(f)) != EOF) {
		memmove(w, w + 1, sizeof(w) - 2);
		w[sizeof(w) - 2] = (char)c;
		if (c != '"')
			continue;
		if (!strcmp(w + sizeof(w) - 11, "os_index=\"")) {
			for (v = 0; (c = getc(f)) >= '0' && c <= '9';)
				v = v > TOPO_MAX_INDEX ? v : v * 10 + (unsigned)(c - '0');
			if (v >= TOPO_MAX_INDEX)
				rc = index_refuse(spec, "an os_index of " INDEX_MAX_S " or more", err, errlen);
		} else if (!strcmp(w + sizeof(w) - 6, "set=\"")) {
			for (v = 32; (c = getc(f)) != EOF && c != '"';)
				v += c == ',' ? 32 : 0;
			if (v > TOPO_MAX_INDEX)
				rc = index_refuse(spec, "a cpuset or nodeset of more than " INDEX_MAX_S " bits", err, errlen);
		}
	}
	fclose(f);
	return rc;
}

/* Ask hwloc for the topology named by spec; 0 or -EINVAL with err. */
static int topo_open(hwloc_topology_t *h, const char *spec, char *err,
		     size_t errlen)
{
	int rc = 0;

	if (hwloc_topology_init(h))
		return -ENOMEM;
	if (spec && *spec) {
		struct stat st;

		/* hwloc would open a FIFO and wait for a writer forever. */
		if (looks_like_xml(spec) && !stat(spec, &st) && !S_ISREG(st.st_mode)) {
			snprintf(err, errlen, "lockbench: topology (%s): not a regular file",
				 spec);
			hwloc_topology_destroy(*h);
			return -EINVAL;
		}
		if (looks_like_xml(spec) ? xml_index_check(spec, err, errlen) :
		    synthetic_check(spec, err, errlen) ||
		    synthetic_index_check(spec, err, errlen)) {
			hwloc_topology_destroy(*h);
			return -EINVAL;
		}
		rc = looks_like_xml(spec) ? hwloc_topology_set_xml(*h, spec)
					  : hwloc_topology_set_synthetic(*h, spec);
		if (rc) {
			snprintf(err, errlen,
				 "lockbench: topology (%s): %s", spec,
				 looks_like_xml(spec)
					 ? "cannot read this hwloc XML file"
					 : "not a valid hwloc synthetic description "
					   "(e.g. \"package:2 numa:2 core:12 pu:2\")");
			hwloc_topology_destroy(*h);
			return -EINVAL;
		}
	}
	if (hwloc_topology_load(*h)) {
		snprintf(err, errlen, "lockbench: topology (%s): hwloc failed to load it",
			 spec && *spec ? spec : "this machine");
		hwloc_topology_destroy(*h);
		return -EINVAL;
	}
	return 0;
}

/* Dense index of the ancestor of `pu` of `type`, or `fallback`. */
static unsigned ancestor_idx(hwloc_topology_t h, hwloc_obj_type_t type,
			     hwloc_obj_t pu, unsigned fallback)
{
	hwloc_obj_t a = hwloc_get_ancestor_obj_by_type(h, type, pu);

	return a ? a->logical_index : fallback;
}

/* NUMA node (dense, OS) holding `pu` in its cpuset; 0/0 when none. */
static void pu_node(hwloc_topology_t h, hwloc_obj_t pu, unsigned *dense,
		    int *os)
{
	hwloc_obj_t n = NULL;

	*dense = 0;
	*os = 0;
	while ((n = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_NUMANODE, n)))
		if (n->cpuset && hwloc_bitmap_isset(n->cpuset, pu->os_index)) {
			*dense = n->logical_index;
			*os = (int)n->os_index;
			return;
		}
}

static void fill_pu(hwloc_topology_t h, hwloc_obj_t obj, struct topo_pu *p)
{
	hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, obj);

	p->os = (int)obj->os_index;
	p->package = ancestor_idx(h, HWLOC_OBJ_PACKAGE, obj, 0);
	p->core = core ? core->logical_index : obj->logical_index;
	p->l3 = ancestor_idx(h, HWLOC_OBJ_L3CACHE, obj, p->package);
	pu_node(h, obj, &p->node, &p->node_os);
	p->smt = 0;
	if (core)
		for (hwloc_obj_t s = obj->prev_cousin;
		     s && hwloc_get_ancestor_obj_by_type(h, HWLOC_OBJ_CORE, s) == core;
		     s = s->prev_cousin)
			p->smt++;
	p->allowed = true;
}

static void count_ids(struct topo *t)
{
	for (unsigned i = 0; i < t->npu; i++) {
		struct topo_pu *p = &t->pu[i];

		if (p->core + 1 > t->ncores)
			t->ncores = p->core + 1;
		if (p->l3 + 1 > t->nl3)
			t->nl3 = p->l3 + 1;
		if (p->node + 1 > t->nnodes)
			t->nnodes = p->node + 1;
		if (p->package + 1 > t->npackages)
			t->npackages = p->package + 1;
	}
}

/* Mark the PUs this process may run on (real machine only). */
static void mark_allowed(struct topo *t)
{
	/* The kernel refuses (EINVAL) a set smaller than its own CPU mask,
	 * which may hold more than cpu_set_t's 1024 CPUs: start from the
	 * largest CPU number here and double until it fits (CPU_ALLOC(3)). */
	size_t ncpus = 1024, size = 0;
	cpu_set_t *set = NULL;
	int rc = -1;

	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].os >= 0 && (size_t)t->pu[i].os >= ncpus)
			ncpus = (size_t)t->pu[i].os + 1;
	for (; ncpus <= (1u << 22) && (set = CPU_ALLOC(ncpus)); ncpus *= 2) {
		size = CPU_ALLOC_SIZE(ncpus);
		rc = sched_getaffinity(0, size, set);
		if (!rc || errno != EINVAL)
			break;
		CPU_FREE(set);
		set = NULL;
	}
	if (rc) {
		if (set)
			CPU_FREE(set);
		return;
	}
	for (unsigned i = 0; i < t->npu; i++)
		t->pu[i].allowed = t->pu[i].os >= 0 &&
				   CPU_ISSET_S((size_t)t->pu[i].os, size, set);
	CPU_FREE(set);
}

static void mark_isolated(struct topo *t, const char *list)
{
	unsigned *cpus = NULL, n = 0;

	if (!list || cpulist_parse(list, &cpus, &n, NULL, 0))
		return;
	for (unsigned i = 0; i < n; i++) {
		int k = topo_find_os(t, (int)cpus[i]);

		if (k >= 0)
			t->pu[k].isolated = true;
	}
	free(cpus);
}

/* This machine: the kernel's model name (machine_cpu_model(), the same
 * as system show's); a synthetic or XML topology: hwloc's CPUModel. */
static void read_model(hwloc_topology_t h, struct topo *t)
{
	hwloc_obj_t pkg = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_PACKAGE, NULL);
	const char *m = pkg ? hwloc_obj_get_info_by_name(pkg, "CPUModel") : NULL;
	size_t n;

	if (!t->real || !machine_cpu_model(t->cpu_model, sizeof(t->cpu_model)))
		snprintf(t->cpu_model, sizeof(t->cpu_model), "%s", m ? m : "unknown");
	n = strlen(t->cpu_model);
	while (n && t->cpu_model[n - 1] == ' ')
		t->cpu_model[--n] = 0;
}

/* Sizes and counts of the data/unified caches, L1 to L4. */
static void read_caches(hwloc_topology_t h, struct topo *t)
{
	static const hwloc_obj_type_t types[4] = {
		HWLOC_OBJ_L1CACHE, HWLOC_OBJ_L2CACHE, HWLOC_OBJ_L3CACHE, HWLOC_OBJ_L4CACHE,
	};

	for (int i = 0; i < 4; i++) {
		hwloc_obj_t c = hwloc_get_next_obj_by_type(h, types[i], NULL);

		t->ncache[i] = (unsigned)hwloc_get_nbobjs_by_type(h, types[i]);
		t->cache_size[i] = c && c->attr ? c->attr->cache.size : 0;
	}
}

/*
 * The OS's NUMA latency matrix (hwloc's "NUMALatency", from the ACPI
 * SLIT on Linux) into t->dist, or NULL when none is reported or it does
 * not cover every node.
 */
static void read_distances(hwloc_topology_t h, struct topo *t)
{
	struct hwloc_distances_s *d[4];
	unsigned nr = 4, n;

	if (hwloc_distances_get_by_type(h, HWLOC_OBJ_NUMANODE, &nr, d,
					HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) || !nr)
		return;
	n = d[0]->nbobjs;
	if (n == t->nnodes && (t->dist = calloc((size_t)n * n, sizeof(*t->dist)))) {
		for (unsigned i = 0; i < n; i++)
			for (unsigned j = 0; j < n; j++)
				t->dist[d[0]->objs[i]->logical_index * n +
					d[0]->objs[j]->logical_index] =
					(unsigned)d[0]->values[i * n + j];
	}
	for (unsigned i = 0; i < (nr < 4 ? nr : 4); i++)
		hwloc_distances_release(h, d[i]);
}

int topo_load(struct topo *t, const char *spec, const char *isolated_list,
	      char *err, size_t errlen)
{
	hwloc_topology_t h;
	hwloc_obj_t obj = NULL;
	int depth, rc;

	memset(t, 0, sizeof(*t));
	rc = topo_open(&h, spec, err, errlen);
	if (rc)
		return rc;
	depth = hwloc_get_type_depth(h, HWLOC_OBJ_PU);
	t->npu = (unsigned)hwloc_get_nbobjs_by_depth(h, depth);
	t->pu = calloc(t->npu ? t->npu : 1, sizeof(*t->pu));
	if (!t->pu) {
		hwloc_topology_destroy(h);
		return -ENOMEM;
	}
	for (unsigned i = 0; (obj = hwloc_get_next_obj_by_type(h, HWLOC_OBJ_PU, obj)); i++)
		fill_pu(h, obj, &t->pu[i]);
	count_ids(t);
	t->real = !spec || !*spec;
	if (t->real)
		mark_allowed(t);
	mark_isolated(t, isolated_list);
	read_model(h, t);
	read_caches(h, t);
	read_distances(h, t);
	snprintf(t->source, sizeof(t->source), "%s%s",
		 t->real ? "this machine" : looks_like_xml(spec) ? "xml: " : "synthetic: ",
		 t->real ? "" : spec);
	hwloc_topology_destroy(h);
	return 0;
}

void topo_free(struct topo *t)
{
	free(t->pu);
	free(t->dist);
	memset(t, 0, sizeof(*t));
}

int topo_find_os(const struct topo *t, int os)
{
	/* OS numbers are unique, and most machines number PU i as CPU i:
	 * then this is the answer without a scan. */
	if (os >= 0 && (unsigned)os < t->npu && t->pu[os].os == os)
		return os;
	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].os == os)
			return (int)i;
	return -1;
}
