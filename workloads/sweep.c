/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../topology/host/clock.h"
#include "../topology/mem.h"
#include "loops/loops.h"
#include "runner.h"
#include "sweep.h"

/*
 * The sweep's noise step, called between the plan's steps: warns once
 * per point whose measured section lengths are off the request, and
 * with -r auto ends a thread count's rounds as soon as the stopping
 * rule (adapt_decide in output/stats/noise.h) says so.
 */

/* Between-steps state of one sweep; zero-initialise. */
struct sweep_noise {
	bool begun;
	double t_sweep0;         /* first call */
	double t_row0;           /* the current thread count's first step */
	double row_budget;       /* its share of --time-budget (0: none) */
};

/* "critical section 170 ns for --cs-ns 200" when that section is off. */
static int describe_off(char *buf, size_t len, bool first, const char *what,
			const char *opt, double req, double actual,
			const struct noise_opts *o)
{
	if (!noise_length_off(req, actual, o))
		return 0;
	return snprintf(buf, len, "%s%s %.0f ns for --%s %.0f", first ? "" : ", ",
			what, actual, opt, req);
}

/* Once per point: the newest run's sections were not as long as asked. */
static void warn_lengths(const struct config *c, struct results *r,
			 const struct plan_step *st)
{
	struct point *p = results_point(r, st->variant, st->row);
	const struct run_noise *n;
	char msg[256] = "";
	int k;

	if (c->quiet || p->nruns <= st->run || p->noise.cs_warned)
		return;
	/* One line per sweep: the note under the table names every point. */
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++)
		if (r->points[i].noise.cs_warned)
			return;
	n = &p->runs[p->nruns - 1].noise;
	k = describe_off(msg, sizeof(msg), true, "critical section", "cs-ns",
			 n->cs_requested, n->cs_actual, &c->noise);
	describe_off(msg + k, sizeof(msg) - (size_t)k, k == 0, "parallel section",
		     "ncs-ns", n->ncs_requested, n->ncs_actual, &c->noise);
	if (!*msg)
		return;
	p->noise.cs_warned = true;
	fprintf(stderr, "lockbench: warning: %s at %u thread%s: %s (off by more than "
		"%.0f%%; the machine busy?); other points: the note under the table\n",
		c->v[st->variant].lock->ops->name, c->threads[st->row],
		c->threads[st->row] == 1 ? "" : "s", msg, c->noise.cs_tolerance * 100);
}

/* The stopping rule on the included runs of every variant at `row`. */
static enum adapt_stop decide_row(const struct config *c, struct results *r,
				  unsigned row, unsigned rounds, double elapsed,
				  double budget)
{
	const double **x = calloc(r->nvariants, sizeof(*x));
	double *buf = calloc((size_t)r->nvariants * (rounds + 1), sizeof(double));
	unsigned *n = calloc(r->nvariants, sizeof(*n));
	enum adapt_stop s = ADAPT_MORE;

	if (x && buf && n) {
		for (unsigned v = 0; v < r->nvariants; v++) {
			struct point *p = results_point(r, v, row);
			double *xv = buf + (size_t)v * (rounds + 1);

			if (p->status > POINT_OK)
				continue;
			noise_point_update(r, p);
			for (unsigned k = 0; k < p->nruns && n[v] <= rounds; k++)
				if (run_included(&p->runs[k]))
					xv[n[v]++] = p->runs[k].ops_per_sec;
			x[v] = xv;
		}
		s = adapt_decide(&c->noise, x, n, r->nvariants, rounds, elapsed,
				 elapsed / rounds, budget);
	}
	free(x);
	free(buf);
	free(n);
	return s;
}

/* A thread count's first step: its share of what is left of the budget. */
static void row_begin(const struct config *c, const struct plan_step *st,
		      struct sweep_noise *sn)
{
	double t = lb_mono_s(), left = c->noise.time_budget_s - (t - sn->t_sweep0);

	sn->t_row0 = t;
	sn->row_budget = 0;
	if (c->noise.time_budget_s > 0)
		sn->row_budget = fmax(left, 0) / (c->nthreads - st->row);
}

/* Skip to the first step after thread count `row`. */
static unsigned skip_row(const struct plan_step *plan, unsigned total,
			 unsigned i, unsigned row)
{
	while (i < total && plan[i].row == row)
		i++;
	return i;
}

/*
 * The index of the next step to run, given that the steps before `i`
 * are done (i == total after the last one).  Returns i, or with -r auto
 * at a round boundary the first step of the next thread count when the
 * current one is finished (r->noise.row_stop records why).
 */
