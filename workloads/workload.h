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
#include <time.h>

#include "lockbench/lock.h"
#include "../output/results/stats.h"

/* What the user asked for, plus the calibrated loop counts. */
struct wl_params {
	uint64_t cs_ns;       /* --cs-ns: busy time inside the lock */
	uint64_t ncs_ns;      /* --ncs-ns: mean busy time outside it */
	unsigned cs_lines;    /* --cs-lines: shared lines written in the CS */
	uint64_t cs_loops;    /* cs_ns converted to delay-loop iterations */
	uint64_t ncs_loops;   /* ncs_ns converted likewise */
	bool ncs_fixed;       /* --ncs-dist fixed: no randomisation */
	/* Workload parameters and metrics (see workload.c for the defaults). */
	unsigned cs_write_lines; /* of cs_lines, how many are written (rest read) */
	unsigned read_pct;    /* rw/layout: share of operations that read */
	unsigned readers;     /* rw --readers: the last N tids read */
	unsigned writers;     /* rw --writers: tids 0..M-1 write */
	bool fixed_roles;     /* rw: --readers/--writers given: roles by tid */
	bool writers_set;     /* --writers given (else writers = n - readers) */
	unsigned lat_sample;  /* time 1 acquisition in N; 0 = off */
	unsigned long_hold_ms;/* torture: the rare long hold, 0 = off */
	uint64_t long_loops;  /* long_hold_ms as delay-loop iterations */
	uint64_t short_loops; /* torture's 2 us short delay as iterations */
	double stutter_s;     /* torture: pause every S s for S s; 0 = off */
	unsigned layout;      /* layout: enum wl_layout of this variant */
};

/* The variants of the layout workload (workloads/layout.h). */
enum wl_layout { WL_LAYOUT_PACKED, WL_LAYOUT_ALIGNED, WL_LAYOUT_PER_NODE, WL_NLAYOUTS };
extern const char *const wl_layout_names[WL_NLAYOUTS];

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
	_Atomic uint32_t readers;            /* rw: readers inside (atomic RMW) */
	_Atomic uint64_t last_holder;        /* wl_holder_id() of the last writer */
	LB_ALIGNED _Atomic uint64_t violations;
	struct cs_line lines[];
};

/*
 * A worker's counters, alone on their line (the monitor snapshots them
 * at the end of the warm-up and of the window): completed operations,
 * those taken in shared (read) mode, and lock handovers: exclusive
 * acquisitions that followed another one (hand_n) and how many of them
 * the previous holder made from the same NUMA node / L3 / core.
 */
struct worker_slot {
	LB_ALIGNED _Atomic uint64_t ops;
	_Atomic uint64_t reads;
	_Atomic uint64_t hand_n, same_node, same_l3, same_core;
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
	/* Issue 6: where we run, phase flags, sampled latency. */
	unsigned nthreads;
	unsigned node, nnodes, l3, core; /* dense ids (node: --fake-nodes too) */
	uint64_t holder_id;    /* wl_holder_id() of this thread */
	const _Atomic uint32_t *window; /* 1 inside the measured window */
	const _Atomic uint32_t *pause;  /* torture --stutter: 1 = stand still */
	struct hist *lat;      /* own histogram (own node), NULL = not sampled */
	unsigned lat_left;     /* acquisitions until the next sample */
	struct cs_samples *samp; /* section-length samples (sample.h) or NULL */
};

/* Workload flags. */
enum wl_flags {
	/* Never takes the lock: its shared data is updated with atomics on
	 * purpose (layout), so there is no exclusion to check and even the
	 * `null` lock gets the shared data. */
	WL_NOLOCK = 1u << 0,
	/* Mixes shared (read_lock) and exclusive operations. */
	WL_RW = 1u << 1,
};

