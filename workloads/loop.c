/* SPDX-License-Identifier: MIT */
/*
 * The cold half of the worker loops (workloads/loop.h): set-up, the
 * handover and violation paths, and the sampled operations, which run
 * the same pieces as the common path with the clock around them.  They
 * call the lock through pointers: one operation in `every`.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "../output/results/stats.h"
#include "loop.h"

/* Operations between two sampled ones when latency is not sampled more
 * often: the lag of the read and handover counters (loop.h). */
#define WL_EVERY 256

/* Operations all threads together may still do after the stop, at
 * most, where a section is empty: each sees the stop flag on its
 * sampled operation only (loop.h), so with more threads than
 * WL_DRAIN / WL_EVERY the sampling period shrinks, and thousands of
 * threads queued on one lock leave it in a fraction of a second
 * (docs/method.md, "Oversubscription"). */
#define WL_DRAIN 16384

/* A section longer than this (ns) is not calibrated in passes before
 * the loop: a pass is nine batches of at least 16 delays, which at a
 * millisecond took the whole window (and at a second, minutes), while
 * what the passes find, a few reads' cost (`extra`), is below 0.5% of
 * such a delay and is learnt by the run's sampled delays anyway
 * (wl_delay_learn()). */
#define WL_CAL_MAX_NS 20000.0

static uint64_t ns_to_ticks(const struct lb_tick_rate *r, uint64_t ns)
{
	double t = (double)ns * r->per_ns + 0.5;

	return ns && t < 1 ? 1 : (uint64_t)t;
}

/* ns in wl_delay()'s sub-ticks (loop.h, WL_SUB). */
static uint64_t ns_to_sub(const struct lb_tick_rate *r, uint64_t ns)
{
	double t = (double)ns * r->per_ns * (1 << WL_SUB) + 0.5;

	return ns && t < 1 ? 1 : (uint64_t)t;
}

static double least(const double *x, unsigned n)
{
	double m = x[0];

	for (unsigned i = 1; i < n; i++)
		m = fmin(m, x[i]);
	return m;
}

/*
 * Correct wl_spin()'s cost by what it overshoots, timed as the section
 * samples are, over delays of 3 to 15 clock steps: with a counter that
 * steps coarsely the cost of nothing is only a first guess.  The mean of
 * the errors within 4 steps of zero (a preempted trial is not the
 * delay's error), not a median: the errors sit on the counter's lattice.
 */
static void spin_trim(const struct lb_tick_rate *r, struct wl_spin_cal *c)
{
	int64_t sum = 0, lim = 4 * (int64_t)c->step;
	unsigned n = 0;

	for (unsigned i = 0; i < 96; i++) {
		uint64_t t = (3 + i % 13) * c->step, t0 = lb_ticks_ordered();
		int64_t e;

		wl_spin(t, c);
		e = (int64_t)(lb_ticks() - t0) - (int64_t)(r->span_ticks + 0.5) - (int64_t)t;
		if (e > -lim && e < lim) {
			sum += e;
			n++;
		}
	}
	if (n) {
		int64_t cost = (int64_t)c->cost + sum / (int64_t)n;

		c->cost = cost > 0 ? (uint64_t)cost : 0;
	}
}

/* wl_spin()'s calibration on this CPU now (struct wl_spin_cal): the
 * clock's figures (lb_clock_rate()), and the cost of a spin of nothing,
 * the median of a few trials timed the way the section samples are. */
static void spin_cal(const struct lb_tick_rate *r, struct wl_spin_cal *c)
{
	struct wl_spin_cal none = {0, 0, 0, 0};
	double x[31], d;
	double step = fmax(r->read_ticks, r->step_ticks);

	c->step = (uint64_t)ceil(step);
	/* the last pause must end before the deadline: a pause and a read */
	c->tail = (uint64_t)ceil(r->relax_ns * r->per_ns + r->read_ticks);
	c->fine = (uint64_t)(65536.0 / (r->turn_ns * r->per_ns));
	for (unsigned i = 0; i < 31; i++) {
		uint64_t t0 = lb_ticks_ordered();

		wl_spin(1, &none);
		x[i] = (double)(lb_ticks() - t0);
	}
	d = stats_median(x, 31);
	c->cost = d > r->span_ticks ? (uint64_t)(d - r->span_ticks) : 0;
	spin_trim(r, c);
}

