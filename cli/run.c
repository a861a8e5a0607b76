/* SPDX-License-Identifier: MIT */
/*
 * `lockbench [run]`: topology -> configuration -> (dry run | machine
 * set-up -> sweep -> restore) -> render.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../output/results/json_read.h"
#include "../output/results/noise_json.h"
#include "../output/results/resume.h"
#include "../topology/machine.h"
#include "../workloads/loop.h"
#include "../workloads/loops/loops.h"
#include "cmds.h"
#include "provenance.h"
#include "config.h"
#include "err.h"
#include "infile.h"
#include "floor.h"
#include "machctl.h"
#include "outfile.h"
#include "rundoc.h"
#include "suggest.h"

/* --resume: the interrupted sweep's file, read once. */
struct resume {
	const char *path;       /* NULL: not resuming */
	bool loaded;
	struct results old;
};

static struct results *resume_file(struct resume *rs)
{
	char err[512];

	if (!rs->loaded) {
		infile_check("--resume", rs->path);
		if (results_from_json(rs->path, &rs->old, err, sizeof(err)))
			cli_die("--resume: %s", err);
		rs->loaded = true;
	}
	return &rs->old;
}

static void resume_release(struct resume *rs)
{
	if (rs->loaded)
		results_free(&rs->old);
	rs->loaded = false;
}

/* Without --seed, the resumed sweep keeps the file's run order; then a
 * different configuration is refused before anything runs (exit 2). */
static void resume_prepare(struct resume *rs, bool seed_given, struct config *cf,
			   const struct outputs *o)
{
	json_t *cfg, *seed;
	char err[512];

	if (!rs->path)
		return;
	seed = json_object_get(resume_file(rs)->config, "seed");
	if (!seed_given && json_is_integer(seed))
		cf->seed = (uint64_t)json_integer_value(seed);
	cfg = config_json(cf, o);
	if (results_resume_check(cfg, resume_file(rs), rs->path, err, sizeof(err)))
		cli_die_msg(err);
	json_decref(cfg);
}

/* Keep the file's completed runs (checked by resume_prepare already). */
static void resume_apply(struct resume *rs, struct results *r)
{
	char err[512];

	if (!rs->path)
		return;
	if (results_resume(r, resume_file(rs), rs->path, err, sizeof(err)))
		cli_die_msg(err);
	resume_release(rs);
}

/* --dry-run: the plan, its placement and how long it will take. */
static void dry_run_plan(const struct config *cf, const struct topo *t)
{
	unsigned n;
	double each = cf->warmup_s + cf->duration_s + 0.05;

	free(plan_build(cf, &n));
	printf("topology: %s (%u PU%s, %u core%s, %u NUMA node%s, %u package%s)\n",
	       t->source, t->npu, t->npu == 1 ? "" : "s",
	       t->ncores, t->ncores == 1 ? "" : "s",
	       t->nnodes, t->nnodes == 1 ? "" : "s",
	       t->npackages, t->npackages == 1 ? "" : "s");
	if (cf->here)
		printf("mapped onto this machine's %u usable CPUs: worker i on the "
		       "(i mod %u)-th, its node from the placement above (--map-topology)\n",
		       usable_cpus(cf, t), usable_cpus(cf, t));
	printf("locks: ");
	for (unsigned i = 0; i < cf->nvariants; i++)
		printf("%s%s%s", i ? ", " : "", cf->v[i].name,
		       i == cf->baseline ? " (baseline)" : "");
	printf("\nworkload: %s  cs-ns %llu  ncs-ns %llu  cs-lines %u\n",
	       cf->workload->name, (unsigned long long)cf->params.cs_ns,
	       (unsigned long long)cf->params.ncs_ns, cf->params.cs_lines);
	if (cf->sweep) {
		const char *k;
		json_t *a, *x;
		size_t i;

		printf("sweep:");
		json_object_foreach(cf->sweep, k, a) {
			printf(" %s ", k);
			json_array_foreach(a, i, x)
				if (json_is_integer(x))
					printf("%s%lld", i ? "," : "", (long long)json_integer_value(x));
				else
					printf("%s%g", i ? "," : "", json_number_value(x));
		}
		printf("\n");
	}
	printf("points: %u %s%s x %u thread count%s x %u run%s = %u run%s, %s order\n",
	       cf->nvariants, cf->sweep ? "variant" : "lock", cf->nvariants == 1 ? "" : "s",
	       cf->nthreads, cf->nthreads == 1 ? "" : "s",
	       cf->runs, cf->runs == 1 ? "" : "s", n, n == 1 ? "" : "s",
	       cf->order == ORDER_INTERLEAVED ? "interleaved" : "sequential");
	if (cf->noise.adaptive)
		printf("-r auto: %u runs per point at most (at least %u), fewer once every "
		       "95%% CI is within %g%% of its mean\n", cf->noise.max_runs,
		       cf->noise.min_runs, cf->noise.ci_target * 100);
	printf("estimated duration: %s%.0f s (%.2f s warm-up + %.2f s window per run)\n",
	       cf->noise.adaptive ? "at most " : "", n * each, cf->warmup_s, cf->duration_s);
}