static unsigned sweep_noise_next(const struct config *c, struct results *r,
				 const struct plan_step *plan, unsigned total,
				 unsigned i, struct sweep_noise *sn)
{
	const struct plan_step *prev = i ? &plan[i - 1] : NULL;
	enum adapt_stop s;

	if (!sn->begun) {
		sn->begun = true;
		sn->t_sweep0 = lb_mono_s();
	}
	if (prev)
		warn_lengths(c, r, prev);
	if (!c->noise.adaptive || c->order != ORDER_INTERLEAVED)
		return i;
	if (!r->noise.row_stop &&
	    !(r->noise.row_stop = calloc(r->nrows, sizeof(*r->noise.row_stop))))
		return i;
	if (prev && (i == total || plan[i].run != prev->run ||
		     plan[i].row != prev->row)) {
		s = decide_row(c, r, prev->row, prev->run + 1, lb_mono_s() - sn->t_row0,
			       sn->row_budget);
		if (i == total || plan[i].row != prev->row)
			r->noise.row_stop[prev->row] = s ? s : ADAPT_MAX_RUNS;
		else if (s != ADAPT_MORE) {
			r->noise.row_stop[prev->row] = s;
			i = skip_row(plan, total, i, prev->row);
		}
	}
	if (i < total && (!prev || plan[i].row != prev->row))
		row_begin(c, &plan[i], sn);
	return i;
}

