/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../locks/registry.h"
#include "../topology/cpulist.h"
#include "../topology/mem.h"
#include "../workloads/layout.h"
#include "config.h"
#include "err.h"
#include "suggest.h"

/* Registered lock names (the broken ones only with --include-broken). */
static unsigned lock_names(const char **names, unsigned max, bool broken)
{
	unsigned n = 0;

	for (unsigned i = 0; i < lock_registry_count() && n < max; i++) {
		const struct lock_ops *o = lock_registry_at(i)->ops;

		if (!(o->caps & LOCK_CAP_BROKEN) || broken)
			names[n++] = o->name;
	}
	return n;
}

static const struct lock_entry *lock_or_die(const char *name, bool broken)
{
	const struct lock_entry *e = lock_registry_find(name);
	const char **names = cli_calloc(lock_registry_count() + 1, sizeof(*names));
	unsigned n = lock_names(names, lock_registry_count(), broken);

	if (e && (!(e->ops->caps & LOCK_CAP_BROKEN) || broken)) {
		free(names);
		return e;
	}
	cli_die_unknown("lock", name, names, n, e ? " without --include-broken" : NULL);
}

static void config_locks(struct config *cf, const struct cli *c)
{
	char *list = cli_strdup(c->locks), *save = NULL;
	unsigned n = 0;

	cf->locks = cli_calloc(strlen(c->locks) + 1, sizeof(*cf->locks));
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct lock_entry *e = lock_or_die(t, c->include_broken);
		unsigned need = cf->workload->needs_caps;

		for (unsigned i = 0; i < n; i++)
			if (cf->locks[i] == e)
				cli_die("lock listed twice (%s)", t);
		if ((e->ops->caps & need) != need)
			cli_die("lock %s cannot run workload %s", t, cf->workload->name);
		cf->locks[n++] = e;
	}
	if (!n)
		cli_die("--locks: empty list");
	cf->nlocks = n;
	free(list);
}

/* -w layout: one variant per --layouts entry, each run with `null`. */
static void config_layouts(struct config *cf, const struct cli *c)
{
	char *list = cli_strdup(c->layouts), *save = NULL;
	const struct lock_entry *null = lock_registry_find("null");
	unsigned n = 0;

	if (c->locks_given)
		cli_die("-w layout: the columns are --layouts, not locks (drop -l %s)",
			c->locks);
	cf->locks = cli_calloc(WL_NLAYOUTS, sizeof(*cf->locks));
	cf->layouts = cli_calloc(WL_NLAYOUTS, sizeof(*cf->layouts));
	if (!null)
		cli_die("out of memory");
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int l = layout_parse(t);

		if (l < 0)
			cli_die_unknown("layout", t, wl_layout_names, WL_NLAYOUTS, NULL);
		for (unsigned i = 0; i < n; i++)
			if (cf->layouts[i] == (unsigned)l)
				cli_die("layout listed twice (%s)", t);
		cf->locks[n] = null;
		cf->layouts[n++] = (unsigned)l;
	}
	if (!n)
		cli_die("--layouts: empty list");
	cf->nlocks = n;
	free(list);
}

/* The index of tunable `key` of lock o; exits 2 naming a close one. */
static unsigned lock_opt_index(const struct lock_ops *o, const char *key,
			       const char *arg)
{
	const char *names[64];
	char hint[96];
	unsigned k;

	for (k = 0; k < o->nopts && k < 64; k++) {
		if (!strcmp(o->opts[k].name, key))
			return k;
		names[k] = o->opts[k].name;
	}
	cli_die("--lock-opt (%s): %s has no option %s; %ssee 'lockbench list locks -v'",
		arg, o->name, key, suggest_text(hint, sizeof(hint), key, names, k));
}

/* Apply one --lock-opt LOCK.KEY=V to the variants running LOCK; a lock
 * that is not among them is refused, not skipped. */
