/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/sysfs.h"
#include "err.h"
#include "machctl.h"
#include "outfile.h"

volatile sig_atomic_t interrupted;

/*
 * Every signal whose default action ends the process and that can be
 * caught (SIGKILL and SIGSTOP cannot).  SIGPIPE and SIGXFSZ are ignored
 * instead: a closed stdout or a file-size limit then fails the write,
 * which is checked and reported (one line, exit 2).
 */
static const int stop_signals[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM,
	SIGVTALRM, SIGPROF, SIGXCPU, SIGIO,
#ifdef SIGPWR
	SIGPWR,
#endif
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
};

/*
 * First stop signal: set the flag; the sweep stops, writes what it
 * measured and restores the machine on the normal path.  A second one
 * (a stuck run, an insistent user): restore with async-signal-safe
 * calls only, remove the output's temporary twin and die by the signal.
 */
static void on_signal(int sig)
{
	if (interrupted) {
		machine_restore_signal_safe();
		outputs_unlink_signal_safe();
		signal(sig, SIG_DFL);
		raise(sig);
	}
	interrupted = sig;
}

void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	unsigned n = sizeof(stop_signals) / sizeof(stop_signals[0]);

	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < n; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (unsigned i = 0; i < n; i++)
		sigaction(stop_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
}

static void restore_atexit(void)
{
	machine_restore();
}

json_t *machine_setup(const struct machine_req *req, const int *cpus,
		      unsigned n, bool quiet)
{
	json_t *changes = NULL;
	char msg[512] = "";
	int rc;

	atexit(restore_atexit);
	rc = machine_tune(req, cpus, n, &changes, msg, sizeof(msg));
	if (rc < 0) {
		cli_warn_msg(*msg ? msg : "machine tuning failed");
		exit(3);
	}
	/* A state file left by a killed run is reported even with -q. */
	if (rc == 1 && *msg && (!quiet || strstr(msg, "restore it with")))
		cli_warn_msg(msg);
	return changes ? changes : json_array();
}

const char *isolated_cpus(void)
{
	static char buf[4096];

	return sysfs_read_str("/sys/devices/system/cpu/isolated", buf, sizeof(buf))
		       ? NULL : buf;
}