/*
 * The dry run's placement lines.  A thread's CPU (and mapped node) does
 * not depend on the thread count (placement_assign(), placement_map()),
 * so the largest count is placed once and every count is its prefix.
 * A prefix that repeats its first p entries (oversubscribed, or a
 * count beyond the PUs) longer than DRY_LIST entries is written as the
 * p entries "repeated to N threads": each line is then as long as its
 * pattern, not as its count, and a dry run of 1-65535 is quick (listing
 * every thread of every count wrote billions of numbers).  per[i]: the
 * smallest period of the first i + 1 entries, from the prefix function
 * (Knuth, Morris and Pratt, "Fast pattern matching in strings", 1977).
 */
#define DRY_LIST 64

static bool place_same(const struct thread_place *a, const struct thread_place *b)
{
	return a->cpu == b->cpu && a->node == b->node;
}

static unsigned *dry_periods(const struct thread_place *pl, unsigned n)
{
	unsigned *pi = calloc(n + 1, sizeof(*pi));

	for (unsigned i = 1; pi && i < n; i++) {
		unsigned k = pi[i - 1];

		while (k && !place_same(&pl[i], &pl[k]))
			k = pi[k - 1];
		pi[i] = k + place_same(&pl[i], &pl[k]);
	}
	for (unsigned i = 0; pi && i < n; i++)
		pi[i] = i + 1 - pi[i];
	return pi;
}

/* One count's line; *seen: a count whose line listed a pattern longer
 * than DRY_LIST in full (0: none yet), which the later counts of the
 * same period refer to rather than list it again. */
static void dry_line(const struct config *cf, const struct thread_place *pl,
		     unsigned nt, const unsigned *per, unsigned usable, unsigned *seen)
{
	unsigned p = per[nt - 1], show = nt > DRY_LIST && p < nt ? p : nt;

	printf("threads %u%s: cpus", nt, nt > usable ? " (oversubscribed)" : "");
	if (show > DRY_LIST && *seen && per[*seen - 1] == p && show < nt) {
		printf(" those of threads %u, repeated to %u threads\n", *seen, nt);
		return;
	}
	if (show > DRY_LIST)
		*seen = show;
	for (unsigned k = 0; k < show; k++)
		printf("%s%d", k ? "," : " ", pl[k].cpu);
	for (unsigned k = 0; cf->here && k < show; k++)
		printf("%s%u", k ? "," : " nodes ", pl[k].node);
	if (show < nt)
		printf(" repeated to %u threads", nt);
	printf("\n");
}

static int dry_run(const struct config *cf, const struct topo *t)
{
	unsigned usable = usable_cpus(cf, t), max = 1, seen = 0, *per;
	struct thread_place *pl;
	char err[256];

	dry_run_plan(cf, t);
	for (unsigned i = 0; i < cf->nthreads; i++)
		max = cf->threads[i] > max ? cf->threads[i] : max;
	pl = calloc(max, sizeof(*pl));
	if (!pl || placement_assign(t, &cf->placement, max, pl, err, sizeof(err)) ||
	    (cf->here && placement_map(cf->here, cf->placement.use_isolated, pl, max,
				       err, sizeof(err)) < 0)) {
		free(pl);
		return 0;
	}
	per = dry_periods(pl, max);
	for (unsigned i = 0; per && i < cf->nthreads; i++)
		dry_line(cf, pl, cf->threads[i], per, usable, &seen);
	free(per);
	free(pl);
	return 0;
}

