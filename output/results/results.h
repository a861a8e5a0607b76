/* SPDX-License-Identifier: MIT */
/*
 * The results model: what was measured, as plain data.  The runner fills
 * runs; results_finalize() (results.c, with results_noise.c for the
 * noise flags) computes every summary; renderers only read.  JSON
 * carries all of it (json_write.c, json_read.c) and `compare` reads it
 * back.  This folder, output/results/, includes only the statistics
 * (output/stats/) and the leaves (lib/): the measuring side and the
 * renderers both use it (docs/architecture.md).
 */
#ifndef LOCKBENCH_RESULTS_H
#define LOCKBENCH_RESULTS_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "../stats/noise.h"
#include "../stats/stats.h"

#define RESULTS_SCHEMA_MAJOR 1
#define RESULTS_SCHEMA_MINOR 5
/* "MAJOR.MINOR" as a string literal. */
#define RESULTS_SCHEMA_STR_(x) #x
#define RESULTS_SCHEMA_STR(a, b) RESULTS_SCHEMA_STR_(a) "." RESULTS_SCHEMA_STR_(b)
#define RESULTS_SCHEMA_VERSION RESULTS_SCHEMA_STR(RESULTS_SCHEMA_MAJOR, RESULTS_SCHEMA_MINOR)

/* One measured run of one (variant, thread count) point. */
struct run_sample {
	unsigned seq;            /* position in the sweep's run order */
	/*
	 * The process (or kernel module load) that made this run: 0 for
	 * "the one that wrote the file"; compare numbers every file's
	 * invocations apart.  Runs of one invocation are not independent
	 * replicates of another (see results_finalize).
	 */
	unsigned invocation;
	double window_s;         /* measured window, from the monitor's clock */
	uint64_t ops;            /* operations completed in the window */
	double ops_per_sec;      /* ops / window_s */
	unsigned nthreads;
	uint64_t *thread_ops;    /* per-thread operations in the window */
	uint64_t total_ops;      /* all operations incl. warm-up (exclusion check) */
	uint64_t counter;        /* the unprotected counter at the end */
	uint64_t violations;     /* owner-field violations seen in the CS */
	int lock_node;           /* OS NUMA node of the lock's memory, -1 unknown */
	bool exclusion_checked;  /* false for the `null` control */
	bool exclusion_ok;
	unsigned nseries;
	double *series;          /* ops/s per --stat-interval, warm-up excluded */
	unsigned ncounters;
	uint64_t *counters;      /* the lock's own path counters */
	/*
	 * Fields of the run's JSON object that this model does not know
	 * (e.g. "locktorture" of an imported log), kept as they are: the
	 * compact JSON text of an object, or NULL.  Owned (malloc'ed).  Text,
	 * not a tree: a tree takes twenty times the memory, and a log of
	 * many runs would not fit (results_extra_*() below convert).
	 */
	char *extra;

	/* -- Workload metrics (1.2); zero/NULL when not measured. -- */
	bool has_rw;             /* reads and writes counted (rw, layout) */
	uint64_t read_ops;       /* shared-mode operations in the window */
	uint64_t *thread_reads;  /* [nthreads] of them per thread, or NULL */
	char *thread_kind;       /* [nthreads] 'r'eader, 'w'riter, 'm'ixed, or NULL */
	unsigned lat_sample;     /* latency sampled 1 acquisition in N; 0 = off */
	struct hist *lat;        /* merged sampled acquisition latency (ns) */
	bool has_hand;           /* handovers counted */
	uint64_t hand_n;         /* exclusive acquisitions after another one */
	uint64_t hand_node, hand_l3, hand_core; /* ... from the same node/L3/core */
	/* ... from another thread: the handovers (docs/method.md,
	 * "Handovers"); UINT64_MAX when the source did not count them */
	uint64_t hand_xfer;
	/* Derived by results_finalize() from the fields above. */
	uint64_t fair_min, fair_max; /* per-thread ops */
	double fair_jain;
	bool fair_lt_unfair;     /* max/2 > min, per-thread or reported */
	/*
	 * The source itself flagged max/2 > min for this run (locktorture's
	 * "???"): it has no per-thread counts to derive it from.
	 */
	bool unfair_reported;
	unsigned long long lat_p50, lat_p99, lat_p999; /* of lat, ns (0: none) */
	bool trending;           /* series still trending (see stats_trend) */
	double trend_pct;        /* its change, last vs first interval, % of mean */
	/* What the kernel says it got of the window, section lengths, flags,
	 * whether it is left out (output/stats/noise.h). */
	struct run_noise noise;
	/*
	 * perf_event counters (results.perf_names), each summed over the
	 * workers over the window; NAN when the kernel never scheduled the
	 * event.  perf_scaled: some value was scaled for multiplexing.
	 */
	unsigned nperf;
	double *perf;
	bool perf_scaled;
};

