/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../topology/host/clock.h"
#include "../topology/mem.h"
#include "adaptive.h"
#include "loops/loops.h"
#include "runner.h"
#include "sweep.h"

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