/*
 * One batch of delay_cal(): `n` delays of mean `t` sub-ticks drawn as
 * the loop draws them, back to back, timed from outside at both ends:
 * what each took on average beyond what wl_delay() counted (the requests
 * and the debt's move), in sub-ticks.  The ends' own reads are divided
 * by n; what a delay's own reads do not see is not.
 */
static double delay_batch(const struct lb_tick_rate *r, const struct wl_spin_cal *c,
			  const struct wl_delay_cal *dc, uint64_t t, bool exp,
			  uint64_t *rng, unsigned n)
{
	int64_t debt = 0;
	uint64_t asked = 0, t0, el;

	t0 = lb_ticks_ordered();
	for (unsigned i = 0; i < n; i++) {
		uint64_t ti = exp ? (t * lb_exp_table[lb_rand(rng) & 255] + 128) / 256 : t;

		asked += ti;
		wl_delay(ti, c, dc, &debt);
	}
	el = lb_ticks() - t0;
	return (((double)el - r->span_ticks) * (1 << WL_SUB) - (double)asked -
		(double)debt) / n;
}

/* Delays of mean `t` in a batch of about 20 us (at least 16). */
static unsigned batch_n(const struct lb_tick_rate *r, uint64_t t)
{
	double n = 20000 * r->per_ns * (1 << WL_SUB) / fmax((double)t, 1);

	return n < 16 ? 16 : n > 4096 ? 4096 : (unsigned)n;
}

/* The least of nine batches' overshoot (sub-ticks per delay): a batch
 * preempted, or slowed by a busy sibling, only reads longer. */
static double delay_over(const struct lb_tick_rate *r, const struct wl_spin_cal *c,
			 const struct wl_delay_cal *dc, uint64_t t, bool exp,
			 uint64_t *rng)
{
	double x[9];

	for (unsigned i = 0; i < 9; i++)
		x[i] = delay_batch(r, c, dc, t, exp, rng, batch_n(r, t));
	return least(x, 9);
}

/* A delay of nothing, in sub-ticks: its ordered read and the call. */
static double delay_floor_sub(const struct lb_tick_rate *r, const struct wl_spin_cal *c)
{
	struct wl_delay_cal dc = {.cap = UINT64_MAX >> 2, .extra = 0, .fine = 0, .mean = 0};
	uint64_t rng = 1;
	double x[9];

	for (unsigned i = 0; i < 9; i++)
		x[i] = delay_batch(r, c, &dc, 0, false, &rng, 256);
	return fmax(least(x, 9), 1);
}

/*
 * The turns a tick of a section below the floor (cap 0, loop.h
 * wl_delay()), from outside: starting from the empty loop's figure
 * (wl_spin_cal.fine), three passes of delay_over() each scale it by what
 * the turns took against what they were asked (the fences, the call and
 * the draw included); a pass off by more than `lim` (preempted) is
 * skipped.
 */
static uint64_t turns_cal(const struct lb_tick_rate *r, const struct wl_spin_cal *c,
			  uint64_t t, bool exp, uint64_t *rng, double lim)
{
	struct wl_delay_cal dc = {.cap = 0, .extra = 0, .fine = c->fine, .mean = t};

	for (unsigned pass = 0; pass < 3; pass++) {
		double over = delay_over(r, c, &dc, t, exp, rng);

		if (fabs(over) > lim)
			continue;
		dc.fine = (uint64_t)fmax(1, (double)dc.fine * (double)t /
					   fmax((double)t + over, (double)t / 4));
	}
	return dc.fine;
}

/*
 * What a sampled delay of turns reads beyond what it costs from outside
 * (sub-ticks): the sample's span, less the reads' own, of a delay of no
 * turns (the mean of 255 within `lim`; a mean, for a counter coarser
 * than the delay), less what one costs in a batch timed from outside
 * (delay_over(), the median of three).  Not nothing: the fence ahead of
 * the turns waits for the read that starts the sample to complete
 * (longer the dearer the read), which neither the reads' own span nor
 * an untimed delay pays.  The run's samples are held to the request
 * plus this (wl_delay_learn()), so that the turns are their length from
 * outside.
 */