/*
 * The run counts in its point's statistics (mean, std, the tests behind
 * the marks): the harness did not leave it out for not measuring the
 * lock (noise_run_excluded(): a worker lost a quarter of the window or
 * more).
 * Every statistic reads its runs through this.
 */
static inline bool run_included(const struct run_sample *s)
{
	return !s->noise.excluded;
}

enum point_status {
	POINT_MISSING,  /* not run (or absent from a compared file) */
	POINT_OK,
	POINT_FAILED,   /* mutual exclusion violated */
	POINT_HUNG,     /* watchdog fired */
	POINT_ERROR,    /* could not run (e.g. thread creation failed) */
};

/*
 * A status's name in JSON and CSV ("missing", "ok", "failed", "hung",
 * "error"); point_status_parse() is the way back, -1 for an unknown
 * name or NULL.
 */
const char *point_status_name(enum point_status s);
int point_status_parse(const char *name);

/*
 * How a point is tested against the baseline (results_finalize;
 * docs/method.md, "Statistics"):
 * - SIG_ROUNDS: both from one invocation; runs paired by round (seq),
 *   t on the per-round log ratios, trimmed from ten rounds (sig_trim()).
 * - SIG_INVOC_PAIRED: both from the same invocations, 2 or more; one
 *   mean log ratio per invocation, trimmed t on those.
 * - SIG_INVOC: from different invocations, 2 or more a side; Welch on
 *   the invocations' mean log rates.
 * - SIG_ONE_INVOC: different invocations, one on some side, and no
 *   invocation floor: the variation between processes is unknown, so
 *   no p-value.
 * - SIG_FLOOR: the same with an invocation floor (results.inv_floor):
 *   Welch on the runs' log rates (the variation within the processes),
 *   and significant only where the change also exceeds the floor.
 * - SIG_TOO_FEW: fewer than 2 runs on a side, or invocations to pair.
 * SIG_ONE_INVOC and SIG_TOO_FEW leave the point unjudged (point.unjudged):
 * no test in use can reach alpha with the runs given.
 */
enum sig_method {
	SIG_NONE,
	SIG_ROUNDS,
	SIG_INVOC_PAIRED,
	SIG_INVOC,
	SIG_ONE_INVOC,
	SIG_TOO_FEW,
	SIG_FLOOR,
};

/* The power at which the minimum detectable effect is stated. */
#define RESULTS_MDE_POWER 0.8

/*
 * Why a point is unjudged (point.unjudged, the `_` mark), for the
 * advice under the table (docs/method.md, "Statistics"):
 * - UNJ_RUNS: fewer than 2 runs a side were asked for (-r 1);
 * - UNJ_LEFT_OUT: runs were asked for, but the ones left out for a
 *   busy machine (run_included()) leave too few;
 * - UNJ_INVOCATIONS: fewer than 2 invocations to pair or test;
 * - UNJ_ONE_INVOC: one invocation a side and no invocation floor;
 * - UNJ_POWER: tested, not significant, but the smallest difference the
 *   test could detect (mde_pct) exceeds the threshold it is judged
 *   against (results.gate_pct, compare --fail-if-regressed).
 */
enum unjudged_why {
	UNJ_NONE,
	UNJ_RUNS,
	UNJ_LEFT_OUT,
	UNJ_INVOCATIONS,
	UNJ_ONE_INVOC,
	UNJ_POWER,
};

/* Trimming of the paired tests: one value in ten is cut from each end,
 * none below ten (sig_trim()): cutting one of five left 2 degrees of
 * freedom and missed differences of several times (docs/method.md,
 * "Statistics"). */
#define SIG_TRIM 0.1

