/* SPDX-License-Identifier: MIT */
#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

#include "../locks/registry.h"
#include "../output/render/render.h"
#include "../workloads/loops/loops.h"
#include "../workloads/workload.h"
#include "cmds.h"
#include "err.h"
#include "suggest.h"

static const char *caps_text(unsigned caps, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{LOCK_CAP_EXCLUSIVE, "exclusive"}, {LOCK_CAP_RW, "rw"},
		{LOCK_CAP_TRYLOCK, "trylock"}, {LOCK_CAP_SLEEPS, "sleeps"},
		{LOCK_CAP_NUMA, "numa"}, {LOCK_CAP_BROKEN, "broken"},
		{LOCK_CAP_NOLOCK, "nolock"},
	};
	size_t k = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (caps & names[i].bit)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "",
					      names[i].name);
	return buf;
}

/* Where a built lock came from (its plugin's identity: a kernel tree's
 * path, git state, files with their hashes, compiler and flags). */
static void list_source(const char *identity)
{
	json_t *o = json_loads(identity, 0, NULL), *git, *v;
	const char *k;

	if (!json_is_object(o)) {
		json_decref(o);
		return;
	}
	git = json_object_get(o, "git");
	printf("%-30s tree: %s", "", json_string_value(json_object_get(o, "tree")) ?: "?");
	if (json_is_object(git))
		printf(" (git %s, commit %.12s%s)\n",
		       json_string_value(json_object_get(git, "describe")) ?: "?",
		       json_string_value(json_object_get(git, "commit")) ?: "?",
		       json_is_true(json_object_get(git, "dirty")) ? ", dirty" : "");
	else
		printf(" (not a git work tree)\n");
	if (json_string_value(json_object_get(o, "arch")))
		printf("%-30s arch: %s\n", "", json_string_value(json_object_get(o, "arch")));
	json_object_foreach(json_object_get(o, "files"), k, v)
		printf("%-30s   %s sha256:%.16s\n", "", k, json_string_value(v) ?: "?");
	printf("%-30s compiler: %s\n%-30s flags: %s\n", "",
	       json_string_value(json_object_get(o, "compiler")) ?: "?", "",
	       json_string_value(json_object_get(o, "cflags")) ?: "?");
	json_decref(o);
}

static void list_locks(bool verbose, bool broken)
{
	printf("%-30s %-13s %s\n", "LOCK", "FAMILY", "DESCRIPTION [SOURCE]");
	for (unsigned i = 0; i < lock_registry_count(); i++) {
		const struct lock_entry *e = lock_registry_at(i);
		const struct lock_ops *o = e->ops;
		char caps[128];

		if ((o->caps & LOCK_CAP_BROKEN) && !broken)
			continue;
		printf("%-30s %-13s %s [%s]%s%s\n", o->name, lock_family_name(o->family),
		       o->desc, o->ref, e->origin ? " plugin: " : "",
		       e->origin ? e->origin : "");
		if (!verbose)
			continue;
		printf("%-30s caps: %s; lock %zu bytes, per-thread context %zu bytes; "
		       "loop: %s\n", "", caps_text(o->caps, caps, sizeof(caps)),
		       o->lock_size, o->ctx_size,
		       wl_loops_find(o) ? "inline (lock and unlock inlined)"
				: "generic (calls through the ops table)");
		if (e->identity)
			list_source(e->identity);
		for (unsigned k = 0; k < o->nopts; k++)
			printf("%-30s --lock-opt %s.%s=N  %s [%llu, range %llu-%llu]\n", "",
			       o->name, o->opts[k].name, o->opts[k].help,
			       (unsigned long long)o->opts[k].def,
			       (unsigned long long)o->opts[k].min,
			       (unsigned long long)o->opts[k].max);
		if (o->ncounters) {
			printf("%-30s counters:", "");
			for (unsigned k = 0; k < o->ncounters; k++)
				printf(" %s", o->counter_names[k]);
			printf("\n");
		}
	}
}

/* The options a workload declares, as --help shows them. */
static void list_wl_options(const struct workload_ops *wl)
{
	for (const struct wl_option *w = wl->options; w && w->name; w++) {
		const struct opt *o = opt_find(run_options(), w->name);
		const char *def = o ? (o->shown ? o->shown : o->def) : NULL;
		char lhs[64];

		if (!o)
			continue;
		snprintf(lhs, sizeof(lhs), "--%s %s", o->name, o->arg ? o->arg : "");
		printf("%-10s %-18s %s%s%s%s\n", "", lhs, o->help, def ? " [" : "",
		       def ? def : "", def ? "]" : "");
	}
}

/* One line per workload; with -v its long description and options. */
static void list_workloads(bool verbose)
{
	for (unsigned i = 0; workloads[i]; i++) {
		const char *d = workloads[i]->long_desc;

		printf("%-10s %s\n", workloads[i]->name, workloads[i]->desc);
		if (!verbose || !d)
			continue;
		while (*d) {
			const char *nl = strchr(d, '\n');
			int len = nl ? (int)(nl - d) : (int)strlen(d);

			printf("%-10s %.*s\n", "", len, d);
			d += len + (nl != NULL);
		}
		list_wl_options(workloads[i]);
		printf("\n");
	}
}

static void list_formats(void)
{
	for (unsigned i = 0; formats[i].name; i++)
		printf("%-10s %s\n", formats[i].name, formats[i].example);
}

static void list_placements(void)
{
	for (unsigned i = 0; i < nplacement_infos; i++)
		printf("%-12s %s\n", placement_infos[i].name, placement_infos[i].desc);
}

