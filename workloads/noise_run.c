/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../topology/steal.h"
#include "corespeed.h"
#include "noise_run.h"
#include "probe.h"
#include "sample.h"

/* What one worker measures about itself; private to it until the join. */
struct wnoise {
	struct cs_samples *samp;
	struct rusage ru0;
	double t0;               /* lb_mono_s() at the loop's start */
	double win_share;        /* the monitor's (noise_worker_cpu_share()) */
	struct worker_noise out;
};

struct noise_run {
	const struct noise_opts *o;
	int *cpus;               /* distinct CPUs in use */
	unsigned ncpus;
	int *pair_cpu;
	unsigned npairs;
	double *before;
	bool steal_ok;
	uint64_t steal0;
	double t0;
	struct wnoise *wn;       /* [nthreads] */
	unsigned nthreads;
};

static void noise_run_free_(struct noise_run *nr)
{
	for (unsigned i = 0; nr->wn && i < nr->nthreads; i++)
		free(nr->wn[i].samp);
	free(nr->wn);
	free(nr->cpus);
	free(nr->pair_cpu);
	free(nr->before);
	free(nr);
}

static const struct probe_cfg run_probe = {PROBE_RUN_ROUNDS, PROBE_RUN_TRIPS};

struct noise_run *noise_run_begin(const struct run_spec *sp)
{
	struct noise_run *nr;

	if (!sp->noise)
		return NULL;
	nr = calloc(1, sizeof(*nr));
	if (!nr)
		return NULL;
	nr->o = sp->noise;
	nr->nthreads = sp->nthreads;
	nr->wn = calloc(sp->nthreads, sizeof(*nr->wn));
	nr->cpus = calloc(sp->nthreads + 1, sizeof(int));
	if (!nr->wn || !nr->cpus) {
		noise_run_free_(nr);
		return NULL;
	}
	nr->ncpus = placement_distinct_cpus(NULL, sp->place, sp->nthreads, nr->cpus);
	nr->npairs = nr->o->probe ? probe_npairs(nr->ncpus) : 0;
	nr->pair_cpu = calloc(2 * nr->npairs + 2, sizeof(int));
	nr->before = calloc(nr->npairs + 1, sizeof(double));
	if (!nr->pair_cpu || !nr->before) {
		noise_run_free_(nr);
		return NULL;
	}
	probe_pairs(nr->cpus, nr->ncpus, nr->pair_cpu);
	nr->t0 = lb_mono_s();
	nr->steal_ok = nr->ncpus && !steal_read(nr->cpus, nr->ncpus, &nr->steal0);
	probe_run(nr->pair_cpu, nr->npairs, &run_probe, nr->before);
	return nr;
}

struct wnoise *noise_run_worker(struct noise_run *nr, unsigned tid)
{
	return nr && tid < nr->nthreads ? &nr->wn[tid] : NULL;
}

struct cs_samples *noise_worker_setup(struct wnoise *wn, int cpu)
{
	if (!wn)
		return NULL;
	wn->out.cpu = cpu;
	wn->out.cpu_end = -1;
	wn->samp = calloc(1, sizeof(*wn->samp));
	return wn->samp;
}

double *noise_worker_speed(struct wnoise *wn)
{
	return wn ? &wn->out.speed_before : NULL;
}

void noise_worker_begin(struct wnoise *wn)
{
	if (!wn)
		return;
	getrusage(RUSAGE_THREAD, &wn->ru0);
	wn->t0 = lb_mono_s();
}

void noise_worker_cpu_share(struct wnoise *wn, double share)
{
	if (wn)
		wn->win_share = share;
}

static double tv_s(struct timeval a)
{
	return (double)a.tv_sec + a.tv_usec * 1e-6;
}

void noise_worker_end(struct wnoise *wn)
{
	struct rusage ru;
	double wall;

	if (!wn)
		return;
	wall = lb_mono_s() - wn->t0;
	wn->out.speed_after = core_speed_probe();
	wn->out.cpu_end = sched_getcpu();
	if (getrusage(RUSAGE_THREAD, &ru))
		return;
	wn->out.nvcsw = ru.ru_nvcsw - wn->ru0.ru_nvcsw;
	wn->out.nivcsw = ru.ru_nivcsw - wn->ru0.ru_nivcsw;
	if (wall > 0)
		wn->out.cpu_share = fmin(1, (tv_s(ru.ru_utime) + tv_s(ru.ru_stime) -
					     tv_s(wn->ru0.ru_utime) - tv_s(wn->ru0.ru_stime)) / wall);
}