static void config_lock_opt(struct config *cf, const char *s)
{
	const char *dot = strchr(s, '.'), *eq = strchr(s, '=');
	char lock[64], key[64], name[160];
	const struct lock_entry *e;
	struct opt row = {.name = name, .type = OPT_UINT};
	unsigned long long v;
	unsigned k;
	bool used = false;

	if (!dot || !eq || eq < dot || dot - s >= 64 || eq - dot - 1 >= 64)
		cli_die("--lock-opt (%s): expected LOCK.KEY=VALUE", s);
	snprintf(lock, sizeof(lock), "%.*s", (int)(dot - s), s);
	snprintf(key, sizeof(key), "%.*s", (int)(eq - dot - 1), dot + 1);
	e = lock_registry_find(lock);
	if (!e)
		cli_die("--lock-opt (%s): unknown lock %s", s, lock);
	k = lock_opt_index(e->ops, key, s);
	snprintf(name, sizeof(name), "lock-opt %s.%s", lock, key);
	row.min = (double)e->ops->opts[k].min;
	row.max = (double)e->ops->opts[k].max;
	opt_set(&row, &v, eq + 1);
	for (unsigned i = 0; i < cf->nlocks; i++)
		if (cf->locks[i] == e) {
			cf->lock_opt[i][k] = v;
			used = true;
		}
	if (!used)
		cli_die("--lock-opt (%s): %s is not among the locks run (-l); "
			"add it or drop the option", s, lock);
}

/* The same LOCK.KEY given twice: refused (which one was meant?). */
static void lock_opts_once(const struct cli *c)
{
	const struct opt_strlist *l = &c->lock_opts;

	for (unsigned i = 0; i < l->n; i++)
		for (unsigned j = 0; j < i; j++) {
			size_t a = strcspn(l->v[i], "="), b = strcspn(l->v[j], "=");

			if (a == b && !strncmp(l->v[i], l->v[j], a))
				cli_die("--lock-opt given twice for %.*s (%s, %s): give it once",
					(int)a, l->v[i], l->v[j], l->v[i]);
		}
}

/*
 * Cross-field constraints of a lock's tunables, declared by their names
 * in its option table (locks/lockbench/lock.h): P_min may not exceed
 * P_max.
 */
static void lock_opt_pairs(const struct config *cf, unsigned i)
{
	const struct lock_ops *o = cf->locks[i]->ops;

	for (unsigned a = 0; a < o->nopts; a++) {
		size_t n = strlen(o->opts[a].name);

		if (n < 5 || strcmp(o->opts[a].name + n - 4, "_min"))
			continue;
		for (unsigned b = 0; b < o->nopts; b++)
			if (!strncmp(o->opts[b].name, o->opts[a].name, n - 4) &&
			    !strcmp(o->opts[b].name + n - 4, "_max") &&
			    cf->lock_opt[i][a] > cf->lock_opt[i][b])
				cli_die("--lock-opt (%s.%s=%llu): above %s.%s=%llu; "
					"%s must not exceed %s", o->name, o->opts[a].name,
					(unsigned long long)cf->lock_opt[i][a], o->name,
					o->opts[b].name, (unsigned long long)cf->lock_opt[i][b],
					o->opts[a].name, o->opts[b].name);
	}
}

/* Each variant's tunables: the lock's defaults, then --lock-opt. */
static void config_lock_opts(struct config *cf, const struct cli *c)
{
	cf->lock_opt = cli_calloc(cf->nlocks, sizeof(*cf->lock_opt));
	for (unsigned i = 0; i < cf->nlocks; i++) {
		const struct lock_ops *o = cf->locks[i]->ops;

		cf->lock_opt[i] = cli_calloc(o->nopts + 1, sizeof(uint64_t));
		for (unsigned k = 0; k < o->nopts; k++)
			cf->lock_opt[i][k] = o->opts[k].def;
	}
	lock_opts_once(c);
	for (unsigned i = 0; i < c->lock_opts.n; i++)
		config_lock_opt(cf, c->lock_opts.v[i]);
	for (unsigned i = 0; i < cf->nlocks; i++)
		lock_opt_pairs(cf, i);
}

