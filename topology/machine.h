/* SPDX-License-Identifier: MIT */
/*
 * machine.h - describe the machine, freeze its noise sources, restore it.
 * Three files, one job each: machine_state.c (the record of changes,
 * the state file, restore, reset), machine_tune.c (--freq parsing,
 * tuning), machine_describe.c (the machine as JSON).  Printing the
 * description is output/render/render_machine.c's job.
 *
 * Before measuring, lockbench freezes the frequency of the CPUs it uses
 * (userspace governor + scaling_setspeed, or scaling_min_freq =
 * scaling_max_freq), turns boost/turbo off and sets kernel.numa_balancing
 * to 0, where the machine permits it.  Every change is recorded, old value
 * first, in a state file before it is written, and undone at exit, on
 * SIGINT/SIGTERM/SIGHUP and by `lockbench system reset` after a crash.
 * All paths go through sysfs.h, so tests run against a fake tree.
 *
 * State of this module (process-wide, documented here because it is the
 * only global mutable state): the list of recorded changes, the state
 * file path and whether this process owns the state file.  Call it from
 * the main thread only; machine_restore_signal_safe() is the one
 * exception.
 *
 * Calling sequence for a run (what main.c does):
 *
 *	sysfs_set_root(getenv("LOCKBENCH_SYSROOT"));
 *	machine_set_state_path(getenv("LOCKBENCH_STATE"));   // NULL: default
 *	desc = machine_describe(cpus, n);                    // into results
 *	install on_signal() for SIGINT/SIGTERM/SIGHUP (below)
 *	atexit(machine_restore_atexit);      // wrapper: (void)machine_restore()
 *	rc = machine_tune(&req, cpus, n, &changes, msg, sizeof(msg));
 *	if (rc < 0) { fprintf(stderr, "%s\n", msg); exit(3); }
 *	if (rc == 1) fprintf(stderr, "%s\n", msg);           // once, carry on
 *	... run, stopping early when stop_signal != 0 ...
 *	write the results; machine_restore();
 *
 * Signals: the handler only sets a flag on the first signal; the sweep
 * stops, writes what it measured and restores on the normal path.  On a
 * second signal (the user insists, or the run is stuck) the handler
 * restores with machine_restore_signal_safe() and dies by the signal:
 *
 *	static volatile sig_atomic_t stop_signal;
 *	static void on_signal(int sig)
 *	{
 *		if (stop_signal) {
 *			machine_restore_signal_safe();
 *			signal(sig, SIG_DFL);
 *			raise(sig);
 *		}
 *		stop_signal = sig;
 *	}
 *
 * Install it with sigaction() for SIGINT, SIGTERM and SIGHUP, with all
 * three in sa_mask (so a second signal never interrupts the first
 * handler before it has set the flag) and without SA_RESTART (so a
 * blocking call in main returns EINTR and main sees the flag).  Install
 * it before machine_tune(): there is then no window in which the machine
 * is tuned but a signal kills lockbench unrestored.  Any thread may take
 * the signal; writing an old value twice is harmless, so the handler may
 * race main's machine_restore().  tests/test_machine.c uses exactly this
 * handler.  kill -9 and crashes leave the state file behind: `lockbench
 * system reset` (machine_reset_from_state()) undoes them.
 *
 * Why a flag and not a restore in the first handler: the sweep must stop
 * and still write every completed point (docs/method.md), which needs stdio
 * and malloc, so the normal path does the work; the handler-side restore
 * (open/write/close of strings prepared in advance) is only the fallback
 * when the normal path does not come back.
 */
#ifndef LOCKBENCH_MACHINE_H
#define LOCKBENCH_MACHINE_H

#include <stddef.h>

#include <jansson.h>
#include <stdbool.h>

/* At most this many settings are changed (4 per cpufreq policy + 2). */
#define MACHINE_MAX_CHANGES 4096

/* What to do to the machine before a run (--freq, --numa-balancing). */
struct machine_req {
	enum {
		/* Freeze at the highest sustained (non-boost) frequency and
		 * turn boost off, where permitted; otherwise say so, go on. */
		FREQ_AUTO,
		/* Leave frequency and boost as they are (--freq off). */
		FREQ_OFF,
		/* Freeze at khz and turn boost off; failing is an error. */
		FREQ_FIXED,
	} freq;
	/* The frequency of FREQ_FIXED, in kHz as sysfs counts it. */
	unsigned long khz;
	enum {
		/* Leave kernel.numa_balancing alone. */
		NB_KEEP,
		/* Set it to 0, where permitted; otherwise say so, go on. */
		NB_AUTO,
		/* Set it to 0; failing is an error (exit 3). */
		NB_OFF,
	} numa_balancing;
};

/*
 * Use @path for the state file (NULL or "": the default,
 * /run/lockbench/state.json for root, else
 * $XDG_RUNTIME_DIR/lockbench/state.json, else
 * /tmp/lockbench-<uid>/state.json).  Returns 0, -ENAMETOOLONG, or -EBUSY
 * while this process has changes recorded in the current file.
 */
int machine_set_state_path(const char *path);

/* The command that restores what the state file in use records, e.g.
 * "lockbench system reset" (with LOCKBENCH_STATE=... when the path is
 * not the default), in buf.  Returns buf. */
const char *machine_reset_command(char *buf, size_t len);

/* The state file path in use (resolving the default).  Never NULL. */
const char *machine_state_path(void);

