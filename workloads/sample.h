/* SPDX-License-Identifier: MIT */
/*
 * Sampled critical- and parallel-section lengths: one operation in
 * CS_SAMPLE_EVERY (the worker loop's one countdown, off the common path)
 * reads the tick clock around the delays and keeps the result in the
 * worker's own ring; the runner takes their typical lengths after the
 * run (workloads/noise_run.c).
 */
#ifndef LOCKBENCH_SAMPLE_H
#define LOCKBENCH_SAMPLE_H

#include <stdint.h>

#include "../topology/host/clock.h"

#define CS_SAMPLE_EVERY 256
#define CS_SAMPLE_SLOTS 256

/* One worker's samples, in its own memory (ring: the latest SLOTS). */
struct cs_samples {
	uint32_t cs[CS_SAMPLE_SLOTS];   /* ns of the CS delay */
	uint32_t ncs[CS_SAMPLE_SLOTS];  /* ns of the NCS delay as drawn */
	uint16_t ncs_mult[CS_SAMPLE_SLOTS]; /* its draw: 256 = the mean */
	unsigned cs_n, ncs_n;           /* samples taken */
	double clock_ticks;             /* an empty interval's reading (ticks), subtracted */
	double ns_per_tick;
};

/* t1 - t0 in ns, less what the two reads take on their own
 * (lb_tick_rate.span_ticks), saturated to 32 bits. */
static inline uint32_t lb_sample_ns(const struct cs_samples *s, uint64_t t0,
				    uint64_t t1)
{
	double d = (double)(t1 - t0) - s->clock_ticks, ns;

	ns = (d > 0 ? d : 0) * s->ns_per_tick + 0.5;
	return ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static inline void cs_sample_put(struct cs_samples *s, uint64_t t0, uint64_t t1)
{
	s->cs[s->cs_n++ % CS_SAMPLE_SLOTS] = lb_sample_ns(s, t0, t1);
}

/*
 * An NCS delay drawn as mult/256 of the mean, timed from t0 to t1: kept
 * with its draw, so that the runner estimates the mean as the sum of the
 * lengths over the sum of the draws (a ratio that does not magnify the
 * clock's error on the short draws, as scaling each sample would).
 */
static inline void ncs_sample_put(struct cs_samples *s, uint64_t t0, uint64_t t1,
				  unsigned mult)
{
	unsigned i = s->ncs_n++ % CS_SAMPLE_SLOTS;

	s->ncs[i] = lb_sample_ns(s, t0, t1);
	s->ncs_mult[i] = (uint16_t)mult;
}

#endif
