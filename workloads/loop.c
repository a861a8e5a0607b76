/* SPDX-License-Identifier: MIT */
/*
 * The cold half of the worker loops (workloads/loop.h): set-up, the
 * handover and violation paths, and the sampled operations, which run
 * the same pieces as the common path with the clock around them.  They
 * call the lock through pointers: one operation in `every`.
 */
#include <stdlib.h>

#include "../output/results/stats.h"
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
	uint64_t t0;

	if (!timed) {
		lk(e->lock, e->ctx);
		return;
	}
	t0 = lb_ticks();
	lk(e->lock, e->ctx);
	if (atomic_load_explicit(w->window, lb_rlx))
		hist_add(w->lat, (uint64_t)((double)(lb_ticks() - t0) * w->ns_per_tick));
}

/* The section's delay (callers test e->cs_t first: no call without
 * one); timed: kept as a section sample. */
static void cs_delay(struct worker *w, const struct wl_env *e, bool timed)
{
	uint64_t t0;

	if (!timed) {
		wl_spin(e->cs_t, &e->spin);
		return;
	}
	t0 = lb_ticks();
	wl_spin(e->cs_t, &e->spin);
	cs_sample_put(w->samp, t0, lb_ticks());
}

/* The parallel section's delay, drawn (callers test e->ncs_t first);
 * timed: kept with its draw as a section sample. */
static void ncs_delay(struct worker *w, const struct wl_env *e, uint64_t *rng,
		      bool timed)
{
	unsigned mult;
	uint64_t t, t0;

	t = wl_ncs_len(e, rng, &mult);
	if (!timed) {
		wl_spin(t, &e->spin);
		return;
	}
	t0 = lb_ticks();
	wl_spin(t, &e->spin);
	ncs_sample_put(w->samp, t0, lb_ticks(), mult);
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
		cs_delay(w, &e, sec);
	st->last = wl_leave(w, &e, false, c);
	ul(e.lock, e.ctx);
	if (e.ncs_t)
		ncs_delay(w, &e, &st->rng, sec);
	return sampled_end(w, st);
}

unsigned wl_rw_sampled(struct worker *w, struct wl_state *st, wl_lock_fn lk,
		       wl_lock_fn ul, wl_lock_fn rlk, wl_lock_fn rul)
{
	const struct wl_env e = wl_env_get(w);
	bool lat = lat_due(w);

	if (wl_pick_read(w, &st->rng)) {
		acquire(w, &e, rlk, lat);
		wl_read_body(w, &e);
		rul(e.lock, e.ctx);
		st->reads++;
	} else {
		uint64_t c;

		acquire(w, &e, lk, lat);
		c = wl_enter(w, &e, true, st->last);
		wl_cs_data(&e);
		if (e.cs_t)
			cs_delay(w, &e, false);
		st->last = wl_leave(w, &e, true, c);
		ul(e.lock, e.ctx);
	}
	if (e.ncs_t)
		ncs_delay(w, &e, &st->rng, false);
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
		cs_delay(w, &e, false);
	st->last = wl_leave(w, &e, false, c);
	ul(e.lock, e.ctx);
	if (e.ncs_t)
		ncs_delay(w, &e, &st->rng, false);
	return sampled_end(w, st);
}