static int64_t turns_bias(const struct lb_tick_rate *r, const struct wl_spin_cal *c,
			  double lim)
{
	const struct wl_delay_cal none = {.cap = 0, .extra = 0, .fine = 0, .mean = 1};
	uint64_t rng = 1;
	double sum = 0, x[3], out;
	unsigned n = 0;
	int64_t debt = 0;

	for (unsigned i = 0; i < 3; i++)
		x[i] = delay_over(r, c, &none, 0, false, &rng);
	out = stats_median(x, 3);
	for (unsigned i = 0; i < 255; i++) {
		uint64_t t0 = lb_ticks_ordered(), t1;
		double d;

		wl_delay(0, c, &none, &debt);
		t1 = lb_ticks();
		d = ((double)(t1 - t0) - r->span_ticks) * (1 << WL_SUB);
		if (fabs(d) < lim) {
			sum += d;
			n++;
		}
	}
	return n ? (int64_t)(sum / n - out) : 0;
}

/*
 * wl_delay()'s terms for a section of mean `t` sub-ticks (exp: drawn as
 * wl_ncs_len() draws): turns (cap 0, turns_cal(), turns_bias()) below `floor`, what a
 * delay of nothing costs here; else the cap (four means, eight reads and two
 * steps of the counter) and `extra`, found by passes of batches timed
 * from outside (delay_over(), ~0.2 ms a pass): two passes move `extra`
 * by the overshoot they measured, then three more each give an estimate
 * (`extra` plus its overshoot) and `extra` is their median, so one
 * pass's noise does not become the run's calibration.  A pass whose
 * overshoot is beyond four ordered reads and reads (a phase of
 * preemption, not the delay's cost) counts for nothing and is tried
 * again, up to ten passes in all.
 */
static struct wl_delay_cal delay_cal(const struct lb_tick_rate *r,
				     const struct wl_spin_cal *c, uint64_t t,
				     bool exp, uint64_t rng, double floor)
{
	struct wl_delay_cal dc = {.cap = 0};
	double lim = 4 * (r->ordered_ticks + r->read_ticks) * (1 << WL_SUB), est[3];
	unsigned ok = 0;

	if (!t)
		return dc;
	dc.drawn = exp;
	if ((double)t < floor) {
		dc.mean = t;
		dc.fine = turns_cal(r, c, t, exp, &rng, fmax(lim, (double)t));
		dc.extra = turns_bias(r, c, lim);
		return dc;
	}
	/* a counter that steps coarser than a delay: the debt holds a step */
	dc.cap = 4 * t + (uint64_t)((8 * (r->ordered_ticks + r->read_ticks) + 2 * r->step_ticks) *
				    (1 << WL_SUB));
	dc.extra = (int64_t)(r->read_ticks * (1 << WL_SUB));
	if ((double)t / (1 << WL_SUB) * r->ns_per_tick > WL_CAL_MAX_NS)
		return dc;
	for (int pass = 0; pass < 10 && ok < 5; pass++) {
		double over = delay_over(r, c, &dc, t, exp, &rng);

		if (fabs(over) > lim)
			continue;
		if (ok < 2)
			dc.extra += (int64_t)over;
		else
			est[ok - 2] = (double)dc.extra + over;
		ok++;
	}
	if (ok == 5)
		dc.extra = (int64_t)stats_median(est, 3);
	else if (ok > 2)
		dc.extra = (int64_t)est[ok - 3];
	if (dc.extra < 0)
		dc.extra = 0;
	return dc;
}

static pthread_once_t floor_once = PTHREAD_ONCE_INIT;
static double floor_ns;

static void floor_init(void)
{
	const struct lb_tick_rate *r = lb_clock_rate();
	struct wl_spin_cal c;

	spin_cal(r, &c);
	floor_ns = delay_floor_sub(r, &c) / (1 << WL_SUB) * r->ns_per_tick;
}

double wl_delay_floor_ns(void)
{
	pthread_once(&floor_once, floor_init);
	return floor_ns;
}

static pthread_once_t over_once = PTHREAD_ONCE_INIT;
static double over_ns = NAN;

/* The median of five calibrations of a fixed 100 ns delay, ~1 ms each. */
static void over_init(void)
{
	struct wl_delay_check dc;
	double x[5];
	unsigned n = 0;

	while (n < 5 && !wl_delay_measure(100, false, 0.2, &dc))
		x[n++] = dc.overhead_ns;
	if (n)
		over_ns = stats_median(x, n);
}

double wl_delay_overhead_ns(void)
{
	pthread_once(&over_once, over_init);
	return over_ns;
}

