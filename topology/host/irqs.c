/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "irqs.h"
#include "../sysfs.h"

/* The header's CPU numbers into col[] (at most cap); returns how many,
 * and *end the rest of the text. */
static unsigned header_cols(const char *text, int *col, unsigned cap, const char **end)
{
	const char *p = text;
	unsigned n = 0;

	while (*p && *p != '\n') {
		char *q;
		long v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (strncmp(p, "CPU", 3))
			break;
		v = strtol(p + 3, &q, 10);
		if (q == p + 3 || v < 0 || v > INT_MAX)
			break;
		if (n < cap)
			col[n] = (int)v;
		n++;
		p = q;
	}
	*end = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p);
	return n < cap ? n : cap;
}

/* Add one row's counts (after its "NAME:") to sum[0..ncol-1] when it
 * has one per column; returns the start of the next row. */
static const char *add_row(const char *p, unsigned ncol, uint64_t *row, uint64_t *sum)
{
	const char *eol = strchr(p, '\n'), *c = strchr(p, ':');
	unsigned k = 0;

	if (!eol)
		eol = p + strlen(p);
	if (c && c < eol) {
		for (p = c + 1; k < ncol; k++) {
			char *q;

			while (*p == ' ' || *p == '\t')
				p++;
			if (p >= eol || *p < '0' || *p > '9')
				break;
			row[k] = strtoull(p, &q, 10);
			p = q;
		}
		for (unsigned i = 0; k == ncol && i < ncol; i++)
			sum[i] += row[i];
	}
	return *eol ? eol + 1 : eol;
}

int irqs_parse(const char *text, const int *cpus, unsigned n, uint64_t *counts)
{
	int *col = calloc(4096, sizeof(*col));
	uint64_t *row = NULL, *sum = NULL;
	unsigned ncol;
	const char *p;
	int rc = 0;

	if (!col)
		return -ENOMEM;
	ncol = header_cols(text, col, 4096, &p);
	row = calloc(ncol + 1, sizeof(*row));
	sum = calloc(ncol + 1, sizeof(*sum));
	if (!row || !sum)
		rc = -ENOMEM;
	while (!rc && *p)
		p = add_row(p, ncol, row, sum);
	for (unsigned i = 0; !rc && i < n; i++) {
		unsigned k = 0;

		while (k < ncol && col[k] != cpus[i])
			k++;
		if (k == ncol)
			rc = -ENOENT;
		else
			counts[i] = sum[k];
	}
	free(col);
	free(row);
	free(sum);
	return rc;
}

int irqs_read(const int *cpus, unsigned n, uint64_t *counts)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f, *m;
	char buf[8192];
	size_t got;
	int rc;

	if (!(f = sysfs_fopen("/proc/interrupts")))
		return -errno;
	if (!(m = open_memstream(&text, &len))) {
		rc = -errno;
		fclose(f);
		return rc;
	}
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, got, m);
	rc = ferror(f) ? -EIO : 0;
	fclose(f);
	fclose(m);
	if (!rc)
		rc = text ? irqs_parse(text, cpus, n, counts) : -ENOMEM;
	free(text);
	return rc;
}
