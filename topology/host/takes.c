/* SPDX-License-Identifier: MIT */
/*
 * Host takes (takes.h): the counting, and the live loop of reads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../locks/lockbench/atomics.h"
#include "../../output/stats/median.h"
#include "clock.h"
#include "probe.h"
#include "takes.h"

/* The measuring threads call this at once: stats_median() keeps no
 * state (not stats_summarize(), whose t quantile's lgamma() writes the
 * global signgam). */
double ht_read_ticks(const uint64_t *stamps, size_t n)
{
	double mean[HT_CAL_BLOCKS];

	if (n < HT_CAL_STAMPS)
		return NAN;
	for (unsigned b = 0; b < HT_CAL_BLOCKS; b++) {
		const uint64_t *s = stamps + (size_t)b * HT_CAL_BLOCK;

		mean[b] = s[HT_CAL_BLOCK] > s[0] ? (double)(s[HT_CAL_BLOCK] - s[0]) / HT_CAL_BLOCK
						 : 0;
	}
	return stats_median(mean, HT_CAL_BLOCKS);
}

double ht_threshold_ns(double read_ns, double tick_ns)
{
	double t = HT_FLOOR_NS;

	if (isfinite(read_ns) && HT_READ_FACTOR * read_ns > t)
		t = HT_READ_FACTOR * read_ns;
	if (isfinite(tick_ns) && HT_TICK_FACTOR * tick_ns > t)
		t = HT_TICK_FACTOR * tick_ns;
	return t;
}

double ht_hist_edge_us(unsigned i)
{
	return ldexp(1.0, (int)i);
}

void ht_count_init(struct ht_count *c, double thr_ns, double ns_per_tick)
{
	memset(c, 0, sizeof(*c));
	c->thr_ticks = (uint64_t)floor(thr_ns / ns_per_tick);
	for (unsigned i = 0; i < HT_NHIST; i++)
		c->edge[i] = (uint64_t)ceil(1000 * ht_hist_edge_us(i) / ns_per_tick);
}

void ht_count_take(struct ht_count *c, uint64_t d)
{
	unsigned b = 0;

	c->takes++;
	c->lost_ticks += d;
	if (d > c->longest_ticks)
		c->longest_ticks = d;
	while (b + 1 < HT_NHIST && d >= c->edge[b + 1])
		b++;
	c->hist[b]++;
}

void ht_count_scan(struct ht_count *c, const uint64_t *stamps, size_t n)
{
	for (size_t i = 1; i < n; i++)
		ht_count_step(c, stamps[i - 1], stamps[i]);
}

void ht_result(const struct ht_count *c, double ns_per_tick, double guest_ns,
	       struct ht_cpu *out)
{
	double span = (double)c->span_ticks * ns_per_tick;

	out->run_ns = span - guest_ns;
	out->guest_ns = guest_ns;
	out->takes = c->takes;
	out->lost_ns = (double)c->lost_ticks * ns_per_tick;
	out->longest_ns = (double)c->longest_ticks * ns_per_tick;
	out->fraction = out->run_ns > 0 ? out->lost_ns / out->run_ns : NAN;
	out->per_s = out->run_ns > 0 ? 1e9 * (double)c->takes / out->run_ns : NAN;
	memcpy(out->hist, c->hist, sizeof(out->hist));
}

/* ---- the live loop ------------------------------------------------- */

struct ht_shared {
	_Atomic int go;            /* 1: start; -1: give up */
	double seconds;
};

