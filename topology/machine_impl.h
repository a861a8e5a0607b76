/* SPDX-License-Identifier: MIT */
/*
 * machine_impl.h - what the three machine files share, private to
 * topology/ (the public interface is machine.h):
 *
 *	machine_state.c     the record of changes, the state file, restore
 *	                    and `system reset`;
 *	machine_tune.c      --freq parsing and applying --freq and
 *	                    --numa-balancing through that record;
 *	machine_describe.c  the machine as JSON (what the results carry);
 *	machine_env.c       its kernel configuration and environment part.
 *
 * Printing the description is a renderer's job
 * (output/render/render_machine.c), not topology's.
 */
#ifndef LOCKBENCH_MACHINE_IMPL_H
#define LOCKBENCH_MACHINE_IMPL_H

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include <jansson.h>

#include "machine.h"

#define CPU_DIR "/sys/devices/system/cpu"
#define BOOST_PATH CPU_DIR "/cpufreq/boost"
#define NO_TURBO_PATH CPU_DIR "/intel_pstate/no_turbo"
#define NUMA_BAL_PATH "/proc/sys/kernel/numa_balancing"

/* Sizes of a recorded path (relative to the root) and of a value. */
#define CHG_PATH_LEN 128
#define CHG_VAL_LEN 32

/* One setting changed, or about to be: write @old back to undo it. */
struct change {
	char path[CHG_PATH_LEN];
	char old[CHG_VAL_LEN];
	char val[CHG_VAL_LEN];
	bool has_old;		/* false: nothing to restore */
};

/* What scaling_setspeed shows under a governor other than userspace
 * (the kernel's cpufreq.c, show_scaling_setspeed()). */
#define SETSPEED_NONE "<unsupported>"

/* Copy @src into @dst[@len]; -E2BIG when it does not fit. */
static inline int copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (n >= len)
		return -E2BIG;
	memcpy(dst, src, n + 1);
	return 0;
}

/* ---- the record of changes (machine_state.c) ------------------------ */

/* How many changes are recorded now (a mark to restore back to). */
int mstate_count(void);
/* This process created the state file and records into it. */
bool mstate_owned(void);
/*
 * Claim the state file for this process: create it exclusively, so two
 * lockbench processes never record over each other.  Returns 0 (also
 * when already ours), -EEXIST when another one's file exists, or -errno.
 */
int mstate_claim(void);
/* Give the state file up when nothing is recorded in it any more. */
void mstate_release_if_empty(void);
/* Append @n planned changes to the record and save the state file. */
int mstate_record(const struct change *ops, int n);
/*
 * Forget the changes recorded after the first @n (they were never
 * written) and save the state file.
 */
void mstate_truncate(int n);
/*
 * Write back the old values of the changes recorded after the first
 * @from, newest first.  When all succeed the entries are dropped and the
 * state file rewritten (the caller deletes it once it is done with it,
 * mstate_release_if_empty()).  On failure, with @report a line per
 * failure goes to stderr, and *@bad (if not NULL) gets the index of the
 * first failure; everything stays recorded so a retry can redo it.
 * Returns 0 or the first -errno.
 */
int mstate_restore_from(int from, bool report, int *bad);
/* The changes recorded in [@from, @to) as [{path, old, new}, ...]; NULL
 * when out of memory. */
json_t *mstate_changes_json(int from, int to);

/* ---- where things are (machine_describe.c) -------------------------- */

/*
 * Write the directory of cpu @cpu's cpufreq attributes into @dir[@len]:
 * CPU_DIR "/cpufreq/policyN" when cpuN/cpufreq is the usual symlink to a
 * policy (so CPUs sharing a policy are tuned once), else
 * CPU_DIR "/cpuN/cpufreq".  Returns 0 or -ENOENT when there is no cpufreq.
 */
int machine_cpufreq_dir(int cpu, char *dir, size_t len);
/* Write "<dir>/<attr>" into @out[@len]; -ENAMETOOLONG when too long. */
int machine_attr_path(char *out, size_t len, const char *dir, const char *attr);
/* Read @dir/@attr into @buf[@len]; 0 or -errno. */
int machine_read_attr(const char *dir, const char *attr, char *buf, size_t len);
/*
 * Every online CPU as a new array (*@cpus, *@n), for callers that pass
 * no CPU list.  Returns 0 or -errno.
 */
int machine_online_cpus(int **cpus, unsigned *n);

/*
 * Add the kernel configuration and environment to the description @o:
 * "clocksource", "preemption", "cmdline", "cpuidle", "hypervisor",
 * "thp" (machine_env.c).  0 or -ENOMEM.
 */
int machine_describe_env(json_t *o);

#endif /* LOCKBENCH_MACHINE_IMPL_H */
