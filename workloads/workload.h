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

#include <stddef.h>
#include <stdint.h>

#include "lockbench/lock.h"
#include "../output/stats/stats.h"

/* What the user asked for. */
struct wl_params {
	uint64_t cs_ns;       /* --cs-ns: busy time inside the lock */
	uint64_t ncs_ns;      /* --ncs-ns: mean busy time outside it */
	unsigned cs_lines;    /* --cs-lines: shared lines written in the CS */
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
 * unprotected counter word and the owner word used for the
 * mutual-exclusion check (own line), the violation count (own line),
 * then --cs-lines lines.
 *
 * The counter word holds, above WL_SEQ_SHIFT, the number of exclusive
 * sections (counted on entry by cs and torture, on leave by rw), and
 * below it the tid + 1 of the thread that stored it last (0: never
 * held).  cs and torture store it on entry (count plus one, our id) and
 * check on leave that it is still what we stored; rw's writers store it
 * on leave.  Whether the lock changed
 * hands, and from whom, is told by the word not being the one we left
 * (workloads/loop.h, wl_enter()).
 *
 * The owner word (rw only) holds the writer's tid + 1 with WL_HELD set
 * while it is inside, for the readers' check and the writers' own.
 */
#define WL_HELD (1ull << 63)
#define WL_SEQ_SHIFT 16 /* above MAX_THREADS (cli/options.h) */
/* The most threads: every tid + 1 fits the low WL_SEQ_SHIFT bits. */
#define WL_MAX_THREADS ((1u << WL_SEQ_SHIFT) - 1)
#define WL_WHO(v) ((v) & ((1ull << WL_SEQ_SHIFT) - 1))
#define WL_SEQ(v) ((v) >> WL_SEQ_SHIFT)

struct wl_shared {
	LB_ALIGNED _Atomic uint64_t counter; /* bumped non-atomically in the CS */
	_Atomic uint64_t owner;              /* rw; see above */
	_Atomic uint32_t readers;            /* rw: readers inside (atomic RMW) */
	LB_ALIGNED _Atomic uint64_t violations;
	struct cs_line lines[];
};

/*
 * A worker's counters, alone on their line (the monitor snapshots them
 * at the end of the warm-up and of the window): completed operations,
 * those taken in shared (read) mode, and lock handovers: exclusive
 * acquisitions that followed another one (hand_n), how many of them
 * the previous holder made from the same NUMA node / L3 / core, and how
 * many took the lock from another thread (xfer: the handovers proper,
 * docs/method.md, "Handovers").
 */
struct worker_slot {
	LB_ALIGNED _Atomic uint64_t ops;
	_Atomic uint64_t reads;
	_Atomic uint64_t hand_n, same_node, same_l3, same_core, xfer;
};

struct cs_samples;

/*
 * Handovers seen on the cold path of the loop: acquisitions that found
 * the lock never held before, or last held by another thread (and of
 * those, how many from our node / L3 / core).  Re-acquisitions by the
 * same thread, the common case at low contention, are not counted at
 * all: they are the exclusive operations less these.
 */
struct wl_hand {
	uint64_t nobody, other, node, l3, core;
};

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
	/* Where we run, phase flags, sampled latency. */
	unsigned nthreads;
	unsigned node, nnodes, l3, core; /* dense ids (node: --fake-nodes too) */
	const uint64_t *holder_ids; /* wl_holder_id() of every tid */
	const _Atomic uint32_t *window; /* 1 inside the measured window */
	const _Atomic uint32_t *pause;  /* torture --stutter: 1 = stand still */
	struct hist *lat;      /* own histogram (own node), NULL = not sampled */
	struct cs_samples *samp; /* section-length samples (sample.h) or NULL */
	/* Filled by the loop (workloads/loop.h), cold path only. */
	struct wl_hand hand;
	unsigned every;        /* operations between two sampled ones */
	unsigned lat_acc, samp_acc; /* sampled-op credit towards latency / sections */
	/* delays: the sections' in sub-ticks (workloads/loop.h, WL_SUB),
	 * locktorture's long and short holds in ticks */
	uint64_t cs_ticks, ncs_ticks, short_ticks, long_ticks;
	/* wl_delay()'s per-section terms, in sub-ticks: the bound on the
	 * error it carries (0: the delay is below what this host can hold,
	 * made of loop turns) and the cost of a delay beyond its own reads;
	 * below the floor, the turns per tick (16.16 fixed point) that make
	 * the section's delays their length, and the section's mean;
	 * whether its lengths are drawn (exponential). */
	struct wl_delay_cal {
		uint64_t cap;
		int64_t extra;
		uint64_t fine, mean;
		bool drawn;
	} cs_dc, ncs_dc;
	struct wl_spin_cal {
		uint64_t tail, step, cost, fine;
	} spin;                /* wl_spin()'s calibration (loop.h) */
	double ns_per_tick;
};

