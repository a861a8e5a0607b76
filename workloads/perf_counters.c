/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../topology/sysfs.h"
#include "perf_counters.h"

/* The events of `--counters auto` (the default): cycles, instructions,
 * cache and LLC misses, branch misses, then the software events: what
 * the published lock discussions explain their numbers with (names as
 * `perf list` spells them). */
static const char *const perf_default_events =
	"cycles,instructions,cache-misses,LLC-load-misses,branch-misses,"
	"context-switches,cpu-migrations,page-faults,task-clock";

static int sys_perf_open(struct perf_event_attr *attr, pid_t tid, int cpu,
			 int group_fd, unsigned long flags)
{
	long fd = syscall(SYS_perf_event_open, attr, tid, cpu, group_fd, flags);

	return fd < 0 ? -errno : (int)fd;
}

static perf_open_fn open_of(const struct perf_set *s)
{
	return s->open ? s->open : sys_perf_open;
}

/* libpfm4 is initialised once; its tables are read-only afterwards. */
static int pfm_ready(char *err, size_t len)
{
	static int rc = -1;

	if (rc < 0)
		rc = pfm_initialize();
	if (rc != PFM_SUCCESS) {
		snprintf(err, len, "counters: libpfm4 failed to initialise: %s",
			 pfm_strerror(rc));
		return -EINVAL;
	}
	return 0;
}

/* Encode one event name through libpfm4 into @e. */
static int encode(const char *name, struct perf_event_spec *e, char *err, size_t len)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int rc;

	if (strlen(name) >= sizeof(e->name)) {
		snprintf(err, len, "counters (%.40s...): name too long", name);
		return -EINVAL;
	}
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.size = sizeof(arg);
	rc = pfm_get_os_event_encoding(name, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg);
	if (rc != PFM_SUCCESS) {
		snprintf(err, len, "counters (%s): %s (names as `perf list` shows them)",
			 name, pfm_strerror(rc));
		return -EINVAL;
	}
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->type = attr.type;
	e->config = attr.config;
	e->config1 = attr.config1;
	e->config2 = attr.config2;
	return 0;
}

int perf_set_parse(const char *arg, struct perf_set *s, char *err, size_t len)
{
	char *copy, *save = NULL;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	if (!strcmp(arg, "off"))
		return 0;
	s->explicit_list = strcmp(arg, "auto") != 0;
	if (!s->explicit_list)
		arg = perf_default_events;
	if ((rc = pfm_ready(err, len)))
		return rc;
	copy = strdup(arg);
	if (!copy)
		return -ENOMEM;
	/* strtok_r would skip empty items; find them first. */
	if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,")) {
		snprintf(err, len, "counters (%s): empty event name in the list", arg);
		rc = -EINVAL;
	}
	for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
		if (s->n == PERF_MAX_EVENTS) {
			snprintf(err, len, "counters (%s): at most %d events", t, PERF_MAX_EVENTS);
			rc = -EINVAL;
		} else {
			rc = encode(t, &s->ev[s->n], err, len);
			s->n += !rc;
		}
	}
	free(copy);
	if (rc)
		s->n = 0;
	return rc;
}

static void attr_of(const struct perf_set *s, const struct perf_event_spec *e,
		    struct perf_event_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = e->type;
	a->config = e->config;
	a->config1 = e->config1;
	a->config2 = e->config2;
	a->disabled = 1;
	a->exclude_hv = 1;
	a->exclude_kernel = s->exclude_kernel;
	a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
}

/* Why the kernel refused an event with -@err, in a few words. */
static const char *perf_refusal_reason(int err, char *buf, size_t len)
{
	char lvl[32];

	switch (err) {
	case ENOENT:
	case ENODEV:
		return "no such event on this machine (no PMU exposed, e.g. a VM "
		       "without a virtual PMU)";
	case EACCES:
	case EPERM:
		if (sysfs_read_str("/proc/sys/kernel/perf_event_paranoid", lvl, sizeof(lvl)))
			snprintf(lvl, sizeof(lvl), "?");
		snprintf(buf, len, "not permitted (kernel.perf_event_paranoid=%s, "
			 "no CAP_PERFMON)", lvl);
		return buf;
	case EOPNOTSUPP:
		return "not supported by this PMU";
	case EINVAL:
		return "the kernel rejected the event's encoding";
	case EBUSY:
		return "the PMU is busy (another user holds it exclusively)";
	case EMFILE:
		return "too many open files (ulimit -n)";
	default:
		snprintf(buf, len, "%s", strerror(err));
		return buf;
	}
}