int wl_delay_measure(uint64_t ns, bool exp, double ms, struct wl_delay_check *out)
{
	const struct lb_tick_rate *r = lb_clock_rate();
	struct wl_spin_cal c;
	struct wl_delay_cal dc;
	uint64_t t = ns_to_sub(r, ns), rng = 0x9e3779b97f4a7c15ull;
	double x[5], slice;
	unsigned n;

	if (!ns || !(ms > 0 && ms <= 1000))
		return -EINVAL;
	spin_cal(r, &c);
	dc = delay_cal(r, &c, t, exp, rng,
		       wl_delay_floor_ns() * r->per_ns * (1 << WL_SUB));
	slice = ms * 1e6 / 5;
	n = (unsigned)fmax(1, slice / (double)ns);
	for (unsigned i = 0; i < 5; i++)
		x[i] = delay_batch(r, &c, &dc, t, exp, &rng, n);
	/* the least slice: preemption only adds */
	out->timed = dc.cap != 0;
	out->overhead_ns = (double)dc.extra / (1 << WL_SUB) * r->ns_per_tick;
	out->actual_ns = (double)ns + least(x, 5) / (1 << WL_SUB) * r->ns_per_tick;
	return 0;
}

void wl_loop_begin(struct worker *w)
{
	const struct lb_tick_rate *r = lb_clock_rate();
	const struct wl_params *p = w->p;
	unsigned every = p->lat_sample && p->lat_sample < WL_EVERY ? p->lat_sample
								     : WL_EVERY;
	double floor;
	bool stopped;

	if (w->nthreads > WL_DRAIN / every)
		every = WL_DRAIN / w->nthreads ? WL_DRAIN / w->nthreads : 1;
	w->every = every;
	w->lat_acc = w->samp_acc = 0;
	w->hand = (struct wl_hand){0};
	w->ns_per_tick = r->ns_per_tick;
	w->cs_ticks = ns_to_sub(r, p->cs_ns);
	w->ncs_ticks = ns_to_sub(r, p->ncs_ns);
	w->short_ticks = ns_to_ticks(r, 2000); /* locktorture's 2 us */
	w->long_ticks = ns_to_ticks(r, (uint64_t)p->long_hold_ms * 1000000);
	spin_cal(r, &w->spin); /* ~40 us */
	/* Stopped already (a worker that started late, a stop signal): no
	 * delay is made, so none is calibrated; thousands of threads
	 * calibrating one after the other would hold up the stop. */
	stopped = atomic_load_explicit(w->stop, lb_rlx);
	floor = (w->cs_ticks || w->ncs_ticks) && !stopped ? delay_floor_sub(r, &w->spin) : 0;
	w->cs_dc = delay_cal(r, &w->spin, stopped ? 0 : w->cs_ticks, false, w->rng, floor);
	w->ncs_dc = delay_cal(r, &w->spin, stopped ? 0 : w->ncs_ticks, !p->ncs_fixed,
			      w->rng, floor);
	if (w->samp) {
		w->samp->clock_ticks = r->span_ticks;
		w->samp->ns_per_tick = r->ns_per_tick;
	}
}

void wl_loop_end(struct worker *w, uint64_t n, uint64_t reads)
{
	wl_publish(w, n, reads);
}

void wl_violation(struct worker *w)
{
	atomic_fetch_add_explicit(&w->sh->violations, 1, lb_rlx);
}

void wl_enter_cold(struct worker *w, uint64_t seen, bool readers)
{
	uint64_t prev = seen & ~WL_HELD, me = w->tid + 1;
	struct wl_hand *h = &w->hand;
	uint64_t a, b;

	if ((seen & WL_HELD) || readers)
		wl_violation(w);
	if (!prev) {
		h->nobody++;
		return;
	}
	if (prev == me || prev > w->nthreads)
		return;
	h->other++;
	a = w->holder_ids[prev - 1];
	b = w->holder_ids[me - 1];
	h->node += (a >> 40 & 0xfffff) == (b >> 40 & 0xfffff);
	h->l3 += (a >> 20 & 0xfffff) == (b >> 20 & 0xfffff);
	h->core += (a & 0xfffff) == (b & 0xfffff);
}

/* Is this sampled operation due a latency sample / section samples?
 * Credits of `every` operations, so the rates are exactly 1 in
 * lat_sample and about 1 in CS_SAMPLE_EVERY. */
