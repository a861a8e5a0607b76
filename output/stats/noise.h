/* SPDX-License-Identifier: MIT */
/*
 * output/stats/noise.h - what the kernel says each worker got of the
 * window (its CPU time, its wait for its CPU, its context switches),
 * whether the process was stopped, and how long the critical and
 * parallel sections really were.  The runner fills a struct run_noise
 * per run; noise_finalize() (results_noise.c, declared in results.h)
 * turns them into flags, left-out runs and the sweep-wide counts the
 * renderers show; the adaptive stopping rule (adapt_decide) lives here
 * too.  Pure data and pure functions: nothing
 * here prints, reads a clock or touches /proc, and nothing here knows
 * struct results.
 */
#ifndef LOCKBENCH_NOISE_H
#define LOCKBENCH_NOISE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the user asked for (main.c fills it; defaults by noise_opts_default). */
struct noise_opts {
	bool measure;            /* measure each run's noise (!--no-probe) */
	double cs_tolerance;     /* actual CS/NCS length off by more: flagged */
	uint64_t cs_min_ns;      /* ... only when the request is at least this */
	bool adaptive;           /* -r auto */
	double ci_target;        /* --ci-target, a fraction of the mean (0.01) */
	unsigned min_runs;       /* rounds always run with -r auto (3) */
	unsigned max_runs;       /* --max-runs (30) */
	double time_budget_s;    /* --time-budget, 0 = none */
};

void noise_opts_default(struct noise_opts *o);

/*
 * Per-run flag bits, in the order of their JSON names (docs/method.md,
 * "Noise", states each rule and its validation figure).
 */
enum noise_flag {
	NOISE_SHARED = 1u << 0,    /* "shared_cpu": a worker waited for its CPU */
	NOISE_STOPPED = 1u << 1,   /* "stopped": the process did not run */
	NOISE_CS_OFF = 1u << 2,    /* "cs_length_off": actual section length off */
};
/* The flags that make a run noisy (the ! mark).  NOISE_CS_OFF is a
 * property of the configuration, not of the run's luck. */
#define NOISE_NOISY (NOISE_SHARED | NOISE_STOPPED)
#define NOISE_NFLAGS 3
/* JSON name of flag bit i (0..NOISE_NFLAGS-1). */
const char *noise_flag_name(unsigned i);

/*
 * A run is flagged when a worker lost at least NOISE_LOST_MIN of the
 * window (to waiting for its CPU, or to the process being stopped): the
 * least that can move its operations by that share.  A run whose worker
 * lost NOISE_EXCLUDE_LOST of the window or more did not measure the
 * lock: it is left out of the statistics, at every point, even when
 * that leaves the point no run (docs/method.md, "Noise").  A quarter,
 * not a half: a CPU shared with one busy process leaves its worker
 * waiting about half the window, which a line at a half would split
 * at random; at a quarter such runs are all out.
 */
#define NOISE_LOST_MIN 0.05
#define NOISE_EXCLUDE_LOST 0.25

/* What one worker's thread got of the window, as the kernel accounts
 * it (/proc/PID/task/TID/schedstat: docs/method.md, "Noise"). */
struct worker_noise {
	int cpu;                 /* the CPU it was pinned to, -1 when not pinned */
	long nvcsw, nivcsw;      /* voluntary / involuntary switches in the loop */
	/* Its CPU time over the window, and the time it was runnable but
	 * waited for its CPU over the window; NAN unknown. */
	double cpu_share, wait_share;
};

/* Noise measurements of one run.  Owned arrays: see noise_run_free(). */
struct run_noise {
	bool present;            /* measured (false for imports and old files) */
	/* The workers. */
	unsigned nworkers;
	struct worker_noise *w;
	/* Sampled section lengths (median of the samples, NAN when none). */
	double cs_requested, cs_actual, ncs_requested, ncs_actual;
	unsigned cs_samples, ncs_samples;
	/* The measured window: asked (-d) and as the monitor's clock saw it
	 * (0: unknown). */
	double window_req_s, window_s;
	/* Seconds of the window in which the monitor thread, asleep, woke
	 * late by more than a scheduling delay (NAN unknown). */
	double late_s;
	/* What a file recorded for a run whose measurements this model does
	 * not hold (compare): used as they are when !present. */
	unsigned recorded;
	bool recorded_set;       /* the file had flags for this run */
	bool recorded_excluded;  /* the file left it out */
	/* Derived by noise_finalize(). */
	unsigned flags;          /* enum noise_flag */
	bool excluded;           /* left out of the statistics */
};