/* The trim that cuts floor(SIG_TRIM n) of n values from each end (none
 * below ten), as stats_trimmed_t1() takes it. */
static inline double sig_trim(unsigned n)
{
	return n < 10 ? 0 : SIG_TRIM;
}

struct point {
	enum point_status status;
	char *error;             /* one line when not OK */
	unsigned nruns;
	struct run_sample *runs;
	unsigned runs_cap;       /* runs allocated (results.c grows it) */
	/* Filled by results_finalize(). */
	struct summary sum;
	bool has_rel;
	double rel;              /* rel% to the baseline at this row */
	bool high_cv;            /* CV above the flag threshold */
	struct sigtest welch, mwu; /* on the runs, for reference (JSON) */
	enum sig_method method;  /* the test behind `significant` */
	struct sigtest test;     /* its result (valid false: not assessed) */
	unsigned test_n;         /* rounds or invocations it used */
	double p_adj;            /* test.p, Holm-adjusted over the results; NAN */
	bool significant;        /* p_adj < alpha and |rel| >= min_effect
				  * (and > the floor with SIG_FLOOR) */
	/*
	 * has_rel, and no test in use can reach alpha with the runs given
	 * (SIG_TOO_FEW, SIG_ONE_INVOC): "too few runs to judge", never
	 * "not significant".  runs_needed: the -r that would let the test
	 * reach it (0: more runs would not, e.g. one invocation a side).
	 */
	bool unjudged;
	unsigned runs_needed;
	enum unjudged_why why;   /* what left it unjudged (UNJ_NONE: judged) */
	/*
	 * The smallest change in percent this point's test could have
	 * detected (80% power, two-sided alpha): SIG_INVOC from its
	 * variances at both levels (stats_mde_two_level); the paired tests
	 * from the spread of their ratios; SIG_FLOOR from the runs' Welch
	 * test, and never below the floor.  NAN without a test, or when
	 * nothing varies (then any change shows).
	 */
	double mde_pct;
	/* Fairness over the runs' per-thread counts (mean over runs). */
	double jain;
	bool lt_unfair;          /* locktorture's max/2 > min in any run */
	/* Workload metrics over the runs (1.2). */
	struct hist *lat;        /* the runs' latency histograms merged, or NULL */
	unsigned long long lat_p50, lat_p99, lat_p999; /* of lat, ns */
	double hand_node, hand_l3, hand_core; /* same-X handover share; NAN if none */
	/* Handovers per second (lock from one thread to another): mean and
	 * std over the included runs that counted them, and the change of
	 * the mean from the baseline's in % (NAN: none) */
	double xfer_rate, xfer_std, xfer_rel;
	double read_rate, write_rate; /* mean ops/s of reads / writes; NAN if none */
	unsigned trending_runs;  /* runs whose window was still trending */
	struct point_noise noise;/* flags and typical probe (output/stats/noise.h) */
	/* [results.nperf] each counter per operation over the runs, or NULL. */
	struct summary *perf_sum;
};

struct variant {
	char *name;              /* column heading: lock name or label */
	char *lock;              /* lock name */
	char *label;             /* --label of the run that produced it, or NULL */
	char *origin;            /* plugin path, or NULL for built-in */
	char *sha256;            /* plugin hash, or NULL */
	char *loop;              /* worker loop run: "inline" (the lock inlined
				  * into it) or "generic" (through the ops
				  * table: plugins); NULL when not recorded */
	/*
	 * Measured by the kernel's locktorture (imported or `lockbench
	 * locktorture`): kthreads on a kernel lock with locktorture's own
	 * delays, not lockbench's worker loop.
	 */
	bool kernel;
	/*
	 * The swept parameters of a sweep (1.4): a JSON object such as
	 * {"cs_ns": 100, "cs_lines": 4}; a lock option as "LOCK.KEY".  NULL
	 * when the run swept nothing.  Owned (one reference).
	 */
	json_t *params;
	/* What a plugin says it was built from (a kernel tree's lock: the
	 * tree, git state, files and hashes, compiler and flags), a JSON
	 * object, or NULL.  Owned (one reference). */
	json_t *source;
	unsigned ncounters;
	char **counter_names;
	/* Derived by results_finalize(): the geometric mean over the rows
	 * of mean / baseline mean (base / mean for lower-better rows), as
	 * a change in percent (> 0: better); NAN for a baseline, when no
	 * row compares, or when one row outweighs the others (geo_one_row;
	 * geo_n is then 0).  geo_n: how many rows it covers; geo_over: the
	 * oversubscribed rows left out of it. */
	double geo_rel;
	unsigned geo_n, geo_over;
	bool geo_one_row;
};

