/* SPDX-License-Identifier: MIT */
/*
 * fakesys.h - build fake /sys and /proc trees for machine-control tests.
 *
 * A tree lives in a fresh mkdtemp() directory: <dir>/root is what
 * sysfs_set_root() gets, <dir>/state/state.json is the state file.
 */
#ifndef LOCKBENCH_FAKESYS_H
#define LOCKBENCH_FAKESYS_H

#include <stdbool.h>
#include <stddef.h>

enum fake_flavour {
	FAKE_ACPI,	/* acpi-cpufreq: userspace governor, cpufreq/boost */
	FAKE_PSTATE,	/* intel_pstate: no userspace, no_turbo, base_frequency */
	FAKE_NOFREQ,	/* a VM: no cpufreq at all, no boost */
};

struct fake_opts {
	enum fake_flavour flavour;
	unsigned ncpus;		/* 0: 4 */
	bool shared_policy;	/* cpuN/cpufreq -> ../cpufreq/policy(N & ~1) */
	bool no_irqbalance;
	bool no_numa_balancing;	/* kernel without CONFIG_NUMA_BALANCING */
	bool arm64;		/* /proc/cpuinfo with CPU implementer/part */
};

/* A fake machine: dir (mkdtemp), root = dir/root, state = state file. */
struct fake {
	char dir[256];
	char root[300];
	char state[300];
};

/* Build a tree as @o says into @f.  Returns 0 or -errno. */
int fake_create(struct fake *f, const struct fake_opts *o);

/* Remove @f's whole directory. */
void fake_destroy(struct fake *f);

/* Write @val + "\n" to @f's <root>/@rel, creating directories.  0/-errno. */
int fake_put(const struct fake *f, const char *rel, const char *val);

/* Read <root>/@rel of @f without the trailing newline; "" if unreadable. */
const char *fake_get(const struct fake *f, const char *rel, char *buf,
		     size_t len);

#endif /* LOCKBENCH_FAKESYS_H */
