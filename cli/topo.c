/* SPDX-License-Identifier: MIT */
/*
 * `lockbench topo`: the machine (or --topology) as lockbench sees it,
 * where -t N threads go under -p, and with --c2c the core-to-core
 * latency matrix.
 */
#include <stdlib.h>

#include "../topology/cpulist.h"
#include "../workloads/probe.h"
#include "cmds.h"
#include "err.h"
#include "machctl.h"

/* `topo --c2c`: probe every pair of the CPUs the placement may use. */
static void topo_c2c(const struct topo *t, const struct placement_policy *p)
{
	unsigned *order, n = 0, reps = 5;
	int *cpus;
	double *m;
	char err[256];

	if (!t->real)
		cli_die("--c2c measures this machine: not with --topology");
	if (placement_order(t, p, &order, &n, err, sizeof(err)))
		cli_die_msg(err);
	cpus = cli_calloc(n + 1, sizeof(*cpus));
	m = cli_calloc((size_t)n * n + 1, sizeof(*m));
	for (unsigned i = 0; i < n; i++)
		cpus[i] = t->pu[order[i]].os;
	if (probe_matrix(cpus, n, reps, m))
		cli_warn("core-to-core probe failed");
	print_c2c(cpus, n, m, reps, stdout);
	free(order);
	free(cpus);
	free(m);
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
	if (numlist_parse(c->threads, usable, MAX_THREADS, &l, &n, err, sizeof(err)) ||
	    n != 1 || !l[0])
		cli_die("-t (%s): topo takes one thread count, 1 to %d or max",
			c->threads, MAX_THREADS);
	n = l[0];
	free(l);
	return n;
}

int cmd_topo(const struct cli *c)
{
	struct topo t;
	struct placement_policy p;
	char err[512];
	unsigned n = 0;

	if (topo_load(&t, c->topology, isolated_cpus(), err, sizeof(err)))
		cli_die_msg(err);
	if (placement_parse(c->placement, &p, err, sizeof(err)))
		cli_die_msg(err);
	p.use_isolated = c->isolated;
	/* Validate everything before printing anything: bad input gets one
	 * line and exit 2, not a half-printed report. */
	if (c->threads)
		n = topo_threads(c, &t, &p);
	print_topo(&t, stdout);
	if (c->c2c)
		topo_c2c(&t, &p);
	if (n && print_placement(&t, &p, n, stdout, err, sizeof(err)))
		cli_die_msg(err);
	placement_policy_free(&p);
	topo_free(&t);
	return 0;
}