static void variant_setup(struct variant *v, const struct config *cf, unsigned i)
{
	const struct lock_entry *e = cf->v[i].lock;

	v->name = strdup(cf->v[i].name);
	v->lock = strdup(e->ops->name);
	v->label = cf->label ? strdup(cf->label) : NULL;
	v->origin = e->origin ? strdup(e->origin) : NULL;
	v->sha256 = e->origin ? strdup(e->sha256) : NULL;
	/* The loop the runner picks (runner_loop): the lock's own for every
	 * workload with an inlined loop, else the generic one. */
	v->loop = strdup(wl_loops_find(e->ops) && cf->workload->inline_loop != WL_LOOP_NONE
			 ? "inline" : "generic");
	v->counter_names = calloc(e->ops->ncounters + 1, sizeof(char *));
	for (unsigned k = 0; v->counter_names && k < e->ops->ncounters; k++)
		v->counter_names[k] = strdup(e->ops->counter_names[k]);
	v->ncounters = v->counter_names ? e->ops->ncounters : 0;
	v->params = json_incref(cf->v[i].swept);
	v->source = e->identity ? json_loads(e->identity, 0, NULL) : NULL;
	if (v->source && !json_is_object(v->source)) {
		json_decref(v->source);
		v->source = NULL;
	}
}

/* The counters' names into the model; say once which were refused. */
static void perf_setup(struct results *r, const struct config *cf)
{
	const char *names[PERF_MAX_EVENTS];
	char note[1024];

	for (unsigned i = 0; i < cf->perf.n; i++)
		names[i] = cf->perf.ev[i].name;
	if (results_set_perf_names(r, names, cf->perf.n))
		cli_die("out of memory");
	r->perf_named = cf->perf_request && strcmp(cf->perf_request, "auto");
	if (*perf_refusals_text(&cf->perf, note, sizeof(note)) && !cf->quiet)
		cli_warn("counters not measured: %s", note);
}

static void results_setup(struct results *r, const struct config *cf,
			  const struct topo *t, const struct outputs *o)
{
	if (results_init(r, cf->nvariants, cf->nthreads))
		cli_die("out of memory");
	for (unsigned i = 0; i < cf->nvariants; i++)
		variant_setup(&r->variants[i], cf, i);
	memcpy(r->rows, cf->threads, cf->nthreads * sizeof(unsigned));
	r->baseline = cf->baseline;
	/* A sweep's pairing, unless every variant is against the baseline
	 * anyway (only lock options swept). */
	for (unsigned i = 0; i < cf->nvariants && !r->base_of; i++)
		if (cf->v[i].base != cf->baseline) {
			r->base_of = cli_calloc(cf->nvariants, sizeof(*r->base_of));
			for (unsigned k = 0; k < cf->nvariants; k++)
				r->base_of[k] = cf->v[k].base;
		}
	r->min_effect = cf->min_effect_pct;
	r->inv_floor = cf->inv_floor ? json_incref(cf->inv_floor) : NULL;
	r->variant_heading = strdup(workload_variants(cf->workload) ? cf->workload->name : "Lock");
	if (!r->variant_heading)
		cli_die("out of memory");
	if (workload_variants(cf->workload))   /* the workload's name is the noun of its variants */
		r->variant_heading[0] = (char)toupper((unsigned char)r->variant_heading[0]);
	r->row_heading = strdup(cf->row_heading);
	r->label = cf->label ? strdup(cf->label) : NULL;
	r->workload = strdup(cf->workload->name);
	r->ncpus = usable_cpus(cf, t);
	r->machine = machine_json(cf->here ? cf->here : t); /* the real machine */
	r->config = config_json(cf, o);
	r->placement = placement_json(cf, t);
	r->run_order = run_order_json(cf);
	r->noise.opts = cf->noise;
	r->calibration = calibration_json(&cf->params);
	perf_setup(r, cf);
}

static json_t *json_or_null(json_t *j)
{
	return j ? j : json_null();
}

/* What a run needs once the command line is validated: the command
 * line is not read after run_prepare(). */
struct run {
	struct topo t;
	struct topo here;       /* --map-topology: this machine */
	bool mapped;
	struct config cf;
	struct outputs o;
	struct resume rs;
	struct machine_req machine;
	bool dry_run;
	int argc;               /* the command line, for the provenance */
	char **argv;
};

/*
 * The status a --resume'd file's own points carry (the sweep skips them,
 * so it does not see them fail again): 1 for a point that failed its
 * mutual-exclusion check or hung, 2 for one that could not run, 0
 * otherwise; the first such point is said in one line, as the run that
 * wrote the file said it.
 */
static int resumed_status(const struct results *r)
{
	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned row = 0; row < r->nrows; row++) {
			const struct point *p = results_point(r, v, row);

			if (p->status <= POINT_OK)
				continue;
			cli_warn("%s %s at %s %u (kept from --resume): %s",
				 r->variants[v].name, p->status == POINT_ERROR ? "could not run" :
				 "FAILED", r->row_heading ? r->row_heading : "threads",
				 r->rows[row], p->error ? p->error : point_status_name(p->status));
			return p->status == POINT_ERROR ? 2 : 1;
		}
	return 0;
}