/*
 * Describe the machine state relevant to lock timings for CPUs @cpus
 * (@ncpus of them; 0: every CPU in /sys/devices/system/cpu/online).
 * Returns a new JSON object (the caller owns it; see the JSON keys in
 * machine_describe.c), with null for whatever the machine does not
 * expose, or NULL when out of memory.
 */
json_t *machine_describe(const int *cpus, unsigned ncpus);

/*
 * The CPU model as the kernel names it (/proc/cpuinfo's first "model
 * name", else the arm64 implementer and part), into buf: the one source
 * of every output's CPU model (system show, every run's machine), stable
 * across a boot where the CPUID brand a VM's vCPUs report may not be.
 * false when there is none.
 */
bool machine_cpu_model(char *buf, size_t len);

/*
 * The kernel configuration and environment part of the description
 * alone, as a new object: clocksource, preemption, cmdline, cpuidle,
 * hypervisor, thp (docs/json.md, `machine.environment`).  NULL when out
 * of memory.
 */
json_t *machine_environment(void);

/*
 * Parse a --freq argument into @req->freq/@req->khz: "auto", "off", or a
 * frequency: 1500MHz, 1.5GHz, 1500000kHz, 1500000 (a bare number is kHz,
 * as in sysfs); units are case-insensitive.  Returns 0, or -EINVAL for
 * anything else (zero, above 100 GHz, or not a whole number of kHz);
 * @req is then untouched.
 */
int machine_parse_freq(const char *s, struct machine_req *req);

/*
 * Apply @req to CPUs @cpus (@ncpus of them, duplicates allowed; 0: every
 * online CPU, for `lockbench system tune`).
 * Frequency: boost off (cpufreq/boost=0 or intel_pstate/no_turbo=1), then
 * per cpufreq policy either governor=userspace + scaling_setspeed=F, or,
 * without the userspace governor, scaling_min_freq=scaling_max_freq=F.
 * F is req->khz for FREQ_FIXED; for FREQ_AUTO it is the highest
 * sustained frequency: base_frequency when the driver exposes it
 * (intel_pstate), else cpuinfo_max_freq read after boost is off.
 * Each batch of changes is recorded with old values in the state file
 * (atomically) before it is written.
 *
 * Returns 0 when everything asked for is in place (msg ""); 1 when a
 * FREQ_AUTO or NB_AUTO part, or turning boost off (always best effort),
 * could not be applied - that part is then left or put back as it was,
 * and @msg (@msglen bytes, may be NULL/0) holds one line to print once;
 * -errno when a FREQ_FIXED or NB_OFF part could not be applied (every
 * change of this call is then undone; @msg says what failed; exit 3).
 * -EBUSY/1 when a state file of another lockbench (a running one, a
 * crash or `system tune`) exists: nothing is changed.
 * @changes, if not NULL, receives a new JSON array of {path, old, new}
 * of this call (old null: nothing to restore, e.g. scaling_setspeed).
 */
int machine_tune(const struct machine_req *req, const int *cpus,
		 unsigned ncpus, json_t **changes, char *msg, size_t msglen);

/*
 * What machine_tune() would change, changing nothing (`system tune
 * --dry-run`): *@plan receives a new JSON array of {path, old, new}
 * (old null: nothing to restore); the state file is neither claimed nor
 * written.  Returns as machine_tune() does for the same machine (0, 1
 * with @msg, or -errno with @msg), never -EBUSY.
 */
int machine_tune_plan(const struct machine_req *req, const int *cpus,
		      unsigned ncpus, json_t **plan, char *msg, size_t msglen);

/*
 * For `lockbench system tune`: keep what machine_tune() applied after
 * this process exits.  The state file stays (marked persistent) and the
 * changes are forgotten here, so machine_restore() no longer undoes them;
 * `lockbench system reset` does.  Returns 0 or -errno (state file write).
 */
int machine_tune_persist(void);

/*
 * Undo every recorded change, newest first, then delete the state file.
 * Idempotent and safe from atexit().  On a failed write, prints one line
 * per failure on stderr, keeps the changes and the state file (so a
 * later call or `lockbench system reset` retries) and returns the first
 * -errno; else 0.
 */
int machine_restore(void);

/*
 * machine_restore() for a signal handler: uses only open/write/close/
 * unlink on strings prepared when the changes were recorded, no malloc,
 * no stdio.  Preserves errno.  Prints one fixed line on failure.
 */
void machine_restore_signal_safe(void);

/*
 * What is at the state file path: 0 nothing, 1 a state file lockbench
 * wrote, -EINVAL anything else (a device, FIFO, symlink, directory, a
 * file of another owner, empty, or without lockbench's mark), with @msg
 * saying what.  Reads only; lockbench never writes, renames or unlinks
 * such a file.
 */
int machine_state_probe(char *msg, size_t len);

/*
 * For `lockbench system reset`: read the state file, restore every change
 * in it under this invocation's sysfs root, newest first, and delete it.
 * Only a file lockbench wrote is read or deleted: a regular file (opened
 * without following a symlink) owned by the effective user, holding the
 * JSON with lockbench's mark.  Returns 0 with @msg "nothing to restore"
 * when there is no state file, or "restored N settings from PATH";
 * -EINVAL (file left as it is, @msg one line) when the path names
 * anything else, when the file is malformed, or when the root it records
 * is not this invocation's (LOCKBENCH_SYSROOT, or the real root): nothing
 * is then written anywhere; -EBUSY when the lockbench that wrote it still
 * runs (it restores on exit); -errno of the first failed write (file
 * kept).
 */
int machine_reset_from_state(char *msg, size_t len);

#endif /* LOCKBENCH_MACHINE_H */
