// SPDX-License-Identifier: MIT
/*
 * kthreads.c - locktorture's kthreads by name, and their pinning; see
 * kthreads.h.
 */
#define _GNU_SOURCE
#include "kthreads.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../topology/sysfs.h"

static int by_role_pid(const void *a, const void *b)
{
	const struct kthread_ent *x = a, *y = b;

	if (x->role != y->role)
		return x->role == 'w' ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* What kthreads_find collects. */
struct found {
	struct kthread_ent *a;
	unsigned n, cap;
};

static int collect(int pid, const char *comm, void *arg)
{
	struct found *f = arg;
	char role;

	if (!strcmp(comm, KT_WRITER_COMM) || !strcmp(comm, KT_WRITER_NAME))
		role = 'w';
	else if (!strcmp(comm, KT_READER_COMM) || !strcmp(comm, KT_READER_NAME))
		role = 'r';
	else
		return 0;
	if (f->n == f->cap) {
		unsigned nc = f->cap ? 2 * f->cap : 16;
		struct kthread_ent *t = realloc(f->a, nc * sizeof(*t));

		if (!t)
			return -ENOMEM;
		f->a = t;
		f->cap = nc;
	}
	f->a[f->n].pid = pid;
	f->a[f->n].role = role;
	f->n++;
	return 0;
}

int kthreads_find(struct kthread_ent **out, unsigned *n)
{
	struct found f = {0};
	int rc = sysfs_each_process(collect, &f);

	*out = NULL;
	*n = 0;
	if (rc < 0) {
		free(f.a);
		return rc;
	}
	if (f.n)
		qsort(f.a, f.n, sizeof(*f.a), by_role_pid);
	*out = f.a;
	*n = f.n;
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
