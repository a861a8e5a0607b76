/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/sysfs.h"
#include "../lib/termsig.h"
#include "../workloads/runner.h"
#include "err.h"
#include "machctl.h"
#include "outfile.h"

volatile sig_atomic_t interrupted;

/* The stop signals (lib/termsig.h).  SIGPIPE and SIGXFSZ are ignored
 * instead: a closed stdout or a file-size limit then fails the write,
 * which is checked and reported (one line, exit 2). */
static const int stop_signals[] = { TERMSIG_STOP };

/*
 * First stop signal: set the flag; the sweep stops, writes what it
 * measured and restores the machine on the normal path.  A second one
 * (an insistent user, `timeout` sending again, stuck workers): restore
 * at once with async-signal-safe calls only, and add RUN_HURRY, which
 * makes the runner stop waiting for workers; the completed points are
 * still written (docs/method.md, "Runs, order and repetition"), and the
 * exit status is then 128 + the first signal's number.  However many
 * signals follow, the write is never cut short: kill -9 ends lockbench
 * without it (`lockbench system reset` then restores the machine).
 */
static void on_signal(int sig)
{
	if (interrupted) {
		machine_restore_signal_safe();
		interrupted |= RUN_HURRY;
		return;
	}
	interrupted = sig;
}

/*
 * The signals of a crash (a plugin's bad pointer, an abort): restore
 * with async-signal-safe calls only, remove the output's twin, and let
 * the signal end the process as it would have (SA_RESETHAND: returning
 * re-runs the faulting instruction, or abort() re-raises, under the
 * default action, so a core dump is kept).  Not under the sanitizers,
 * whose own handlers report these.
 */
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP};

static void on_crash(int sig)
{
	(void)sig;
	machine_restore_signal_safe();
	outputs_unlink_signal_safe();
}
#endif

static void install_crash_handlers(void)
{
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	struct sigaction sa = {.sa_handler = on_crash, .sa_flags = SA_RESETHAND | SA_NODEFER};

	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(crash_signals) / sizeof(crash_signals[0]); i++)
		sigaction(crash_signals[i], &sa, NULL);
#endif
}

/* 1 when @sig was ignored when lockbench started (read, not changed). */
static int ignored_at_start(int sig)
{
	struct sigaction old;

	return !sigaction(sig, NULL, &old) && !(old.sa_flags & SA_SIGINFO) &&
	       old.sa_handler == SIG_IGN;
}

/*
 * A signal ignored when lockbench starts stays ignored: nohup ignores
 * SIGHUP, a shell without job control ignores SIGINT and SIGQUIT in a
 * background job, a parent may ignore SIGTERM on purpose; each chose
 * that the signal should not end the process (POSIX.1-2017, exec: "signals
 * set to be ignored by the calling process image shall be set to be
 * ignored by the new process image").  Handlers go on the others only.
 */
void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};
	unsigned n = sizeof(stop_signals) / sizeof(stop_signals[0]);

	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < n; i++)
		sigaddset(&sa.sa_mask, stop_signals[i]);
	for (unsigned i = 0; i < n; i++)
		if (!ignored_at_start(stop_signals[i]))
			sigaction(stop_signals[i], &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	install_crash_handlers();
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
	/* What keeps the machine from being tuned (a state file left by a
	 * killed run, or one that is not lockbench's) is said even with -q. */
	if (rc == 1 && *msg && (!quiet || strstr(msg, "restore it with") ||
				strstr(msg, "state file (")))
		cli_warn_msg(msg);
	return changes ? changes : json_array();
}

const char *isolated_cpus(void)
{
	static char buf[4096];

	return sysfs_read_str("/sys/devices/system/cpu/isolated", buf, sizeof(buf))
		       ? NULL : buf;
}

int interrupt_status(int rc)
{
	if (rc == 2 || !(interrupted & RUN_HURRY))
		return rc;
	return 128 + (interrupted & ~RUN_HURRY);
}