/*
 * What a row is when it is not just a thread count: a named workload
 * (AIM7's "fserver", lkp's "hackbench/pipe/threads") measuring its own
 * metric.  results.row_desc is NULL for plain thread-count rows.
 */
struct row_desc {
	char *label;             /* shown instead of the number, or NULL */
	char *metric;            /* "transactions", "time"; NULL: throughput */
	bool lower_better;       /* the metric is better when smaller */
	bool value;              /* label is a value of row_heading (--rows) */
};

struct results {
	char *variant_heading;   /* "Lock" or "Kernel" */
	char *row_heading;       /* "threads" or "nwriters_stress" */
	char *label;             /* --label, or NULL */
	char *workload;
	unsigned nvariants;
	struct variant *variants;
	unsigned nrows;
	unsigned *rows;          /* thread counts */
	struct row_desc *row_desc; /* [nrows] or NULL (see struct row_desc) */
	struct point *points;    /* [v * nrows + r] */
	unsigned baseline;
	/*
	 * Per-lock pairing (compare --baseline LABEL of several locks):
	 * base_of[v] is the variant v is compared with (v itself: none, a
	 * baseline).  NULL: every variant against `baseline`.
	 */
	unsigned *base_of;
	double cv_flag;          /* flag a point whose CV exceeds this (0.1) */
	double alpha;            /* significance level (0.05) */
	double min_effect;       /* |rel%| below this is never significant (0) */
	/*
	 * The invocation floor (docs/method.md): {"rel_pct": X, "source":
	 * ..., ...} as recorded (run --floor) or chosen (compare), or NULL.
	 * With one invocation a side a change is significant only above
	 * rel_pct.  Owned (one reference).  floor_pct: its rel_pct, NAN
	 * when none (results_finalize).
	 */
	json_t *inv_floor;
	double floor_pct;
	/*
	 * The change a verdict is judged against (compare
	 * --fail-if-regressed PCT), 0 when none: a point tested but not
	 * significant whose mde_pct exceeds it is unjudged (UNJ_POWER), the
	 * test could not have seen a change of that size.
	 */
	double gate_pct;
	/*
	 * compare: what differs between the files' environments that
	 * changes the numbers, an array of {"item", "kind", "line",
	 * "values"} in the order the notes show them; NULL for a run.
	 */
	json_t *env_diffs;
	/* Derived: the range of the points' mde_pct and how many have one. */
	double mde_min, mde_max;
	unsigned mde_n;
	unsigned ntests;         /* valid tests in the Holm family */
	bool incomplete;         /* interrupted or stopped early */
	bool oversubscribed_any; /* some row had more threads than CPUs */
	unsigned ncpus;          /* CPUs available for placement */
	/* Opaque descriptions carried into JSON as they are. */
	json_t *machine, *config, *placement, *calibration, *run_order;
	json_t *provenance;      /* what made it: command, revision, ... (1.3) */
	struct results_noise noise; /* noise options and counts (noise.h) */
	/* The perf_event counters every run carries (--counters), by name
	 * as `perf list` spells them; 0 and NULL when none. */
	unsigned nperf;
	char **perf_names;
	/* They were asked for by name (--counters LIST, not the default
	 * auto): the text formats then show them per operation in a note. */
	bool perf_named;
};

/* The variant v is compared with (see base_of). */
static inline unsigned results_base(const struct results *r, unsigned v)
{
	return r->base_of ? r->base_of[v] : r->baseline;
}

/* Is v a baseline (no rel% of its own)? */
static inline bool results_is_base(const struct results *r, unsigned v)
{
	return results_base(r, v) == v;
}

static inline struct point *results_point(const struct results *r,
					  unsigned v, unsigned row)
{
	return &r->points[v * r->nrows + row];
}