/* Tune, sweep, restore; r is filled.  0, 1 (a lock failed,
 * hung, or the sweep was interrupted) or 2 (a run could not be set up). */
static int measure(struct run *run, struct results *r)
{
	const struct config *cf = &run->cf;
	char err[512] = "";
	unsigned ncpus;
	int rc, *cpus = used_cpus(cf, &run->t, &ncpus);
	json_t *before = machine_describe(cpus, ncpus);
	json_t *changes = machine_setup(&run->machine, cpus, ncpus, cf->quiet);

	results_setup(r, cf, &run->t, &run->o);
	r->provenance = provenance_json(run->argc, run->argv, true, cf->seed);
	resume_apply(&run->rs, r);
	json_object_set_new(r->machine, "state_before", json_or_null(before));
	json_object_set_new(r->machine, "changes", changes);
	rc = sweep_run(cf, &run->t, r, &interrupted, err, sizeof(err));
	json_object_set_new(r->machine, "state_after", json_or_null(machine_describe(cpus, ncpus)));
	if (cf->noise.adaptive)
		noise_prune_run_order(r);
	machine_restore();
	free(cpus);
	if (rc)
		cli_warn_msg(err);
	else if (run->rs.path)
		rc = resumed_status(r);
	if (interrupted)
		cli_warn("interrupted: writing the points measured so far");
	return rc;
}

/* A word that is neither an option nor a command: one line, exit 2. */
static void __attribute__((noreturn)) bad_word(const char *w)
{
	const char *names[16];
	char hint[96];
	unsigned n = 0;

	for (; n < ncommands && n < 16; n++)
		names[n] = commands[n].name;
	cli_die("unexpected argument (%s): %stry 'lockbench help'", w,
		suggest_text(hint, sizeof(hint), w, names, n));
}

/*
 * --rows: threads or a swept workload option (cs-ns or cs_ns); checked
 * before anything runs.  --row-name names thread-count rows, so it is
 * refused where the rows may be something else (a sweep).
 */
static const char *rows_dim(const struct cli *c)
{
	static char key[128];
	char valid[512] = "threads";

	if (c->row_name_given && c->dims.n)
		cli_die("--row-name (%s): relabels thread counts, and this run sweeps "
			"parameters; choose the rows with --rows", c->row_name);
	if (!strcmp(c->rows, "threads"))
		return c->rows;
	for (unsigned i = 0; i < c->dims.n; i++) {
		opt_param_key(c->dims.d[i].o, key, sizeof(key));
		if (!strcmp(c->rows, key) || !strcmp(c->rows, c->dims.d[i].o->name))
			return key;
		snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), ", %s",
			 c->dims.d[i].o->name);
	}
	cli_die("--rows (%s): not a dimension of this run; valid: %s%s", c->rows,
		valid, c->dims.n ? "" : " (give an option a list to sweep it)");
}

/*
 * The topology the placement is made on, and with --map-topology this
 * machine's, onto which it is mapped (docs/guide.md, "Placement").
 * Another machine's topology runs only mapped (or with --dry-run).
 */
static void topology_prepare(struct run *run, const struct cli *c)
{
	char err[512] = "";

	if (topo_load(&run->t, c->topology, isolated_cpus(), err, sizeof(err)))
		cli_die_msg(err);
	run->mapped = c->map_topology;
	if (c->map_topology && run->t.real)
		cli_die("--map-topology: maps the placement on another machine's "
			"--topology onto this one; give --topology SPEC");
	if (c->map_topology && c->fake_nodes)
		cli_die("--fake-nodes (%llu) and --map-topology both set the workers' "
			"NUMA nodes: give one (--map-topology takes them from the "
			"placement on --topology)", c->fake_nodes);
	if (!c->dry_run && !run->t.real && !run->mapped && c->fake_nodes)
		cli_die("--fake-nodes (%llu) gives nodes on this machine, not on "
			"--topology (%s): drop --topology, or give --map-topology "
			"instead of --fake-nodes", c->fake_nodes, c->topology);
	if (c->map_topology &&
	    topo_load(&run->here, NULL, isolated_cpus(), err, sizeof(err)))
		cli_die_msg(err);
	/* Its nodes on this machine (docs/kernel-tree.md, "The CNA series"). */
	if (!c->dry_run && !run->t.real && !run->mapped && run->t.nnodes > 1)
		cli_die("--topology (%s) describes another machine: use it with "
			"--dry-run or 'lockbench topo'; to run here over its %u NUMA "
			"nodes, give --map-topology (its placement on this machine's "
			"CPUs) or --fake-nodes %u (thread t on node t%%%u)",
			c->topology, run->t.nnodes, run->t.nnodes, run->t.nnodes);
	if (!c->dry_run && !run->t.real && !run->mapped)
		cli_die("--topology (%s) describes another machine: use it with "
			"--dry-run or 'lockbench topo', or run here with --map-topology "
			"(its placement on this machine's CPUs)", c->topology);
}