static bool lat_due(struct worker *w)
{
	if (!w->lat)
		return false;
	w->lat_acc += w->every;
	if (w->lat_acc < w->p->lat_sample)
		return false;
	w->lat_acc -= w->p->lat_sample;
	return true;
}

static bool samp_due(struct worker *w)
{
	if (!w->samp)
		return false;
	w->samp_acc += w->every;
	if (w->samp_acc < CS_SAMPLE_EVERY)
		return false;
	w->samp_acc -= CS_SAMPLE_EVERY;
	return true;
}

/* Acquire with `lk`, timing it into the histogram while the window is
 * open. */
static void acquire(struct worker *w, const struct wl_env *e, wl_lock_fn lk,
		    bool timed)
{
	uint64_t t0, t1;

	if (!timed) {
		lk(e->lock, e->ctx);
		return;
	}
	t0 = lb_ticks_ordered();
	lk(e->lock, e->ctx);
	t1 = lb_ticks_ordered(); /* not before the acquiring load was served */
	if (atomic_load_explicit(w->window, lb_rlx))
		hist_add(w->lat, (uint64_t)((double)(t1 - t0) * w->ns_per_tick));
}

/*
 * What a sampled delay of `t` sub-ticks took from outside (`span`: first
 * to last read around it, less the reads' own `empty`) beyond what
 * wl_delay() counted (the request and the debt's move, `moved`), as
 * delay_batch() measures it before the run: `extra` takes a step of a
 * sixteenth of a tick towards it, so the cost of a delay beyond its own
 * reads is learnt again all along the run, under the run's own
 * contention (beside a spinning waiter it is not what it was alone).  A
 * step, not a share of the error: `extra` then follows the errors'
 * median, which an interrupt or a cold cache after a context switch
 * (errors all on one side) does not move as it moves a mean.  Except
 * for drawn (exponential) lengths, which take 1/64 of the error and so
 * follow its mean: there the errors of short draws (paying the debt, no
 * spin) and of long ones (a spin and its exit) differ, the median of
 * that mix is not its mean, and the mean is what makes the section's
 * length (held to the median, an exponential mean reads long where a
 * pause is dear and the draws that spin pay it).  A delay interrupted (over eight reads off, or
 * eight ticks on a counter coarser than a read) teaches nothing.
 *
 * A section below the floor (cap 0): its samples are held to the
 * request plus `extra`, what a sample reads beyond the delay's cost
 * from outside (turns_bias()), by scaling its turns a tick, `fine`, by
 * 1/128 of the error relative to the section's mean (at most half), so
 * that under a busy SMT sibling or a slower core the turns still make
 * the length asked.  Relative to the
 * mean, not to the draw: the error of a short draw is mostly the reads'
 * jitter.  A share of the error, not a step: on a counter coarser than
 * the delay a sample reads 0 or 1 tick, and only their mean says how
 * long the turns took.
 */
void wl_delay_learn(struct wl_delay_cal *dc, uint64_t span, uint64_t t,
		    int64_t moved, double empty)
{
	double o = ((double)span - empty) * (1 << WL_SUB) - (double)t - (double)moved;
	double lim = 8 * fmax(empty, 1) * (1 << WL_SUB);
	const int64_t step = (1 << WL_SUB) / 16;

	if (!dc->cap)
		o -= (double)dc->extra;
	if (o <= -lim || o >= lim)
		return;
	if (!dc->cap) {
		double rel = dc->mean ? fmax(-0.5, fmin(0.5, o / (double)dc->mean)) : 0;

		dc->fine = (uint64_t)fmax(1, (double)dc->fine * (1 - rel / 128));
		return;
	}
	if (dc->drawn)
		dc->extra += (int64_t)(o / 64);
	else
		dc->extra += o > 0 ? step : o < 0 ? -step : 0;
	if (dc->extra < 0)
		dc->extra = 0;
}

/* Where a sample of a delay from t0 to t1 starts, as kept: below the
 * floor, `extra` later, what a sample of turns reads beyond their cost
 * from outside (turns_bias()), so that the section's reported length is
 * what the run spent in it, as above the floor. */
static uint64_t sample_t0(const struct wl_delay_cal *dc, uint64_t t0, uint64_t t1)
{
	int64_t off = dc->extra / (1 << WL_SUB);

	if (dc->cap || !off)
		return t0;
	if (off > 0)
		return t1 - t0 > (uint64_t)off ? t0 + (uint64_t)off : t1;
	return t0 - (uint64_t)-off;
}

