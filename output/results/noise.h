/* SPDX-License-Identifier: MIT */
/*
 * output/results/noise.h - machine noise around each run: the
 * core-to-core probe before and after a run, host steal time, worker
 * migrations and context switches, and how long the critical and
 * parallel sections really were.  The runner fills a struct run_noise
 * per run; noise_finalize() (results_noise.c, declared in results.h)
 * turns them into flags, the point's typical probe values and the
 * sweep-wide counts the renderers show; the adaptive stopping rule
 * (adapt_decide) lives here too.  Pure data and pure functions: nothing
 * here prints, reads a clock or touches /proc, and nothing here knows
 * struct results.
 */
#ifndef LOCKBENCH_NOISE_H
#define LOCKBENCH_NOISE_H

#include <stdbool.h>
#include <stdint.h>

/* What the user asked for (main.c fills it; defaults by noise_opts_default). */
struct noise_opts {
	bool probe;              /* probe before and after each run (!--no-probe) */
	double probe_factor;     /* --probe-factor: a ratio above this flags a run */
	double steal_max;        /* steal above this fraction of the window flags */
	double cs_tolerance;     /* actual CS/NCS length off by more: flagged */
	double speed_tolerance;  /* core speed moved by more: flagged (0.02) */
	double issue_tolerance;  /* 1 thread: window issue rate off its point's
				  * by more, weighted (noise_issue_moved) */
	double fit_tolerance;    /* 1 thread: the point's fit on the probes puts
				  * a run this far off (noise_core_fit, 0.01) */
	uint64_t cs_min_ns;      /* ... only when the request is at least this */
	bool exclude_flagged;    /* --exclude-flagged: statistics without them */
	bool adaptive;           /* -r auto */
	double ci_target;        /* --ci-target, a fraction of the mean (0.01) */
	unsigned min_runs;       /* rounds always run with -r auto (3) */
	unsigned max_runs;       /* --max-runs (30) */
	double time_budget_s;    /* --time-budget, 0 = none */
};

void noise_opts_default(struct noise_opts *o);

/* Per-run flag bits, in the order of their JSON names. */
enum noise_flag {
	NOISE_PLACEMENT = 1u << 0, /* "placement_changed": the probe moved */
	NOISE_STEAL = 1u << 1,     /* "steal": host steal above steal_max */
	NOISE_MIGRATED = 1u << 2,  /* "migrated": a pinned worker ended elsewhere */
	NOISE_CS_OFF = 1u << 3,    /* "cs_length_off": actual section length off */
	NOISE_CORE_SPEED = 1u << 4,/* "core_speed_moved": the core-speed probe moved */
	NOISE_STRETCHED = 1u << 5, /* "window_stretched": the window ran far longer
				    * than asked (the process stopped or starved) */
};
/* The flags that make a run noisy (the ! mark, --exclude-flagged).
 * NOISE_CS_OFF is a property of the configuration, not of the run's luck. */
#define NOISE_NOISY (NOISE_PLACEMENT | NOISE_STEAL | NOISE_MIGRATED | NOISE_CORE_SPEED | \
		     NOISE_STRETCHED)
#define NOISE_NFLAGS 6
/* JSON name of flag bit i (0..NOISE_NFLAGS-1). */
const char *noise_flag_name(unsigned i);

/* What one worker saw of the scheduler during its loop. */
struct worker_noise {
	int cpu;                 /* the CPU it was pinned to, -1 when not pinned */
	int cpu_end;             /* sched_getcpu() just after the loop, -1 unknown */
	long nvcsw, nivcsw;      /* voluntary / involuntary switches in the loop */
	/* Its CPU time over its loop's wall time (getrusage: 1 ms steps on
	 * some kernels, so rough on short runs); 0 unknown. */
	double cpu_share;
	/* Core-speed probe on its CPU just before and after its loop:
	 * dependent additions per ns (about the clock in GHz); 0 unknown. */
	double speed_before, speed_after;
	/* Its issue probes inside the window (workloads/corespeed.h): mean
	 * rate in independent additions per ns, and how many; 0 unknown. */
	double issue_rate;
	unsigned issue_n;
};

/* Noise measurements of one run.  Owned arrays: see noise_run_free(). */
struct run_noise {
	bool present;            /* measured (false for imports and old files) */
	/* Core-to-core probe: npairs CPU pairs, round trip in ns (NAN: failed). */
	unsigned npairs;
	int *pair_cpu;           /* [2 * npairs]: a0, b0, a1, b1, ... */
	double *probe_before, *probe_after;
	/* Host steal of the CPUs in use over steal_window_s seconds. */
	bool steal_known;
	unsigned steal_ncpus;
	double steal_s, steal_window_s;
	/* The workers. */
	unsigned nworkers;
	struct worker_noise *w;
	/* Sampled section lengths (median of the samples, NAN when none). */
	double cs_requested, cs_actual, ncs_requested, ncs_actual;
	unsigned cs_samples, ncs_samples;
	/* The measured window: asked (-d) and as the monitor's clock saw it
	 * (0: unknown). */
	double window_req_s, window_s;
	/* Flags a file recorded for a run whose measurements this model
	 * does not hold (compare): used as they are when !present. */
	unsigned recorded;
	bool recorded_set;       /* the file had flags for this run */
	/* Derived by noise_finalize(). */
	unsigned flags;          /* enum noise_flag */
	bool excluded;           /* left out of the statistics */
	double fit_off;          /* its point's fit: fitted ns/op over the
				  * typical, less 1 (NAN: no fit) */
};