struct workload_ops {
	const char *name;
	const char *desc;
	const char *long_desc; /* `list workloads -v`: several lines */
	unsigned needs_caps;   /* lock capabilities required (enum lock_caps) */
	unsigned flags;        /* enum wl_flags */
	/* The run options that only this workload reads (NULL-terminated
	 * names of rows of the option table; `list workloads -v` shows
	 * them, and giving one with another workload is refused). */
	const char *const *options;
	/* Shared lines the workload needs after struct wl_shared; NULL:
	 * --cs-lines. */
	unsigned (*lines)(const struct wl_params *p);
	void (*loop)(struct worker *w);
};

/* Shared cache lines of `wl` with `p` (the runner's allocation size). */
unsigned workload_lines(const struct workload_ops *wl, const struct wl_params *p);

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

/* Keep a value the compiler would otherwise drop (reads of shared data). */
static inline void lb_sink(uint64_t v)
{
	__asm__ __volatile__("" : : "r"(v) : "memory");
}

/* Pack node / L3 / core into one word; bit 63 marks "somebody held it". */
static inline uint64_t wl_holder_id(unsigned node, unsigned l3, unsigned core)
{
	return 1ull << 63 | (uint64_t)(node & 0xfffff) << 40 |
	       (uint64_t)(l3 & 0xfffff) << 20 | (core & 0xfffff);
}

static inline uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Acquire with `acquire` (lock or read_lock), timing one acquisition in
 * lat_sample with CLOCK_MONOTONIC (vDSO: no syscall) into the worker's
 * own histogram while the window is open.  The other acquisitions pay
 * one decrement and a predictable branch.
 */
static inline void wl_acquire(struct worker *w,
			      void (*acquire)(void *lock, void *ctx))
{
	uint64_t t0;

	if (!w->lat || --w->lat_left) {
		acquire(w->lock, w->ctx);
		return;
	}
	w->lat_left = w->p->lat_sample;
	t0 = wl_now_ns();
	acquire(w->lock, w->ctx);
	if (atomic_load_explicit(w->window, lb_rlx))
		hist_add(w->lat, wl_now_ns() - t0);
}

/*
 * Inside an exclusive critical section: note who held the lock before
 * us and count a handover that stayed on our node / L3 / core.  The
 * counts live in locals of the loop (struct wl_hand) and reach the slot
 * with the op count.
 */
struct wl_hand {
	uint64_t n, node, l3, core;
};

static inline void wl_handover(struct worker *w, struct wl_hand *h)
{
	uint64_t prev = atomic_load_explicit(&w->sh->last_holder, lb_rlx);
	uint64_t me = w->holder_id;

	atomic_store_explicit(&w->sh->last_holder, me, lb_rlx);
	if (!prev)
		return;
	h->n++;
	h->node += (prev >> 40 & 0xfffff) == (me >> 40 & 0xfffff);
	h->l3 += (prev >> 20 & 0xfffff) == (me >> 20 & 0xfffff);
	h->core += (prev & 0xfffff) == (me & 0xfffff);
}

/* Publish the loop's counters to the slot (relaxed stores, own line). */
static inline void wl_publish(struct worker *w, uint64_t ops, uint64_t reads,
			      const struct wl_hand *h)
{
	struct worker_slot *s = w->slot;

	atomic_store_explicit(&s->hand_n, h->n, lb_rlx);
	atomic_store_explicit(&s->same_node, h->node, lb_rlx);
	atomic_store_explicit(&s->same_l3, h->l3, lb_rlx);
	atomic_store_explicit(&s->same_core, h->core, lb_rlx);
	atomic_store_explicit(&s->reads, reads, lb_rlx);
	atomic_store_explicit(&s->ops, ops, lb_rlx);
}

/* Thread `tid`'s rw role among n threads: true = reader (fixed roles:
 * the writers are tids 0..writers-1). */
static inline bool wl_is_reader(const struct wl_params *p, unsigned tid,
				unsigned n)
{
	unsigned wr = p->writers_set ? p->writers
				     : (n > p->readers ? n - p->readers : 0);

	return tid >= wr;
}

#endif
