/* SPDX-License-Identifier: MIT */
/*
 * The core-to-core probe (probe.h).  One helper thread serves every
 * pair of a call: the caller pins itself to the pair's first CPU, asks
 * the helper to pin itself to the second, then bounces the line: it
 * stores an odd value (release), the helper answers with the next even
 * one (release), each side waiting with acquire loads.  A round is
 * `trips` such round trips timed together; the first round is a
 * warm-up and is dropped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../output/stats/median.h"
#include "clock.h"
#include "lockbench/atomics.h"
#include "probe.h"

#define SENTINEL UINT64_MAX
#define WAIT_LIMIT_S 1.0    /* a reply later than this: give the pair up */
#define ROUND_LIMIT_S 0.002 /* a round longer than this ends early */
#define PAIR_LIMIT_S 0.01   /* rounds of one pair after this are skipped */
/* Rounds kept before the pair limit may cut the rest short: a median of
 * one or two rounds can be a stall (the host descheduling a vCPU for
 * milliseconds), not the pair's round trip. */
#define PAIR_MIN_ROUNDS 3

/* The bounced line and the command lines, each on its own line. */
struct probe_shared {
	LB_ALIGNED _Atomic uint64_t line;
	LB_ALIGNED _Atomic uint32_t cmd_seq;   /* caller: a new command */
	_Atomic int cmd_cpu;                   /* CPU to pin to; -1: exit */
	LB_ALIGNED _Atomic uint32_t ack_seq;   /* helper: pinned (or not) */
	_Atomic int pin_err;
	LB_ALIGNED _Atomic uint32_t done_seq;  /* helper: left the pair */
};

int probe_pin_self(int cpu)
{
	/* Sized for this CPU: cpu_set_t stops at CPU_SETSIZE (CPU_ALLOC(3)). */
	cpu_set_t *set = cpu >= 0 ? CPU_ALLOC((size_t)cpu + 1) : NULL;
	size_t size = CPU_ALLOC_SIZE((size_t)(cpu >= 0 ? cpu : 0) + 1);
	int rc;

	if (!set)
		return cpu < 0 ? EINVAL : ENOMEM;
	CPU_ZERO_S(size, set);
	CPU_SET_S((size_t)cpu, size, set);
	rc = pthread_setaffinity_np(pthread_self(), size, set);
	CPU_FREE(set);
	return rc;
}

/* Answer odd values with the next even one until the sentinel. */
static void serve(struct probe_shared *sh)
{
	uint64_t seen = 0;

	for (;;) {
		uint64_t x = atomic_load_explicit(&sh->line, lb_acq);

		if (x == SENTINEL)
			return;
		if ((x & 1) && x != seen) {
			seen = x;
			atomic_store_explicit(&sh->line, x + 1, lb_rel);
		} else {
			cpu_relax();
		}
	}
}

static void *helper_main(void *arg)
{
	struct probe_shared *sh = arg;
	uint32_t seq = 0;
	int cpu;

	for (;;) {
		while (atomic_load_explicit(&sh->cmd_seq, lb_acq) == seq)
			sched_yield();
		seq = atomic_load_explicit(&sh->cmd_seq, lb_acq);
		cpu = atomic_load_explicit(&sh->cmd_cpu, lb_rlx);
		if (cpu < 0)
			return NULL;
		atomic_store_explicit(&sh->pin_err, probe_pin_self(cpu), lb_rlx);
		atomic_store_explicit(&sh->ack_seq, seq, lb_rel);
		if (!atomic_load_explicit(&sh->pin_err, lb_rlx))
			serve(sh);
		atomic_store_explicit(&sh->done_seq, seq, lb_rel);
	}
}

/* Spin (yielding now and then) until *p == v; false after the limit. */
static bool wait_eq32(_Atomic uint32_t *p, uint32_t v, double limit_s)
{
	double until = lb_mono_s() + limit_s;

	for (unsigned k = 1; atomic_load_explicit(p, lb_acq) != v; k++) {
		cpu_relax();
		if (!(k & 1023)) {
			if (lb_mono_s() > until)
				return false;
			sched_yield();
		}
	}
	return true;
}

/*
 * One round: the mean round trip in ns over the trips done.  A round cut
 * short (the helper is starved, e.g. sharing its CPU with other work)
 * ends after ROUND_LIMIT_S with the trips it has; NAN when not one trip
 * came back within WAIT_LIMIT_S.
 */
static double one_round(struct probe_shared *sh, uint64_t *v, unsigned trips)
{
	double t0 = lb_mono_s(), t = t0;
	unsigned k;

	for (k = 0; k < trips && t - t0 < ROUND_LIMIT_S; k++) {
		uint64_t want = *v + 2;
		unsigned spins = 0;

		atomic_store_explicit(&sh->line, *v + 1, lb_rel);
		while (atomic_load_explicit(&sh->line, lb_acq) != want) {
			cpu_relax();
			if (!(++spins & 0xfff) && lb_mono_s() - t0 > WAIT_LIMIT_S)
				return NAN;
		}
		*v = want;
		if (!(k & 7))
			t = lb_mono_s();
	}
	return (lb_mono_s() - t0) * 1e9 / k;
}

/*
 * Probe one pair with the helper; NAN when either end cannot be pinned.
 * *lost is set when the helper stopped answering commands: it cannot be
 * used (or joined) any more.
 */
