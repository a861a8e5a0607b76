/* SPDX-License-Identifier: MIT */
/*
 * The exclusive critical section and the parallel section shared by the
 * cs, rw (writers) and torture workloads: static inline, because they
 * run in the timed loop.
 */
#ifndef LOCKBENCH_CS_BODY_H
#define LOCKBENCH_CS_BODY_H

#include "sample.h"
#include "workload.h"

/* Take the owner field: anybody else inside is a violation. */
static inline void cs_enter(struct worker *w)
{
	struct wl_shared *sh = w->sh;

	if (atomic_load_explicit(&sh->owner, lb_rlx) != 0 ||
	    atomic_load_explicit(&sh->readers, lb_rlx) != 0)
		atomic_fetch_add_explicit(&sh->violations, 1, lb_rlx);
	atomic_store_explicit(&sh->owner, w->tid + 1, lb_rlx);
}

/* Bump the unprotected counter and give the owner field back. */
static inline void cs_leave(struct worker *w)
{
	struct wl_shared *sh = w->sh;
	uint64_t c = atomic_load_explicit(&sh->counter, lb_rlx);

	atomic_store_explicit(&sh->counter, c + 1, lb_rlx);
	if (atomic_load_explicit(&sh->owner, lb_rlx) != w->tid + 1 ||
	    atomic_load_explicit(&sh->readers, lb_rlx) != 0)
		atomic_fetch_add_explicit(&sh->violations, 1, lb_rlx);
	atomic_store_explicit(&sh->owner, 0, lb_rlx);
}

/*
 * The critical section proper.  The owner field and counter are relaxed
 * atomics accessed with separate load and store (never an atomic RMW):
 * if the lock fails to exclude, two holders overwrite each other and the
 * counter ends below the operation count, and the owner check sees the
 * other holder.  The data lines are plain memory on purpose, so that
 * ThreadSanitizer checks the lock's happens-before edges.
 */
static inline __attribute__((always_inline)) void
wl_cs_body_timed(struct worker *w, struct wl_hand *h, bool timed)
{
	struct wl_shared *sh = w->sh;
	const struct wl_params *p = w->p;
	uint64_t sum = 0;
	unsigned i;

	cs_enter(w);
	wl_handover(w, h);
	for (i = 0; i < p->cs_write_lines; i++)
		sh->lines[i].w[0]++;
	for (; i < p->cs_lines; i++)
		sum += sh->lines[i].w[0];
	lb_sink(sum);
	if (timed && p->cs_loops)
		cs_sample_delay(w->samp, p->cs_loops);
	else
		lb_delay(p->cs_loops);
	cs_leave(w);
}

static inline void wl_cs_body(struct worker *w, struct wl_hand *h)
{
	wl_cs_body_timed(w, h, false);
}

/* The parallel section; `timed` samples its length, scaled
 * back by the exponential draw so the samples estimate the mean. */
static inline __attribute__((always_inline)) void
wl_ncs_body_timed(struct worker *w, bool timed)
{
	uint64_t loops = w->p->ncs_loops;
	unsigned mult = 256;

	if (!loops)
		return;
	if (!w->p->ncs_fixed) {
		mult = lb_exp_table[lb_rand(&w->rng) & 255];
		loops = (loops * mult + 128) / 256; /* rounded: truncating biased short delays low */
	}
	if (timed)
		ncs_sample_delay(w->samp, loops, mult);
	else
		lb_delay(loops);
}

static inline void wl_ncs_body(struct worker *w)
{
	wl_ncs_body_timed(w, false);
}

#endif
