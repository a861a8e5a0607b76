/* SPDX-License-Identifier: MIT */
/*
 * Host steal time of a set of CPUs, from /proc/stat (read through the
 * sysfs root, so tests use a fake file).  On a VM, steal is the time
 * the host ran something else while a vCPU wanted to run: a run that
 * lost more than a sliver of its window to it is flagged.
 */
#ifndef LOCKBENCH_STEAL_H
#define LOCKBENCH_STEAL_H

#include <stdint.h>

/*
 * Sum the steal field (the 8th number) of the "cpuN" lines of the
 * /proc/stat text `stat` for the n CPUs cpus[] into *ticks (USER_HZ
 * ticks).  Returns 0, or -ENOENT when a CPU has no line or the line
 * has no steal field (kernels before 2.6.11).
 */
int steal_parse(const char *stat, const int *cpus, unsigned n, uint64_t *ticks);

/* steal_parse() of "/proc/stat" under the sysfs root; 0 or -errno. */
int steal_read(const int *cpus, unsigned n, uint64_t *ticks);

/*
 * The time the n CPUs cpus[] ran anything, tasks or interrupts (user +
 * nice + system + irq + softirq of their "cpuN" lines of /proc/stat
 * under the sysfs root, proc(5)), summed into *ticks; 0 or -errno.
 */
int busy_read(const int *cpus, unsigned n, uint64_t *ticks);

/* Seconds per /proc/stat tick (1 / USER_HZ). */
double steal_tick_s(void);

#endif
