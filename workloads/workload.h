/* SPDX-License-Identifier: MIT */
/*
 * Workloads: what a worker does between the start and the stop flag.
 *
 * The runner gives each worker a `struct worker` (on the worker's own
 * lines), the lock, the thread's context, and the shared
 * critical-section data; the workload's loop runs until *stop, counting
 * completed operations in the worker's own 128-byte slot with plain
 * (relaxed) stores that the monitor thread snapshots.
 */
#ifndef LOCKBENCH_WORKLOAD_H
#define LOCKBENCH_WORKLOAD_H

#include <stdint.h>

#include "lockbench/lock.h"

/* What the user asked for, plus the calibrated loop counts. */
struct wl_params {
	uint64_t cs_ns;       /* --cs-ns: busy time inside the lock */
	uint64_t ncs_ns;      /* --ncs-ns: mean busy time outside it */
	unsigned cs_lines;    /* --cs-lines: shared lines written in the CS */
	uint64_t cs_loops;    /* cs_ns converted to delay-loop iterations */
	uint64_t ncs_loops;   /* ncs_ns converted likewise */
	bool ncs_fixed;       /* --ncs-dist fixed: no randomisation */
};

/* One cache line of critical-section data. */
struct cs_line {
	LB_ALIGNED uint64_t w[LB_CACHELINE / sizeof(uint64_t)];
};

/*
 * Data the critical section touches, shared by all workers: the
 * unprotected counter and owner used for the mutual-exclusion check (own
 * line), the violation count (own line), then --cs-lines lines.
 */
struct wl_shared {
	LB_ALIGNED _Atomic uint64_t counter; /* bumped non-atomically in the CS */
	_Atomic uint32_t owner;              /* holder's tid + 1, 0 when free */
	LB_ALIGNED _Atomic uint64_t violations;
	struct cs_line lines[];
};

/* A worker's completed-operation count, alone on its line. */
struct worker_slot {
	LB_ALIGNED _Atomic uint64_t ops;
};

struct cs_samples;

struct worker {
	const struct lock_ops *ops;
	void *lock;
	void *ctx;
	struct wl_shared *sh;
	const struct wl_params *p;
	const _Atomic uint32_t *stop;
	struct worker_slot *slot;
	unsigned tid;
	bool check;            /* false for LOCK_CAP_NOLOCK: private data */
	uint64_t rng;
	struct cs_samples *samp; /* section-length samples (sample.h) or NULL */
};

struct workload_ops {
	const char *name;
	const char *desc;
	unsigned needs_caps;   /* lock capabilities required (enum lock_caps) */
	void (*loop)(struct worker *w);
};

/* Registered workloads; NULL-terminated. */
extern const struct workload_ops *const workloads[];
const struct workload_ops *workload_find(const char *name);

/* Busy-wait `loops` iterations of cpu_relax(). */
static inline void lb_delay(uint64_t loops)
{
	while (loops--)
		cpu_relax();
}

/* xorshift64: cheap per-thread randomness for the parallel section. */
static inline uint64_t lb_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Exponential multipliers (mean 256) indexed by 8 random bits. */
extern const uint16_t lb_exp_table[256];

#endif
