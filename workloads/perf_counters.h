/* SPDX-License-Identifier: MIT */
/*
 * perf_counters - hardware and software counters of the workers over
 * the measured window, through perf_event_open(2).  Event names are
 * resolved by libpfm4, so `--counters` takes the names `perf list`
 * shows (cycles, LLC-load-misses, context-switches, and the CPU's own
 * PMU events such as amd64_fam19h_zen3::RETIRED_INSTRUCTIONS).
 *
 * The monitor thread opens one counter per event per worker (by the
 * worker's thread id, not inherited, not grouped so one refused event
 * cannot take the others down), enables them all when the window opens
 * and disables them when it closes: the workers' loops make no
 * syscall for it.  Values are scaled by time enabled / time running
 * when the kernel multiplexes a PMU, and the run records that it did.
 */
#ifndef LOCKBENCH_PERF_COUNTERS_H
#define LOCKBENCH_PERF_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PERF_MAX_EVENTS 16
#define PERF_NAME_MAX 96

struct perf_event_attr;

/* perf_event_open(2) as a function, so tests can play the kernel. */
typedef int (*perf_open_fn)(struct perf_event_attr *attr, pid_t tid, int cpu,
			    int group_fd, unsigned long flags);

struct perf_event_spec {
	char name[PERF_NAME_MAX]; /* as the user wrote it */
	uint32_t type;            /* perf_event_attr.type, from libpfm4 */
	uint64_t config, config1, config2;
};

struct perf_set {
	unsigned n;
	struct perf_event_spec ev[PERF_MAX_EVENTS];
	/* Named with --counters LIST: a refused event is an error (exit 3)
	 * rather than a note. */
	bool explicit_list;
	/* Count user space only: set by perf_set_probe() when the kernel
	 * refuses kernel-mode counting (perf_event_paranoid >= 2 without
	 * CAP_PERFMON) but allows user-mode. */
	bool exclude_kernel;
	perf_open_fn open;        /* NULL: the real system call */
	/* What perf_set_probe() dropped, and why. */
	unsigned nrefused;
	struct perf_refusal {
		char name[PERF_NAME_MAX];
		char reason[128];
	} refused[PERF_MAX_EVENTS];
};

/*
 * Parse a --counters argument into @s: "off" (no events), "auto" (the
 * default set, refusals only noted) or a comma-separated list of event
 * names, each encoded by libpfm4.  Returns 0, or -EINVAL with @err set
 * to one line "counters (NAME): why" (unknown event, too many, a name
 * too long or an empty item).
 */
int perf_set_parse(const char *arg, struct perf_set *s, char *err, size_t len);

/*
 * Try each event of @s on the calling thread and drop those the kernel
 * refuses (and, with events left, raise the soft limit of open files to
 * the hard one: each worker gets one file per event).  @note (may be NULL) gets one line naming the dropped events
 * and why ("cycles, instructions: no such event on this machine ..."),
 * "" when none was dropped.  Returns 0, or, when @s->explicit_list and
 * some event was refused, -errno of the first refusal with @note saying
 * which ones and why (the caller exits 3).
 */
int perf_set_probe(struct perf_set *s, char *note, size_t len);

/* The refused events as one line into @buf, those refused for the same
 * reason grouped: "cycles, instructions: no such event ...".  "" when
 * none.  Returns @buf. */
const char *perf_refusals_text(const struct perf_set *s, char *buf, size_t len);

/* The counters of one run: one per event per worker. */
struct perf_run;

/*
 * Open every event of @s for each of the @n threads @tids, disabled.
 * Returns 0 and *@out (NULL when @s has no events), or -errno with @err
 * set ("lockbench: counters: opening NAME for thread T failed: why").
 */
int perf_run_open(const struct perf_set *s, const pid_t *tids, unsigned n,
		  struct perf_run **out, char *err, size_t len);
/* Reset and start every counter / stop every counter.  NULL: no-op. */
void perf_run_enable(struct perf_run *r);
void perf_run_disable(struct perf_run *r);
/*
 * Sum each event over the threads into @totals[s->n] (scaled when
 * multiplexed; *@scaled then true).  Returns 0 or -errno.
 */
int perf_run_read(struct perf_run *r, double *totals, bool *scaled);
void perf_run_close(struct perf_run *r);

#endif
