/* SPDX-License-Identifier: MIT */
/*
 * The cold half of the worker loops (workloads/loop.h): set-up, the
 * handover and violation paths, and the sampled operations, which run
 * the same pieces as the common path with the clock around them.  They
 * call the lock through pointers: one operation in `every`.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include "../output/stats/stats.h"
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

/*
 * Calibration (docs/method.md, "The worker loop"): one primitive,
 * cal_time(), times delays made as the loop makes them, from outside (an
 * ordered read before, a read after, less an empty interval's span and
 * the requests).  How many timings, how combined, and why:
 */
/* interference only adds time to a batch: keep the least of nine */
#define CAL_ROUNDS 9
/* a batch's two end reads, tens of ns, weigh under 0.5% of it */
#define CAL_BATCH_NS 20000.0
/* and it averages at least 16 draws of a drawn length */
#define CAL_BATCH_MIN 16
/* a single reads whole ticks: a mean of 256 resolves 1/16 (1/sqrt(256)) */
#define CAL_SINGLES 256
/* a timing eight reads off (a span, at least a tick) was interrupted */
#define CAL_OFF 8
/* a first guess can be far off: a term first moves by two passes */
#define CAL_SETTLE 2
/* then is the median of three: noise goes both ways, no one pass decides */
#define CAL_ESTIMATES 3
/* an interrupted pass is tried again, up to ten in all */
#define CAL_PASSES 10
/* wl_spin() is checked past a spin of nothing and a step: on its deadline */
#define CAL_SPIN_STEPS 8
/* no passes beyond: they would take the window to find under 0.5% */
#define CAL_MAX_NS 20000.0
/* fixed lengths: a step of 1/16 tick follows the errors' median, which
 * one-sided errors (an interrupt, a cold cache) do not drag */
#define LEARN_STEP ((1 << WL_SUB) / 16)
/* drawn: 1/64 of the error follows its mean, which makes the length
 * (short draws, paying the debt, and long ones err differently) */
#define LEARN_DRAWN 64
/* turns: 1/128 of the error relative to the mean, as samples of 0 or 1
 * tick (a coarse counter) tell the length only on average: within 3% */
#define LEARN_TURNS 128

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

/* CAL_OFF reads in sub-ticks, given an empty interval's span (ticks). */
static double off_lim(double span)
{
	return CAL_OFF * fmax(span, 1) * (1 << WL_SUB);
}

/* What cal_time() times: delays of mean `t` sub-ticks made by wl_delay()
 * with `dc` (drawn as wl_ncs_len() draws when `exp`), or with `spin` by
 * wl_spin() (whole ticks). */
struct cal {
	const struct lb_tick_rate *r;
	const struct wl_spin_cal *c;
	const struct wl_delay_cal *dc;
	uint64_t t, *rng;
	bool exp, spin;
};

enum cal_take { CAL_LEAST, CAL_MEDIAN, CAL_MEAN };

/* One timing of `n` delays back to back: what one took beyond what
 * wl_delay() counted (the requests and the debt's move), in sub-ticks.
 * The ends' reads are divided by n; what a delay's own reads do not see
 * is not. */
static double cal_once(const struct cal *j, unsigned n)
{
	int64_t debt = 0;
	uint64_t asked = 0, t0 = lb_ticks_ordered(), el;

	for (unsigned i = 0; i < n; i++) {
		uint64_t t = j->exp ? (j->t * lb_exp_table[lb_rand(j->rng) & 255] + 128) / 256
				    : j->t;

		asked += t;
		if (j->spin)
			wl_spin(t >> WL_SUB, j->c);
		else
			wl_delay(t, j->c, j->dc, &debt);
	}
	el = lb_ticks() - t0;
	return (((double)el - j->r->span_ticks) * (1 << WL_SUB) - (double)asked -
		(double)debt) / n;
}

/* The calibration primitive: `k` timings of `n` delays (cal_once()),
 * taken as the constants above say: the least of batches, the median of
 * first guesses, the mean of singles within CAL_OFF reads (0: none). */