/* The worker loops of a built-in lock, its lock and unlock inlined
 * (workloads/loops/); indexed by workload_ops.inline_loop. */
enum wl_loop_kind { WL_LOOP_NONE, WL_LOOP_CS, WL_LOOP_RW, WL_LOOP_TORTURE, WL_NLOOPS };

struct lock_loops {
	void (*loop[WL_NLOOPS])(struct worker *w);
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

/*
 * An option a workload declares (as a lock declares its tunables, and
 * fio's engines their options): the front end adds a row for it to the
 * run command's option table, so it is parsed, range-checked, listed in
 * --help and `list workloads -v`, completed and echoed like any other,
 * and refused with a workload that does not declare it.  Two workloads
 * may declare the same option with identical rows (--read-pct); its help
 * is then prefixed with both names ("rw, layout: ...").
 */
enum wl_opt_type {
	WL_OPT_UINT,     /* a whole number into an `unsigned` field */
	WL_OPT_MS,       /* milliseconds into an `unsigned` field (2s = 2000) */
	WL_OPT_SECONDS,  /* seconds into a `double` field (500ms = 0.5) */
	/* A list of .choices: the workload's variants, the columns of its
	 * tables instead of locks (each run with the `null` lock); each
	 * variant's index into .choices goes in the field (`unsigned`).  The
	 * workload's name is their noun: "unknown layout (x)", the column
	 * heading "Layout". */
	WL_OPT_VARIANTS,
};

struct wl_option {
	const char *name;      /* long name, without "--"; NULL ends the array */
	const char *arg;       /* metavar in --help: "N", "MS,.." */
	enum wl_opt_type type;
	const char *def;       /* default, as a user types it; NULL: none */
	double min, max;       /* range (numeric types) */
	bool list;             /* "0,100,1s" sweeps it, one table per value */
	size_t off;            /* offsetof(struct wl_params, the field) */
	const char *const *choices; /* WL_OPT_VARIANTS: the names, */
	unsigned nchoices;          /* how many */
	const char *help;      /* without the workload's name */
};

/* --read-pct: one option of rw and layout alike, in both tables. */
#define WL_READ_PCT_OPTION                                                     \
	{.name = "read-pct", .arg = "P,..", .type = WL_OPT_UINT, .list = true,   \
	 .def = "90", .max = 100, .off = offsetof(struct wl_params, read_pct),   \
	 .help = "share of operations that read (per operation)"}

struct workload_ops {
	const char *name;
	const char *desc;
	const char *long_desc; /* `list workloads -v`: several lines */
	unsigned needs_caps;   /* lock capabilities required (enum lock_caps) */
	unsigned flags;        /* enum wl_flags */
	/* The run options only this workload reads, ended by a row
	 * without a name (NULL: none). */
	const struct wl_option *options;
	/* Shared lines the workload needs after struct wl_shared; NULL:
	 * --cs-lines. */
	unsigned (*lines)(const struct wl_params *p);
	void (*loop)(struct worker *w);   /* the generic loop (plugins) */
	enum wl_loop_kind inline_loop;    /* which lock_loops entry replaces it */
};

/* Shared cache lines of `wl` with `p` (the runner's allocation size). */
unsigned workload_lines(const struct workload_ops *wl, const struct wl_params *p);

/* Registered workloads; NULL-terminated. */
extern const struct workload_ops *const workloads[];
const struct workload_ops *workload_find(const char *name);

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

/* Publish the loop's counters to the slot (relaxed stores, own line):
 * the handovers as the slot counts them (see struct worker_slot). */
static inline void wl_publish(struct worker *w, uint64_t ops, uint64_t reads)
{
	struct worker_slot *s = w->slot;
	const struct wl_hand *h = &w->hand;
	uint64_t writes = ops - reads;
	uint64_t hand = writes > h->nobody ? writes - h->nobody : 0;
	uint64_t self = hand > h->other ? hand - h->other : 0;

	atomic_store_explicit(&s->hand_n, hand, lb_rlx);
	atomic_store_explicit(&s->same_node, self + h->node, lb_rlx);
	atomic_store_explicit(&s->same_l3, self + h->l3, lb_rlx);
	atomic_store_explicit(&s->same_core, self + h->core, lb_rlx);
	atomic_store_explicit(&s->xfer, h->other, lb_rlx);
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
