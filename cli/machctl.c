/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "../topology/sysfs.h"
#include "err.h"
#include "machctl.h"

volatile sig_atomic_t interrupted;

/*
 * First SIGINT/SIGTERM/SIGHUP: set the flag; the sweep stops, writes what
 * it measured and restores the machine on the normal path.  A second
 * one (a stuck run, an insistent user): restore with async-signal-safe
 * calls only and die by the signal.
 */
static void on_signal(int sig)
{
	if (interrupted) {
		machine_restore_signal_safe();
		signal(sig, SIG_DFL);
		raise(sig);
	}
	interrupted = sig;
}

void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaddset(&sa.sa_mask, SIGHUP);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
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
	if (rc == 1 && *msg && !quiet)
		cli_warn_msg(msg);
	return changes ? changes : json_array();
}

const char *isolated_cpus(void)
{
	static char buf[4096];

	return sysfs_read_str("/sys/devices/system/cpu/isolated", buf, sizeof(buf))
		       ? NULL : buf;
}