static void config_baseline(struct config *cf, const struct cli *c)
{
	for (unsigned i = 0; c->baseline && i <= cf->nlocks; i++) {
		if (i == cf->nlocks)
			cli_die("--baseline (%s): not one of --locks (%s)",
				c->baseline, c->locks);
		if (!strcmp(config_variant_name(cf, i), c->baseline)) {
			cf->baseline = i;
			break;
		}
	}
}

/* Default thread list: 1, 2, 4, ... below n, then n. */
static void default_threads(struct config *cf, unsigned n)
{
	cf->threads = cli_calloc(34, sizeof(unsigned));
	cf->nthreads = 0;
	for (unsigned t = 1; t < n; t *= 2)
		cf->threads[cf->nthreads++] = t;
	cf->threads[cf->nthreads++] = n;
}

static void config_threads(struct config *cf, const struct cli *c, unsigned usable)
{
	char why[256];

	if (!c->threads) {
		default_threads(cf, usable);
		return;
	}
	if (numlist_parse(c->threads, usable, MAX_THREADS, &cf->threads,
			  &cf->nthreads, why, sizeof(why)))
		cli_die("--threads (%s): %s; use e.g. 1,2,4  1-8  max "
			"(1 to %d threads)", c->threads, why, MAX_THREADS);
	for (unsigned i = 0; i < cf->nthreads; i++)
		if (!cf->threads[i])
			cli_die("--threads (%s): a thread count must be at least 1",
				c->threads);
}

static void config_memnode(struct config *cf, const struct cli *c,
			   const struct topo *t)
{
	struct opt row = {.name = "mem-node", .type = OPT_UINT, .max = 4095};
	unsigned long long node;

	cf->mem_node = MEM_NODE_LOCAL;
	if (!c->mem_node || !strcmp(c->mem_node, "local"))
		return;
	if (!strcmp(c->mem_node, "interleave")) {
		cf->mem_node = MEM_NODE_INTERLEAVE;
		return;
	}
	opt_set(&row, &node, c->mem_node);
	cf->mem_node = (int)node;
	for (unsigned i = 0; i < t->npu; i++)
		if (t->pu[i].node_os == cf->mem_node)
			return;
	cli_die("--mem-node (%s): no such NUMA node on this machine "
		"(valid: a node number, local, interleave)", c->mem_node);
}

static bool declares(const struct workload_ops *wl, const char *name)
{
	for (unsigned i = 0; wl->options && wl->options[i]; i++)
		if (!strcmp(wl->options[i], name))
			return true;
	return false;
}

/* An option some workload declares, given with one that does not:
 * "--readers: only with -w rw (workload is cs)". */
static void config_wl_only(const struct cli *c, const struct workload_ops *wl)
{
	for (unsigned i = 0; i < run_options.n; i++) {
		const struct opt *o = &run_options.opts[i];
		char which[256] = "";

		if (!opt_given(o, c) || declares(wl, o->name))
			continue;
		for (unsigned k = 0; workloads[k]; k++)
			if (declares(workloads[k], o->name))
				snprintf(which + strlen(which), sizeof(which) - strlen(which),
					 "%s-w %s", *which ? " or " : "", workloads[k]->name);
		if (*which)
			cli_die("--%s: only with %s (workload is %s)", o->name, which,
				wl->name);
	}
}

static void roles_fit(const struct cli *c, unsigned t, unsigned long long sum)
{
	bool rd = c->readers_given && c->readers > t;

	if (c->readers_given && c->writers_given && t != sum)
		cli_die("--threads (%u): with --readers %llu --writers %llu the "
			"thread count must be %llu", t, c->readers, c->writers, sum);
	if (rd || (c->writers_given && c->writers > t))
		cli_die("--threads (%u): fewer threads than --%s %llu", t,
			rd ? "readers" : "writers", rd ? c->readers : c->writers);
}