struct ht_thread {
	struct ht_shared *sh;
	struct ht_cpu *out;
	pthread_t th;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What the loop keeps besides the count: where the thread's CPU time
 * was last read, and the gaps the guest's scheduler made. */
struct ht_live {
	struct ht_count c;
	double ns_per_tick;
	uint64_t at_tick, at_cpu_ns;
	double guest_ns;
	uint64_t guest_gaps;
};

/*
 * A gap of d ticks ended at `now`: the host's when the thread's CPU time
 * advanced with the clock across it (the guest counts a host take as
 * running), the guest's when it did not (its scheduler ran something
 * else).  Returns the tick to go on from.  The check's own time (a
 * system call, where the guest may also preempt the thread) is counted
 * as the guest's, so that it is in neither the run nor the takes.
 */
static uint64_t live_gap(struct ht_live *l, uint64_t now, uint64_t d)
{
	uint64_t cpu = thread_cpu_ns();
	double wall = (double)(now - l->at_tick) * l->ns_per_tick;
	double away = wall - (double)(cpu - l->at_cpu_ns);
	double gap = (double)d * l->ns_per_tick;

	if (away > gap / 2) {
		l->guest_ns += gap;
		l->guest_gaps++;
	} else {
		ht_count_take(&l->c, d);
	}
	l->at_cpu_ns = cpu;
	l->at_tick = lb_ticks();
	l->c.span_ticks += l->at_tick - now + d;
	l->guest_ns += (double)(l->at_tick - now) * l->ns_per_tick;
	return l->at_tick;
}

/* Read the counter until `end`, counting each interval as
 * ht_count_step() does, except that a long one goes through live_gap(),
 * which tells the guest's gaps from the host's takes. */
static void live_loop(struct ht_live *l, uint64_t end)
{
	uint64_t prev, now;

	l->at_cpu_ns = thread_cpu_ns();
	l->at_tick = prev = lb_ticks();
	do {
		now = lb_ticks();
		if (__builtin_expect(now > prev + l->c.thr_ticks, 0)) {
			prev = live_gap(l, now, now - prev);
			continue;
		}
		l->c.span_ticks += now > prev ? now - prev : 0;
		prev = now;
	} while (now < end);
}

static void *ht_thread_main(void *arg)
{
	struct ht_thread *t = arg;
	const struct lb_tick_rate *r = lb_clock_rate();
	uint64_t *cal = malloc(HT_CAL_STAMPS * sizeof(*cal));
	struct ht_live l = {.ns_per_tick = r->ns_per_tick};
	int go;

	t->out->err = cal ? probe_pin_self(t->out->cpu) : ENOMEM;
	while (!(go = atomic_load_explicit(&t->sh->go, lb_acq)))
		sched_yield();
	if (go < 0 || t->out->err) {
		free(cal);
		return NULL;
	}
	for (unsigned i = 0; i < HT_CAL_STAMPS; i++)
		cal[i] = lb_ticks();
	t->out->read_ns = ht_read_ticks(cal, HT_CAL_STAMPS) * r->ns_per_tick;
	t->out->threshold_ns = ht_threshold_ns(t->out->read_ns, r->ns_per_tick);
	free(cal);
	ht_count_init(&l.c, t->out->threshold_ns, r->ns_per_tick);
	live_loop(&l, lb_ticks() + (uint64_t)(t->sh->seconds * 1e9 * r->per_ns));
	ht_result(&l.c, r->ns_per_tick, l.guest_ns, t->out);
	t->out->guest_gaps = l.guest_gaps;
	return NULL;
}

int ht_measure(const int *cpus, unsigned n, double seconds, struct ht_cpu *out)
{
	struct ht_shared sh = {.seconds = seconds};
	struct ht_thread *t = calloc(n ? n : 1, sizeof(*t));
	unsigned started = 0;
	int rc = 0;

	lb_clock_rate();
	for (unsigned i = 0; i < n; i++)
		out[i] = (struct ht_cpu){.cpu = cpus[i], .err = ESRCH, .fraction = NAN,
					 .per_s = NAN, .longest_ns = NAN, .read_ns = NAN};
	for (unsigned i = 0; t && i < n; i++) {
		t[i] = (struct ht_thread){&sh, &out[i], 0};
		if ((rc = pthread_create(&t[i].th, NULL, ht_thread_main, &t[i])))
			break;
		started++;
	}
	atomic_store_explicit(&sh.go, started == n ? 1 : -1, lb_rel);
	for (unsigned i = 0; i < started; i++)
		pthread_join(t[i].th, NULL);
	if (!t)
		return -ENOMEM;
	free(t);
	return started == n ? 0 : -rc;
}
