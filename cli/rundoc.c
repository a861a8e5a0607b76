/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "../topology/machine.h"
#include "../topology/mem.h"
#include "../topology/text.h"
#include "../topology/host/clock.h"
#include "../workloads/loop.h"
#include "options.h"
#include "rundoc.h"

json_t *machine_json(const struct topo *t)
{
	struct utsname u;
	char host[256] = "";

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:i, s:i, s:s, s:o*}",
			 "hostname", json_text(host), "kernel", json_text(u.release),
			 "kernel_version", json_text(u.version), "arch", json_text(u.machine),
			 "cpu_model", json_text(t->cpu_model),
			 "pus", t->npu, "cores", t->ncores, "l3_groups", t->nl3,
			 "numa_nodes", t->nnodes, "packages", t->npackages,
			 "topology", t->source, "environment", machine_environment());
}

/* --mem-node as the config echo writes it. */
static const char *mem_node_text(const struct config *cf, char *buf, size_t len)
{
	if (cf->mem_node == MEM_NODE_LOCAL)
		return "first thread's node";
	if (cf->mem_node == MEM_NODE_INTERLEAVE)
		return "interleave";
	snprintf(buf, len, "%d", cf->mem_node);
	return buf;
}

static json_t *locks_json(const struct config *cf, json_t **lopts)
{
	json_t *locks = json_array();

	*lopts = json_object();
	for (unsigned i = 0; i < cf->nvariants; i++) {
		const struct lock_ops *op = cf->v[i].lock->ops;
		json_t *v;

		/* A sweep repeats a lock: its first variant speaks for it. */
		if (json_object_get(*lopts, op->name))
			continue;
		v = json_object();
		json_array_append_new(locks, json_string(op->name));
		for (unsigned k = 0; k < op->nopts; k++)
			json_object_set_new(v, op->opts[k].name,
					    json_integer((json_int_t)cf->v[i].opt[k]));
		json_object_set_new(*lopts, op->name, v);
	}
	return locks;
}

/* Every other workload option under its result key ("long_hold_ms"),
 * read from the field its declaration names (every workload's: the
 * config object has the same members whatever the workload). */
static void config_json_wlopts(json_t *j, const struct wl_params *p)
{
	const struct opt_cmd *t = run_options();
	char key[160];

	for (unsigned i = 0; i < t->n; i++) {
		const struct wl_option *w = cli_wl_option(&t->opts[i]);
		const char *f = (const char *)p + (w ? w->off : 0);

		if (!w || w->type == WL_OPT_VARIANTS ||
		    json_object_get(j, opt_param_key(&t->opts[i], key, sizeof(key))))
			continue;
		json_object_set_new(j, key, w->type == WL_OPT_SECONDS ?
				    json_real(*(const double *)f) :
				    json_integer(*(const unsigned *)f));
	}
}

/* The workload members of the config object: the roles of rw (null when
 * not in use) and the variants by name, then the rest as declared. */
static void config_json_wl(json_t *j, const struct config *cf)
{
	const struct wl_params *p = &cf->params;
	const struct wl_option *vo = workload_variants(cf->workload);
	json_t *lay = json_null();

	if (!j)
		return;
	if (vo) {
		lay = json_array();
		for (unsigned i = 0; i < cf->nvariants; i++)
			if (!i || cf->v[i].layout != cf->v[i - 1].layout)
				json_array_append_new(lay, json_string(vo->choices[cf->v[i].layout]));
	}
	json_object_set_new(j, "cs_write_lines", json_integer(p->cs_write_lines));
	json_object_set_new(j, "read_pct", p->fixed_roles ? json_null()
							   : json_integer(p->read_pct));
	json_object_set_new(j, "readers", p->fixed_roles && !p->writers_set ?
			    json_integer(p->readers) : json_null());
	json_object_set_new(j, "writers", p->writers_set ? json_integer(p->writers)
							  : json_null());
	json_object_set_new(j, "lat_sample", json_integer(p->lat_sample));
	config_json_wlopts(j, p);
	json_object_set_new(j, "layouts", lay);
}

/* --counters: what was asked, what each run measures, what the kernel
 * refused and why (docs/json.md). */
static json_t *counters_json(const struct config *cf)
{
	json_t *ev = json_array(), *no = json_array();

	for (unsigned i = 0; i < cf->perf.n; i++)
		json_array_append_new(ev, json_string(cf->perf.ev[i].name));
	for (unsigned i = 0; i < cf->perf.nrefused; i++)
		json_array_append_new(no, json_pack("{s:s, s:s}", "event",
						    cf->perf.refused[i].name, "reason",
						    cf->perf.refused[i].reason));
	return json_pack("{s:s, s:o, s:o, s:b}", "requested", cf->perf_request,
			 "events", ev, "unavailable", no,
			 "user_only", cf->perf.exclude_kernel);
}

