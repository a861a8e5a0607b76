/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "steal.h"
#include "../sysfs.h"

/* /proc/stat's cpu lines come first; the rest (intr, ...) can be long
 * and is cut off, which is fine. */
#define STAT_BUF (256 * 1024)

/* The steal field of the "cpuN " line in text (with busy: the time
 * the CPU ran tasks and interrupts instead, user + nice + system + irq
 * + softirq, proc(5)), or -ENOENT. */
static int line_fields(const char *text, int cpu, uint64_t *steal, bool busy)
{
	char key[32];
	size_t klen = (size_t)snprintf(key, sizeof(key), "cpu%d ", cpu);
	const char *p = text;
	unsigned long long v[8];

	while (p && strncmp(p, key, klen)) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p)
		return -ENOENT;
	if (sscanf(p + klen, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
		   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		return -ENOENT;
	*steal = busy ? v[0] + v[1] + v[2] + v[5] + v[6] : v[7];
	return 0;
}

int steal_parse(const char *stat, const int *cpus, unsigned n, uint64_t *ticks)
{
	uint64_t sum = 0, s;

	for (unsigned i = 0; i < n; i++) {
		if (line_fields(stat, cpus[i], &s, false))
			return -ENOENT;
		sum += s;
	}
	*ticks = sum;
	return 0;
}

int steal_read(const int *cpus, unsigned n, uint64_t *ticks)
{
	char *buf = malloc(STAT_BUF);
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = sysfs_read_str("/proc/stat", buf, STAT_BUF);
	if (!rc)
		rc = steal_parse(buf, cpus, n, ticks);
	free(buf);
	return rc;
}

int busy_read(const int *cpus, unsigned n, uint64_t *ticks)
{
	char *buf = malloc(STAT_BUF);
	uint64_t sum = 0, b;
	int rc;

	if (!buf)
		return -ENOMEM;
	rc = sysfs_read_str("/proc/stat", buf, STAT_BUF);
	for (unsigned i = 0; !rc && i < n; i++) {
		rc = line_fields(buf, cpus[i], &b, true);
		sum += b;
	}
	free(buf);
	*ticks = sum;
	return rc;
}

double steal_tick_s(void)
{
	long hz = sysconf(_SC_CLK_TCK);

	return 1.0 / (hz > 0 ? (double)hz : 100.0);
}
