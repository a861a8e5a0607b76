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
#include "config.h"
#include "floor.h"
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

/* The index of `name` among the variants vo offers; exits 2 naming a
 * close one (the workload's name is the noun: "unknown layout"). */
static unsigned variant_index(const struct workload_ops *wl,
			      const struct wl_option *vo, const char *name)
{
	for (unsigned i = 0; i < vo->nchoices; i++)
		if (!strcmp(vo->choices[i], name))
			return i;
	cli_die_unknown(wl->name, name, vo->choices, vo->nchoices, NULL);
}

/* A workload with variants of its own (-w layout --layouts A,B): one
 * variant per entry of its WL_OPT_VARIANTS option, each run with `null`. */
static void config_wl_variants(struct config *cf, const struct cli *c,
			       const struct wl_option *vo)
{
	const struct workload_ops *wl = cf->workload;
	char *list = cli_strdup(cli_wl_value(c, vo->name)->s), *save = NULL;
	const struct lock_entry *null = lock_registry_find("null");
	unsigned n = 0;

	if (c->locks_given)
		cli_die("-w %s: the columns are --%s, not locks (drop -l %s)", wl->name,
			vo->name, c->locks);
	cf->locks = cli_calloc(vo->nchoices + 1, sizeof(*cf->locks));
	cf->layouts = cli_calloc(vo->nchoices + 1, sizeof(*cf->layouts));
	if (!null)
		cli_die("out of memory");
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned l = variant_index(wl, vo, t);

		for (unsigned i = 0; i < n; i++)
			if (cf->layouts[i] == l)
				cli_die("%s listed twice (%s)", wl->name, t);
		cf->locks[n] = null;
		cf->layouts[n++] = l;
	}
	if (!n)
		cli_die("--%s: empty list", vo->name);
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

/* --lock-opt LOCK.KEY=A,B,..: a sweep dimension of LOCK's variants. */
struct lopt_dim {
	const struct lock_entry *e;
	unsigned k;
	struct opt_dim d;       /* the values as typed */
	uint64_t *v;            /* and parsed */
};

struct lopt_dims {
	struct lopt_dim *l;
	unsigned n;
};

/* Apply one --lock-opt LOCK.KEY=V to the variants running LOCK (the
 * first value of a list, the list itself into ld); a lock that is not
 * among them is refused, not skipped. */