json_t *config_json(const struct config *cf, const struct outputs *o)
{
	json_t *lopts, *locks = locks_json(cf, &lopts), *threads = json_array(), *j;
	char when[64], node[16];
	time_t now = time(NULL);

	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
	for (unsigned i = 0; i < cf->nthreads; i++)
		json_array_append_new(threads, json_integer(cf->threads[i]));
	j = json_pack("{s:s, s:o, s:o, s:s, s:o, s:i, s:f, s:f, s:f, s:f, s:I, s:I, s:s,"
		      " s:i, s:s, s:b, s:s, s:i, s:s, s:I, s:s, s:s}",
		      "created", when, "locks", locks, "lock_opts", lopts,
		      "baseline", cf->v[cf->baseline].lock->ops->name,
		      "threads", threads, "runs", cf->runs, "warmup_s", cf->warmup_s,
		      "duration_s", cf->duration_s, "stat_interval_s", cf->interval_s,
		      "watchdog_s", cf->watchdog_s, "cs_ns", (json_int_t)cf->params.cs_ns,
		      "ncs_ns", (json_int_t)cf->params.ncs_ns,
		      "ncs_dist", cf->params.ncs_fixed ? "fixed" : "exp",
		      "cs_lines", cf->params.cs_lines, "placement", cf->placement.text,
		      "isolated", cf->placement.use_isolated,
		      "mem_node", mem_node_text(cf, node, sizeof(node)),
		      "fake_nodes", cf->fake_nodes,
		      "order", cf->order == ORDER_SEQUENTIAL ? "sequential" : "interleaved",
		      "seed", (json_int_t)cf->seed, "unit", unit_name(o->ropts.unit),
		      "workload", cf->workload->name);
	config_json_wl(j, cf);
	json_object_set_new(j, "counters", counters_json(cf));
	if (j && cf->here)
		json_object_set_new(j, "map_topology", map_json(cf));
	if (j && cf->sweep)
		json_object_set(j, "sweep", cf->sweep);
	return j;
}

/* The placement of the largest thread count (malloc'ed), or NULL. */
static struct thread_place *place_max(const struct config *cf, const struct topo *t,
				      unsigned *maxthr)
{
	struct thread_place *pl;
	char err[256];

	*maxthr = 0;
	for (unsigned i = 0; i < cf->nthreads; i++)
		*maxthr = cf->threads[i] > *maxthr ? cf->threads[i] : *maxthr;
	pl = calloc(*maxthr + 1, sizeof(*pl));
	if (!pl || placement_assign(t, &cf->placement, *maxthr, pl, err, sizeof(err)) ||
	    (cf->here && placement_map(cf->here, cf->placement.use_isolated, pl, *maxthr,
				       err, sizeof(err)) < 0)) {
		free(pl);
		return NULL;
	}
	return pl;
}

/*
 * --map-topology: the topology the placement was made on, and the CPUs
 * of this machine its workers run on (worker i on the (i mod N)-th,
 * placement_map()); null when the run is not mapped.
 */
json_t *map_json(const struct config *cf)
{
	int *cpus;
	unsigned n;
	json_t *a;

	if (!cf->here)
		return json_null();
	cpus = calloc(cf->here->npu + 1, sizeof(*cpus));
	n = cpus ? placement_map_cpus(cf->here, cf->placement.use_isolated, cpus) : 0;
	a = json_array();
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_integer(cpus[i]));
	free(cpus);
	return json_pack("{s:s, s:o, s:s}", "topology", cf->topology ? cf->topology : "",
			 "cpus", a, "rule", "worker i on the (i mod N)-th of the N cpus");
}

/* Placement of the largest thread count (every smaller count is a
 * prefix of it). */
json_t *placement_json(const struct config *cf, const struct topo *t)
{
	unsigned maxthr;
	struct thread_place *pl = place_max(cf, t, &maxthr);
	json_t *a = json_array(), *o;

	if (!pl) {
		json_decref(a);
		return json_null();
	}
	for (unsigned i = 0; i < maxthr; i++) {
		o = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:b, s:b}",
			"thread", i, "cpu", pl[i].cpu, "core", pl[i].core, "l3", pl[i].l3,
			"node", cf->fake_nodes ? i % cf->fake_nodes : pl[i].node,
			"node_os", pl[i].node_os, "package", pl[i].package,
			"shared_cpu", pl[i].shared, "not_allowed", pl[i].not_allowed);

		/* Mapped: the PU the placement chose on the given topology. */
		if (o && pl[i].mapped)
			json_object_set_new(o, "synthetic_cpu", json_integer(pl[i].synth_cpu));
		json_array_append_new(a, o);
	}
	free(pl);
	o = json_pack("{s:s, s:o}", "policy", cf->placement.text, "threads", a);
	if (o && cf->here)
		json_object_set_new(o, "mapped", map_json(cf));
	return o;
}