static double cal_time(const struct cal *j, unsigned k, unsigned n, enum cal_take how)
{
	double x[CAL_SINGLES], sum = 0, m;
	unsigned got = 0;

	for (unsigned i = 0; i < k && i < CAL_SINGLES; i++) {
		x[got] = cal_once(j, n);
		if (how != CAL_MEAN || fabs(x[got]) < off_lim(j->r->span_ticks))
			sum += x[got++];
	}
	if (!got)
		return 0;
	if (how == CAL_MEAN)
		return sum / got;
	if (how == CAL_MEDIAN)
		return stats_median(x, got);
	for (m = x[0]; got-- > 1;)
		m = fmin(m, x[got]);
	return m;
}

/* Delays of mean `t` sub-ticks in a batch (CAL_BATCH_NS; a delay costs
 * at least its ordered read). */
static unsigned batch_n(const struct lb_tick_rate *r, uint64_t t)
{
	double n = CAL_BATCH_NS * r->per_ns * (1 << WL_SUB) /
		   fmax((double)t, r->ordered_ticks * (1 << WL_SUB));

	return n < CAL_BATCH_MIN ? CAL_BATCH_MIN : (unsigned)n;
}

/* The least of CAL_ROUNDS batches of what `j` makes: sub-ticks a delay. */
static double cal_batches(const struct cal *j)
{
	return cal_time(j, CAL_ROUNDS, batch_n(j->r, j->t), CAL_LEAST);
}

/* wl_spin()'s calibration on this CPU now (struct wl_spin_cal): the
 * clock's figures (lb_clock_rate()), and `cost`, what a spin of nothing
 * costs: first the median of single spins of a tick (no scale yet to
 * tell an interrupted one), then corrected by the mean error of spins
 * made with it, timed as the section samples are. */
static void spin_cal(const struct lb_tick_rate *r, struct wl_spin_cal *c)
{
	const struct wl_spin_cal none = {0, 0, 0, 0};
	struct cal j = {.r = r, .c = &none, .t = 1 << WL_SUB, .spin = true};
	double cost;

	c->step = (uint64_t)ceil(fmax(r->read_ticks, r->step_ticks));
	/* the last pause must end before the deadline: a pause and a read */
	c->tail = (uint64_t)ceil(r->relax_ns * r->per_ns + r->read_ticks);
	c->fine = (uint64_t)(65536.0 / (r->turn_ns * r->per_ns));
	cost = 1 + cal_time(&j, CAL_SINGLES, 1, CAL_MEDIAN) / (1 << WL_SUB);
	c->cost = cost > 0 ? (uint64_t)cost : 0;
	j.c = c;
	j.t = (CAL_SPIN_STEPS * c->step) << WL_SUB;
	cost += cal_time(&j, CAL_SINGLES, 1, CAL_MEAN) / (1 << WL_SUB);
	c->cost = cost > 0 ? (uint64_t)cost : 0;
}

/* A delay of nothing, in sub-ticks: its ordered read and the call. */
static double delay_floor_sub(const struct lb_tick_rate *r, const struct wl_spin_cal *c)
{
	const struct wl_delay_cal dc = {.cap = UINT64_MAX >> 2};
	const struct cal j = {.r = r, .c = c, .dc = &dc};

	return fmax(cal_batches(&j), 1);
}

/* Set `dc`'s term found in passes: `extra` (never below 0) or `fine`. */
static void cal_set(struct wl_delay_cal *dc, double e)
{
	if (dc->cap)
		dc->extra = e > 0 ? (int64_t)e : 0;
	else
		dc->fine = (uint64_t)e;
}

/*
 * Passes of batches (CAL_SETTLE, CAL_ESTIMATES) for `dc`'s term: above
 * the floor `extra`, by the overshoot a pass measured; below it (cap 0)
 * the turns a tick, `fine`, scaled by what the turns took against what
 * they were asked (the fences, the call and the draw included).  Turns
 * not yet calibrated may be off by their whole length (a busy SMT
 * sibling halves them), so that is not an interrupted pass.
 */
