/* SPDX-License-Identifier: MIT */
/*
 * Interrupts served by each CPU, from /proc/interrupts (read through the
 * sysfs root, so tests use a fake file).  Where the kernel does not
 * account interrupt time apart (CONFIG_IRQ_TIME_ACCOUNTING unset), an
 * interrupt's time is charged to the thread it interrupted: the host
 * takes measure (topology/host/takes.h) counts it with the host's, and the
 * interrupt rate says how much of it may be the guest's own.
 */
#ifndef LOCKBENCH_IRQS_H
#define LOCKBENCH_IRQS_H

#include <stdint.h>

/*
 * The interrupts of the CPUs cpus[0..n-1] in the /proc/interrupts text
 * `text` into counts[i]: every row with a count per CPU of the header
 * ("CPU0 CPU1 ..."; the online CPUs, not always 0..N-1) summed.  Rows
 * with a single total (ERR, MIS) are not per CPU and are skipped.
 * Returns 0, or -ENOENT when a CPU is not in the header.
 */
int irqs_parse(const char *text, const int *cpus, unsigned n, uint64_t *counts);

/* irqs_parse() of "/proc/interrupts" under the sysfs root; 0 or -errno. */
int irqs_read(const int *cpus, unsigned n, uint64_t *counts);

#endif