/* Allocate the grid; 0 or -ENOMEM. Names are copied. */
int results_init(struct results *r, unsigned nvariants, unsigned nrows);
/* Name the perf counters of the runs (copies); 0 or -ENOMEM. */
int results_set_perf_names(struct results *r, const char *const *names, unsigned n);
void results_free(struct results *r);
/* Append a copy of `s` to point (v, row); 0 or -ENOMEM. */
int results_add_run(struct results *r, unsigned v, unsigned row,
		    const struct run_sample *s);
/*
 * Append `s` itself to point (v, row), without copying what it points
 * to: on 0, *s is emptied (the point owns its memory); on -ENOMEM, *s
 * is left as it was.  A reader of a large file holds each run once.
 */
int results_take_run(struct results *r, unsigned v, unsigned row,
		     struct run_sample *s);
/*
 * Move every run of `src` (a point of another results model) to the end
 * of point (v, row) of r: src is left with none.  0 or -ENOMEM (then
 * nothing moved).  Returns the index in (v, row) of the first moved run
 * in *first.
 */
int results_move_runs(struct results *r, unsigned v, unsigned row,
		      struct point *src, unsigned *first);
void run_sample_free(struct run_sample *s);

/*
 * run_sample.extra from a JSON object (the object is not kept; NULL or
 * an empty object gives NULL): 0, or -ENOMEM.  And back: a new
 * reference to the object, or NULL when there is none (or it cannot be
 * read, which cannot happen for text made by the first).
 */
int results_extra_set(struct run_sample *s, const json_t *obj);
json_t *results_extra_get(const struct run_sample *s);
/*
 * What the rate of an imported locktorture point rests on: its runs
 * with locktorture statistics (*@runs), their statistics intervals
 * (*@intervals), and those rated from final totals alone (*@totals,
 * over *@secs seconds in all).  False when the point has no such run.
 */
bool results_lt_basis(const struct point *p, unsigned *runs, unsigned *intervals,
		      unsigned *totals, double *secs);
/*
 * Give the rows descriptions (all empty); 0 or -ENOMEM.  Idempotent.
 */
int results_alloc_row_desc(struct results *r);
/*
 * A row's name as text into buf: its label, else its number.
 * Returns buf.
 */
const char *results_row_name(const struct results *r, unsigned row,
			     char *buf, size_t len);
/*
 * The swept parameters (the keys of the variants' params), in first-seen
 * order, into keys (at most max); returns how many.  results_dims():
 * only the workload's (keys without a '.', i.e. not lock options).
 */
unsigned results_param_keys(const struct results *r, const char **keys, unsigned max,
			    bool workload_only);
unsigned results_dims(const struct results *r, const char **keys, unsigned max);
/*
 * Variant v's name without its workload parameters (" cs_ns=100 ..."
 * at its end): the column it belongs to in a table per combination.
 */
const char *results_column(const struct results *r, unsigned v, char *buf,
			   size_t len);
/*
 * The results cut along the sweep (--rows): rows over `dim` ("threads"
 * or a workload dimension, '-' read as '_'), one part per combination
 * of the other dimensions, each with a heading ("threads=2 cs_lines=4").
 * Parts share the points of r (free with results_parts_free).  0, or
 * -EINVAL with the valid dimensions in err.
 */
struct results_part {
	struct results r;
	char *heading;
};
int results_split(const struct results *r, const char *dim,
		  struct results_part **parts, unsigned *nparts, char *err, size_t len);
void results_parts_free(struct results_part *parts, unsigned n);
/* The range of the points' mde_pct into mde_min, mde_max, mde_n (done
 * by results_finalize; again for a part of the results). */
void results_mde_range(struct results *r);
/* Compute every point's summary, rel% and tests against the baseline. */
void results_finalize(struct results *r);
/*
 * A point's runs' flags and which runs are left out of its statistics
 * (run_included(); results_noise.c says which).  Called by
 * noise_finalize() and by -r auto between rounds.
 */
void noise_point_update(const struct results *r, struct point *p);
/* Every point, then the sweep-wide counts; before the statistics. */
void noise_finalize(struct results *r);
/* After the statistics: the -r auto CI verdict of every point. */
void noise_finalize_adaptive(struct results *r);
/* Derive one run's fairness and trend (results_finalize does it for all). */
void run_sample_derive(struct run_sample *s);
/* "reader", "writer" or "mixed" (also when unknown): thread t's role. */
const char *run_thread_kind(const struct run_sample *s, unsigned t);

#endif