/* Open @e on the calling thread and close it again: 0 or -errno. */
static int try_event(const struct perf_set *s, const struct perf_event_spec *e)
{
	struct perf_event_attr a;
	int fd;

	attr_of(s, e, &a);
	fd = open_of(s)(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* Append "name" to the note, grouping events refused for one reason. */
static void note_add(char *note, size_t len, const char *name, const char *why,
		     const char **last_why)
{
	size_t used = strlen(note);

	if (used >= len - 1)
		return;
	if (*last_why && !strcmp(*last_why, why)) {
		/* Same reason as the previous one: insert before ": why". */
		char *colon = note + used - strlen(why) - 2;

		snprintf(colon, len - (size_t)(colon - note), ", %s: %s", name, why);
	} else {
		snprintf(note + used, len - used, "%s%s: %s", used ? "; " : "", name, why);
	}
	*last_why = why;
}

const char *perf_refusals_text(const struct perf_set *s, char *buf, size_t len)
{
	const char *last = NULL;

	*buf = '\0';
	for (unsigned i = 0; i < s->nrefused; i++)
		note_add(buf, len, s->refused[i].name, s->refused[i].reason, &last);
	return buf;
}

/* One counter per event per worker: 9 events at 1024 threads is more
 * than the usual soft limit of 1024 open files, so use the hard one. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int perf_set_probe(struct perf_set *s, char *note, size_t len)
{
	char scratch[1024], why[128];
	int first = 0, rc[PERF_MAX_EVENTS];
	unsigned kept = 0;

	if (!note) {
		note = scratch;
		len = sizeof(scratch);
	}
	*note = '\0';
	s->nrefused = 0;
	if (s->n)
		raise_fd_limit();
	for (unsigned i = 0; i < s->n; i++) {
		rc[i] = try_event(s, &s->ev[i]);
		/* Refused for kernel-mode counting only: count user space. */
		if ((rc[i] == -EACCES || rc[i] == -EPERM) && !s->exclude_kernel) {
			s->exclude_kernel = true;
			rc[i] = try_event(s, &s->ev[i]);
			if (rc[i])
				s->exclude_kernel = false;
		}
	}
	for (unsigned i = 0; i < s->n; i++) {
		struct perf_refusal *f = &s->refused[s->nrefused];

		if (!rc[i]) {
			s->ev[kept++] = s->ev[i];
			continue;
		}
		memcpy(f->name, s->ev[i].name, sizeof(f->name));
		snprintf(f->reason, sizeof(f->reason), "%s",
			 perf_refusal_reason(-rc[i], why, sizeof(why)));
		s->nrefused++;
		if (!first)
			first = rc[i];
	}
	s->n = kept;
	perf_refusals_text(s, note, len);
	return s->explicit_list ? first : 0;
}

struct perf_run {
	unsigned nev, nthreads;
	int fd[];                 /* [nthreads * nev], -1 when not open */
};

int perf_run_open(const struct perf_set *s, const pid_t *tids, unsigned n,
		  struct perf_run **out, char *err, size_t len)
{
	struct perf_run *r;
	char buf[128];

	*out = NULL;
	if (!s || !s->n)
		return 0;
	r = malloc(sizeof(*r) + sizeof(int) * s->n * n);
	if (!r)
		return -ENOMEM;
	r->nev = s->n;
	r->nthreads = n;
	for (unsigned i = 0; i < s->n * n; i++)
		r->fd[i] = -1;
	for (unsigned t = 0; t < n; t++) {
		for (unsigned e = 0; e < s->n; e++) {
			struct perf_event_attr a;
			int fd;

			attr_of(s, &s->ev[e], &a);
			fd = open_of(s)(&a, tids[t], -1, -1, PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				snprintf(err, len, "lockbench: counters: opening %s for "
					 "thread %u failed: %s", s->ev[e].name, t,
					 perf_refusal_reason(-fd, buf, sizeof(buf)));
				perf_run_close(r);
				return fd;
			}
			r->fd[t * s->n + e] = fd;
		}
	}
	*out = r;
	return 0;
}

void perf_run_enable(struct perf_run *r)
{
	for (unsigned i = 0; r && i < r->nev * r->nthreads; i++) {
		ioctl(r->fd[i], PERF_EVENT_IOC_RESET, 0);
		ioctl(r->fd[i], PERF_EVENT_IOC_ENABLE, 0);
	}
}

void perf_run_disable(struct perf_run *r)
{
	for (unsigned i = 0; r && i < r->nev * r->nthreads; i++)
		ioctl(r->fd[i], PERF_EVENT_IOC_DISABLE, 0);
}

int perf_run_read(struct perf_run *r, double *totals, bool *scaled)
{
	*scaled = false;
	if (!r)
		return 0;
	for (unsigned e = 0; e < r->nev; e++)
		totals[e] = 0;
	for (unsigned t = 0; t < r->nthreads; t++) {
		for (unsigned e = 0; e < r->nev; e++) {
			/* value, time enabled, time running (read_format). */
			uint64_t v[3];

			if (read(r->fd[t * r->nev + e], v, sizeof(v)) != (ssize_t)sizeof(v))
				return -EIO;
			if (v[1] && !v[2]) {
				/* Enabled but never on the PMU: unknown. */
				totals[e] = NAN;
				*scaled = true;
			} else if (v[2] && v[2] < v[1]) {
				totals[e] += (double)v[0] * ((double)v[1] / (double)v[2]);
				*scaled = true;
			} else {
				totals[e] += (double)v[0];
			}
		}
	}
	return 0;
}

void perf_run_close(struct perf_run *r)
{
	if (!r)
		return;
	for (unsigned i = 0; i < r->nev * r->nthreads; i++)
		if (r->fd[i] >= 0)
			close(r->fd[i]);
	free(r);
}