/*
 * The typical section length over every worker's ring of one kind (cs
 * or ncs); NAN if none.  Each sample is a length over its draw (1 for
 * the CS; for the NCS, mult/256 of the mean); the samples no longer than
 * twice their draw at the median ratio plus 100 ns (a preempted delay is
 * not the delay's length; a short one is kept: trimming the short draws'
 * coarse timings on one side only would bias the estimate) give
 * sum(length) / sum(draw).  A ratio of
 * sums, not a median: the tick counter may step coarsely (every 10 ns on
 * a VM whose TSC reads advance 24-25 ticks at a time), which puts every
 * sample, and so a median, on that lattice, while the mean of delays
 * started at random phases is not biased by it.
 */
static double samples_typical(const struct noise_run *nr, bool ncs, unsigned *count)
{
	size_t cap = (size_t)nr->nthreads * CS_SAMPLE_SLOTS + 1;
	double *x = malloc(cap * sizeof(*x)), *r = malloc(cap * sizeof(*r));
	double *wgt = malloc(cap * sizeof(*wgt)), *rs = malloc(cap * sizeof(*rs));
	double m, sum = 0, sw = 0;
	unsigned k = 0;

	*count = 0;
	if (!x || !r || !wgt || !rs) {
		free(x), free(r), free(wgt), free(rs);
		return NAN;
	}
	for (unsigned i = 0; i < nr->nthreads; i++) {
		const struct cs_samples *s = nr->wn[i].samp;
		unsigned n = !s ? 0 : ncs ? s->ncs_n : s->cs_n;

		*count += n;
		for (unsigned j = 0; j < n && j < CS_SAMPLE_SLOTS; j++) {
			wgt[k] = ncs ? s->ncs_mult[j] / 256.0 : 1;
			x[k] = ncs ? s->ncs[j] : s->cs[j];
			if (wgt[k] > 0) {
				r[k] = x[k] / wgt[k];
				k++;
			}
		}
	}
	m = noise_median(memcpy(rs, r, k * sizeof(*rs)), k); /* sorts its copy */
	for (unsigned j = 0; isfinite(m) && j < k; j++)
		if (x[j] <= 2 * m * wgt[j] + 100) {
			sum += x[j];
			sw += wgt[j];
		}
	free(x), free(r), free(wgt), free(rs);
	return sw > 0 ? sum / sw : m;
}

static void fill_sample(struct noise_run *nr, const struct run_spec *sp,
			struct run_noise *n)
{
	uint64_t steal1;

	n->present = true;
	n->window_req_s = sp->duration_s;
	n->npairs = nr->npairs;
	n->pair_cpu = nr->pair_cpu;
	n->probe_before = nr->before;
	n->probe_after = calloc(nr->npairs + 1, sizeof(double));
	nr->pair_cpu = NULL;
	nr->before = NULL;
	if (n->probe_after)
		probe_run(n->pair_cpu, n->npairs, &run_probe, n->probe_after);
	else
		n->npairs = 0;
	if (nr->steal_ok && !steal_read(nr->cpus, nr->ncpus, &steal1)) {
		n->steal_known = true;
		n->steal_ncpus = nr->ncpus;
		n->steal_s = (double)(steal1 - nr->steal0) * steal_tick_s();
		n->steal_window_s = lb_mono_s() - nr->t0;
	}
	n->w = calloc(nr->nthreads, sizeof(*n->w));
	n->nworkers = n->w ? nr->nthreads : 0;
	for (unsigned i = 0; i < n->nworkers; i++) {
		const struct cs_samples *smp = nr->wn[i].samp;

		n->w[i] = nr->wn[i].out;
		if (nr->wn[i].win_share > 0) /* the window's, from outside */
			n->w[i].cpu_share = nr->wn[i].win_share;
		if (smp && smp->issue_n) {
			n->w[i].issue_rate = smp->issue_sum / smp->issue_n;
			n->w[i].issue_n = smp->issue_n;
		}
	}
	n->cs_requested = (double)sp->params->cs_ns;
	n->ncs_requested = (double)sp->params->ncs_ns;
	n->cs_actual = samples_typical(nr, false, &n->cs_samples);
	n->ncs_actual = samples_typical(nr, true, &n->ncs_samples);
}

void noise_run_end(struct noise_run *nr, const struct run_spec *sp,
		   struct run_sample *out)
{
	if (!nr)
		return;
	if (out) {
		fill_sample(nr, sp, &out->noise);
		out->noise.window_s = out->window_s;
	}
	noise_run_free_(nr);
}