/* splitmix64: a small seeded generator for the shuffles. */
static uint64_t mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void shuffle(unsigned *v, unsigned n, uint64_t *s)
{
	for (unsigned i = n; i > 1; i--) {
		unsigned j = (unsigned)(mix(s) % i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

struct plan_step *plan_build(const struct config *c, unsigned *n)
{
	struct plan_step *p = calloc((size_t)c->nvariants * c->nthreads * c->runs + 1,
				     sizeof(*p));
	unsigned *perm = calloc(c->nvariants + 1, sizeof(*perm)), k = 0;
	uint64_t s = c->seed;

	if (!p || !perm) {
		free(p);
		free(perm);
		return NULL;
	}
	for (unsigned row = 0; row < c->nthreads; row++) {
		if (c->order == ORDER_SEQUENTIAL) {
			for (unsigned v = 0; v < c->nvariants; v++)
				for (unsigned run = 0; run < c->runs; run++)
					p[k++] = (struct plan_step){v, row, run};
			continue;
		}
		for (unsigned run = 0; run < c->runs; run++) {
			for (unsigned v = 0; v < c->nvariants; v++)
				perm[v] = v;
			shuffle(perm, c->nvariants, &s);
			for (unsigned v = 0; v < c->nvariants; v++)
				p[k++] = (struct plan_step){perm[v], row, run};
		}
	}
	free(perm);
	*n = k;
	return p;
}

/* One progress line on stderr: updating in place on a terminal. */
static void progress(const struct config *c, const struct plan_step *st,
		     unsigned done, unsigned total, double t0, const char *what)
{
	static int tty = -1;
	double el = lb_mono_s() - t0, eta = done ? el / done * (total - done) : 0;

	if (c->quiet)
		return;
	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	fprintf(stderr, "%slockbench: [%u/%u] %s threads=%u run %u/%u %s  "
		"elapsed %.0fs eta %.0fs%s", tty ? "\r\033[K" : "", done, total,
		c->v[st->variant].name, c->threads[st->row],
		st->run + 1, c->runs, what, el, eta, tty ? "" : "\n");
	fflush(stderr);
}

static void progress_end(const struct config *c)
{
	if (!c->quiet && isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
}

static void set_error(struct point *p, enum point_status st, const char *msg)
{
	p->status = st;
	free(p->error);
	p->error = strdup(msg);
}

const struct wl_option *workload_variants(const struct workload_ops *wl)
{
	for (const struct wl_option *o = wl ? wl->options : NULL; o && o->name; o++)
		if (o->type == WL_OPT_VARIANTS)
			return o;
	return NULL;
}

/*
 * After a run: warn (unless -q) when its window was still trending,
 * i.e. the warm-up was too short for this machine (stats_trend).
 */
static void warn_trend(const struct config *c, const struct plan_step *st,
		       struct run_sample *s)
{
	run_sample_derive(s);
	if (!s->trending || c->quiet)
		return;
	fprintf(stderr, "%slockbench: warning: %s threads=%u run %u: throughput still "
		"trending in the window (%+.0f%% first to last interval): "
		"lengthen --warmup\n", isatty(STDERR_FILENO) ? "\r\033[K" : "",
		c->v[st->variant].name, c->threads[st->row],
		st->run + 1, s->trend_pct);
}

/* Fill a run_spec for step `st`; place must hold the row's threads. */
static void spec_for(const struct config *c, const struct plan_step *st,
		     const struct thread_place *place, volatile sig_atomic_t *intr,
		     struct run_spec *sp)
{
	const struct config_variant *v = &c->v[st->variant];

	*sp = (struct run_spec){
		.ops = v->lock->ops, .loops = wl_loops_find(v->lock->ops),
		.lock_opt = v->opt, .wl = c->workload, .params = &v->params,
		.nthreads = c->threads[st->row], .place = place,
		.fake_nodes = c->fake_nodes, .mem_node = c->mem_node,
		.warmup_s = c->warmup_s, .duration_s = c->duration_s,
		.interval_s = c->interval_s, .watchdog_s = c->watchdog_s,
		.interrupted = intr, .noise = &c->noise, .perf = &c->perf,
	};
	/* Memory on the first thread's node unless --mem-node says. */
	if (c->mem_node == MEM_NODE_LOCAL && place[0].cpu >= 0)
		sp->mem_node = place[0].node_os;
}

/* Record one finished run into its point; returns the sweep status. */
static int record(struct results *r, const struct plan_step *st,
		  struct run_sample *s, int rc, const char *msg)
{
	struct point *p = results_point(r, st->variant, st->row);
	char why[256];

	if (rc == RUN_OK) {
		s->seq = p->nruns;
		if (results_add_run(r, st->variant, st->row, s))
			return -ENOMEM;
		if (!s->exclusion_ok) {
			snprintf(why, sizeof(why),
				 "mutual exclusion violated: counter %llu != %llu "
				 "operations, %llu violations caught in the act",
				 (unsigned long long)s->counter,
				 (unsigned long long)s->total_ops,
				 (unsigned long long)s->violations);
			set_error(p, POINT_FAILED, why);
			return 1;
		}
		if (p->status == POINT_MISSING)
			p->status = POINT_OK;
		return 0;
	}
	if (rc == RUN_INTERRUPTED)
		return 1;
	set_error(p, rc == RUN_HUNG ? POINT_HUNG : POINT_ERROR, msg);
	return 1;
}

/* The sweep's error message: the run's own, else the point's. */
static void first_failure(const struct config *c, const struct plan_step *st,
			  const struct point *p, const char *msg, char *err,
			  size_t errlen)
{
	if (*msg)
		snprintf(err, errlen, "%s", msg);
	else
		snprintf(err, errlen, "lockbench: %s FAILED at %u thread%s: %s",
			 c->v[st->variant].name, c->threads[st->row],
			 c->threads[st->row] == 1 ? "" : "s",
			 p->error ? p->error : "interrupted");
}

/* One step of the plan: placed, run, recorded.  The runner's status. */
static int sweep_step(const struct config *c, const struct topo *topo,
		      const struct plan_step *st, struct thread_place *place,
		      volatile sig_atomic_t *interrupted,
		      struct run_sample *s, char *msg, size_t len)
{
	struct run_spec sp;
	int rc;

	if (placement_assign(topo, &c->placement, c->threads[st->row], place, msg, len) ||
	    (c->here && placement_map(c->here, c->placement.use_isolated, place,
				      c->threads[st->row], msg, len) < 0))
		rc = RUN_ERROR;
	else {
		spec_for(c, st, place, interrupted, &sp);
		rc = runner_run(&sp, s, msg, len);
		if (rc == RUN_OK)
			warn_trend(c, st, s);
	}
	if ((rc == RUN_ERROR || rc == RUN_ABORT) && c->v[st->variant].lock->origin)
		snprintf(msg + strlen(msg), len - strlen(msg), " (plugin %s)",
			 c->v[st->variant].lock->origin);
	return rc;
}

int sweep_run(const struct config *c, const struct topo *topo, struct results *r,
	      volatile sig_atomic_t *interrupted, char *err, size_t errlen)
{
	unsigned total, maxthr = 0;
	struct plan_step *plan = plan_build(c, &total);
	struct thread_place *place;
	double t0 = lb_mono_s();
	struct sweep_noise sn = {0};
	int status = 0;

	for (unsigned i = 0; i < c->nthreads; i++)
		maxthr = c->threads[i] > maxthr ? c->threads[i] : maxthr;
	place = calloc(maxthr + 1, sizeof(*place));
	if (!plan || !place) {
		free(plan);
		free(place);
		snprintf(err, errlen, "lockbench: out of memory");
		return 1;
	}
	for (unsigned i = sweep_noise_next(c, r, plan, total, 0, &sn); i < total;
	     i = sweep_noise_next(c, r, plan, total, i + 1, &sn)) {
		const struct plan_step *st = &plan[i];
		struct point *p = results_point(r, st->variant, st->row);
		struct run_sample s;
		char msg[512] = "";
		int rc, st_rc;

		/* A lock that failed or errored at this point is not re-run;
		 * a run kept from --resume is not measured again. */
		if (p->status > POINT_OK || p->nruns > st->run)
			continue;
		progress(c, st, i, total, t0, "");
		rc = sweep_step(c, topo, st, place, interrupted, &s, msg, sizeof(msg));
		st_rc = record(r, st, &s, rc, msg);
		if (rc != RUN_HUNG && rc != RUN_ABORT)
			run_sample_free(&s);
		if (rc == RUN_ERROR)    /* a point was not measured: say so */
			r->incomplete = true;
		if (st_rc && !status) {
			status = rc == RUN_ERROR || rc == RUN_ABORT ? 2 : 1;
			first_failure(c, st, p, msg, err, errlen);
		}
		if (rc == RUN_HUNG || rc == RUN_INTERRUPTED || rc == RUN_ABORT || st_rc < 0) {
			r->incomplete = true;
			break;
		}
	}
	progress_end(c);
	free(plan);
	free(place);
	return status;
}