/* Deep copy src into dst (dst's old content is not freed); 0 or -ENOMEM. */
int noise_run_dup(struct run_noise *dst, const struct run_noise *src);
void noise_run_free(struct run_noise *n);
/* Steal as a fraction of the CPU time of the window; NAN when unknown. */
double noise_steal_frac(const struct run_noise *n);

/*
 * Flags of one run against the point's typical probe values (typical[i]
 * for pair i, NAN or NULL when unknown).  Pure: unit tests feed it
 * synthetic values.
 */
/* The run's core speed before and after its loops (median over the
 * workers; 0 when unknown). */
void noise_core_speed(const struct run_noise *n, double *before, double *after);

/* The run's issue rate in the window (median over the workers that
 * probed; 0 when none did). */
double noise_core_issue(const struct run_noise *n);

unsigned noise_run_flags(const struct run_noise *n, const double *typical,
			 const struct noise_opts *o);

/*
 * The window lasted more than 10% + 50 ms beyond the `asked` seconds
 * (`got` from the monitor's clock): the process was stopped (SIGSTOP,
 * a debugger) or starved, so its operations over the window do not
 * tell the lock's rate.  Unknown values (0) flag nothing.
 */
bool noise_window_stretched(double asked, double got);

/*
 * A 1-thread run's window issue rate `issue` off its point's `typical`
 * by more than issue_tolerance, once weighted by `core_share`: the share
 * of an operation not spent in the delays held on a deadline (1 with
 * empty sections), since only that share slows when an SMT sibling takes
 * issue slots.  Unknown values (0) flag nothing.  The results pass ORs
 * it into NOISE_CORE_SPEED (results_noise.c).
 */
bool noise_issue_moved(double issue, double typical, double core_share,
		       const struct noise_opts *o);

/* The run's core speed: the mean of its before and after values
 * (noise_core_speed()), 0 when either is unknown. */
double noise_run_speed(const struct run_noise *n);

/*
 * A 1-thread run's core speed `speed` (noise_run_speed()) off its
 * point's `typical` by more than speed_tolerance, weighted by
 * `core_share` as for noise_issue_moved(): the clock was as steady over
 * the run as speed_moved() asks, but the run had another clock than its
 * point's other runs.  At more threads the probes run beside the other
 * workers and spread by a few percent on their own; nothing is flagged
 * there.  The results pass ORs it into NOISE_CORE_SPEED.
 */
bool noise_speed_off(double speed, double typical, double core_share,
		     const struct noise_opts *o);

/*
 * A 1-thread point's ns per operation explained by its runs' probes:
 * the least-squares fit of ln(ns/op) on ln(core speed) and ln(window
 * issue rate) over its n runs (values <= 0: the run is left out).  How
 * much a point's result moves with the probes depends on the lock and
 * the host (from -0.2 to -1 times the issue rate's move, measured), so
 * each point is read through its own fit instead of a constant.  Runs
 * the probes cannot explain at all are left out of the fit first (see
 * noise.c).  The fit is used when it is significant (F test, p below
 * NOISE_FIT_P, at least NOISE_FIT_MIN_RUNS runs) and both slopes are
 * what a core's speed can do to an operation: the way a slower core goes
 * (at most NOISE_FIT_MAX_SLOPE, a little over 0 for the probes' own
 * noise), and not much steeper than one for one (at least
 * NOISE_FIT_MIN_SLOPE; steeper is a fit bent by runs the probes did not
 * explain).  Then off[i] is run i's fitted ns/op over the median fitted
 * one, less 1 (NAN for a run without its probes), and a run is flagged
 * when that exceeds fit_tolerance either way.  Returns whether the fit
 * is used; off[] is all NAN when not.
 */
#define NOISE_FIT_MIN_RUNS 5
#define NOISE_FIT_P 0.01
#define NOISE_FIT_MIN_SLOPE -2.0
#define NOISE_FIT_MAX_SLOPE 0.25
struct core_fit {
	bool used;
	unsigned runs;           /* runs in the fit */
	double b_speed, b_issue; /* slopes of ln(ns/op) on each probe's ln */
	double r2;               /* share of the spread explained, NAN unknown */
	double p;                /* the F test's p-value, NAN unknown */
};
bool noise_core_fit(const double *ns, const double *speed, const double *issue,
		    unsigned n, struct core_fit *fit, double *off);

/* A section's measured length is off its request by more than
 * cs_tolerance (only for requests of at least cs_min_ns, and known). */
bool noise_length_off(double req, double actual, const struct noise_opts *o);

/* Per point, derived by noise_finalize(). */
struct point_noise {
	unsigned npairs;
	double *typical;         /* [npairs] median probe over the point's runs */
	double issue_typical;    /* median window issue rate of its runs, 0 unknown */
	double speed_typical;    /* median core speed of its runs (GHz), 0 unknown */
	struct core_fit fit;     /* 1 thread: ns/op on the probes (noise_core_fit) */
	unsigned flagged;        /* runs with a NOISE_NOISY flag */
	unsigned excluded;       /* runs left out of the statistics */
	unsigned cs_off;         /* runs flagged NOISE_CS_OFF */
	/* -r auto: did the point's 95% CI reach the target? */
	bool adaptive;
	bool reached;
	double ci_rel;           /* ci95_half / |mean|, NAN when undefined */
	bool cs_warned;          /* the sweep warned about its section lengths */
};
void point_noise_free(struct point_noise *pn);

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

/* Median of x[0..n-1] (x is reordered); NAN when n == 0. */
double noise_median(double *x, unsigned n);

void results_noise_free(struct results_noise *rn);

#endif /* LOCKBENCH_NOISE_H */
