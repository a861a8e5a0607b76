/* SPDX-License-Identifier: MIT */
/*
 * The runner: one measured run of one lock at one thread count.
 * Creates and pins the workers, lets each first-touch its own context,
 * releases them together, snapshots their counters at the end of the
 * warm-up, every --stat-interval and at the end of the window, stops
 * them, and checks mutual exclusion.  A watchdog ends a run whose
 * threads stop making progress.
 */
#ifndef LOCKBENCH_RUNNER_H
#define LOCKBENCH_RUNNER_H

#include "../output/results/results.h"
#include "../topology/placement.h"
#include "perf_counters.h"
#include "run_spec.h"
#include "workload.h"

/* In *interrupted after a second signal: workers that do not leave at
 * once are abandoned (the process is about to write and exit). */
#define RUN_HURRY 0x100

enum run_rc {
	RUN_OK = 0,
	RUN_HUNG = 1,        /* watchdog fired; threads may still be stuck */
	RUN_INTERRUPTED = 2, /* *interrupted was set; sample is not valid */
	RUN_ERROR = 3,       /* could not set up (err says why) */
	/* Could not set up in a way the next points would meet too (a
	 * worker or init thread not started, a placement not pinned, a
	 * lock's init() that never returned): err says why; the caller
	 * stops the sweep and keeps what it measured.  Memory a stuck
	 * thread may use is leaked, as after RUN_HUNG. */
	RUN_ABORT = 4,
};

/*
 * Run once and fill `out` (caller frees with run_sample_free()).
 * Returns an enum run_rc; err gets one line for anything but RUN_OK.
 * After RUN_HUNG the lock's memory is deliberately leaked: stuck threads
 * may still touch it, and the caller should stop the sweep.
 */
int runner_run(const struct run_spec *spec, struct run_sample *out,
	       char *err, size_t errlen);

/* Whether the run's workers execute the lock's inlined loop (else the
 * workload's generic loop, through the ops table). */
bool runner_inlined(const struct run_spec *spec);

#endif