static const char *const list_what[] = {"locks", "workloads", "formats", "placements"};

int cmd_list(const struct cli *c)
{
	const char *what = c->argc ? c->argv[0] : NULL;
	const char *extra = c->argc > 1 ? c->argv[1] : NULL;
	bool all = !what, verbose = c->verbose, broken = c->include_broken;
	char hint[96];

	if (extra)
		cli_die("list: unexpected argument (%s)", extra);
	if (!all && strcmp(what, "locks") && strcmp(what, "workloads") &&
	    strcmp(what, "formats") && strcmp(what, "placements")) {
		cli_die("list (%s): %svalid: locks, workloads, formats, placements",
			what, suggest_text(hint, sizeof(hint), what, list_what, 4));
	}
	if (all || !strcmp(what, "locks"))
		list_locks(verbose, broken);
	if (all)
		printf("\nWORKLOADS\n");
	if (all || !strcmp(what, "workloads"))
		list_workloads(verbose);
	if (all)
		printf("\nFORMATS\n");
	if (all || !strcmp(what, "formats"))
		list_formats();
	if (all)
		printf("\nPLACEMENTS\n");
	if (all || !strcmp(what, "placements"))
		list_placements();
	return 0;
}

const char *topo_node_cpus(const struct topo *t, unsigned node, char *buf, size_t len)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	buf[0] = '\0';
	if (!set)
		return buf;
	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].node == node && t->pu[i].os >= 0)
			hwloc_bitmap_set(set, (unsigned)t->pu[i].os);
	if (hwloc_bitmap_list_snprintf(buf, len, set) < 0)
		buf[0] = '\0';
	hwloc_bitmap_free(set);
	return buf;
}

const char *size_text(unsigned long long b, char *buf, size_t len)
{
	if (b && b % (1ull << 30) == 0)
		snprintf(buf, len, "%llu GiB", b >> 30);
	else if (b && b % (1ull << 20) == 0)
		snprintf(buf, len, "%llu MiB", b >> 20);
	else if (b && b % 1024 == 0)
		snprintf(buf, len, "%llu KiB", b >> 10);
	else
		snprintf(buf, len, "%llu B", b);
	return buf;
}

/* "caches: L1 32 KiB x 2, L2 ..." (data and unified caches). */
static void print_caches(const struct topo *t, FILE *f)
{
	const char *sep = "";
	char sz[32];

	fprintf(f, "caches:");
	for (int i = 0; i < 4; i++)
		if (t->ncache[i]) {
			fprintf(f, "%s L%d %s x %u", sep, i + 1,
				size_text(t->cache_size[i], sz, sizeof(sz)), t->ncache[i]);
			sep = ",";
		}
	fprintf(f, "%s\n", *sep ? "" : " not reported");
}

/* The SLIT matrix, rows = from node, or one line saying there is none. */
static void print_distances(const struct topo *t, FILE *f)
{
	if (!t->dist) {
		fprintf(f, "numa distances: not reported\n");
		return;
	}
	fprintf(f, "numa distances (ACPI SLIT, from \\ to):\n%6s", "");
	for (unsigned j = 0; j < t->nnodes; j++)
		fprintf(f, " %4u", j);
	fputc('\n', f);
	for (unsigned i = 0; i < t->nnodes; i++) {
		fprintf(f, "%6u", i);
		for (unsigned j = 0; j < t->nnodes; j++)
			fprintf(f, " %4u", t->dist[i * t->nnodes + j]);
		fputc('\n', f);
	}
}

void print_topo(const struct topo *t, FILE *f)
{
	unsigned allowed = 0, isolated = 0;
	char cpus[1024];

	fprintf(f, "topology: %s\n", t->source);
	fprintf(f, "cpu model: %s\n", t->cpu_model);
	fprintf(f, "packages: %u  numa nodes: %u  l3 groups: %u  cores: %u  pus: %u\n",
		t->npackages, t->nnodes, t->nl3, t->ncores, t->npu);
	print_caches(t, f);
	for (unsigned i = 0; i < t->npu; i++) {
		allowed += t->pu[i].allowed;
		isolated += t->pu[i].isolated;
	}
	fprintf(f, "allowed: %u of %u PUs  isolated: %u\n", allowed, t->npu, isolated);
	for (unsigned n = 0; n < t->nnodes; n++)
		fprintf(f, "node %u: cpus %s\n", n, topo_node_cpus(t, n, cpus, sizeof(cpus)));
	print_distances(t, f);
}

int print_placement(const struct topo *t, const struct placement_policy *p,
		    unsigned n, FILE *f, char *err, size_t errlen)
{
	struct thread_place *pl = calloc(n, sizeof(*pl));

	if (!pl)
		return -1;
	if (placement_assign(t, p, n, pl, err, errlen)) {
		free(pl);
		return -1;
	}
	fprintf(f, "\nplacement %s, %u thread%s:\n", p->text, n, n == 1 ? "" : "s");
	fprintf(f, "%-7s %-5s %-5s %-4s %-5s %-8s %s\n", "thread", "cpu", "core", "l3",
		"node", "package", "note");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "%-7u %-5d %-5u %-4u %-5u %u%s%s\n", i, pl[i].cpu, pl[i].core,
			pl[i].l3, pl[i].node, pl[i].package,
			pl[i].shared ? "        shared-cpu" : "",
			pl[i].not_allowed ? " not-allowed" : "");
	free(pl);
	return 0;
}
