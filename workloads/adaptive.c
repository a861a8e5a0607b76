/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../topology/host/clock.h"
#include "adaptive.h"

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

unsigned sweep_noise_next(const struct config *c, struct results *r,
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
