/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the counters module: event names through libpfm4 (the
 * hardware encodings are fixed by the perf ABI, so they are checked
 * without a PMU), the refusal paths with a fake perf_event_open (no
 * PMU, perf_event_paranoid, kernel-mode refused), and real software
 * events on the calling thread: counted while enabled, frozen once
 * disabled.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "../topology/sysfs.h"
#include "../workloads/perf_counters.h"
#include "fakesys.h"

static const struct perf_event_spec *find(const struct perf_set *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->ev[i].name, name))
			return &s->ev[i];
	return NULL;
}

static void test_parse_encodings(void **state)
{
	struct perf_set s;
	char err[256];
	const struct perf_event_spec *e;

	(void)state;
	assert_int_equal(perf_set_parse("cycles,instructions,LLC-load-misses,branch-misses,"
					"context-switches,task-clock,page-faults",
					&s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 7);
	assert_true(s.explicit_list);
	e = find(&s, "cycles");
	assert_non_null(e);
	assert_int_equal(e->type, PERF_TYPE_HARDWARE);
	assert_int_equal(e->config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(find(&s, "instructions")->config, PERF_COUNT_HW_INSTRUCTIONS);
	assert_int_equal(find(&s, "branch-misses")->config, PERF_COUNT_HW_BRANCH_MISSES);
	/* Generic cache events: id | op << 8 | result << 16. */
	e = find(&s, "LLC-load-misses");
	assert_int_equal(e->type, PERF_TYPE_HW_CACHE);
	assert_int_equal(e->config, PERF_COUNT_HW_CACHE_LL |
				    (PERF_COUNT_HW_CACHE_OP_READ << 8) |
				    (PERF_COUNT_HW_CACHE_RESULT_MISS << 16));
	e = find(&s, "context-switches");
	assert_int_equal(e->type, PERF_TYPE_SOFTWARE);
	assert_int_equal(e->config, PERF_COUNT_SW_CONTEXT_SWITCHES);
	assert_int_equal(find(&s, "task-clock")->config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(find(&s, "page-faults")->config, PERF_COUNT_SW_PAGE_FAULTS);

	assert_int_equal(perf_set_parse("auto", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 9);
	assert_false(s.explicit_list);
	assert_non_null(find(&s, "cache-misses"));
	assert_int_equal(perf_set_parse("off", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 0);
}

static void refused(const char *arg, const char *want)
{
	struct perf_set s;
	char err[512] = "";

	assert_int_equal(perf_set_parse(arg, &s, err, sizeof(err)), -EINVAL);
	assert_int_equal(s.n, 0);
	if (!strstr(err, want))
		fail_msg("%s: got '%s', want '%s'", arg, err, want);
}

static void test_parse_errors(void **state)
{
	char many[1024] = "";

	(void)state;
	refused("cycles,bogus-event", "counters (bogus-event): event not found");
	refused("cycles,,task-clock", "empty event name");
	refused(",cycles", "empty event name");
	refused("", "empty event name");
	refused("cycles:zzz", "counters (cycles:zzz): ");
	for (int i = 0; i < PERF_MAX_EVENTS + 1; i++)
		strcat(many, i ? ",task-clock" : "task-clock");
	refused(many, "at most 16 events");
}

/* ---- a fake kernel ---------------------------------------------------- */

static int fake_mode;
enum { NO_PMU, PARANOID, KERNEL_REFUSED };

static int fake_open(struct perf_event_attr *a, pid_t tid, int cpu, int group,
		     unsigned long flags)
{
	bool hw = a->type == PERF_TYPE_HARDWARE || a->type == PERF_TYPE_HW_CACHE ||
		  a->type == PERF_TYPE_RAW;

	(void)tid, (void)cpu, (void)group, (void)flags;
	assert_true(a->disabled);
	if (fake_mode == NO_PMU && hw)
		return -ENOENT;
	if (fake_mode == PARANOID && hw)
		return -EACCES;
	if (fake_mode == KERNEL_REFUSED && !a->exclude_kernel)
		return -EACCES;
	return eventfd(0, EFD_CLOEXEC);
}

static void test_probe_no_pmu(void **state)
{
	struct perf_set s;
	char err[256], note[1024];

	(void)state;
	assert_int_equal(perf_set_parse("auto", &s, err, sizeof(err)), 0);
	s.open = fake_open;
	fake_mode = NO_PMU;
	assert_int_equal(perf_set_probe(&s, note, sizeof(note)), 0);
	assert_int_equal(s.n, 4); /* the software events */
	assert_string_equal(s.ev[0].name, "context-switches");
	assert_int_equal(s.nrefused, 5);
	assert_string_equal(s.refused[4].name, "branch-misses");
	/* One reason, so one group. */
	assert_string_equal(note, "cycles, instructions, cache-misses, LLC-load-misses, "
			    "branch-misses: no such event on this machine (no PMU "
			    "exposed, e.g. a VM without a virtual PMU)");

	/* Named explicitly: the caller's exit 3. */
	assert_int_equal(perf_set_parse("task-clock,cycles", &s, err, sizeof(err)), 0);
	s.open = fake_open;
	assert_int_equal(perf_set_probe(&s, note, sizeof(note)), -ENOENT);
	assert_int_equal(s.n, 1);
	assert_non_null(strstr(note, "cycles: no such event"));
}

static void test_probe_paranoid(void **state)
{
	struct perf_set s;
	struct fake f;
	struct fake_opts fo = {.flavour = FAKE_NOFREQ};
	char err[256], note[1024];

	(void)state;
	assert_int_equal(fake_create(&f, &fo), 0);
	assert_int_equal(fake_put(&f, "/proc/sys/kernel/perf_event_paranoid", "3"), 0);
	assert_int_equal(sysfs_set_root(f.root), 0);
	assert_int_equal(perf_set_parse("cycles,page-faults,instructions", &s, err,
					sizeof(err)), 0);
	s.open = fake_open;
	fake_mode = PARANOID;
	assert_int_equal(perf_set_probe(&s, note, sizeof(note)), -EACCES);
	assert_false(s.exclude_kernel); /* user-only did not help either */
	assert_string_equal(note, "cycles, instructions: not permitted "
			    "(kernel.perf_event_paranoid=3, no CAP_PERFMON)");
	sysfs_set_root("");
	fake_destroy(&f);

	/* Only kernel-mode counting refused: count user space, keep all. */
	assert_int_equal(perf_set_parse("cycles,task-clock", &s, err, sizeof(err)), 0);
	s.open = fake_open;
	fake_mode = KERNEL_REFUSED;
	assert_int_equal(perf_set_probe(&s, note, sizeof(note)), 0);
	assert_true(s.exclude_kernel);
	assert_int_equal(s.n, 2);
	assert_string_equal(note, "");
}

static void test_run_open_failure(void **state)
{
	struct perf_set s;
	struct perf_run *r = (void *)1;
	pid_t tids[2] = {gettid(), gettid()};
	char err[256];

	(void)state;
	assert_int_equal(perf_set_parse("task-clock,cycles", &s, err, sizeof(err)), 0);
	s.open = fake_open;
	fake_mode = NO_PMU;
	assert_int_equal(perf_run_open(&s, tids, 2, &r, err, sizeof(err)), -ENOENT);
	assert_null(r);
	assert_string_equal(err, "lockbench: counters: opening cycles for thread 0 "
			    "failed: no such event on this machine (no PMU exposed, "
			    "e.g. a VM without a virtual PMU)");
	s.n = 0;
	assert_int_equal(perf_run_open(&s, tids, 2, &r, err, sizeof(err)), 0);
	assert_null(r); /* no events: nothing to do, and the hooks accept NULL */
	perf_run_enable(r);
	perf_run_disable(r);
	perf_run_close(r);
}

/* ---- the real kernel: software events ------------------------------- */

static void burn(void)
{
	for (volatile unsigned i = 0; i < 20000000; i++)
		;
}

static void test_software_events(void **state)
{
	struct perf_set s;
	struct perf_run *r;
	pid_t tid = gettid();
	char err[256], note[512];
	double v[2], w[2];
	bool scaled;

	(void)state;
	assert_int_equal(perf_set_parse("task-clock,context-switches", &s, err, sizeof(err)), 0);
	if (perf_set_probe(&s, note, sizeof(note))) {
		/* A kernel that refuses even software events (paranoid 3 in a
		 * container): the refusal path above covers what matters. */
		print_message("software events refused here (%s): skipped\n", note);
		skip();
	}
	assert_int_equal(perf_run_open(&s, &tid, 1, &r, err, sizeof(err)), 0);
	assert_non_null(r);
	burn(); /* before the window: not counted */
	perf_run_enable(r);
	burn();
	for (int i = 0; i < 20; i++)
		usleep(100); /* sleeping switches the context */
	perf_run_disable(r);
	assert_int_equal(perf_run_read(r, v, &scaled), 0);
	burn(); /* after the window: not counted */
	assert_int_equal(perf_run_read(r, w, &scaled), 0);
	perf_run_close(r);
	assert_true(v[0] > 1e6);           /* ns of CPU time: the busy loop */
	assert_true(v[1] >= 20);           /* one switch per sleep at least */
	assert_true(w[0] == v[0] && w[1] == v[1]); /* disabled means frozen */
	assert_false(scaled);              /* software events never multiplex */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_encodings),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_probe_no_pmu),
		cmocka_unit_test(test_probe_paranoid),
		cmocka_unit_test(test_run_open_failure),
		cmocka_unit_test(test_software_events),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