/* Validate the whole command line into run (exit 2 on bad usage). */
static void run_prepare(struct run *run, const struct cli *c)
{
	unsigned combos = 1;

	if (c->argc)
		bad_word(c->argv[0]);
	if (c->c2c)
		cli_die("--c2c is an option of 'topo' (lockbench topo --c2c), not of a run");
	topology_prepare(run, c);
	config_build(&run->cf, c, &run->t, run->mapped ? &run->here : NULL);
	outputs_parse(&run->o, outputs_formats(c->formats, c->formats_given, c->output),
		      c->unit, c->output, !c->no_marks);
	run->o.header = c->header;
	run->o.ropts.width = (unsigned)c->width;
	run->o.ropts.verbose = c->verbose;
	run->o.ropts.rows = rows_dim(c);
	/* The shape of each table: a sweep prints one per combination of
	 * the workload parameters, its columns the locks (and lock options). */
	for (unsigned i = 0; i < c->dims.n; i++)
		combos *= c->dims.d[i].n;
	outputs_check(&run->o, &(struct results){.nvariants = run->cf.nvariants / combos,
						   .nrows = run->cf.nthreads});
	run->rs = (struct resume){.path = c->resume};
	resume_prepare(&run->rs, c->seed != NULL, &run->cf, &run->o);
	run->machine = c->machine;
	run->dry_run = c->dry_run;
	run->argc = c->full_argc;
	run->argv = c->full_argv;
	if (run->cf.inv_floor && (run->t.real || run->mapped)) {
		/* A floor from another host: refused before anything is tuned. */
		json_t *m = machine_json(run->mapped ? &run->here : &run->t);

		floor_check_host(run->cf.inv_floor, m, "this run");
		json_decref(m);
	}
}

/* The least nonzero --cs-ns / --ncs-ns of the run (its sweep's too);
 * 0 if none. */
static uint64_t least_delay(const struct config *cf, const char **opt)
{
	uint64_t least = 0;
	for (unsigned i = 0; i < cf->nvariants; i++) {
		const struct wl_params *p = &cf->v[i].params;

		if (p->cs_ns && (!least || p->cs_ns < least))
			least = p->cs_ns, *opt = "--cs-ns";
		if (p->ncs_ns && (!least || p->ncs_ns < least))
			least = p->ncs_ns, *opt = "--ncs-ns";
	}
	return least;
}

/*
 * Before the sweep: the shortest delay this host holds
 * (wl_delay_floor_ns()); section lengths are checked only from there
 * (noise_opts.cs_min_ns), and a request below it is said once, here,
 * not after every point.
 */
static void delays_note(struct config *cf)
{
	const char *opt = "";
	uint64_t least = least_delay(cf, &opt);
	double floor;

	if (!least)
		return;
	floor = ceil(wl_delay_floor_ns());
	if ((double)cf->noise.cs_min_ns < floor)
		cf->noise.cs_min_ns = (uint64_t)floor;
	if ((double)least < floor && !cf->quiet)
		cli_warn("note: %s %llu is below the shortest delay this host holds, "
			 "%.0f ns (what one read of the clock and the call cost here): "
			 "shorter delays are loop turns that the sampled delays keep near "
			 "the length, approximate and not flagged", opt, (unsigned long long)least, floor);
}

int cmd_run(const struct cli *c)
{
	struct run run;
	struct results r;
	int rc, wrc;

	run_prepare(&run, c);
	if (run.dry_run) {
		rc = dry_run(&run.cf, &run.t);
		resume_release(&run.rs);
	} else {
		run.o.measured = true;
		outputs_open(&run.o);
		install_signals();
		/* the delays' calibration the JSON records, measured now,
		 * beside the clock's (lb_clock_rate()), not after the sweep */
		wl_delay_overhead_ns();
		delays_note(&run.cf);
		rc = measure(&run, &r);
		results_finalize(&r);
		wrc = outputs_write(&run.o, &r);
		if (wrc)
			outputs_rescue(&run.o, &r);
		results_free(&r);
		rc = interrupt_status(wrc ? wrc : rc);
	}
	topo_free(&run.t);
	if (run.mapped)
		topo_free(&run.here);
	config_free(&run.cf);
	return rc;
}
