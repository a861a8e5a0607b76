/* SPDX-License-Identifier: MIT */
/*
 * `lockbench topo`: the machine (or --topology) as lockbench sees it,
 * where -t N threads go under -p, and with --c2c the core-to-core
 * latency matrix; as text, or with -f json as one JSON document.
 * Everything is validated before anything is printed.
 */
#include <stdlib.h>
#include <string.h>

#include "../topology/cpulist.h"
#include "../topology/host/probe.h"
#include "cmds.h"
#include "err.h"
#include "machctl.h"

/* `topo --c2c`: probe every pair of the CPUs the placement may use
 * into *m (n x n; the caller frees *cpus and *m). */
static void topo_c2c(const struct topo *t, const struct placement_policy *p,
		     int **cpus, unsigned *n, double **m, unsigned reps)
{
	unsigned *order;
	char err[256];

	if (placement_order(t, p, &order, n, err, sizeof(err)))
		cli_die_msg(err);
	*cpus = cli_calloc(*n + 1, sizeof(**cpus));
	*m = cli_calloc((size_t)*n * *n + 1, sizeof(**m));
	for (unsigned i = 0; i < *n; i++)
		(*cpus)[i] = t->pu[order[i]].os;
	if (probe_matrix(*cpus, *n, reps, *m))
		cli_warn("core-to-core probe failed");
	free(order);
}

/* The -t of `topo`: one thread count (or max); exits 2 otherwise. */
static unsigned topo_threads(const struct cli *c, const struct topo *t,
			     const struct placement_policy *p)
{
	unsigned *l = NULL, usable = 0, *order, n = 0;
	char err[512];

	if (placement_order(t, p, &order, &usable, err, sizeof(err)))
		cli_die_msg(err);
	free(order);
	if (usable > MAX_THREADS)
		usable = MAX_THREADS;
	if (numlist_parse(c->threads, usable, MAX_THREADS, &l, &n, err, sizeof(err)) ||
	    n != 1 || !l[0])
		cli_die("-t (%s): topo takes one thread count, at least 1 and at "
			"most %d, or max", c->threads, MAX_THREADS);
	n = l[0];
	free(l);
	return n;
}

/* -f of topo and system show: table (the text report) or json. */
bool want_json(const char *cmd, const char *formats)
{
	if (!strcmp(formats, "json"))
		return true;
	if (strcmp(formats, "table"))
		cli_die("%s -f (%s): valid: table (text), json", cmd, formats);
	return false;
}

/* ---- JSON ----------------------------------------------------------- */

static json_t *caches_json(const struct topo *t)
{
	json_t *a = json_array();

	for (int i = 0; i < 4; i++)
		if (t->ncache[i])
			json_array_append_new(a, json_pack("{s:i, s:I, s:i}", "level", i + 1,
				"size_bytes", (json_int_t)t->cache_size[i], "count", t->ncache[i]));
	return a;
}

static json_t *nodes_json(const struct topo *t)
{
	json_t *a = json_array();
	char cpus[1024];

	for (unsigned n = 0; n < t->nnodes; n++) {
		json_t *dist = json_null();

		if (t->dist) {
			dist = json_array();
			for (unsigned j = 0; j < t->nnodes; j++)
				json_array_append_new(dist, json_integer(t->dist[n * t->nnodes + j]));
		}
		json_array_append_new(a, json_pack("{s:i, s:s, s:o}", "node", n, "cpus",
			topo_node_cpus(t, n, cpus, sizeof(cpus)), "distances", dist));
	}
	return a;
}

static json_t *placement_doc(const struct topo *t, const struct placement_policy *p,
			     unsigned n)
{
	struct thread_place *pl = cli_calloc(n, sizeof(*pl));
	json_t *a = json_array();
	char err[512];

	if (placement_assign(t, p, n, pl, err, sizeof(err)))
		cli_die_msg(err);
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:b}",
			"thread", i, "cpu", pl[i].cpu, "core", pl[i].core, "l3", pl[i].l3,
			"node", pl[i].node, "package", pl[i].package,
			"shared_cpu", pl[i].shared, "not_allowed", pl[i].not_allowed));
	free(pl);
	return json_pack("{s:s, s:o}", "policy", p->text, "threads", a);
}

static json_t *c2c_doc(const int *cpus, unsigned n, const double *m, unsigned reps)
{
	json_t *c = json_array(), *rows = json_array();

	for (unsigned i = 0; i < n; i++) {
		json_t *r = json_array();

		json_array_append_new(c, json_integer(cpus[i]));
		for (unsigned j = 0; j < n; j++)
			json_array_append_new(r, i == j || !(m[i * n + j] > 0) ? json_null()
								  : json_real(m[i * n + j]));
		json_array_append_new(rows, r);
	}
	return json_pack("{s:o, s:i, s:o}", "cpus", c, "probes", reps, "round_trip_ns", rows);
}

static json_t *topo_doc(const struct topo *t)
{
	unsigned allowed = 0, isolated = 0;

	for (unsigned i = 0; i < t->npu; i++) {
		allowed += t->pu[i].allowed;
		isolated += t->pu[i].isolated;
	}
	return json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:b}",
			 "topology", t->source, "cpu_model", t->cpu_model,
			 "packages", t->npackages, "numa_nodes", t->nnodes,
			 "l3_groups", t->nl3, "cores", t->ncores, "pus", t->npu,
			 "allowed", allowed, "isolated", isolated,
			 "caches", caches_json(t), "nodes", nodes_json(t),
			 "distances_reported", t->dist != NULL);
}

/* ---- the command ---------------------------------------------------- */

int cmd_topo(const struct cli *c)
{
	struct topo t;
	struct placement_policy p;
	char err[512];
	unsigned n = 0, nc = 0, reps = 5;
	bool json = want_json("topo", c->formats);
	int *cpus = NULL;
	double *m = NULL;
	json_t *doc;

	if (topo_load(&t, c->topology, isolated_cpus(), err, sizeof(err)))
		cli_die_msg(err);
	if (placement_parse(c->placement, &p, err, sizeof(err)))
		cli_die_msg(err);
	p.use_isolated = c->isolated;
	/* Validate everything before printing anything: bad input gets one
	 * line and exit 2, not a half-printed report. */
	if (c->threads)
		n = topo_threads(c, &t, &p);
	if (c->c2c && !t.real)
		cli_die("--c2c measures this machine: not with --topology");
	if (c->c2c)
		topo_c2c(&t, &p, &cpus, &nc, &m, reps);
	if (json) {
		doc = topo_doc(&t);
		json_object_set_new(doc, "placement", n ? placement_doc(&t, &p, n) : json_null());
		json_object_set_new(doc, "c2c", c->c2c ? c2c_doc(cpus, nc, m, reps) : json_null());
		if (json_dumpf(doc, stdout, JSON_INDENT(2)) || putchar('\n') == EOF)
			cli_die("writing the topology failed");
		json_decref(doc);
	} else {
		print_topo(&t, stdout);
		if (c->c2c)
			print_c2c(cpus, nc, m, reps, stdout);
		if (n && print_placement(&t, &p, n, stdout, err, sizeof(err)))
			cli_die_msg(err);
	}
	free(cpus);
	free(m);
	placement_policy_free(&p);
	topo_free(&t);
	return 0;
}