static double probe_pair(struct probe_shared *sh, uint32_t *seq, int a, int b,
			 const struct probe_cfg *cfg, bool *lost)
{
	double per[64], med = NAN, t0 = lb_mono_s();
	unsigned nr = cfg->rounds < 63 ? cfg->rounds : 63, k = 0;
	uint64_t v = 0;

	if (a < 0 || b < 0 || a == b || probe_pin_self(a))
		return NAN;
	atomic_store_explicit(&sh->line, 0, lb_rlx);
	atomic_store_explicit(&sh->cmd_cpu, b, lb_rlx);
	atomic_store_explicit(&sh->cmd_seq, ++*seq, lb_rel);
	if (!wait_eq32(&sh->ack_seq, *seq, 5)) {
		atomic_store_explicit(&sh->line, SENTINEL, lb_rel);
		*lost = true;
		return NAN;
	}
	if (atomic_load_explicit(&sh->pin_err, lb_rlx)) {
		*lost = !wait_eq32(&sh->done_seq, *seq, 5);
		return NAN;
	}
	for (unsigned r = 0; r <= nr; r++) {
		double x = one_round(sh, &v, cfg->trips ? cfg->trips : 1);

		if (!isfinite(x)) {
			k = 0;
			break;
		}
		if (r)  /* round 0 warms the line and the caches up */
			per[k++] = x;
		if (lb_mono_s() - t0 > PAIR_LIMIT_S && k >= PAIR_MIN_ROUNDS)
			break;  /* a starved pair: what we have says enough */
	}
	atomic_store_explicit(&sh->line, SENTINEL, lb_rel);
	*lost = !wait_eq32(&sh->done_seq, *seq, 5);
	if (k)
		med = stats_median(per, k);
	return med;
}

/* This thread's CPU set, to put back after the probe: a set the kernel
 * takes, as large as its CPU mask (it refuses, EINVAL, a smaller one,
 * and a machine may have more CPUs than cpu_set_t's 1024): doubled from
 * 1024 until it fits (CPU_ALLOC(3)).  NULL if none could be read. */
static cpu_set_t *affinity_get(size_t *size)
{
	for (size_t n = 1024; n <= (1u << 22); n *= 2) {
		cpu_set_t *set = CPU_ALLOC(n);

		if (!set)
			return NULL;
		*size = CPU_ALLOC_SIZE(n);
		if (!pthread_getaffinity_np(pthread_self(), *size, set))
			return set;
		CPU_FREE(set);
	}
	return NULL;
}

int probe_run(const int *pair_cpu, unsigned npairs, const struct probe_cfg *cfg,
	      double *ns)
{
	struct probe_shared *sh;
	cpu_set_t *saved;
	size_t saved_size = 0;
	pthread_t th;
	uint32_t seq = 0;
	bool lost = false;
	int rc;

	for (unsigned i = 0; i < npairs; i++)
		ns[i] = NAN;
	if (!npairs)
		return 0;
	if (posix_memalign((void **)&sh, LB_CACHELINE, sizeof(*sh)))
		return -ENOMEM;
	memset(sh, 0, sizeof(*sh));
	if (!(saved = affinity_get(&saved_size))) {
		free(sh);
		return -EINVAL;
	}
	rc = pthread_create(&th, NULL, helper_main, sh);
	if (rc) {
		CPU_FREE(saved);
		free(sh);
		return -rc;
	}
	for (unsigned i = 0; i < npairs && !lost; i++)
		ns[i] = probe_pair(sh, &seq, pair_cpu[2 * i], pair_cpu[2 * i + 1],
				   cfg, &lost);
	atomic_store_explicit(&sh->cmd_cpu, -1, lb_rlx);
	atomic_store_explicit(&sh->cmd_seq, ++seq, lb_rel);
	pthread_setaffinity_np(pthread_self(), saved_size, saved);
	CPU_FREE(saved);
	if (lost) {
		/* Starved for seconds: it will see the exit command when it
		 * runs again; its memory stays with it. */
		pthread_detach(th);
		return -ETIMEDOUT;
	}
	pthread_join(th, NULL);
	free(sh);
	return 0;
}

int probe_matrix(const int *cpus, unsigned n, unsigned reps, double *m)
{
	unsigned np = n * (n - 1) / 2, k = 0;
	int *pairs = calloc(2 * (size_t)np + 2, sizeof(int));
	double *v = calloc((size_t)np * reps + 1, sizeof(double)), med[64];
	const struct probe_cfg cfg = {PROBE_RUN_ROUNDS, PROBE_RUN_TRIPS};
	int rc = 0;

	reps = reps < 64 ? (reps ? reps : 1) : 64;
	if (!pairs || !v) {
		free(pairs);
		free(v);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++, k++) {
			pairs[2 * k] = cpus[i];
			pairs[2 * k + 1] = cpus[j];
		}
	for (unsigned r = 0; r < reps && !rc; r++)
		rc = probe_run(pairs, np, &cfg, v + (size_t)r * np);
	for (unsigned i = 0; i < n * n; i++)
		m[i] = NAN;
	for (k = 0; k < np && !rc; k++) {
		unsigned c = 0, i = 0, j;

		for (unsigned r = 0; r < reps; r++)
			if (isfinite(v[(size_t)r * np + k]))
				med[c++] = v[(size_t)r * np + k];
		while (cpus[i] != pairs[2 * k])
			i++;
		for (j = i + 1; cpus[j] != pairs[2 * k + 1]; j++)
			;
		m[i * n + j] = m[j * n + i] = stats_median(med, c);
	}
	free(pairs);
	free(v);
	return rc;
}
