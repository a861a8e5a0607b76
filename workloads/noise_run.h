/* SPDX-License-Identifier: MIT */
/*
 * The runner's noise hooks: in each worker, its context switches and
 * its section-length samples; from the monitor, what the kernel
 * accounted to each worker over the window (docs/method.md, "Noise").
 * Everything here runs outside the timed loop.  With spec->noise NULL
 * or not measuring, every hook does nothing.
 */
#ifndef LOCKBENCH_NOISE_RUN_H
#define LOCKBENCH_NOISE_RUN_H

#include <stdbool.h>
#include <sys/types.h>

struct cs_samples;
struct run_sample;
struct run_spec;

struct noise_run;      /* one run's measurements in progress */
struct wnoise;         /* one worker's */

/* Before the threads start.  NULL when the run measures no noise (or
 * out of memory: the run then has none). */
struct noise_run *noise_run_begin(const struct run_spec *sp);
/* The run reads the kernel's accounts and watches the monitor's
 * wake-ups (not with --no-probe: then only the section lengths). */
bool noise_run_measures(const struct noise_run *nr);
/* Worker `tid`'s slot, to hand to it; NULL when nr is NULL. */
struct wnoise *noise_run_worker(struct noise_run *nr, unsigned tid);

/* In the worker, before `ready`: its sample ring (NULL: no sampling). */
struct cs_samples *noise_worker_setup(struct wnoise *wn, int cpu);
/* In the worker, just before and just after the workload's loop. */
void noise_worker_begin(struct wnoise *wn);
void noise_worker_end(struct wnoise *wn);

/*
 * Thread `tid`'s CPU time and time spent runnable but waiting for a CPU,
 * in seconds (tid 0: the calling thread): the first two fields of
 * /proc/self/task/TID/schedstat, in ns (the kernel's
 * Documentation/scheduler/sched-stats.rst).  false when unknown.
 */
bool noise_schedstat(pid_t tid, double *cpu, double *wait);

/* From the monitor, at the window's start (end false) and end (end
 * true, after `wall` seconds): the worker's (thread `tid`) CPU time and
 * wait for its CPU, from the kernel's schedstat. */
void noise_worker_window(struct wnoise *wn, pid_t tid, bool end, double wall);

/*
 * After every worker has been joined: the workers' data and the
 * monitor's late wake-ups in the window (late_s) into out->noise (out
 * NULL: the run failed, just free).  Frees nr.
 */
void noise_run_end(struct noise_run *nr, const struct run_spec *sp,
		   struct run_sample *out, double late_s);

#endif
