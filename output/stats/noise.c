/* SPDX-License-Identifier: MIT */
/*
 * Noise flags of one run and the -r auto stopping rule (see noise.h).
 * Pure functions of the noise data; the pass over a whole results
 * model (left-out runs, counts) is in results_noise.c.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "stats.h"

void noise_opts_default(struct noise_opts *o)
{
	*o = (struct noise_opts){
		.measure = true, .cs_tolerance = 0.10, .cs_min_ns = 50,
		.ci_target = 0.01, .min_runs = 3, .max_runs = 30,
	};
}

const char *noise_flag_name(unsigned i)
{
	static const char *const names[NOISE_NFLAGS] = {
		"shared_cpu", "stopped", "cs_length_off",
	};
	return i < NOISE_NFLAGS ? names[i] : "?";
}

const char *adapt_stop_name(enum adapt_stop s)
{
	static const char *const names[] = {
		[ADAPT_MORE] = "not_finished", [ADAPT_MET] = "ci_target_met",
		[ADAPT_MAX_RUNS] = "max_runs", [ADAPT_BUDGET] = "time_budget",
	};
	return s <= ADAPT_BUDGET ? names[s] : "?";
}

int noise_run_dup(struct run_noise *dst, const struct run_noise *src)
{
	*dst = *src;
	dst->w = NULL;
	if (!src->w || !src->nworkers)
		return 0;
	dst->w = malloc(src->nworkers * sizeof(*src->w));
	if (!dst->w)
		return -ENOMEM;
	memcpy(dst->w, src->w, src->nworkers * sizeof(*src->w));
	return 0;
}

void noise_run_free(struct run_noise *n)
{
	free(n->w);
	memset(n, 0, sizeof(*n));
}

void results_noise_free(struct results_noise *rn)
{
	free(rn->row_stop);
	rn->row_stop = NULL;
}

bool noise_length_off(double req, double actual, const struct noise_opts *o)
{
	if (req < (double)o->cs_min_ns || !isfinite(actual))
		return false;
	return fabs(actual - req) > o->cs_tolerance * req;
}

/* The share of the window worker i must wait by the run's own making:
 * (k - 1) / k when k of the run's workers are pinned to its CPU (an
 * oversubscribed run, marked `*`, shares its CPUs by design). */
static double own_wait(const struct run_noise *n, unsigned i)
{
	unsigned k = 0;

	if (n->w[i].cpu < 0)
		return 0;
	for (unsigned j = 0; j < n->nworkers; j++)
		k += n->w[j].cpu == n->w[i].cpu;
	return k > 1 ? (double)(k - 1) / k : 0;
}

/*
 * The schedstat run-queue wait is added when a wait ends (the kernel's
 * sched_info_arrive()), so a worker still waiting at the window's end
 * shows none of that wait: starved for the whole window it reads 0 CPU
 * and 0 wait.  A worker that never gave its CPU up of its own accord in
 * the loop (no voluntary switch: a spinning worker) was runnable all
 * along, so the window it did not run, less the stopped time and the
 * accounting's lag (the CPU time is brought up to date at a tick, 10 ms
 * at HZ=100), was a wait (docs/method.md, "Noise").
 */
#define SCHED_ACCOUNT_LAG_S 0.01

static double worker_wait(const struct run_noise *n, unsigned i, double stopped_share)
{
	const struct worker_noise *w = &n->w[i];
	double x = w->wait_share;

	if (w->nvcsw == 0 && isfinite(w->cpu_share) && n->window_s > 0)
		x = fmax(x, 1 - w->cpu_share - stopped_share - SCHED_ACCOUNT_LAG_S / n->window_s);
	return x;
}

double noise_wait_share(const struct run_noise *n)
{
	double m = NAN;
	double stopped = n->window_s > 0 ? noise_stopped_s(n) / n->window_s : 0;

	for (unsigned i = 0; n->w && i < n->nworkers; i++) {
		double x = worker_wait(n, i, stopped) - own_wait(n, i);

		if (isfinite(x) && !(x <= m))
			m = fmax(x, 0);
	}
	return m;
}

