/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "../output/results/results.h"
#include "../output/stats/stats.h"

#include "noise_run.h"
#include "run_spec.h"
#include "sample.h"
#include "workload.h"

/* What one worker measures about itself; private to it until the join. */
struct wnoise {
	struct cs_samples *samp;
	struct rusage ru0;
	double cpu0, wait0;      /* schedstat at the window's start (NAN unknown) */
	struct worker_noise out;
};

struct noise_run {
	struct wnoise *wn;       /* [nthreads] */
	unsigned nthreads;
	bool measure;            /* the kernel's accounts (!--no-probe) */
};

static void noise_run_free_(struct noise_run *nr)
{
	for (unsigned i = 0; nr->wn && i < nr->nthreads; i++)
		free(nr->wn[i].samp);
	free(nr->wn);
	free(nr);
}

struct noise_run *noise_run_begin(const struct run_spec *sp)
{
	struct noise_run *nr;

	if (!sp->noise)
		return NULL;
	nr = calloc(1, sizeof(*nr));
	if (!nr)
		return NULL;
	nr->nthreads = sp->nthreads;
	nr->measure = sp->noise->measure;
	nr->wn = calloc(sp->nthreads, sizeof(*nr->wn));
	if (!nr->wn) {
		noise_run_free_(nr);
		return NULL;
	}
	return nr;
}

bool noise_run_measures(const struct noise_run *nr)
{
	return nr && nr->measure;
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
	wn->out.cpu_share = wn->out.wait_share = NAN;
	wn->cpu0 = wn->wait0 = NAN;
	wn->samp = calloc(1, sizeof(*wn->samp));
	return wn->samp;
}

void noise_worker_begin(struct wnoise *wn)
{
	if (wn)
		getrusage(RUSAGE_THREAD, &wn->ru0);
}

void noise_worker_end(struct wnoise *wn)
{
	struct rusage ru;

	if (!wn || getrusage(RUSAGE_THREAD, &ru))
		return;
	wn->out.nvcsw = ru.ru_nvcsw - wn->ru0.ru_nvcsw;
	wn->out.nivcsw = ru.ru_nivcsw - wn->ru0.ru_nivcsw;
}

bool noise_schedstat(pid_t tid, double *cpu, double *wait)
{
	char path[64];
	unsigned long long run, delay;
	FILE *f;
	int n;

	if (tid)
		snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)tid);
	else
		snprintf(path, sizeof(path), "/proc/thread-self/schedstat");
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fscanf(f, "%llu %llu", &run, &delay);
	fclose(f);
	if (n != 2)
		return false;
	*cpu = (double)run * 1e-9;
	*wait = (double)delay * 1e-9;
	return true;
}

void noise_worker_window(struct wnoise *wn, pid_t tid, bool end, double wall)
{
	double cpu, wait;

	if (!wn || !tid || !noise_schedstat(tid, &cpu, &wait))
		return;
	if (!end) {
		wn->cpu0 = cpu;
		wn->wait0 = wait;
	} else if (isfinite(wn->cpu0) && wall > 0) {
		wn->out.cpu_share = fmin(1, fmax(0, (cpu - wn->cpu0) / wall));
		wn->out.wait_share = fmin(1, fmax(0, (wait - wn->wait0) / wall));
	}
}

/*
 * The typical section length over every worker's ring of one kind (cs
 * or ncs); NAN if none.  Each sample is a length over its draw (1 for
 * the CS; for the NCS, mult/256 of the mean); the samples no longer than
 * twice their draw at the median ratio plus 100 ns (a preempted delay is
 * not the delay's length; a short one is kept: trimming the short draws'
 * coarse timings on one side only would bias the estimate) give
 * sum(length) / sum(draw).  A ratio of
 * sums, not a median: the tick counter may step coarsely (a read that
 * advances it by many ticks at a time), which puts every sample, and so
 * a median, on that lattice, while the mean of delays
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
	m = stats_median(memcpy(rs, r, k * sizeof(*rs)), k); /* sorts its copy */
	for (unsigned j = 0; isfinite(m) && j < k; j++)
		if (x[j] <= 2 * m * wgt[j] + 100) {
			sum += x[j];
			sw += wgt[j];
		}
	free(x), free(r), free(wgt), free(rs);
	return sw > 0 ? sum / sw : m;
}

static void fill_sample(struct noise_run *nr, const struct run_spec *sp,
			struct run_noise *n, double late_s)
{
	n->present = true;
	n->window_req_s = sp->duration_s;
	n->late_s = nr->measure ? late_s : NAN;
	n->w = calloc(nr->nthreads, sizeof(*n->w));
	n->nworkers = n->w ? nr->nthreads : 0;
	for (unsigned i = 0; i < n->nworkers; i++)
		n->w[i] = nr->wn[i].out;
	n->cs_requested = (double)sp->params->cs_ns;
	n->ncs_requested = (double)sp->params->ncs_ns;
	n->cs_actual = samples_typical(nr, false, &n->cs_samples);
	n->ncs_actual = samples_typical(nr, true, &n->ncs_samples);
}

void noise_run_end(struct noise_run *nr, const struct run_spec *sp,
		   struct run_sample *out, double late_s)
{
	if (!nr)
		return;
	if (out) {
		fill_sample(nr, sp, &out->noise, late_s);
		out->noise.window_s = out->window_s;
	}
	noise_run_free_(nr);
}