static void cal_passes(struct cal *j, struct wl_delay_cal *dc)
{
	double est[CAL_ESTIMATES], t = (double)j->t, lim = off_lim(j->r->span_ticks);
	unsigned ok = 0;

	if (!dc->cap)
		lim = fmax(lim, t);
	for (unsigned pass = 0; pass < CAL_PASSES && ok < CAL_SETTLE + CAL_ESTIMATES; pass++) {
		double over = cal_batches(j), e;

		if (fabs(over) > lim)
			continue;
		e = dc->cap ? (double)dc->extra + over
			    : fmax(1, (double)dc->fine * t / fmax(t + over, t / 4));
		if (ok < CAL_SETTLE)
			cal_set(dc, e);
		else
			est[ok - CAL_SETTLE] = e;
		ok++;
	}
	if (ok > CAL_SETTLE)
		cal_set(dc, stats_median(est, ok - CAL_SETTLE));
}

/*
 * What a sampled delay of turns reads beyond what it costs from outside
 * (sub-ticks): a sample of no turns, less what one costs in a batch.
 * Not nothing: the fence ahead of the turns waits for the read that
 * starts the sample to complete (longer the dearer the read), which
 * neither the reads' own span nor an untimed delay pays.  The run's
 * samples are held to the request plus this (wl_delay_learn()), so that
 * the turns are their length from outside.
 */
static int64_t turns_bias(const struct lb_tick_rate *r, const struct wl_spin_cal *c)
{
	const struct wl_delay_cal none = {.cap = 0, .mean = 1};
	const struct cal j = {.r = r, .c = c, .dc = &none};

	return (int64_t)(cal_time(&j, CAL_SINGLES, 1, CAL_MEAN) - cal_batches(&j));
}

/*
 * wl_delay()'s terms for a section of mean `t` sub-ticks (exp: drawn as
 * wl_ncs_len() draws).  Below `floor`, what a delay of nothing costs
 * here: turns (cap 0), `fine` found in passes and `extra` the turns'
 * bias.  Else the cap (four means, eight reads and two steps of the
 * counter: a counter that steps coarser than a delay leaves a step in
 * the debt) and `extra`, from one read's cost, found in passes.
 */