/* Deep copy src into dst (dst's old content is not freed); 0 or -ENOMEM. */
int noise_run_dup(struct run_noise *dst, const struct run_noise *src);
void noise_run_free(struct run_noise *n);

/* The largest share of the window a worker waited for its CPU beyond
 * what the run's own workers pinned to that CPU make it wait (NAN when
 * none is known). */
double noise_wait_share(const struct run_noise *n);

/*
 * Seconds of the window the process was stopped: the monitor's late
 * wake-ups, confirmed by every worker (a worker that ran or waited for
 * its CPU meanwhile was not stopped: at most the window less its CPU
 * time and wait), and at least the window's stretch beyond its request
 * less 50 ms; 0 when nothing shows it.
 */
double noise_stopped_s(const struct run_noise *n);

/* The share of the window the most affected worker lost: its wait plus
 * the stopped time over the window (0 unknown). */
double noise_lost_share(const struct run_noise *n);

/* Flags of one run.  Pure: unit tests feed it synthetic values. */
unsigned noise_run_flags(const struct run_noise *n, const struct noise_opts *o);

/* The run did not measure the lock: a worker lost NOISE_EXCLUDE_LOST
 * of the window or more (noise_lost_share()); a run read from a file:
 * the file left it out. */
bool noise_run_excluded(const struct run_noise *n);

/*
 * Why the run is flagged, for a user: "shared its CPU: waited 48% of
 * the window", "stopped for 12.00 s", joined by "; ".  Empty when it is
 * not flagged.  Returns buf.
 */
char *noise_reason(const struct run_noise *n, char *buf, size_t len);

/* A section's measured length is off its request by more than
 * cs_tolerance (only for requests of at least cs_min_ns, and known). */
bool noise_length_off(double req, double actual, const struct noise_opts *o);

/* Per point, derived by noise_finalize(). */
struct point_noise {
	unsigned flagged;        /* runs with a NOISE_NOISY flag or left out */
	unsigned excluded;       /* runs left out of the statistics */
	unsigned cs_off;         /* runs flagged NOISE_CS_OFF */
	/* -r auto: did the point's 95% CI reach the target? */
	bool adaptive;
	bool reached;
	double ci_rel;           /* ci95_half / |mean|, NAN when undefined */
	bool cs_warned;          /* the sweep warned about its section lengths */
};

/* Why -r auto stopped adding rounds at a thread count. */
enum adapt_stop {
	ADAPT_MORE = 0,          /* not stopped (yet): keep going */
	ADAPT_MET,               /* every variant's CI within the target */
	ADAPT_MAX_RUNS,          /* --max-runs reached */
	ADAPT_BUDGET,            /* the next round would overrun --time-budget */
};
const char *adapt_stop_name(enum adapt_stop s);

/* Sweep-wide noise state carried by struct results. */
struct results_noise {
	struct noise_opts opts;
	bool measured;           /* some run carries noise measurements */
	enum adapt_stop *row_stop; /* [nrows] with -r auto, else NULL */
	/* Counts over all runs, by noise_finalize(). */
	unsigned runs, flagged, excluded, by_flag[NOISE_NFLAGS];
	unsigned not_reached;    /* -r auto points that missed the CI target */
};

/*
 * The adaptive stopping rule, a pure function.  x[v] holds n[v] samples
 * of variant v (v < nvar; a NULL x[v] is a variant that no longer runs,
 * e.g. a failed lock, and is ignored).  rounds: rounds done; elapsed_s:
 * time spent on this thread count; round_s: time one round takes;
 * budget_s: this thread count's share of --time-budget (0 = none).
 * Fewer than min_runs rounds: ADAPT_MORE.  Then ADAPT_MET when every
 * variant has n >= 2 and ci95_half <= ci_target * |mean|, else
 * ADAPT_MAX_RUNS at max_runs rounds, else ADAPT_BUDGET when another
 * round would end after budget_s, else ADAPT_MORE.
 */
enum adapt_stop adapt_decide(const struct noise_opts *o, const double *const *x,
			     const unsigned *n, unsigned nvar, unsigned rounds,
			     double elapsed_s, double round_s, double budget_s);

void results_noise_free(struct results_noise *rn);

#endif /* LOCKBENCH_NOISE_H */
