/* SPDX-License-Identifier: MIT */
/*
 * ltlog.h - parse kernel locktorture logs (dmesg, serial console, syslog).
 *
 * Pure parsing: no printing, no JSON.  `lockbench import locktorture`
 * turns the runs found here into lockbench results (kops/s per run,
 * rows = nwriters_stress).
 *
 * Lines understood (kernel/locking/locktorture.c, old and current):
 *
 *   [  444.720153][   T35] Writes:  Total: 23172604  Max/Min: 11656389/11516215   Fail: 0
 *   spin_lock-torture: Writes:  Total: 93746064  Max/Min: 0/0   Fail: 0
 *   Reads :  Total: 17  Max/Min: 9/8 ???  Fail: 1 !!!
 *   spin_lock-torture:--- Start of test: nwriters_stress=4 ...
 *   rtmutex_lock-torture:--- Start of test [debug]: acq_writer_lim=0 ...
 *   spin_lock-torture:--- End of test: SUCCESS: acq_writer_lim=0 ...
 *
 * Each may carry, in this order, mail quote markers ("> "), a syslog prefix ("Feb  3 10:00:00 host
 * kernel: "), a console log level ("<1>"), a dmesg timestamp, a caller
 * id ("[   T35]", "[    C1]") and, on stats lines of old kernels, the
 * "TYPE-torture:" prefix.  Start and End lines are only taken as
 * locktorture's when their parameters include nwriters_stress= (so
 * rcutorture and friends in the same log do not split runs).
 *
 * Logs pasted into mail are often wrapped by the mailer: a stats line
 * cut after "Max/Min: 11656389/11516215", a start line spread over five
 * lines of "key=value" words.  A stats or start/end line that does not
 * end where the kernel ends it is rejoined with the bare lines after it
 * (no timestamp, no bracket, not a log line of its own): up to 3 for a
 * stats line, as long as they hold only key=value words for the others.
 */
#ifndef LOCKBENCH_LTLOG_H
#define LOCKBENCH_LTLOG_H

#include <stdbool.h>
#include <stddef.h>

struct lt_sample {		/* one statistics line */
	double t;		/* dmesg timestamp in seconds, NAN if none */
	long long total;	/* cumulative Total */
	/* Max/Min as printed (failure counts before v5.7, so 0/0) */
	long long max, min;
	long long fail;		/* Fail: (0 or 1 in every kernel so far) */
	bool unfair;		/* "???" present */
	bool failed;		/* "!!!" present */
	/*
	 * Added: one of the reports locktorture prints while stopping.
	 * The stats kthread, woken early by kthread_stop(), prints a partial
	 * interval and then "lock_torture_stats is stopping"; the cleanup
	 * prints once more after the threads stopped, then "End of test".
	 * Only what the log shows is taken for a stop report: every report
	 * after a stopping line, and among the last reports before End of
	 * test (two with stat_interval > 0, one with 0) those off the
	 * interval grid: a timestamp delta under 90% of stat_interval (or
	 * of the run's typical delta), or without timestamps a count under
	 * 90% of the typical interval's.  Reports on the grid are intervals
	 * however they end.
	 */
	bool stopping;
	unsigned line;		/* 1-based line number in the log (of its
				 * first piece when mail-wrapped) */
};

struct lt_run {
	char type[64];		/* torture_type, "spin_lock"; "" if unknown */
	int nwriters, nreaders;	/* from the Start of test line; -1 if absent
				 * (from End of test if Start is missing) */
	int stat_interval;	/* seconds; -1 if absent */
	char params[1024];	/* raw parameter text of the start line (of
				 * End of test if Start is missing) */
	struct lt_sample *writes;
	unsigned nwrites;
	struct lt_sample *reads;
	unsigned nreads;
	bool ended;		/* saw End of test */
	char end_status[32];	/* "SUCCESS", "FAILURE", ... or "" */
	unsigned first_line;	/* 1-based line of the start line (for
				 * messages); without one, of the first
				 * stats line */
	/* Added fields. */
	bool started;		/* saw its Start of test line */
	bool debug;		/* "[debug]": lock debugging built in */
	unsigned end_line;	/* 1-based line of End of test, 0 if none */
	double start_t;		/* timestamp of the Start line, NAN if none */
	/* "lock_torture_stats is stopping" (or "Stopping lock_torture_stats")
	 * seen: how many Writes and Reads reports came before it. */
	bool said_stopping;
	unsigned stop_w, stop_r;
};

struct lt_log {
	struct lt_run *runs;
	unsigned nruns;
	unsigned nlines;
	unsigned ignored_lines;
	/* Lines that begin as a statistics line ("Writes:  Total:") and
	 * could not be read as one (a number out of range or negative,
	 * garbage after it, a line cut short): counted among ignored_lines
	 * too, and here, with the first one's line number, so that the
	 * import says so instead of computing its rates without them
	 * silently. */
	unsigned bad_stats;
	unsigned first_bad_stats;
};

/*
 * Parse a whole log of @len bytes at @buf (need not be NUL-terminated).
 * A run starts at a "Start of test" line, and also, for logs that lack
 * them (built-in module in a boot log, a cut log), at the first stats
 * line after an "End of test" (locktorture prints its last statistics
 * before End of test, so nothing after it belongs to the ended run) and
 * at a stats line whose Total is below the previous one of its kind (the
 * counters restarted: a new module load).  Stats lines before any start
 * line form a run with unknown parameters.  When a run lacks its start
 * line, its End of test line supplies type and parameters instead.  A
 * run may have no samples (e.g. a test that died).
 *
 * Returns 0 and fills *@out (free it with lt_log_free()), or -ENOMEM, or
 * -EINVAL with a message in @err ("no locktorture statistics lines
 * found"); on error *@out is left empty.  Garbage lines are counted in
 * ignored_lines, never fatal; a last line without '\n' is ignored unless
 * it is a complete statistics line.  @err may be NULL when @errlen is 0.
 */
int lt_parse(const char *buf, size_t len, struct lt_log *out, char *err,
	     size_t errlen);

/* Free what lt_parse() allocated and empty @log; NULL and empty are fine. */
void lt_log_free(struct lt_log *log);

/*
 * Per-interval throughput in ops/s for one run (@reads: the Reads lines,
 * else the Writes lines): deltas of the cumulative Total between
 * consecutive lines, divided by the delta of their timestamps when both
 * have one, else by stat_interval (-EINVAL if neither is known).
 *
 * The start-up interval (module load to the first report) has no
 * earlier line and so is never produced: interval i runs from line i-1
 * to line i.  Intervals ending at a line marked stopping are dropped,
 * and so are intervals whose timestamps did not advance.
 *
 * Returns 0 with the count in *@n (may be 0) and a malloc'ed array in
 * *@out (caller frees; NULL when *@n is 0), or -EINVAL / -ENOMEM with
 * *@out = NULL and *@n = 0.
 */
int lt_run_rates(const struct lt_run *run, bool reads, double **out,
		 unsigned *n);

/*
 * A run without a complete statistics interval (only its final totals,
 * however many times they were printed at stop): the rate of its last
 * Total (@reads: of the Reads lines) over the time from the Start line
 * to that report when both have timestamps, else over @duration seconds
 * when positive.  Returns 0 with *@rate and *@secs, -ENODATA without a
 * report, -EINVAL when neither time base is known.
 */
int lt_run_total_rate(const struct lt_run *run, bool reads, double duration,
		      double *rate, double *secs);

#endif /* LOCKBENCH_LTLOG_H */