static void config_lock_opt(struct config *cf, const char *s, struct lopt_dims *ld)
{
	const char *dot = strchr(s, '.'), *eq = strchr(s, '=');
	char lock[64], key[64], name[160];
	const struct lock_entry *e;
	struct opt row = {.name = name, .type = OPT_UINT};
	struct opt_dim d;
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
	row.list = true;
	if (opt_set_list(&row, &v, eq + 1, &d)) {
		struct lopt_dim *l;

		ld->l = realloc(ld->l, (ld->n + 1) * sizeof(*ld->l));
		if (!ld->l)
			cli_die("out of memory");
		l = &ld->l[ld->n++];
		*l = (struct lopt_dim){.e = e, .k = k, .d = d,
				       .v = cli_calloc(d.n, sizeof(uint64_t))};
		for (unsigned i = 0; i < d.n; i++) {
			unsigned long long x;

			opt_set(&row, &x, d.v[i]);
			l->v[i] = x;
		}
	}
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
static void config_lock_opts(struct config *cf, const struct cli *c,
			     struct lopt_dims *ld)
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
		config_lock_opt(cf, c->lock_opts.v[i], ld);
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

	/* max is every usable CPU, up to the most threads a point takes. */
	if (usable > MAX_THREADS)
		usable = MAX_THREADS;
	if (!c->threads) {
		default_threads(cf, usable);
		return;
	}
	if (numlist_parse(c->threads, usable, MAX_THREADS, &cf->threads,
			  &cf->nthreads, why, sizeof(why)))
		cli_die("--threads (%s): %s; at most %d threads, e.g. 1,2,4  "
			"1-8  max", c->threads, why, MAX_THREADS);
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

/* wl's option of this name, or NULL. */
static const struct wl_option *declared(const struct workload_ops *wl,
					const char *name)
{
	for (const struct wl_option *w = wl->options; w && w->name; w++)
		if (!strcmp(w->name, name))
			return w;
	return NULL;
}

/* An option some workload declares, given with one that does not:
 * "--readers: only with -w rw (workload is cs)". */
static void config_wl_only(const struct cli *c, const struct workload_ops *wl)
{
	for (unsigned i = 0; i < run_options()->n; i++) {
		const struct opt *o = &run_options()->opts[i];
		char which[256] = "";

		if (!opt_given(o, c) || declared(wl, o->name))
			continue;
		for (unsigned k = 0; workloads[k]; k++)
			if (declared(workloads[k], o->name))
				snprintf(which + strlen(which), sizeof(which) - strlen(which),
					 "%s-w %s", *which ? " or " : "", workloads[k]->name);
		if (*which)
			cli_die("--%s: only with %s (workload is %s)", o->name, which,
				wl->name);
	}
}

static void roles_fit(const struct cli_wlval *r, const struct cli_wlval *w,
		      unsigned t)
{
	bool rd = r->given && r->u > t;

	if (r->given && w->given && t != r->u + w->u)
		cli_die("--threads (%u): with --readers %llu --writers %llu the "
			"thread count must be %llu", t, r->u, w->u, r->u + w->u);
	if (rd || (w->given && w->u > t))
		cli_die("--threads (%u): fewer threads than --%s %llu", t,
			rd ? "readers" : "writers", rd ? r->u : w->u);
}

/* rw with --readers/--writers: fixed roles that must fit every thread
 * count (both given: -t defaults to, and must be, their sum).  Their
 * values are already in cf->params (params_of()). */
static void config_rw_roles(struct config *cf, const struct cli *c)
{
	const struct cli_wlval *r = cli_wl_value(c, "readers");
	const struct cli_wlval *w = cli_wl_value(c, "writers");
	const struct cli_wlval *pct = cli_wl_value(c, "read-pct");
	unsigned long long sum;

	if (!r || !w || (!r->given && !w->given))
		return;
	sum = r->u + w->u;
	if (pct && pct->given)
		cli_die("--read-pct: per-operation roles exclude --readers/--writers");
	if (r->given && w->given && !c->threads) {
		if (!sum || sum > MAX_THREADS)
			cli_die("--readers %llu --writers %llu: at least 1 and at most %d threads in all",
				r->u, w->u, MAX_THREADS);
		cf->nthreads = 1;
		cf->threads[0] = (unsigned)sum;
	}
	for (unsigned i = 0; i < cf->nthreads; i++)
		roles_fit(r, w, cf->threads[i]);
	cf->params.fixed_roles = true;
	cf->params.writers_set = w->given;
}

/* Each workload option's value into the struct wl_params field its
 * declaration names (the variants aside: config_wl_variants()). */
static void wl_values_of(const struct cli *c, struct wl_params *p)
{
	const struct opt_cmd *t = run_options();

	for (unsigned i = 0; i < t->n; i++) {
		const struct wl_option *w = cli_wl_option(&t->opts[i]);
		const struct cli_wlval *v;
		char *f;

		if (!w || w->type == WL_OPT_VARIANTS)
			continue;
		v = cli_wl_value(c, w->name);
		f = (char *)p + w->off;
		if (w->type == WL_OPT_SECONDS)
			*(double *)f = v->d;
		else
			*(unsigned *)f = (unsigned)v->u;
	}
}

/* The sections and the workload's options of c (roles aside). */
static void params_of(const struct cli *c, struct wl_params *p)
{
	*p = (struct wl_params){
		.cs_ns = c->cs_ns, .ncs_ns = c->ncs_ns, .cs_lines = (unsigned)c->cs_lines,
		.ncs_fixed = !strcmp(c->ncs_dist, "fixed"),
		.cs_write_lines = (unsigned)((c->cs_lines * c->cs_write_pct + 50) / 100),
		.lat_sample = (unsigned)c->lat_sample,
	};
	wl_values_of(c, p);
	if (p->stutter_s > 0 && p->stutter_s >= c->watchdog)
		cli_die("--stutter (%g): must be shorter than --watchdog (%g)",
			p->stutter_s, c->watchdog);
}

/* What each worker does: the sections and the workload's options. */
static void config_params(struct config *cf, const struct cli *c)
{
	config_wl_only(c, cf->workload);
	params_of(c, &cf->params);
	config_rw_roles(cf, c);
}

/* The noise options into cf->noise. */
static void config_noise(struct config *cf, const struct cli *c)
{
	struct noise_opts *n = &cf->noise;

	noise_opts_default(n);
	n->measure = !c->no_probe;
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
static void config_variants(struct config *cf, const struct cli *c,
			    struct lopt_dims *ld)
{
	cf->workload = workload_or_die(c->workload);
	if (workload_variants(cf->workload))
		config_wl_variants(cf, c, workload_variants(cf->workload));
	else
		config_locks(cf, c);
	config_lock_opts(cf, c, ld);
	config_baseline(cf, c);
}

/* At most this many variants (locks x parameter combinations). */
#define MAX_VARIANTS 4096

/* The value of row o in c as JSON (the unit of a plain number). */
static json_t *param_value(const struct opt *o, const struct cli *c)
{
	const char *f = (const char *)c + o->off;

	if (o->type == OPT_SECONDS || o->type == OPT_PERCENT || o->type == OPT_FACTOR)
		return json_real(*(const double *)f);
	return json_integer((json_int_t)*(const unsigned long long *)f);
}

/* " key=value" onto name. */
static void name_add(char *name, size_t len, const char *key, const json_t *v)
{
	if (json_is_integer(v))
		snprintf(name + strlen(name), len - strlen(name), " %s=%lld", key,
			 (long long)json_integer_value(v));
	else
		snprintf(name + strlen(name), len - strlen(name), " %s=%g", key,
			 json_real_value(v));
}

/* How many lock-option combinations base variant b has. */
static unsigned lopt_combos(const struct config *cf, const struct lopt_dims *ld,
			    unsigned b)
{
	unsigned n = 1;

	for (unsigned i = 0; i < ld->n; i++)
		if (ld->l[i].e == cf->locks[b])
			n *= ld->l[i].d.n;
	return n;
}

/* Variant nv: base b, workload combination w, lock-option combination l. */
static void sweep_variant(struct config *cf, const struct config *old,
			  const struct cli *c, const struct lopt_dims *ld,
			  unsigned nv, unsigned b, unsigned w, unsigned l)
{
	const struct lock_ops *o = old->locks[b]->ops;
	const struct opt_dims *wd = &c->dims;
	struct cli tmp = *c;
	json_t *sw = json_object();
	char name[512], key[160];

	cf->locks[nv] = old->locks[b];
	cf->lock_opt[nv] = cli_calloc(o->nopts + 1, sizeof(uint64_t));
	memcpy(cf->lock_opt[nv], old->lock_opt[b], o->nopts * sizeof(uint64_t));
	if (old->layouts)
		cf->layouts[nv] = old->layouts[b];
	snprintf(name, sizeof(name), "%s", config_variant_name(old, b));
	/* Lock options: the last dimension varies fastest. */
	for (unsigned i = ld->n; i-- > 0;) {
		const struct lopt_dim *d = &ld->l[i];

		if (d->e != old->locks[b])
			continue;
		cf->lock_opt[nv][d->k] = d->v[l % d->d.n];
		l /= d->d.n;
	}
	for (unsigned i = 0; i < ld->n; i++) {
		const struct lopt_dim *d = &ld->l[i];
		json_t *v;

		if (d->e != old->locks[b])
			continue;
		v = json_integer((json_int_t)cf->lock_opt[nv][d->k]);
		name_add(name, sizeof(name), o->opts[d->k].name, v);
		snprintf(key, sizeof(key), "%s.%s", o->name, o->opts[d->k].name);
		json_object_set_new(sw, key, v);
	}
	for (unsigned i = wd->n; i-- > 0;) {
		opt_set(wd->d[i].o, &tmp, wd->d[i].v[w % wd->d[i].n]);
		w /= wd->d[i].n;
	}
	for (unsigned i = 0; i < wd->n; i++) {
		json_t *v = param_value(wd->d[i].o, &tmp);

		opt_param_key(wd->d[i].o, key, sizeof(key));
		name_add(name, sizeof(name), key, v);
		json_object_set_new(sw, key, v);
	}
	params_of(&tmp, &cf->vparams[nv]);
	cf->vparams[nv].fixed_roles = old->params.fixed_roles;
	cf->vparams[nv].writers_set = old->params.writers_set;
	cf->vnames[nv] = cli_strdup(name);
	cf->vswept[nv] = sw;
}

/* config.sweep: each swept parameter's values, in the variants' order. */
static json_t *sweep_json(const struct config *cf, const struct cli *c,
			  const struct lopt_dims *ld)
{
	json_t *j = json_object();
	char key[160];

	for (unsigned i = 0; i < ld->n; i++) {
		json_t *a = json_array();

		for (unsigned k = 0; k < ld->l[i].d.n; k++)
			json_array_append_new(a, json_integer((json_int_t)ld->l[i].v[k]));
		snprintf(key, sizeof(key), "%s.%s", ld->l[i].e->ops->name,
			 ld->l[i].e->ops->opts[ld->l[i].k].name);
		json_object_set_new(j, key, a);
	}
	for (unsigned i = 0; i < c->dims.n; i++) {
		const struct opt_dim *d = &c->dims.d[i];
		json_t *a = json_array();
		struct cli tmp = *c;

		for (unsigned k = 0; k < d->n; k++) {
			opt_set(d->o, &tmp, d->v[k]);
			json_array_append_new(a, param_value(d->o, &tmp));
		}
		opt_param_key(d->o, key, sizeof(key));
		json_object_set_new(j, key, a);
	}
	(void)cf;
	return j;
}

/*
 * A sweep: the variants become (lock, workload parameters, lock
 * options), lock-major, the first listed option varying slowest; each
 * is compared with the baseline lock at its workload parameters (and
 * the lock's first option values).
 */
static void config_sweep(struct config *cf, const struct cli *c, struct lopt_dims *ld)
{
	struct config old = *cf;
	unsigned nw = 1, nv = 0, *off;
	unsigned long long total = 0;

	if (!c->dims.n && !ld->n)
		return;
	for (unsigned i = 0; i < c->dims.n; i++)
		nw *= c->dims.d[i].n;
	off = cli_calloc(old.nlocks + 1, sizeof(*off));
	for (unsigned b = 0; b < old.nlocks; b++) {
		off[b] = (unsigned)total;
		total += (unsigned long long)nw * lopt_combos(&old, ld, b);
		if (total > MAX_VARIANTS)
			cli_die("sweep: %llu or more combinations of locks and parameters; "
				"at most %d", total, MAX_VARIANTS);
	}
	cf->locks = cli_calloc(total, sizeof(*cf->locks));
	cf->lock_opt = cli_calloc(total, sizeof(*cf->lock_opt));
	cf->layouts = old.layouts ? cli_calloc(total, sizeof(*cf->layouts)) : NULL;
	cf->vparams = cli_calloc(total, sizeof(*cf->vparams));
	cf->vnames = cli_calloc(total, sizeof(*cf->vnames));
	cf->vswept = cli_calloc(total, sizeof(*cf->vswept));
	cf->base_of = cli_calloc(total, sizeof(*cf->base_of));
	for (unsigned b = 0; b < old.nlocks; b++) {
		unsigned nl = lopt_combos(&old, ld, b);

		for (unsigned w = 0; w < nw; w++)
			for (unsigned l = 0; l < nl; l++) {
				sweep_variant(cf, &old, c, ld, nv, b, w, l);
				cf->base_of[nv++] = off[old.baseline] +
						    w * lopt_combos(&old, ld, old.baseline);
			}
	}
	cf->nlocks = nv;
	cf->baseline = off[old.baseline];
	cf->sweep = sweep_json(cf, c, ld);
	for (unsigned i = 0; i < old.nlocks; i++)
		free(old.lock_opt[i]);
	free(old.lock_opt);
	free(old.locks);
	free(old.layouts);
	free(off);
	for (unsigned i = 0; i < cf->nlocks; i++)
		lock_opt_pairs(cf, i);
}

static void lopt_dims_free(struct lopt_dims *ld)
{
	for (unsigned i = 0; i < ld->n; i++) {
		for (unsigned k = 0; k < ld->l[i].d.n; k++)
			free(ld->l[i].d.v[k]);
		free(ld->l[i].d.v);
		free(ld->l[i].v);
	}
	free(ld->l);
}

/*
 * Spinning locks at more than SPIN_OVERSUB_MAX threads per usable CPU
 * are refused (one line, exit 2): a preempted waiter holds up a FIFO
 * queue until the scheduler runs it again, so with thousands of
 * spinners per CPU each handover waits out a time slice, a run's end
 * takes minutes and the monitor thread hardly gets a CPU to stop it
 * (docs/method.md, "Oversubscription").  Locks that sleep, the `null`
 * lock and workloads without a lock are not bounded.
 */
static void config_spin_bound(const struct config *cf, unsigned usable)
{
	unsigned most = 0, cap = SPIN_OVERSUB_MAX * (usable ? usable : 1);

	for (unsigned i = 0; i < cf->nthreads; i++)
		most = cf->threads[i] > most ? cf->threads[i] : most;
	if (most <= cap || (cf->workload->flags & WL_NOLOCK))
		return;
	for (unsigned i = 0; i < cf->nlocks; i++) {
		const struct lock_ops *o = cf->locks[i]->ops;

		if (o->caps & (LOCK_CAP_SLEEPS | LOCK_CAP_NOLOCK))
			continue;
		cli_die("--threads (%u): %s spins, and %u threads is more than %u per "
			"usable CPU (%u CPU%s): a preempted waiter would hold up the queue "
			"for minutes; use at most %u threads or a lock that sleeps",
			most, o->name, most, SPIN_OVERSUB_MAX, usable, usable == 1 ? "" : "s",
			cap);
	}
}

void config_build(struct config *cf, const struct cli *c, const struct topo *t)
{
	config_build_mapped(cf, c, t, NULL);
}

void config_build_mapped(struct config *cf, const struct cli *c, const struct topo *t,
			 const struct topo *here)
{
	struct opt seed = {.name = "seed", .type = OPT_UINT, .max = 18446744073709551615.0};
	unsigned long long v;
	struct lopt_dims ld = {0};
	unsigned usable;

	memset(cf, 0, sizeof(*cf));
	config_variants(cf, c, &ld);
	usable = config_placement(cf, c, t);
	config_threads(cf, c, usable);
	config_memnode(cf, c, here ? here : t);
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
	cli_utf8_or_die("--label", c->label);
	cli_utf8_or_die("--row-name", c->row_name);
	cf->label = c->label;
	cf->row_heading = c->row_name;
	cf->quiet = c->quiet;
	cf->min_effect_pct = c->min_effect * 100;
	cf->inv_floor = c->floor ? floor_from_arg("floor", c->floor) : NULL;
	config_params(cf, c);
	config_sweep(cf, c, &ld);
	/* Mapped: the CPUs the workers end up on are this machine's. */
	cf->here = here;
	config_spin_bound(cf, here ? placement_map_cpus(here, c->isolated, NULL) : usable);
	lopt_dims_free(&ld);
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
	for (unsigned i = 0; cf->vnames && i < cf->nlocks; i++) {
		free(cf->vnames[i]);
		json_decref(cf->vswept[i]);
	}
	free(cf->vnames);
	free(cf->vswept);
	free(cf->vparams);
	free(cf->base_of);
	json_decref(cf->sweep);
	json_decref(cf->inv_floor);
	placement_policy_free(&cf->placement);
}
