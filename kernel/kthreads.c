// SPDX-License-Identifier: MIT
/*
 * kthreads.c - locktorture's kthreads by name, and their pinning; see
 * kthreads.h.
 */
#define _GNU_SOURCE
#include "kthreads.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../topology/sysfs.h"

/* A /proc entry name that is a pid; its value, else -1. */
static int pid_of(const char *name)
{
	long v = 0;

	if (!*name)
		return -1;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || v > INT_MAX / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v > 0 && v <= INT_MAX ? (int)v : -1;
}

static int by_role_pid(const void *a, const void *b)
{
	const struct kthread_ent *x = a, *y = b;

	if (x->role != y->role)
		return x->role == 'w' ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

int kthreads_find(struct kthread_ent **out, unsigned *n)
{
	char path[PATH_MAX];
	struct kthread_ent *a = NULL;
	unsigned cap = 0;
	struct dirent *d;
	DIR *dir;

	*out = NULL;
	*n = 0;
	if (sysfs_path("/proc", path, sizeof(path)))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir))) {
		char comm[64], cpath[64];
		int pid = pid_of(d->d_name);
		char role;

		if (pid < 0)
			continue;
		snprintf(cpath, sizeof(cpath), "/proc/%d/comm", pid);
		if (sysfs_read_str(cpath, comm, sizeof(comm)))
			continue;	/* exited meanwhile */
		if (!strcmp(comm, KT_WRITER_COMM))
			role = 'w';
		else if (!strcmp(comm, KT_READER_COMM))
			role = 'r';
		else
			continue;
		if (*n == cap) {
			unsigned nc = cap ? 2 * cap : 16;
			struct kthread_ent *t = realloc(a, nc * sizeof(*t));

			if (!t) {
				free(a);
				closedir(dir);
				*n = 0;
				return -ENOMEM;
			}
			a = t;
			cap = nc;
		}
		a[*n].pid = pid;
		a[*n].role = role;
		(*n)++;
	}
	closedir(dir);
	if (*n)
		qsort(a, *n, sizeof(*a), by_role_pid);
	*out = a;
	return 0;
}

int kthread_pin(int pid, int cpu)
{
	cpu_set_t *set;
	size_t size;
	int rc = 0;

	if (cpu < 0)
		return -EINVAL;
	set = CPU_ALLOC((size_t)cpu + 1);
	if (!set)
		return -ENOMEM;
	size = CPU_ALLOC_SIZE((size_t)cpu + 1);
	CPU_ZERO_S(size, set);
	CPU_SET_S((size_t)cpu, size, set);
	if (sched_setaffinity(pid, size, set))
		rc = -errno;
	CPU_FREE(set);
	return rc;
}
