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

/* A variant of lock e named `name` (its options: the lock's defaults). */
static void variant_add(struct config *cf, const struct lock_entry *e,
			unsigned layout, const char *name)
{
	struct config_variant *v = &cf->v[cf->nvariants++];
	const struct lock_ops *o = e->ops;

	*v = (struct config_variant){.lock = e, .layout = layout, .name = cli_strdup(name),
				     .opt = cli_calloc(o->nopts + 1, sizeof(uint64_t))};
	for (unsigned k = 0; k < o->nopts; k++)
		v->opt[k] = o->opts[k].def;
}

static void config_locks(struct config *cf, const struct cli *c)
{
	char *list = cli_strdup(c->locks), *save = NULL;

	cf->v = cli_calloc(strlen(c->locks) + 1, sizeof(*cf->v));
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct lock_entry *e = lock_or_die(t, c->include_broken);
		unsigned need = cf->workload->needs_caps;

		for (unsigned i = 0; i < cf->nvariants; i++)
			if (cf->v[i].lock == e)
				cli_die("lock listed twice (%s)", t);
		if ((e->ops->caps & need) != need)
			cli_die("lock %s cannot run workload %s", t, cf->workload->name);
		variant_add(cf, e, 0, e->ops->name);
	}
	if (!cf->nvariants)
		cli_die("--locks: empty list");
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

	if (c->locks_given)
		cli_die("-w %s: the columns are --%s, not locks (drop -l %s)", wl->name,
			vo->name, c->locks);
	cf->v = cli_calloc(vo->nchoices + 1, sizeof(*cf->v));
	if (!null)
		cli_die("out of memory");
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		unsigned l = variant_index(wl, vo, t);

		for (unsigned i = 0; i < cf->nvariants; i++)
			if (cf->v[i].layout == l)
				cli_die("%s listed twice (%s)", wl->name, t);
		variant_add(cf, null, l, vo->choices[l]);
	}
	if (!cf->nvariants)
		cli_die("--%s: empty list", vo->name);
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
	struct opt_dim d;
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
		*l = (struct lopt_dim){.e = e, .k = k, .d = {.n = d.n, .v = d.v}};
	}
	for (unsigned i = 0; i < cf->nvariants; i++)
		if (cf->v[i].lock == e) {
			cf->v[i].opt[k] = v;
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
static void lock_opt_pairs(const struct config_variant *v)
{
	const struct lock_ops *o = v->lock->ops;

	for (unsigned a = 0; a < o->nopts; a++) {
		size_t n = strlen(o->opts[a].name);

		if (n < 5 || strcmp(o->opts[a].name + n - 4, "_min"))
			continue;
		for (unsigned b = 0; b < o->nopts; b++)
			if (!strncmp(o->opts[b].name, o->opts[a].name, n - 4) &&
			    !strcmp(o->opts[b].name + n - 4, "_max") &&
			    v->opt[a] > v->opt[b])
				cli_die("--lock-opt (%s.%s=%llu): above %s.%s=%llu; "
					"%s must not exceed %s", o->name, o->opts[a].name,
					(unsigned long long)v->opt[a], o->name,
					o->opts[b].name, (unsigned long long)v->opt[b],
					o->opts[a].name, o->opts[b].name);
	}
}

/* Each variant's tunables: the lock's defaults, then --lock-opt. */
static void config_lock_opts(struct config *cf, const struct cli *c,
			     struct lopt_dims *ld)
{
	lock_opts_once(c);
	for (unsigned i = 0; i < c->lock_opts.n; i++)
		config_lock_opt(cf, c->lock_opts.v[i], ld);
	for (unsigned i = 0; i < cf->nvariants; i++)
		lock_opt_pairs(&cf->v[i]);
}

static void config_baseline(struct config *cf, const struct cli *c)
{
	for (unsigned i = 0; c->baseline && i <= cf->nvariants; i++) {
		if (i == cf->nvariants)
			cli_die("--baseline (%s): not one of --locks (%s)",
				c->baseline, c->locks);
		if (!strcmp(cf->v[i].name, c->baseline)) {
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

/* Row o's value in workload combination w of the sweep (the last
 * dimension varies fastest): its swept value, else c's. */
static const union opt_val *row_value(const struct cli *c, const struct opt *o,
				      unsigned w)
{
	for (unsigned i = c->dims.n; i-- > 0; w /= c->dims.d[i].n)
		if (c->dims.d[i].o == o)
			return &c->dims.d[i].v[w % c->dims.d[i].n];
	return (const union opt_val *)((const char *)c + o->off);
}

static unsigned long long uint_value(const struct cli *c, const char *name, unsigned w)
{
	return row_value(c, opt_find(run_options(), name), w)->u;
}

/* The sections and the workload's options of combination w (roles
 * aside; the variants aside: config_wl_variants()), each into the
 * struct wl_params field its declaration names. */
static void params_of(const struct cli *c, unsigned w, struct wl_params *p)
{
	const struct opt_cmd *t = run_options();
	unsigned long long lines = uint_value(c, "cs-lines", w);

	*p = (struct wl_params){
		.cs_ns = uint_value(c, "cs-ns", w), .ncs_ns = uint_value(c, "ncs-ns", w),
		.cs_lines = (unsigned)lines, .ncs_fixed = !strcmp(c->ncs_dist, "fixed"),
		.cs_write_lines = (unsigned)((lines * uint_value(c, "cs-write-pct", w) + 50) / 100),
		.lat_sample = (unsigned)c->lat_sample,
	};
	for (unsigned i = 0; i < t->n; i++) {
		const struct wl_option *o = cli_wl_option(&t->opts[i]);
		char *f = (char *)p + (o ? o->off : 0);

		if (!o || o->type == WL_OPT_VARIANTS)
			continue;
		if (o->type == WL_OPT_SECONDS)
			*(double *)f = row_value(c, &t->opts[i], w)->d;
		else
			*(unsigned *)f = (unsigned)row_value(c, &t->opts[i], w)->u;
	}
	if (p->stutter_s > 0 && p->stutter_s >= c->watchdog)
		cli_die("--stutter (%g): must be shorter than --watchdog (%g)",
			p->stutter_s, c->watchdog);
}

/* What each worker does: the sections and the workload's options. */
static void config_params(struct config *cf, const struct cli *c)
{
	config_wl_only(c, cf->workload);
	params_of(c, 0, &cf->params);
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

/* Value v of row o as JSON (the unit of a plain number). */
static json_t *param_value(const struct opt *o, const union opt_val *v)
{
	if (o->type == OPT_SECONDS || o->type == OPT_PERCENT || o->type == OPT_FACTOR)
		return json_real(v->d);
	return json_integer((json_int_t)v->u);
}

/* " label=value" onto name, key: value into sw. */
static void swept_add(char *name, size_t len, const char *label, json_t *sw,
		      const char *key, json_t *v)
{
	if (json_is_integer(v))
		snprintf(name + strlen(name), len - strlen(name), " %s=%lld", label,
			 (long long)json_integer_value(v));
	else
		snprintf(name + strlen(name), len - strlen(name), " %s=%g", label,
			 json_real_value(v));
	json_object_set_new(sw, key, v);
}

/* How many lock-option combinations the variants of lock e have. */
static unsigned lopt_combos(const struct lopt_dims *ld, const struct lock_entry *e)
{
	unsigned n = 1;

	for (unsigned i = 0; i < ld->n; i++)
		if (ld->l[i].e == e)
			n *= ld->l[i].d.n;
	return n;
}

/* Into v: the variant b at workload combination w and lock-option
 * combination l (the last dimension of each varying fastest). */
static void sweep_variant(const struct config *cf, const struct cli *c,
			  const struct lopt_dims *ld, const struct config_variant *b,
			  unsigned w, unsigned l, struct config_variant *v)
{
	const struct lock_ops *o = b->lock->ops;
	const struct wl_option *vo = workload_variants(cf->workload);
	json_t *sw = json_object();
	char name[512], key[160];

	*v = *b;
	v->opt = cli_calloc(o->nopts + 1, sizeof(uint64_t));
	memcpy(v->opt, b->opt, o->nopts * sizeof(uint64_t));
	snprintf(name, sizeof(name), "%s", b->name);
	for (unsigned i = ld->n; i-- > 0;)
		if (ld->l[i].e == b->lock) {
			v->opt[ld->l[i].k] = ld->l[i].d.v[l % ld->l[i].d.n].u;
			l /= ld->l[i].d.n;
		}
	for (unsigned i = 0; i < ld->n; i++) {
		const char *kname = ld->l[i].e->ops->opts[ld->l[i].k].name;

		if (ld->l[i].e != b->lock)
			continue;
		snprintf(key, sizeof(key), "%s.%s", o->name, kname);
		swept_add(name, sizeof(name), kname, sw, key,
			  json_integer((json_int_t)v->opt[ld->l[i].k]));
	}
	for (unsigned i = 0; i < c->dims.n; i++) {
		const struct opt *r = c->dims.d[i].o;

		opt_param_key(r, key, sizeof(key));
		swept_add(name, sizeof(name), key, sw, key, param_value(r, row_value(c, r, w)));
	}
	params_of(c, w, &v->params);
	v->params.fixed_roles = cf->params.fixed_roles;
	v->params.writers_set = cf->params.writers_set;
	if (vo)
		*(unsigned *)((char *)&v->params + vo->off) = v->layout;
	v->name = cli_strdup(name);
	v->swept = cf->sweep ? sw : NULL;
	if (!cf->sweep)
		json_decref(sw);
}

/* config.sweep: each swept parameter's values, in the variants' order. */
static json_t *sweep_json(const struct cli *c, const struct lopt_dims *ld)
{
	json_t *j = json_object();
	char key[160];

	for (unsigned i = 0; i < ld->n; i++) {
		json_t *a = json_array();

		for (unsigned k = 0; k < ld->l[i].d.n; k++)
			json_array_append_new(a, json_integer((json_int_t)ld->l[i].d.v[k].u));
		snprintf(key, sizeof(key), "%s.%s", ld->l[i].e->ops->name,
			 ld->l[i].e->ops->opts[ld->l[i].k].name);
		json_object_set_new(j, key, a);
	}
	for (unsigned i = 0; i < c->dims.n; i++) {
		const struct opt_dim *d = &c->dims.d[i];
		json_t *a = json_array();

		for (unsigned k = 0; k < d->n; k++)
			json_array_append_new(a, param_value(d->o, &d->v[k]));
		json_object_set_new(j, opt_param_key(d->o, key, sizeof(key)), a);
	}
	return j;
}

/*
 * The variants in full: without a sweep, each as listed with its
 * workload parameters; with one, (lock, workload parameters, lock
 * options), lock-major, the first listed option varying slowest, each
 * compared with the baseline lock at its workload parameters (and the
 * lock's first option values).
 */
static void config_sweep(struct config *cf, const struct cli *c, const struct lopt_dims *ld)
{
	struct config_variant *base = cf->v;
	unsigned nb = cf->nvariants, nw = 1, *off = cli_calloc(nb + 1, sizeof(*off));
	unsigned long long total = 0;

	for (unsigned i = 0; i < c->dims.n; i++)
		nw *= c->dims.d[i].n;
	for (unsigned b = 0; b < nb; b++) {
		off[b] = (unsigned)total;
		total += (unsigned long long)nw * lopt_combos(ld, base[b].lock);
		if (total > MAX_VARIANTS)
			cli_die("sweep: %llu or more combinations of locks and parameters; "
				"at most %d", total, MAX_VARIANTS);
	}
	cf->sweep = c->dims.n || ld->n ? sweep_json(c, ld) : NULL;
	cf->v = cli_calloc(total, sizeof(*cf->v));
	cf->nvariants = 0;
	for (unsigned b = 0; b < nb; b++)
		for (unsigned w = 0; w < nw; w++)
			for (unsigned l = 0; l < lopt_combos(ld, base[b].lock); l++) {
				struct config_variant *v = &cf->v[cf->nvariants++];

				sweep_variant(cf, c, ld, &base[b], w, l, v);
				v->base = off[cf->baseline] +
					  w * lopt_combos(ld, base[cf->baseline].lock);
			}
	cf->baseline = off[cf->baseline];
	for (unsigned b = 0; b < nb; b++) {
		free(base[b].opt);
		free(base[b].name);
	}
	free(base);
	free(off);
	for (unsigned i = 0; i < cf->nvariants; i++)
		lock_opt_pairs(&cf->v[i]);
}

static void lopt_dims_free(struct lopt_dims *ld)
{
	for (unsigned i = 0; i < ld->n; i++)
		free(ld->l[i].d.v);
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
	for (unsigned i = 0; i < cf->nvariants; i++) {
		const struct lock_ops *o = cf->v[i].lock->ops;

		if (o->caps & (LOCK_CAP_SLEEPS | LOCK_CAP_NOLOCK))
			continue;
		cli_die("--threads (%u): %s spins, and %u threads is more than %u per "
			"usable CPU (%u CPU%s): a preempted waiter would hold up the queue "
			"for minutes; use at most %u threads or a lock that sleeps",
			most, o->name, most, SPIN_OVERSUB_MAX, usable, usable == 1 ? "" : "s",
			cap);
	}
}

void config_build(struct config *cf, const struct cli *c, const struct topo *t,
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
	for (unsigned i = 0; cf->v && i < cf->nvariants; i++) {
		free(cf->v[i].opt);
		free(cf->v[i].name);
		json_decref(cf->v[i].swept);
	}
	free(cf->v);
	free(cf->threads);
	json_decref(cf->sweep);
	json_decref(cf->inv_floor);
	placement_policy_free(&cf->placement);
}