static struct wl_delay_cal delay_cal(const struct lb_tick_rate *r,
				     const struct wl_spin_cal *c, uint64_t t,
				     bool exp, uint64_t rng, double floor)
{
	struct wl_delay_cal dc = {.cap = 0, .mean = t, .drawn = exp, .fine = c->fine};
	struct cal j = {.r = r, .c = c, .dc = &dc, .t = t, .rng = &rng, .exp = exp};

	if (!t)
		return (struct wl_delay_cal){.cap = 0};
	if ((double)t < floor) {
		cal_passes(&j, &dc);
		dc.extra = turns_bias(r, c);
		return dc;
	}
	dc.cap = 4 * t + (uint64_t)((8 * (r->ordered_ticks + r->read_ticks) + 2 * r->step_ticks) *
				    (1 << WL_SUB));
	dc.extra = (int64_t)(r->read_ticks * (1 << WL_SUB));
	if ((double)t / (1 << WL_SUB) * r->ns_per_tick <= CAL_MAX_NS)
		cal_passes(&j, &dc);
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
static double over_ns;

/* A fixed 100 ns delay's `extra` as a worker calibrates it, the median of
 * CAL_ESTIMATES calibrations (one's noise is not the figure). */
static void over_init(void)
{
	const struct lb_tick_rate *r = lb_clock_rate();
	struct wl_spin_cal c;
	double x[CAL_ESTIMATES];

	for (unsigned i = 0; i < CAL_ESTIMATES; i++) {
		spin_cal(r, &c);
		x[i] = (double)delay_cal(r, &c, ns_to_sub(r, 100), false, 1, 0).extra;
	}
	over_ns = stats_median(x, CAL_ESTIMATES) / (1 << WL_SUB) * r->ns_per_tick;
}

double wl_delay_overhead_ns(void)
{
	pthread_once(&over_once, over_init);
	return over_ns;
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
	spin_cal(r, &w->spin);
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
 * cal_once() measures it before the run, corrects the section's term
 * (LEARN_STEP, LEARN_DRAWN, LEARN_TURNS): so the cost of a delay beyond
 * its own reads is learnt again all along the run, under the run's own
 * contention (beside a spinning waiter it is not what it was alone),
 * and turns below the floor (cap 0) still make the length asked under a
 * busy SMT sibling or a slower core.  Their samples are held to the
 * request plus `extra`, what a sample reads beyond the turns' cost from
 * outside (turns_bias()); their error is taken relative to the
 * section's mean, not to the draw (a short draw's error is mostly the
 * reads' jitter), and at most half of it.  A delay interrupted (off by
 * CAL_OFF reads) teaches nothing.
 */
void wl_delay_learn(struct wl_delay_cal *dc, uint64_t span, uint64_t t,
		    int64_t moved, double empty)
{
	double o = ((double)span - empty) * (1 << WL_SUB) - (double)t - (double)moved;

	if (!dc->cap)
		o -= (double)dc->extra;
	if (fabs(o) >= off_lim(empty))
		return;
	if (!dc->cap) {
		double rel = dc->mean ? fmax(-0.5, fmin(0.5, o / (double)dc->mean)) : 0;

		dc->fine = (uint64_t)fmax(1, (double)dc->fine * (1 - rel / LEARN_TURNS));
		return;
	}
	if (dc->drawn)
		dc->extra += (int64_t)(o / LEARN_DRAWN);
	else
		dc->extra += o > 0 ? LEARN_STEP : o < 0 ? -LEARN_STEP : 0;
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

/* A section's delay (callers test its length first: no call without
 * one), the parallel section's drawn; timed: kept as a section sample
 * (with its draw), and what it teaches. */
static void sec_delay(struct worker *w, const struct wl_env *e, struct wl_state *st,
		      bool ncs, bool timed)
{
	struct wl_delay_cal *dc = ncs ? &w->ncs_dc : &w->cs_dc;
	int64_t *debt = ncs ? &st->ncs_debt : &st->cs_debt, before = *debt;
	unsigned mult = 256;
	uint64_t t = ncs ? wl_ncs_len(e, &st->rng, &mult) : e->cs_t, t0 = 0, t1;

	if (timed)
		t0 = lb_ticks_ordered();
	wl_delay(t, &e->spin, dc, debt);
	if (!timed)
		return;
	t1 = lb_ticks();
	if (ncs)
		ncs_sample_put(w->samp, sample_t0(dc, t0, t1), t1, mult);
	else
		cs_sample_put(w->samp, sample_t0(dc, t0, t1), t1);
	wl_delay_learn(dc, t1 - t0, t, *debt - before, w->samp->clock_ticks);
}

/* The sampled exclusive section of cs and of rw's writers; `sec`: its
 * delay timed. */
static void sampled_write(struct worker *w, const struct wl_env *e, struct wl_state *st,
			  wl_lock_fn lk, wl_lock_fn ul, bool rw, bool lat, bool sec)
{
	uint64_t c;

	acquire(w, e, lk, lat);
	c = wl_enter(w, e, rw, st->last);
	wl_cs_data(e);
	if (e->cs_t)
		sec_delay(w, e, st, false, sec);
	st->last = wl_leave(w, e, rw, c);
	ul(e->lock, e->ctx);
}

/* The parallel section, then the counters published; returns the
 * countdown to the next sampled operation. */
static unsigned sampled_end(struct worker *w, const struct wl_env *e, struct wl_state *st,
			    bool sec)
{
	if (e->ncs_t)
		sec_delay(w, e, st, true, sec);
	atomic_store_explicit(&w->slot->ops, ++st->n, lb_rlx);
	wl_publish(w, st->n, st->reads);
	return w->every;
}

unsigned wl_cs_sampled(struct worker *w, struct wl_state *st, wl_lock_fn lk,
		       wl_lock_fn ul)
{
	const struct wl_env e = wl_env_get(w);
	bool lat = lat_due(w), sec = samp_due(w);

	sampled_write(w, &e, st, lk, ul, false, lat, sec);
	return sampled_end(w, &e, st, sec);
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
		sampled_write(w, &e, st, lk, ul, true, lat, false);
	}
	return sampled_end(w, &e, st, false);
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
		sec_delay(w, &e, st, false, false);
	st->last = wl_leave(w, &e, false, c);
	ul(e.lock, e.ctx);
	return sampled_end(w, &e, st, false);
}