/* The section's delay (callers test e->cs_t first: no call without
 * one); timed: kept as a section sample, and what it teaches. */
static void cs_delay(struct worker *w, const struct wl_env *e, int64_t *debt,
		     bool timed)
{
	int64_t before = *debt;
	uint64_t t0, t1;

	if (!timed) {
		wl_delay(e->cs_t, &e->spin, e->cs_dc, debt);
		return;
	}
	t0 = lb_ticks_ordered();
	wl_delay(e->cs_t, &e->spin, e->cs_dc, debt);
	t1 = lb_ticks();
	cs_sample_put(w->samp, sample_t0(e->cs_dc, t0, t1), t1);
	wl_delay_learn(&w->cs_dc, t1 - t0, e->cs_t, *debt - before, w->samp->clock_ticks);
}

/* The parallel section's delay, drawn (callers test e->ncs_t first);
 * timed: kept with its draw as a section sample, and what it teaches. */
static void ncs_delay(struct worker *w, const struct wl_env *e,
		      struct wl_state *st, bool timed)
{
	int64_t before = st->ncs_debt;
	unsigned mult;
	uint64_t t, t0, t1;

	t = wl_ncs_len(e, &st->rng, &mult);
	if (!timed) {
		wl_delay(t, &e->spin, e->ncs_dc, &st->ncs_debt);
		return;
	}
	t0 = lb_ticks_ordered();
	wl_delay(t, &e->spin, e->ncs_dc, &st->ncs_debt);
	t1 = lb_ticks();
	ncs_sample_put(w->samp, sample_t0(e->ncs_dc, t0, t1), t1, mult);
	wl_delay_learn(&w->ncs_dc, t1 - t0, t, st->ncs_debt - before, w->samp->clock_ticks);
}

static unsigned sampled_end(struct worker *w, struct wl_state *st)
{
	atomic_store_explicit(&w->slot->ops, ++st->n, lb_rlx);
	wl_publish(w, st->n, st->reads);
	return w->every;
}

unsigned wl_cs_sampled(struct worker *w, struct wl_state *st, wl_lock_fn lk,
		       wl_lock_fn ul)
{
	const struct wl_env e = wl_env_get(w);
	bool lat = lat_due(w), sec = samp_due(w);
	uint64_t c;

	acquire(w, &e, lk, lat);
	c = wl_enter(w, &e, false, st->last);
	wl_cs_data(&e);
	if (e.cs_t)
		cs_delay(w, &e, &st->cs_debt, sec);
	st->last = wl_leave(w, &e, false, c);
	ul(e.lock, e.ctx);
	if (e.ncs_t)
		ncs_delay(w, &e, st, sec);
	return sampled_end(w, st);
}

unsigned wl_rw_sampled(struct worker *w, struct wl_state *st, wl_lock_fn lk,
		       wl_lock_fn ul, wl_lock_fn rlk, wl_lock_fn rul)
{
	const struct wl_env e = wl_env_get(w);
	bool lat = lat_due(w);

	if (wl_pick_read(w, &st->rng)) {
		acquire(w, &e, rlk, lat);
		wl_read_body(w, &e, &st->cs_debt);
		rul(e.lock, e.ctx);
		st->reads++;
	} else {
		uint64_t c;

		acquire(w, &e, lk, lat);
		c = wl_enter(w, &e, true, st->last);
		wl_cs_data(&e);
		if (e.cs_t)
			cs_delay(w, &e, &st->cs_debt, false);
		st->last = wl_leave(w, &e, true, c);
		ul(e.lock, e.ctx);
	}
	if (e.ncs_t)
		ncs_delay(w, &e, st, false);
	return sampled_end(w, st);
}

unsigned wl_torture_sampled(struct worker *w, struct wl_state *st,
			    wl_lock_fn lk, wl_lock_fn ul)
{
	const struct wl_env e = wl_env_get(w);
	bool lat = lat_due(w);
	uint64_t c;

	wl_stutter(w);
	acquire(w, &e, lk, lat);
	c = wl_enter(w, &e, false, st->last);
	wl_torture_delay(w, &st->rng);
	if (e.cs_t)
		cs_delay(w, &e, &st->cs_debt, false);
	st->last = wl_leave(w, &e, false, c);
	ul(e.lock, e.ctx);
	if (e.ncs_t)
		ncs_delay(w, &e, st, false);
	return sampled_end(w, st);
}