json_t *run_order_json(const struct config *cf)
{
	unsigned n;
	struct plan_step *p = plan_build(cf, &n);
	json_t *a = json_array();

	for (unsigned i = 0; p && i < n; i++)
		json_array_append_new(a, json_pack("{s:s, s:i, s:i}",
			"variant", cf->v[p[i].variant].name,
			"threads", cf->threads[p[i].row], "run", p[i].run + 1));
	free(p);
	return a;
}

/* How a delay of `ns` is made: not at all, in calibrated loop turns
 * (a mean below `floor`, what a delay of nothing costs here), or spun
 * on a deadline of the clock with each delay's error carried to the
 * next (workloads/loop.h, wl_delay()). */
static const char *delay_method(double floor, uint64_t ns)
{
	if (!ns)
		return "none";
	if ((double)ns < floor)
		return "turns";
	return "deadline, error carried";
}

/* A figure in ns, to 3 significant digits past the point where it
 * matters (the JSON is read by people too). */
static json_t *ns_real(double v)
{
	return json_real(round(v * 1000) / 1000);
}

json_t *calibration_json(const struct wl_params *p)
{
	const struct lb_tick_rate *t = lb_clock_rate();
	double floor = wl_delay_floor_ns(), over;
	json_t *j = json_pack("{s:s, s:f}", "clock", t->name, "ticks_per_ns", t->per_ns);

	json_object_set_new(j, "clock_read_ns", ns_real(t->read_ticks * t->ns_per_tick));
	json_object_set_new(j, "clock_read_ordered_ns",
			    ns_real(t->ordered_ticks * t->ns_per_tick));
	json_object_set_new(j, "clock_resolution_ns", ns_real(lb_clock_resolution_ns(t)));
	json_object_set_new(j, "clock_step_ns", ns_real(t->step_ticks * t->ns_per_tick));
	json_object_set_new(j, "sample_span_ns", ns_real(t->span_ticks * t->ns_per_tick));
	json_object_set_new(j, "relax_ns", ns_real(t->relax_ns));
	json_object_set_new(j, "empty_loop_ns", ns_real(t->turn_ns));
	if (t->core_ghz > 0)
		json_object_set_new(j, "core_speed_ghz", json_real(round(t->core_ghz * 1000) / 1000));
	json_object_set_new(j, "delay_floor_ns", ns_real(floor));
	/* the overhead a 100 ns fixed delay is calibrated with (the
	 * workers calibrate their own, for their own request) */
	over = wl_delay_overhead_ns();
	if (isfinite(over))
		json_object_set_new(j, "delay_overhead_ns", ns_real(over));
	json_object_set_new(j, "cs_delay", json_string(delay_method(floor, p->cs_ns)));
	json_object_set_new(j, "ncs_delay",
			    json_string(delay_method(floor, p->ncs_ns)));
	if (t->sim_clock_ns > 0 || t->sim_pause_ns > 0)
		json_object_set_new(j, "simulated", json_pack("{s:f, s:f}",
			"clock_ns", t->sim_clock_ns, "pause_ns", t->sim_pause_ns));
	return j;
}

unsigned usable_cpus(const struct config *cf, const struct topo *t)
{
	unsigned *order, n = 0;
	char err[256];

	/* Mapped: the workers run on this machine's CPUs. */
	if (cf->here)
		return placement_map_cpus(cf->here, cf->placement.use_isolated, NULL);
	if (!placement_order(t, &cf->placement, &order, &n, err, sizeof(err)))
		free(order);
	return n;
}

int *used_cpus(const struct config *cf, const struct topo *t, unsigned *n)
{
	unsigned maxthr, k = 0;
	struct thread_place *pl = place_max(cf, t, &maxthr);
	const struct topo *on = cf->here ? cf->here : t;
	int *cpus = calloc(maxthr + on->npu + 1, sizeof(*cpus));

	if (pl && cpus)
		k = placement_distinct_cpus(on, pl, maxthr, cpus);
	free(pl);
	*n = k;
	return cpus;
}
