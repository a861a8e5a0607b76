/* SPDX-License-Identifier: MIT */
/*
 * Sampled critical- and parallel-section lengths: one operation in
 * CS_SAMPLE_EVERY (a countdown in the worker loop, off the common path)
 * reads the clock around the busy delays and keeps the result in the
 * worker's own ring; the runner takes the medians after the run.
 */
#ifndef LOCKBENCH_SAMPLE_H
#define LOCKBENCH_SAMPLE_H

#include <stdint.h>
#include <time.h>

#include "workload.h"

#define CS_SAMPLE_EVERY 256
#define CS_SAMPLE_SLOTS 256

/* One worker's samples, in its own memory (ring: the latest SLOTS). */
struct cs_samples {
	uint32_t cs[CS_SAMPLE_SLOTS];   /* ns of the CS delay */
	uint32_t ncs[CS_SAMPLE_SLOTS];  /* ns of the NCS delay, scaled to its mean */
	unsigned cs_n, ncs_n;           /* samples taken */
	uint64_t clock_ns;              /* cost of one clock read, subtracted */
};

static inline uint64_t lb_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* t1 - t0 less the clock's own cost, saturated to 32 bits. */
static inline uint32_t lb_sample_ns(const struct cs_samples *s, uint64_t t0,
				    uint64_t t1)
{
	uint64_t d = t1 - t0;

	d = d > s->clock_ns ? d - s->clock_ns : 0;
	return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

/* lb_delay(loops), timed into the CS ring. */
static inline void cs_sample_delay(struct cs_samples *s, uint64_t loops)
{
	uint64_t t0 = lb_now_ns();

	lb_delay(loops);
	s->cs[s->cs_n++ % CS_SAMPLE_SLOTS] = lb_sample_ns(s, t0, lb_now_ns());
}

/*
 * lb_delay(loops), timed into the NCS ring.  The delay was drawn as
 * mult/256 of the mean: the sample is scaled back by 256/mult so the
 * median estimates the requested mean (tiny draws, mult < 32, are too
 * short to time well and are not kept).
 */
static inline void ncs_sample_delay(struct cs_samples *s, uint64_t loops,
				    unsigned mult)
{
	uint64_t t0 = lb_now_ns(), d;

	lb_delay(loops);
	d = lb_sample_ns(s, t0, lb_now_ns());
	if (mult >= 32)
		s->ncs[s->ncs_n++ % CS_SAMPLE_SLOTS] =
			(uint32_t)(d * 256 / mult > UINT32_MAX ? UINT32_MAX : d * 256 / mult);
}

#endif