/* The window's stretch beyond its request counted as stopped: less a
 * scheduling delay of the monitor's last wake-up. */
#define STRETCH_SLACK_S 0.05

double noise_stopped_s(const struct run_noise *n)
{
	double s = isfinite(n->late_s) ? n->late_s : 0;

	if (n->window_req_s > 0 && n->window_s > n->window_req_s + STRETCH_SLACK_S)
		s = fmax(s, n->window_s - n->window_req_s - STRETCH_SLACK_S);
	for (unsigned i = 0; n->w && i < n->nworkers && n->window_s > 0; i++) {
		const struct worker_noise *w = &n->w[i];

		if (isfinite(w->cpu_share) && isfinite(w->wait_share))
			s = fmin(s, n->window_s * fmax(0, 1 - w->cpu_share - w->wait_share));
	}
	return s;
}

double noise_lost_share(const struct run_noise *n)
{
	double wait = noise_wait_share(n);

	if (!(n->window_s > 0))
		return 0;
	return (isfinite(wait) ? wait : 0) + noise_stopped_s(n) / n->window_s;
}

unsigned noise_run_flags(const struct run_noise *n, const struct noise_opts *o)
{
	unsigned f = 0;
	double wait = noise_wait_share(n);

	if (!n->present)
		return n->recorded;
	if (isfinite(wait) && wait >= NOISE_LOST_MIN)
		f |= NOISE_SHARED;
	if (n->window_s > 0 && noise_stopped_s(n) >= NOISE_LOST_MIN * n->window_s)
		f |= NOISE_STOPPED;
	if (noise_length_off(n->cs_requested, n->cs_actual, o) ||
	    noise_length_off(n->ncs_requested, n->ncs_actual, o))
		f |= NOISE_CS_OFF;
	return f;
}

bool noise_run_excluded(const struct run_noise *n)
{
	if (!n->present)
		return n->recorded_excluded;
	return noise_lost_share(n) >= NOISE_EXCLUDE_LOST;
}

char *noise_reason(const struct run_noise *n, char *buf, size_t len)
{
	int k = 0;

	if (!len)
		return buf;
	*buf = 0;
	if ((n->flags & NOISE_SHARED) && n->present)
		k = snprintf(buf, len, "shared its CPU: waited %.0f%% of the window",
			     100 * noise_wait_share(n));
	else if (n->flags & NOISE_SHARED)
		k = snprintf(buf, len, "shared its CPU");
	if (k < 0 || (size_t)k >= len)
		return buf;
	if ((n->flags & NOISE_STOPPED) && n->present)
		snprintf(buf + k, len - (size_t)k, "%sstopped for %.2f s", k ? "; " : "",
			 noise_stopped_s(n));
	else if (n->flags & NOISE_STOPPED)
		snprintf(buf + k, len - (size_t)k, "%sstopped", k ? "; " : "");
	return buf;
}

enum adapt_stop adapt_decide(const struct noise_opts *o, const double *const *x,
			     const unsigned *n, unsigned nvar, unsigned rounds,
			     double elapsed_s, double round_s, double budget_s)
{
	bool met = true;

	if (rounds < o->min_runs && rounds < o->max_runs)
		return ADAPT_MORE;
	for (unsigned v = 0; v < nvar && met; v++) {
		struct summary s;
		double rel;

		if (!x[v])
			continue;
		stats_summarize(x[v], n[v], &s);
		rel = stats_ci_rel(&s);
		met = isfinite(rel) && rel <= o->ci_target;
	}
	if (met)
		return ADAPT_MET;
	if (rounds >= o->max_runs)
		return ADAPT_MAX_RUNS;
	if (budget_s > 0 && elapsed_s + round_s > budget_s)
		return ADAPT_BUDGET;
	return ADAPT_MORE;
}
