/* SPDX-License-Identifier: MIT */
/*
 * The runner's noise hooks: around a run, the core-to-core
 * probe and the host steal of the CPUs in use; in each worker, its
 * context switches, the CPU it ended on and its section-length samples.
 * Everything here runs outside the timed loop.  With spec->noise NULL
 * every hook does nothing.
 */
#ifndef LOCKBENCH_NOISE_RUN_H
#define LOCKBENCH_NOISE_RUN_H

#include "runner.h"

struct noise_run;      /* one run's measurements in progress */
struct wnoise;         /* one worker's */

/* Before the threads start: steal, then the probe.  NULL when noise
 * measurement is off (or out of memory: the run then has none). */
struct noise_run *noise_run_begin(const struct run_spec *sp);
/* Worker `tid`'s slot, to hand to it; NULL when nr is NULL. */
struct wnoise *noise_run_worker(struct noise_run *nr, unsigned tid);

/* In the worker, before `ready`: its sample ring (NULL: no sampling). */
struct cs_samples *noise_worker_setup(struct wnoise *wn, int cpu);
/* Where the worker's loop puts its core-speed probe of the end of the
 * warm-up (worker.speed); NULL when wn is. */
double *noise_worker_speed(struct wnoise *wn);
/* In the worker, just before and just after the workload's loop (after
 * it: the core-speed probe again). */
void noise_worker_begin(struct wnoise *wn);
void noise_worker_end(struct wnoise *wn);

/* From the monitor, after the window: the worker's CPU time over the
 * window's wall time (replaces the loop's own figure, which
 * noise_worker_end() gives otherwise). */
void noise_worker_cpu_share(struct wnoise *wn, double share);

/*
 * After every worker has been joined: the probe again, steal, and the
 * workers' data into out->noise (out NULL: the run failed, just free).
 * Frees nr.
 */
void noise_run_end(struct noise_run *nr, const struct run_spec *sp,
		   struct run_sample *out);

#endif
