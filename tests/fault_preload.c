/* SPDX-License-Identifier: MIT */
/*
 * fault_preload.so - fault injection for the end-to-end tests, loaded
 * with LD_PRELOAD into the lockbench under test (never into anything
 * else), so a start-up failure is met on any host, whatever its limits:
 *
 *	LB_FAULT_MAX_THREADS=N   pthread_create() fails with EAGAIN while N
 *	                         threads it started are alive (as under
 *	                         `ulimit -u`, counted in this process only)
 *	LB_FAULT_AFFINITY_CPU=C  sched_setaffinity() fails with EINVAL for a
 *	                         set holding CPU C (as for a CPU taken away
 *	                         by a cpuset)
 *
 * The real functions are reached through dlsym(RTLD_NEXT) (dlsym(3)).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

static atomic_int live;

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *counted(void *p)
{
	struct start s = *(struct start *)p;
	void *ret;

	free(p);
	ret = s.fn(s.arg);
	atomic_fetch_sub(&live, 1);
	return ret;
}

int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	const char *max = getenv("LB_FAULT_MAX_THREADS");
	struct start *s;
	int rc;

	if (!real)
		real = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))
			dlsym(RTLD_NEXT, "pthread_create");
	if (max && atomic_load(&live) >= atoi(max))
		return EAGAIN;
	s = malloc(sizeof(*s));
	if (!s)
		return EAGAIN;
	s->fn = fn;
	s->arg = arg;
	atomic_fetch_add(&live, 1);
	rc = real(th, attr, counted, s);
	if (rc) {
		atomic_fetch_sub(&live, 1);
		free(s);
	}
	return rc;
}

int sched_setaffinity(pid_t pid, size_t size, const cpu_set_t *set)
{
	static int (*real)(pid_t, size_t, const cpu_set_t *);
	const char *cpu = getenv("LB_FAULT_AFFINITY_CPU");

	if (!real)
		real = (int (*)(pid_t, size_t, const cpu_set_t *))dlsym(RTLD_NEXT,
									 "sched_setaffinity");
	if (cpu && CPU_ISSET_S(atoi(cpu), size, set)) {
		errno = EINVAL;
		return -1;
	}
	return real(pid, size, set);
}