/* rw with --readers/--writers: fixed roles that must fit every thread
 * count (both given: -t defaults to, and must be, their sum). */
static void config_rw_roles(struct config *cf, const struct cli *c)
{
	unsigned long long sum = c->readers + c->writers;

	if (!c->readers_given && !c->writers_given)
		return;
	if (c->read_pct_given)
		cli_die("--read-pct: per-operation roles exclude --readers/--writers");
	if (c->readers_given && c->writers_given && !c->threads) {
		if (!sum || sum > MAX_THREADS)
			cli_die("--readers %llu --writers %llu: 1 to %d threads in all",
				c->readers, c->writers, MAX_THREADS);
		cf->nthreads = 1;
		cf->threads[0] = (unsigned)sum;
	}
	for (unsigned i = 0; i < cf->nthreads; i++)
		roles_fit(c, cf->threads[i], sum);
	cf->params.fixed_roles = true;
	cf->params.readers = (unsigned)c->readers;
	cf->params.writers = (unsigned)c->writers;
	cf->params.writers_set = c->writers_given;
}

/* What each worker does: the sections and the workload's options. */
static void config_params(struct config *cf, const struct cli *c)
{
	struct wl_params *p = &cf->params;

	config_wl_only(c, cf->workload);
	*p = (struct wl_params){
		.cs_ns = c->cs_ns, .ncs_ns = c->ncs_ns, .cs_lines = (unsigned)c->cs_lines,
		.ncs_fixed = !strcmp(c->ncs_dist, "fixed"),
		.cs_write_lines = (unsigned)((c->cs_lines * c->cs_write_pct + 50) / 100),
		.read_pct = (unsigned)c->read_pct, .lat_sample = (unsigned)c->lat_sample,
		.long_hold_ms = (unsigned)c->long_hold, .stutter_s = c->stutter,
	};
	if (p->stutter_s > 0 && p->stutter_s >= c->watchdog)
		cli_die("--stutter (%g): must be shorter than --watchdog (%g)",
			p->stutter_s, c->watchdog);
	config_rw_roles(cf, c);
}

/* The noise options into cf->noise. */
static void config_noise(struct config *cf, const struct cli *c)
{
	struct noise_opts *n = &cf->noise;

	noise_opts_default(n);
	n->probe = !c->no_probe;
	n->probe_factor = c->probe_factor;
	n->exclude_flagged = c->exclude_flagged;
	n->adaptive = c->runs_auto;
	if (!c->runs_auto && (c->ci_target_given || c->time_budget_given ||
			      c->max_runs_given || c->min_runs_given))
		cli_die("--ci-target, --min-runs, --max-runs and --time-budget need -r auto");
	if (c->min_runs_given && c->min_runs > c->max_runs)
		cli_die("--min-runs (%llu): more than --max-runs (%llu)", c->min_runs,
			c->max_runs);
	if (c->runs_auto && cf->order != ORDER_INTERLEAVED)
		cli_die("-r auto needs --order interleaved (it adds whole rounds)");
	n->ci_target = c->ci_target;
	n->max_runs = (unsigned)c->max_runs;
	n->min_runs = (unsigned)(c->min_runs < c->max_runs ? c->min_runs : c->max_runs);
	n->time_budget_s = c->time_budget_given ? c->time_budget : 0;
	cf->runs = c->runs_auto ? n->max_runs : (unsigned)c->runs;
}

/*
 * --counters into cf->perf: an unknown name is exit 2; events the kernel
 * refuses are dropped (perf.refused says why), or exit 3 when the user
 * named them.
 */
