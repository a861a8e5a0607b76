/* SPDX-License-Identifier: MIT */
/* fakesys.c - fake /sys and /proc trees; see fakesys.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fakesys.h"

#define CPU "/sys/devices/system/cpu"

/* mkdir -p of the directory part of @path (the last component is a file). */
static int mkdirs_for(const char *path)
{
	char tmp[512];

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	return 0;
}

int fake_put(const struct fake *f, const char *rel, const char *val)
{
	char path[512];
	FILE *fp;
	int err;

	snprintf(path, sizeof(path), "%s%s", f->root, rel);
	err = mkdirs_for(path);
	if (err)
		return err;
	fp = fopen(path, "w");
	if (!fp)
		return -errno;
	fprintf(fp, "%s\n", val);
	return fclose(fp) ? -errno : 0;
}

const char *fake_get(const struct fake *f, const char *rel, char *buf,
		     size_t len)
{
	char path[512];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "%s%s", f->root, rel);
	buf[0] = '\0';
	fp = fopen(path, "r");
	if (!fp)
		return buf;
	n = fread(buf, 1, len - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return buf;
}

/* The cpufreq attributes of one policy directory @dir of flavour @fl. */
static int put_policy(const struct fake *f, const char *dir,
		      enum fake_flavour fl)
{
	static const char *const acpi[][2] = {
		{ "scaling_driver", "acpi-cpufreq" },
		{ "scaling_governor", "schedutil" },
		{ "scaling_available_governors",
		  "conservative ondemand userspace powersave performance schedutil" },
		{ "scaling_setspeed", "<unsupported>" },
		{ "scaling_min_freq", "800000" },
		{ "scaling_max_freq", "3600000" },
		{ "scaling_cur_freq", "2400000" },
		{ "cpuinfo_min_freq", "800000" },
		{ "cpuinfo_max_freq", "3600000" },
	};
	static const char *const pstate[][2] = {
		{ "scaling_driver", "intel_pstate" },
		{ "scaling_governor", "powersave" },
		{ "scaling_available_governors", "performance powersave" },
		{ "scaling_min_freq", "800000" },
		{ "scaling_max_freq", "4200000" },
		{ "scaling_cur_freq", "1900000" },
		{ "cpuinfo_min_freq", "800000" },
		{ "cpuinfo_max_freq", "4200000" },
		{ "base_frequency", "2800000" },
	};
	const char *const (*a)[2] = fl == FAKE_PSTATE ? pstate : acpi;
	size_t n = fl == FAKE_PSTATE ? sizeof(pstate) / sizeof(pstate[0]) :
				       sizeof(acpi) / sizeof(acpi[0]);
	char rel[256];
	int err = 0;

	for (size_t i = 0; !err && i < n; i++) {
		snprintf(rel, sizeof(rel), "%s/%s", dir, a[i][0]);
		err = fake_put(f, rel, a[i][1]);
	}
	return err;
}

/* cpuN: topology, and cpufreq (own directory or a policy symlink). */
static int put_cpu(const struct fake *f, const struct fake_opts *o,
		   unsigned cpu, unsigned ncpus)
{
	char rel[256], sib[32], path[512], target[64];
	int err;

	snprintf(rel, sizeof(rel), CPU "/cpu%u/topology/thread_siblings_list",
		 cpu);
	if (ncpus < 2)
		snprintf(sib, sizeof(sib), "%u", cpu);
	else	/* SMT pairs {0, n/2}, {1, n/2 + 1}, ... as on x86 */
		snprintf(sib, sizeof(sib), "%u,%u", cpu % (ncpus / 2),
			 cpu % (ncpus / 2) + ncpus / 2);
	err = fake_put(f, rel, sib);
	if (err || o->flavour == FAKE_NOFREQ)
		return err;
	if (!o->shared_policy) {
		snprintf(rel, sizeof(rel), CPU "/cpu%u/cpufreq", cpu);
		return put_policy(f, rel, o->flavour);
	}
	snprintf(rel, sizeof(rel), CPU "/cpufreq/policy%u", cpu & ~1u);
	err = put_policy(f, rel, o->flavour);
	snprintf(path, sizeof(path), "%s" CPU "/cpu%u/cpufreq", f->root, cpu);
	snprintf(target, sizeof(target), "../cpufreq/policy%u", cpu & ~1u);
	if (!err && symlink(target, path))
		err = -errno;
	return err;
}

/* The machine-wide files: boost, smt, isolated, online, procfs. */
static int put_machine(const struct fake *f, const struct fake_opts *o,
		       unsigned ncpus)
{
	char online[32];
	int err = 0;

	snprintf(online, sizeof(online), "0-%u", ncpus - 1);
	err |= fake_put(f, CPU "/online", online);
	err |= fake_put(f, CPU "/smt/active", "1");
	err |= fake_put(f, CPU "/isolated", "");
	if (o->flavour == FAKE_ACPI)
		err |= fake_put(f, CPU "/cpufreq/boost", "1");
	if (o->flavour == FAKE_PSTATE)
		err |= fake_put(f, CPU "/intel_pstate/no_turbo", "0");
	if (!o->no_numa_balancing)
		err |= fake_put(f, "/proc/sys/kernel/numa_balancing", "1");
	err |= fake_put(f, "/proc/sys/kernel/osrelease", "6.9.0-fake");
	err |= fake_put(f, "/proc/loadavg", "0.10 0.20 0.30 1/123 4567");
	err |= fake_put(f, "/proc/cpuinfo", o->arm64 ?
			"processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: 0xd0c\n" :
			"processor\t: 0\nvendor_id\t: GenuineFake\nmodel name\t: Fake CPU @ 2.40GHz\n");
	err |= fake_put(f, "/proc/1/comm", "systemd");
	if (!o->no_irqbalance)
		err |= fake_put(f, "/proc/4242/comm", "irqbalance");
	return err ? -EIO : 0;
}

int fake_create(struct fake *f, const struct fake_opts *o)
{
	unsigned ncpus = o->ncpus ? o->ncpus : 4;
	int err = 0;

	snprintf(f->dir, sizeof(f->dir), "/tmp/lockbench-fakesys.XXXXXX");
	if (!mkdtemp(f->dir))
		return -errno;
	snprintf(f->root, sizeof(f->root), "%s/root", f->dir);
	snprintf(f->state, sizeof(f->state), "%s/state/state.json", f->dir);
	if (mkdir(f->root, 0755))
		return -errno;
	for (unsigned cpu = 0; !err && cpu < ncpus; cpu++)
		err = put_cpu(f, o, cpu, ncpus);
	return err ? err : put_machine(f, o, ncpus);
}

/* nftw() callback of fake_destroy(): remove one entry. */
static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

void fake_destroy(struct fake *f)
{
	if (f->dir[0])
		nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	f->dir[0] = '\0';
}
