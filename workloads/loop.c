/* SPDX-License-Identifier: MIT */
/*
 * The cold half of the worker loops (workloads/loop.h): set-up, the
 * handover and violation paths, and the sampled operations, which run
 * the same pieces as the common path with the clock around them.  They
 * call the lock through pointers: one operation in `every`.
 */
#include <math.h>
#include <stdlib.h>

#include "../output/results/stats.h"
#include "corespeed.h"
#include "loop.h"

/* Operations between two sampled ones when latency is not sampled more
 * often: the lag of the read and handover counters (loop.h). */
#define WL_EVERY 256

static uint64_t ns_to_ticks(const struct lb_tick_rate *r, uint64_t ns)
{
	double t = (double)ns * r->per_ns + 0.5;

	return ns && t < 1 ? 1 : (uint64_t)t;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median31(uint64_t *x)
{
	qsort(x, 31, sizeof(x[0]), cmp_u64);
	return x[15];
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
	int64_t sum = 0, lim = 4 * (int64_t)(c->step ? c->step : 1);
	unsigned n = 0;

	for (unsigned i = 0; i < 96; i++) {
		uint64_t t = (3 + i % 13) * (c->step ? c->step : 1), t0 = lb_ticks();
		int64_t e;

		wl_spin(t, c);
		e = (int64_t)(lb_ticks() - t0) - (int64_t)r->read_ticks - (int64_t)t;
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
 * medians of a few trials, timed the way the section samples are. */
static void spin_cal(const struct lb_tick_rate *r, struct wl_spin_cal *c)
{
	const uint64_t turns = 4096;
	struct wl_spin_cal none = {0, 0, 0, 0};
	uint64_t x[31], d;

	c->tail = ns_to_ticks(r, WL_SPIN_TAIL_NS);
	c->step = r->read_ticks;
	for (unsigned i = 0; i < 31; i++) {
		uint64_t t0 = lb_ticks();

		wl_turns(turns);
		x[i] = lb_ticks() - t0;
	}
	d = median31(x);
	c->fine = d > r->read_ticks ? (turns << 16) / (d - r->read_ticks) : 0;
	for (unsigned i = 0; i < 31; i++) {
		uint64_t t0 = lb_ticks();

		wl_spin(1, &none);
		x[i] = lb_ticks() - t0;
	}
	d = median31(x);
	c->cost = d > r->read_ticks ? d - r->read_ticks : 0;
	spin_trim(r, c);
}

/* One pass of delay_cal(): `n` delays of mean `t` drawn as the loop
 * draws them, each timed from outside as a section sample is; returns
 * the mean of what they cost over what wl_delay() counted (ticks),
 * leaving out a delay interrupted (over eight reads off, or eight ticks
 * where a read costs less than one). */
static int64_t delay_trial(const struct lb_tick_rate *r, const struct wl_spin_cal *c,
			   const struct wl_delay_cal *dc, uint64_t t, bool exp,
			   uint64_t *rng, unsigned n)
{
	int64_t debt = 0, sum = 0, lim = 8 * (int64_t)(r->read_ticks ? r->read_ticks : 1);
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t ti = exp ? (t * lb_exp_table[lb_rand(rng) & 255] + 128) / 256 : t;
		int64_t before = debt, o;
		uint64_t t0 = lb_ticks_ordered();

		wl_delay(ti, c, dc, &debt);
		o = (int64_t)(lb_ticks() - t0) - (int64_t)r->read_ticks;
		/* less what wl_delay() counted: the request and the debt's move */
		o -= (int64_t)ti + debt - before;
		if (o > -lim && o < lim) {
			sum += o;
			k++;
		}
	}
	return k ? sum / (int64_t)k : 0;
}

/*
 * wl_delay()'s terms for a section of mean `t` ticks (exp: drawn as
 * wl_ncs_len() draws): no carry below two reads of the clock; else the
 * cap, and `extra` found in two passes of up to 256 delays (about 50 us
 * in all; a section longer than 3 us keeps the first guess, one read,
 * whose error is then below 1%).
 */
static struct wl_delay_cal delay_cal(const struct lb_tick_rate *r,
				     const struct wl_spin_cal *c, uint64_t t,
				     bool exp, uint64_t rng)
{
	struct wl_delay_cal dc = {0, 0, 0};
	uint64_t budget = ns_to_ticks(r, 25000);
	unsigned n;

	/* t == 0: no delay asked; the second test alone would let it through
	 * when a read costs under one tick (arm64's 10-40 ns counters) */
	if (!t || t < 2 * r->read_ticks)
		return dc;
	dc.cap = t + 4 * r->read_ticks;
	dc.extra = (int64_t)r->read_ticks;
	if (t > budget / 8)
		return dc;
	n = budget / t > 256 ? 256 : (unsigned)(budget / t);
	for (int pass = 0; pass < 2; pass++)
		dc.extra += delay_trial(r, c, &dc, t, exp, &rng, n);
	if (dc.extra < 0)
		dc.extra = 0;
	return dc;
}

void wl_loop_begin(struct worker *w)
{
	const struct lb_tick_rate *r = lb_clock_rate();
	const struct wl_params *p = w->p;
	unsigned every = p->lat_sample && p->lat_sample < WL_EVERY ? p->lat_sample
								     : WL_EVERY;

	w->every = every;
	w->lat_acc = w->samp_acc = 0;
	w->hand = (struct wl_hand){0};
	w->ns_per_tick = r->ns_per_tick;
	w->cs_ticks = ns_to_ticks(r, p->cs_ns);
	w->ncs_ticks = ns_to_ticks(r, p->ncs_ns);
	w->short_ticks = ns_to_ticks(r, 2000); /* locktorture's 2 us */
	w->long_ticks = ns_to_ticks(r, (uint64_t)p->long_hold_ms * 1000000);
	spin_cal(r, &w->spin); /* ~40 us */
	w->cs_dc = delay_cal(r, &w->spin, w->cs_ticks, false, w->rng);
	w->ncs_dc = delay_cal(r, &w->spin, w->ncs_ticks, !p->ncs_fixed, w->rng);
	if (w->samp) {
		w->samp->clock_ticks = r->read_ticks;
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
 * What a sampled delay of `t` ticks took from outside (`span`: first to
 * last read around it, the sample, less one read) beyond what wl_delay()
 * counted (the request and the debt's move, `moved`), as delay_trial()
 * measures it before the run: `extra` moves by a sixteenth of it, so the cost of a
 * delay beyond its own reads is learnt again all along the run, under
 * the run's own contention (beside a spinning waiter it is not what it
 * was alone).  A delay interrupted (over eight reads off, eight ticks on
 * a counter coarser than a read) teaches nothing; a section the clock
 * cannot time (cap 0) has no `extra`.
 */
void wl_delay_learn(struct wl_delay_cal *dc, uint64_t span, uint64_t t,
		    int64_t moved, uint64_t read)
{
	int64_t o = (int64_t)span - (int64_t)read - (int64_t)t - moved;
	int64_t lim = 8 * (int64_t)(read ? read : 1); /* a read under a tick: 0 */

	if (!dc->cap || o <= -lim || o >= lim)
		return;
	dc->learn += o;
	dc->extra += dc->learn / 16;
	dc->learn %= 16;
	if (dc->extra < 0)
		dc->extra = dc->learn = 0;
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
	cs_sample_put(w->samp, t0, t1);
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
	ncs_sample_put(w->samp, t0, t1, mult);
	wl_delay_learn(&w->ncs_dc, t1 - t0, t, st->ncs_debt - before, w->samp->clock_ticks);
}

/* Time between two issue probes in the window (about 0.1 us each). */
#define WL_ISSUE_EVERY_NS 1000000.0

/*
 * Inside the window, one issue probe (corespeed.h) every `issue_every`
 * sampled operations, a count adapted after each probe from the time
 * since the last, so that probes come about WL_ISSUE_EVERY_NS apart
 * whatever an operation costs, without reading the clock in between.
 * Their mean rate is the share of the core the loop had; the results
 * pass flags a 1-thread run whose share differs from its point's other
 * runs (output/results/noise.h, noise_issue_moved()).
 */
static void issue_due(struct cs_samples *s)
{
	uint64_t t, d;
	double want, k;

	if (s->issue_left > 1) {
		s->issue_left--;
		return;
	}
	t = lb_ticks();
	d = core_issue_probe();
	s->issue_sum += CORE_ISSUE_ADDS / ((double)d * s->ns_per_tick);
	s->issue_n++;
	if (!s->issue_every)
		s->issue_every = 1;
	else if (t > s->issue_t) {
		want = WL_ISSUE_EVERY_NS / s->ns_per_tick;
		k = s->issue_every * want / (double)(t - s->issue_t);
		k = fmin(fmax(k, s->issue_every / 4.0), s->issue_every * 16.0);
		s->issue_every = k < 1 ? 1 : k > 1e6 ? 1000000 : (unsigned)k;
	}
	s->issue_t = t;
	s->issue_left = s->issue_every;
}

void wl_probe_due(struct worker *w)
{
	if (__builtin_expect(w->speed != NULL, 0) &&
	    atomic_load_explicit(w->probe_now, lb_rlx)) {
		*w->speed = core_speed_probe();
		w->speed = NULL;
	}
	if (w->samp && atomic_load_explicit(w->window, lb_rlx))
		issue_due(w->samp);
}

static unsigned sampled_end(struct worker *w, struct wl_state *st)
{
	wl_probe_due(w);
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