static void config_counters(struct config *cf, const struct cli *c)
{
	char err[1024];

	cf->perf_request = c->counters;
	if (perf_set_parse(c->counters, &cf->perf, err, sizeof(err)))
		cli_die_msg(err);
	if (perf_set_probe(&cf->perf, err, sizeof(err))) {
		cli_warn("counters unavailable: %s", err);
		exit(3);
	}
}

/* A placement policy, "did you mean" for a misspelt one. */
static void placement_or_die(const char *text, struct placement_policy *p)
{
	static const char *const words[] = {"cores", "smt", "spread", "node", "cpus", "none"};
	char err[512], hint[96];

	if (!placement_parse(text, p, err, sizeof(err)))
		return;
	if (strstr(err, "unknown placement") &&
	    *suggest_text(hint, sizeof(hint), text, words, 6))
		cli_die("unknown placement (%s): %svalid: cores, smt, spread, "
			"node:N[,M], cpus:LIST, none", text, hint);
	cli_die_msg(err);
}

/* Where the threads go, and how many the placement offers. */
static unsigned config_placement(struct config *cf, const struct cli *c,
				 const struct topo *t)
{
	unsigned *order, usable;
	char err[512];

	placement_or_die(c->placement, &cf->placement);
	cf->placement.use_isolated = c->isolated;
	if (placement_order(t, &cf->placement, &order, &usable, err, sizeof(err)))
		cli_die_msg(err);
	for (unsigned i = 0; i < usable; i++)
		if (!t->pu[order[i]].allowed && !c->quiet)
			cli_warn("warning: cpu %d (placement %s) is not in the allowed "
				 "set (taskset/cgroup cpuset): pinning will fail",
				 t->pu[order[i]].os, cf->placement.text);
	free(order);
	return usable;
}

static const struct workload_ops *workload_or_die(const char *name)
{
	const char *names[64];
	unsigned n = 0;

	if (workload_find(name))
		return workload_find(name);
	for (; workloads[n] && n < 64; n++)
		names[n] = workloads[n]->name;
	cli_die_unknown("workload", name, names, n, NULL);
}

/* What runs: the workload, the variants (locks or layouts), the baseline. */
static void config_variants(struct config *cf, const struct cli *c)
{
	cf->workload = workload_or_die(c->workload);
	if (cf->workload->flags & WL_NOLOCK)
		config_layouts(cf, c);
	else
		config_locks(cf, c);
	config_lock_opts(cf, c);
	config_baseline(cf, c);
}

void config_build(struct config *cf, const struct cli *c, const struct topo *t)
{
	struct opt seed = {.name = "seed", .type = OPT_UINT, .max = 18446744073709551615.0};
	unsigned long long v;

	memset(cf, 0, sizeof(*cf));
	config_variants(cf, c);
	config_threads(cf, c, config_placement(cf, c, t));
	config_memnode(cf, c, t);
	cf->order = strcmp(c->order, "sequential") ? ORDER_INTERLEAVED : ORDER_SEQUENTIAL;
	if (c->seed)
		opt_set(&seed, &v, c->seed);
	cf->seed = c->seed ? v : (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32);
	cf->warmup_s = c->warmup;
	cf->duration_s = c->duration;
	cf->interval_s = c->interval;
	cf->watchdog_s = c->watchdog;
	cf->topology = c->topology;
	cf->fake_nodes = (unsigned)c->fake_nodes;
	cf->label = c->label;
	cf->row_heading = c->row_name;
	cf->quiet = c->quiet;
	cf->min_effect_pct = c->min_effect * 100;
	config_params(cf, c);
	config_noise(cf, c);
	config_counters(cf, c);
}

void config_free(struct config *cf)
{
	for (unsigned i = 0; cf->lock_opt && i < cf->nlocks; i++)
		free(cf->lock_opt[i]);
	free(cf->lock_opt);
	free(cf->locks);
	free(cf->layouts);
	free(cf->threads);
	placement_policy_free(&cf->placement);
}
