/* SPDX-License-Identifier: MIT */
/*
 * The machine around a run: signals (stop the sweep, restore the
 * machine), the --freq / --numa-balancing request applied and undone,
 * and the isolated CPU list.
 */
#ifndef LOCKBENCH_CLI_MACHCTL_H
#define LOCKBENCH_CLI_MACHCTL_H

#include <signal.h>
#include <stdbool.h>

#include <jansson.h>

#include "../topology/machine.h"

/* Set by the first terminating signal after install_signals() (SIGINT,
 * SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGALRM, ...) to its number; a
 * second adds RUN_HURRY (workloads/runner.h).  SIGPIPE is ignored.
 * A signal already ignored when install_signals() runs (nohup's SIGHUP,
 * a background job's SIGINT) is left ignored. */
extern volatile sig_atomic_t interrupted;

/* The exit status after the results are written: 128 + the first
 * signal's number after a second signal, else rc. */
int interrupt_status(int rc);
void install_signals(void);

/* Apply req to cpus (restored at exit); exit 3 when an explicit request
 * cannot be met.  Returns the JSON list of changes. */
json_t *machine_setup(const struct machine_req *req, const int *cpus,
		      unsigned n, bool quiet);

/* The isolated CPU list (isolcpus) through the sysfs root, or NULL. */
const char *isolated_cpus(void);

#endif
