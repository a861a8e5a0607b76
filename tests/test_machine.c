/* SPDX-License-Identifier: MIT */
/*
 * test_machine.c - machine control against fake /sys and /proc trees.
 *
 * Every test builds its own tree (tests/fakesys) and points the sysfs
 * root and the state file into it; the real /sys and /proc are never
 * read for a result nor written.  Between tests the root points at a
 * directory that does not exist.
 *
 * "Not permitted" as root: chmod does not stop root, so tests either
 * replace an attribute by a directory (open(O_WRONLY) fails with EISDIR,
 * after the reads succeeded) or fork a child that drops to uid 65534
 * and then meets 0444 files (EACCES), as an unprivileged user would.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "../cli/machctl.h"
#include "../output/render/render.h"
#include "fakesys/fakesys.h"
#include "machine.h"
#include "sysfs.h"

#define CPU "/sys/devices/system/cpu"
#define GOV(n) CPU "/cpu" #n "/cpufreq/scaling_governor"
#define SETSPEED(n) CPU "/cpu" #n "/cpufreq/scaling_setspeed"
#define SMIN(n) CPU "/cpu" #n "/cpufreq/scaling_min_freq"
#define SMAX(n) CPU "/cpu" #n "/cpufreq/scaling_max_freq"
#define BOOST CPU "/cpufreq/boost"
#define NO_TURBO CPU "/intel_pstate/no_turbo"
#define NUMA "/proc/sys/kernel/numa_balancing"
#define NOWHERE "/nonexistent/lockbench-test-root"

static const int cpus4[] = { 0, 1, 2, 3 };
static const struct machine_req req_auto = { FREQ_AUTO, 0, NB_AUTO };

/* The value of @rel in @f's tree, in a rotating static buffer. */
static const char *get(const struct fake *f, const char *rel)
{
	static char bufs[8][256];
	static unsigned i;

	return fake_get(f, rel, bufs[i++ % 8], sizeof(bufs[0]));
}

static int file_exists(const char *path)
{
	return access(path, F_OK) == 0;
}

/* Build a tree with @o and point the module at it. */
static int setup_with(void **state, const struct fake_opts *o)
{
	struct fake *f = calloc(1, sizeof(*f));

	if (!f || fake_create(f, o))
		return -1;
	if (sysfs_set_root(f->root) || machine_set_state_path(f->state))
		return -1;
	*state = f;
	return 0;
}

static int setup_acpi(void **state)
{
	return setup_with(state, &(struct fake_opts){ .flavour = FAKE_ACPI });
}

static int setup_pstate(void **state)
{
	return setup_with(state, &(struct fake_opts){ .flavour = FAKE_PSTATE });
}

static int setup_nofreq(void **state)
{
	return setup_with(state, &(struct fake_opts){ .flavour = FAKE_NOFREQ,
						      .no_irqbalance = true });
}

static int setup_shared(void **state)
{
	return setup_with(state, &(struct fake_opts){ .flavour = FAKE_ACPI,
						      .shared_policy = true });
}

static int setup_arm(void **state)
{
	return setup_with(state, &(struct fake_opts){ .flavour = FAKE_NOFREQ,
						      .arm64 = true });
}

/* Undo what a test left, then drop the tree. */
static int teardown(void **state)
{
	struct fake *f = *state;

	machine_restore();
	sysfs_set_root(NOWHERE);
	machine_set_state_path(NOWHERE "/state.json");
	fake_destroy(f);
	free(f);
	return 0;
}

/*
 * Assert that the acpi tree of @f is as fake_create() made it.
 * scaling_setspeed included: the kernel shows "<unsupported>" again by
 * itself once the governor is no longer userspace, which a fake tree
 * cannot do, so the restore writes it back (a kernel refuses it, which
 * the restore does not count as a failure).
 */
static void make_unwritable(const struct fake *f, const char *rel);

static void assert_acpi_pristine(const struct fake *f)
{
	assert_string_equal(get(f, SETSPEED(0)), "<unsupported>");
	assert_string_equal(get(f, SETSPEED(3)), "<unsupported>");
	assert_string_equal(get(f, GOV(0)), "schedutil");
	assert_string_equal(get(f, GOV(3)), "schedutil");
	assert_string_equal(get(f, SMIN(2)), "800000");
	assert_string_equal(get(f, SMAX(2)), "3600000");
	assert_string_equal(get(f, BOOST), "1");
	assert_string_equal(get(f, NUMA), "1");
}

/* ---- sysfs ---------------------------------------------------------- */

static void test_sysfs_root(void **state)
{
	struct fake *f = *state;
	char buf[64], path[512];
	uint64_t v = 7;

	assert_int_equal(sysfs_read_str(GOV(0), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "schedutil");	/* newline stripped */
	assert_int_equal(sysfs_read_u64(SMAX(0), &v), 0);
	assert_int_equal(v, 3600000);
	assert_int_equal(sysfs_read_u64(SETSPEED(0), &v), -EINVAL);
	assert_int_equal(v, 3600000);
	assert_int_equal(sysfs_read_str("/sys/nope", buf, sizeof(buf)),
			 -ENOENT);
	assert_int_equal(sysfs_write_str("/sys/nope", "1"), -ENOENT);
	assert_int_equal(sysfs_write_str(SMIN(0), "900000"), 0);
	assert_string_equal(get(f, SMIN(0)), "900000");

	/* A trailing slash on the root is dropped. */
	snprintf(path, sizeof(path), "%s/", f->root);
	assert_int_equal(sysfs_set_root(path), 0);
	assert_string_equal(sysfs_root(), f->root);
}

/* ---- --freq --------------------------------------------------------- */

static void test_parse_freq_good(void **state)
{
	static const struct {
		const char *s;
		unsigned long khz;
	} ok[] = {
		{ "1500MHz", 1500000 },	{ "1.5GHz", 1500000 },
		{ "1500000kHz", 1500000 }, { "1500000", 1500000 },
		{ "2.25 ghz", 2250000 },	{ "800mhz", 800000 },
		{ "3GHz", 3000000 },	{ "1.0005GHz", 1000500 },
	};
	struct machine_req r;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		memset(&r, 0, sizeof(r));
		assert_int_equal(machine_parse_freq(ok[i].s, &r), 0);
		assert_int_equal(r.freq, FREQ_FIXED);
		assert_int_equal(r.khz, ok[i].khz);
	}
	assert_int_equal(machine_parse_freq("auto", &r), 0);
	assert_int_equal(r.freq, FREQ_AUTO);
	assert_int_equal(machine_parse_freq("off", &r), 0);
	assert_int_equal(r.freq, FREQ_OFF);
}

static void test_parse_freq_bad(void **state)
{
	static const char *const bad[] = {
		"", "0", "0MHz", "-1500MHz", "1.5", "1.5kHz", "1500Hz",
		"1500 MHz x", "GHz", "1..5GHz", "1.GHz", "fast", "Auto",
		"1e9", "101GHz", "99999999999999999999", "1500MHzz", " 1500",
	};
	struct machine_req r = { FREQ_OFF, 42, NB_KEEP };

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(machine_parse_freq(bad[i], &r), -EINVAL);
		assert_int_equal(r.freq, FREQ_OFF);	/* untouched */
		assert_int_equal(r.khz, 42);
	}
}

/* ---- tune and restore ----------------------------------------------- */

/* Load the state file of @f as JSON (NULL when missing). */
static json_t *load_state(const struct fake *f)
{
	return json_load_file(f->state, 0, NULL);
}

/* The entry of @changes whose path is @path, or NULL. */
static json_t *change_of(json_t *changes, const char *path)
{
	size_t i;
	json_t *c;

	json_array_foreach(changes, i, c)
		if (!strcmp(json_string_value(json_object_get(c, "path")), path))
			return c;
	return NULL;
}

static void test_tune_userspace_auto(void **state)
{
	struct fake *f = *state;
	json_t *changes = NULL, *st, *c;
	char msg[512];

	assert_int_equal(machine_tune(&req_auto, cpus4, 4, &changes, msg,
				      sizeof(msg)), 0);
	assert_string_equal(msg, "");
	/* auto = cpuinfo_max_freq with boost off, via userspace+setspeed */
	for (int i = 0; i < 4; i++) {
		char g[128], s[128];

		snprintf(g, sizeof(g), CPU "/cpu%d/cpufreq/scaling_governor", i);
		snprintf(s, sizeof(s), CPU "/cpu%d/cpufreq/scaling_setspeed", i);
		assert_string_equal(get(f, g), "userspace");
		assert_string_equal(get(f, s), "3600000");
	}
	assert_string_equal(get(f, SMIN(0)), "800000");	/* untouched */
	assert_string_equal(get(f, BOOST), "0");
	assert_string_equal(get(f, NUMA), "0");

	/* changes: boost, 4 x (governor, setspeed), numa */
	assert_int_equal(json_array_size(changes), 10);
	c = change_of(changes, GOV(2));
	assert_non_null(c);
	assert_string_equal(json_string_value(json_object_get(c, "old")),
			    "schedutil");
	assert_string_equal(json_string_value(json_object_get(c, "new")),
			    "userspace");
	assert_string_equal(json_string_value(json_object_get(change_of(changes,
				SETSPEED(2)), "old")), "<unsupported>");
	json_decref(changes);

	/* The state file exists during the run and holds the old values. */
	st = load_state(f);
	assert_non_null(st);
	assert_int_equal(json_integer_value(json_object_get(st, "pid")),
			 getpid());
	assert_string_equal(json_string_value(json_object_get(st, "root")),
			    f->root);
	c = change_of(json_object_get(st, "changes"), BOOST);
	assert_string_equal(json_string_value(json_object_get(c, "old")), "1");
	c = change_of(json_object_get(st, "changes"), NUMA);
	assert_string_equal(json_string_value(json_object_get(c, "old")), "1");
	json_decref(st);

	assert_int_equal(machine_restore(), 0);
	assert_acpi_pristine(f);
	assert_false(file_exists(f->state));
	assert_int_equal(machine_restore(), 0);	/* idempotent */
	assert_acpi_pristine(f);
}

/* A kernel refuses "<unsupported>" as a setspeed (here: a directory
 * where the file was): the restore still succeeds and ends the state
 * file, while a refused governor would keep it. */
static void test_restore_setspeed_refused(void **state)
{
	struct fake *f = *state;
	char msg[512];

	assert_int_equal(machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(get(f, SETSPEED(1)), "3600000");
	make_unwritable(f, SETSPEED(1));
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, GOV(1)), "schedutil");
	assert_string_equal(get(f, SETSPEED(0)), "<unsupported>");
	assert_false(file_exists(f->state));
	snprintf(msg, sizeof(msg), "%s%s", f->root, SETSPEED(1));
	assert_int_equal(rmdir(msg), 0);
	fake_put(f, SETSPEED(1), "<unsupported>");
	assert_int_equal(machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg)), 0);
	make_unwritable(f, GOV(2));
	assert_int_not_equal(machine_restore(), 0);
	assert_true(file_exists(f->state));	/* kept for system reset */
	snprintf(msg, sizeof(msg), "%s%s", f->root, GOV(2));
	assert_int_equal(rmdir(msg), 0);
	fake_put(f, GOV(2), "userspace");
	assert_int_equal(machine_restore(), 0);
	assert_false(file_exists(f->state));
}

static void test_tune_fixed(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_FIXED, 0, NB_KEEP };
	char msg[512];

	assert_int_equal(machine_parse_freq("1.5GHz", &r), 0);
	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(get(f, GOV(1)), "userspace");
	assert_string_equal(get(f, SETSPEED(1)), "1500000");
	assert_string_equal(get(f, BOOST), "0");
	assert_string_equal(get(f, NUMA), "1");		/* NB_KEEP */
	assert_int_equal(machine_restore(), 0);
	assert_acpi_pristine(f);
}

static void test_tune_fixed_out_of_range(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_FIXED, 5000000, NB_AUTO };
	char msg[512];

	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)),
			 -ERANGE);
	assert_non_null(strstr(msg, "lockbench: --freq (5000000 kHz): outside"));
	assert_non_null(strstr(msg, "800000-3600000 kHz"));
	assert_null(strchr(msg, '\n'));
	/* Boost was turned off before the range check: put back. */
	assert_acpi_pristine(f);
	assert_false(file_exists(f->state));
}

/* Setspeed widens scaling_max_freq first when it is below the target. */
static void test_tune_widens_limits(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_FIXED, 3000000, NB_KEEP };
	json_t *changes;
	char msg[512];

	fake_put(f, SMAX(0), "2000000");
	assert_int_equal(machine_tune(&r, cpus4, 1, &changes, msg, sizeof(msg)),
			 0);
	assert_string_equal(get(f, SMAX(0)), "3000000");
	assert_string_equal(get(f, SETSPEED(0)), "3000000");
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(changes, 1), "path")), SMAX(0));
	json_decref(changes);
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, SMAX(0)), "2000000");
	assert_string_equal(get(f, GOV(0)), "schedutil");
}

/* Already under userspace: the old setspeed is recorded and restored. */
static void test_tune_userspace_already(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_FIXED, 1200000, NB_KEEP };
	char msg[512];

	fake_put(f, GOV(0), "userspace");
	fake_put(f, SETSPEED(0), "2000000");
	assert_int_equal(machine_tune(&r, cpus4, 1, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(get(f, SETSPEED(0)), "1200000");
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, GOV(0)), "userspace");
	assert_string_equal(get(f, SETSPEED(0)), "2000000");
}

/* intel_pstate: no userspace governor -> min = max, no_turbo = 1. */
static void test_tune_minmax_pstate(void **state)
{
	struct fake *f = *state;
	json_t *changes;
	char msg[512];

	assert_int_equal(machine_tune(&req_auto, cpus4, 4, &changes, msg,
				      sizeof(msg)), 0);
	assert_string_equal(get(f, NO_TURBO), "1");
	for (int i = 0; i < 4; i++) {
		char lo[128], hi[128];

		snprintf(lo, sizeof(lo), CPU "/cpu%d/cpufreq/scaling_min_freq", i);
		snprintf(hi, sizeof(hi), CPU "/cpu%d/cpufreq/scaling_max_freq", i);
		/* auto = base_frequency, not the turbo cpuinfo_max_freq */
		assert_string_equal(get(f, lo), "2800000");
		assert_string_equal(get(f, hi), "2800000");
	}
	assert_string_equal(get(f, GOV(0)), "powersave");	/* untouched */
	/* Target below max: min is raised first, then max lowered. */
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(changes, 1), "path")), SMIN(0));
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(changes, 2), "path")), SMAX(0));
	json_decref(changes);
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, NO_TURBO), "0");
	assert_string_equal(get(f, SMIN(3)), "800000");
	assert_string_equal(get(f, SMAX(3)), "4200000");
	assert_string_equal(get(f, NUMA), "1");
}

/* min = max above the current max: max is raised first. */
static void test_tune_minmax_raise(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_FIXED, 4000000, NB_KEEP };
	json_t *changes;
	char msg[512];

	fake_put(f, SMAX(0), "3000000");
	assert_int_equal(machine_tune(&r, cpus4, 1, &changes, msg, sizeof(msg)),
			 0);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(changes, 1), "path")), SMAX(0));
	assert_string_equal(get(f, SMIN(0)), "4000000");
	assert_string_equal(get(f, SMAX(0)), "4000000");
	json_decref(changes);
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, SMIN(0)), "800000");
	assert_string_equal(get(f, SMAX(0)), "3000000");
}

/* CPUs sharing a policy (cpuN/cpufreq -> ../cpufreq/policyM) tune once. */
static void test_tune_shared_policy(void **state)
{
	struct fake *f = *state;
	static const int dup[] = { 0, 1, 2, 3, 3, 0 };
	json_t *changes;
	char msg[512];

	assert_int_equal(machine_tune(&req_auto, dup, 6, &changes, msg,
				      sizeof(msg)), 0);
	/* boost + 2 policies x (governor, setspeed) + numa */
	assert_int_equal(json_array_size(changes), 6);
	assert_non_null(change_of(changes, CPU "/cpufreq/policy2/scaling_governor"));
	assert_string_equal(get(f, GOV(3)), "userspace");	/* via link */
	json_decref(changes);
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, GOV(3)), "schedutil");
	assert_string_equal(get(f, GOV(0)), "schedutil");
}

static void test_tune_numa_only(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_OFF, 0, NB_OFF };
	char msg[512];

	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(get(f, NUMA), "0");
	assert_string_equal(get(f, GOV(0)), "schedutil");
	assert_string_equal(get(f, BOOST), "1");
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, NUMA), "1");

	/* Nothing asked: nothing done, no state file. */
	r.numa_balancing = NB_KEEP;
	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)), 0);
	assert_false(file_exists(f->state));
}

/* Already as wanted: nothing written, nothing recorded, no state file. */
static void test_tune_nothing_to_do(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_OFF, 0, NB_OFF };
	json_t *changes;
	char msg[512];

	fake_put(f, NUMA, "0");
	assert_int_equal(machine_tune(&r, cpus4, 4, &changes, msg, sizeof(msg)),
			 0);
	assert_true(json_is_array(changes));
	assert_int_equal(json_array_size(changes), 0);
	json_decref(changes);
	assert_false(file_exists(f->state));

	r.numa_balancing = NB_KEEP;
	assert_int_equal(machine_tune(&r, cpus4, 4, &changes, msg, sizeof(msg)),
			 0);
	assert_true(json_is_array(changes));
	json_decref(changes);
}

/* ---- failures ------------------------------------------------------- */

/* Replace attribute @rel of @f by a directory: writes fail with EISDIR. */
static void make_unwritable(const struct fake *f, const char *rel)
{
	char path[512];

	snprintf(path, sizeof(path), "%s%s", f->root, rel);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* A write failing half-way (cpu2's setspeed) undoes the frequency part. */
static void test_tune_midway_failure_auto(void **state)
{
	struct fake *f = *state;
	char msg[512];

	make_unwritable(f, SETSPEED(2));
	assert_int_equal(machine_tune(&req_auto, cpus4, 4, NULL, msg,
				      sizeof(msg)), 1);
	assert_non_null(strstr(msg, "lockbench: cpufreq (" SETSPEED(2)
				    " = 3600000): Is a directory"));
	assert_non_null(strstr(msg, "running unfrozen"));
	assert_null(strchr(msg, '\n'));
	assert_string_equal(get(f, GOV(0)), "schedutil");
	assert_string_equal(get(f, GOV(2)), "schedutil");
	assert_string_equal(get(f, BOOST), "1");
	assert_string_equal(get(f, NUMA), "0");	/* NB_AUTO went on */
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, NUMA), "1");
	assert_false(file_exists(f->state));
}

static void test_tune_midway_failure_fixed(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_FIXED, 2000000, NB_AUTO };
	char msg[512];

	make_unwritable(f, SETSPEED(2));
	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)),
			 -EISDIR);
	assert_non_null(strstr(msg, "cannot apply --freq 2000000 kHz"));
	assert_string_equal(get(f, GOV(0)), "schedutil");
	assert_string_equal(get(f, GOV(1)), "schedutil");
	assert_string_equal(get(f, BOOST), "1");
	assert_string_equal(get(f, NUMA), "1");
	assert_false(file_exists(f->state));
}

/* A VM without cpufreq: auto says so once and runs unfrozen. */
static void test_tune_no_cpufreq(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_AUTO, 0, NB_KEEP };
	char msg[512];

	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)), 1);
	assert_string_equal(msg, "lockbench: cpufreq: not available on this machine (no /sys/devices/system/cpu/cpu0/cpufreq); running unfrozen");
	assert_false(file_exists(f->state));

	r.numa_balancing = NB_AUTO;		/* numa still applies */
	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)), 1);
	assert_string_equal(get(f, NUMA), "0");
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, NUMA), "1");

	r.freq = FREQ_FIXED;
	r.khz = 1500000;
	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)),
			 -ENOENT);
	assert_string_equal(msg, "lockbench: cpufreq: not available on this machine (no /sys/devices/system/cpu/cpu0/cpufreq); cannot apply --freq 1500000 kHz");
	assert_string_equal(get(f, NUMA), "1");
	assert_false(file_exists(f->state));
}

/* A kernel without NUMA balancing: nothing to turn off, not an error. */
static void test_tune_no_numa_balancing(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_OFF, 0, NB_OFF };
	char path[512];
	char msg[512];

	snprintf(path, sizeof(path), "%s" NUMA, f->root);
	unlink(path);
	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
}

/*
 * Run @fn in a child that drops to uid/gid 65534 when root, in a tree
 * whose files are 0444: an unprivileged user on a real machine.  The
 * child's exit status is @fn's result (0: all checks passed).
 */
static int run_unprivileged(struct fake *f, int (*fn)(struct fake *f))
{
	char cmd[2048];
	pid_t pid;
	int status;

	snprintf(cmd, sizeof(cmd),
		 "chmod 0755 %s && find %s -type d -exec chmod 0755 {} + && "
		 "find %s -type f -exec chmod 0444 {} + && "
		 "mkdir -p %s/state && chmod 0777 %s/state",
		 f->dir, f->root, f->root, f->dir, f->dir);
	if (system(cmd))
		return -1;
	pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) || setuid(65534)))
			_exit(99);
		_exit(fn(f));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* In the child: auto gives 1 + one line, explicit ones an error. */
static int readonly_checks(struct fake *f)
{
	struct machine_req fixed = { FREQ_FIXED, 1500000, NB_KEEP };
	struct machine_req nb = { FREQ_OFF, 0, NB_OFF };
	char msg[512];
	int rc;

	rc = machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg));
	if (rc != 1 || !strstr(msg, "Permission denied") ||
	    !strstr(msg, "running unfrozen") || !strstr(msg, "NUMA balancing left on") ||
	    strchr(msg, '\n') || strncmp(msg, "lockbench: ", 11))
		return 1;
	if (strcmp(get(f, GOV(0)), "schedutil") || strcmp(get(f, NUMA), "1") ||
	    file_exists(f->state))
		return 2;
	if (machine_tune(&fixed, cpus4, 4, NULL, msg, sizeof(msg)) != -EACCES)
		return 3;
	if (machine_tune(&nb, cpus4, 4, NULL, msg, sizeof(msg)) != -EACCES ||
	    !strstr(msg, "numa_balancing (" NUMA " = 0): Permission denied"))
		return 4;
	return file_exists(f->state) ? 5 : 0;
}

static void test_tune_readonly_tree(void **state)
{
	assert_int_equal(run_unprivileged(*state, readonly_checks), 0);
}

/* ---- crash, signals, reset ------------------------------------------ */

/* Write @text as the state file of @f. */
static void put_state(const struct fake *f, const char *text)
{
	char dir[512];
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s/state", f->dir);
	mkdir(dir, 0700);
	fp = fopen(f->state, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}


/* kill -9 after tuning: `system reset` restores from the state file. */
static void test_reset_after_crash(void **state)
{
	struct fake *f = *state;
	char msg[512];
	pid_t pid;
	int status;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg));
		kill(getpid(), SIGKILL);
		_exit(1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	assert_string_equal(get(f, GOV(1)), "userspace");
	assert_string_equal(get(f, BOOST), "0");
	assert_true(file_exists(f->state));

	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "restored 10 settings from"));
	assert_acpi_pristine(f);
	assert_false(file_exists(f->state));
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), 0);
	assert_string_equal(msg, "nothing to restore");
}

/*
 * A state file recorded under another sysfs root is refused: nothing is
 * written, neither under that root nor under this one, and the file is
 * kept for the reset that runs with the right root.
 */
static void test_reset_refuses_other_root(void **state)
{
	struct fake *f = *state;
	char msg[512], doc[1024];
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg));
		_exit(0);	/* exits without restoring: a crash */
	}
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	sysfs_set_root(NOWHERE);
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "recorded under the sysfs root"));
	assert_non_null(strstr(msg, "nothing restored"));
	assert_string_equal(sysfs_root(), NOWHERE);
	sysfs_set_root(f->root);
	assert_string_equal(get(f, GOV(0)), "userspace");	/* untouched */
	assert_true(file_exists(f->state));
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), 0);
	assert_acpi_pristine(f);

	/* "root": "" (the real /sys) under a fake root: refused, and the
	 * fake tree is not written either. */
	snprintf(doc, sizeof(doc),
		 "{\"lockbench\":\"machine state\",\"version\":1,\"pid\":1,"
		 "\"root\":\"\",\"persist\":true,\"changes\":[{\"path\":\"" GOV(0)
		 "\",\"old\":\"powersave\",\"new\":\"userspace\"}]}");
	put_state(f, doc);
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "'/', not this one"));
	assert_string_equal(get(f, GOV(0)), "schedutil");
	assert_true(file_exists(f->state));
	unlink(f->state);
}

/*
 * Child of the signal tests: install lockbench's own handlers
 * (cli/machctl.c), tune, tell the parent through @fd, then "run": until
 * a signal (@stuck: forever, as a hung sweep), then restore on the
 * normal path as a run does.
 */
static void signal_child(int fd, bool stuck)
{
	sigset_t block, old;
	char msg[512];

	alarm(20);	/* never outlive a broken test */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	/* As a foreground run starts, whatever the test runner ignored
	 * (lockbench keeps a signal ignored at start ignored). */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	install_signals();
	if (machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg)) != 0)
		_exit(2);
	if (write(fd, "r", 1) != 1)
		_exit(3);
	while (!interrupted || stuck)
		sigsuspend(&old);
	_exit(machine_restore() ? 4 : 0);
}

/* Fork signal_child(); returns its pid once it is tuned. */
static pid_t start_signal_child(bool stuck)
{
	int p[2];
	char c;
	pid_t pid;

	assert_int_equal(pipe(p), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		signal_child(p[1], stuck);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	return pid;
}

/* SIGINT mid-run: the run stops and restores on the normal path. */
static void test_sigint_restores(void **state)
{
	struct fake *f = *state;
	pid_t pid = start_signal_child(false);
	int status;

	assert_string_equal(get(f, GOV(0)), "userspace");
	assert_true(file_exists(f->state));
	kill(pid, SIGINT);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_acpi_pristine(f);
	assert_false(file_exists(f->state));
}

/*
 * A stuck run: the second signal restores the machine in the handler at
 * once, while the process goes on (to write what it measured; the
 * runner stops waiting for its workers); it does not kill.
 */
static void test_second_signal_restores(void **state)
{
	struct fake *f = *state;
	pid_t pid = start_signal_child(true);
	int status, tries = 0;

	kill(pid, SIGTERM);
	usleep(100 * 1000);
	assert_string_equal(get(f, GOV(0)), "userspace");  /* still running */
	kill(pid, SIGHUP);
	while (file_exists(f->state) && tries++ < 200)
		usleep(10 * 1000);
	assert_acpi_pristine(f);
	assert_false(file_exists(f->state));
	assert_int_equal(waitpid(pid, &status, WNOHANG), 0);	/* alive */
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
}

/*
 * A signal ignored at start stays ignored (nohup's SIGHUP, a SIGTERM the
 * parent ignores): the run goes on, tuned, and the other signals still
 * stop it.
 */
static void test_ignored_signal_stays(void **state)
{
	struct fake *f = *state;
	struct sigaction sa;
	char msg[512];
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(20);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		install_signals();
		if (sigaction(SIGHUP, NULL, &sa) || sa.sa_handler != SIG_IGN ||
		    sigaction(SIGTERM, NULL, &sa) || sa.sa_handler != SIG_IGN)
			_exit(5);
		if (machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg)) != 0)
			_exit(2);
		raise(SIGHUP);
		raise(SIGTERM);
		if (interrupted || strcmp(get(f, GOV(0)), "userspace"))
			_exit(3);
		raise(SIGINT);
		if (interrupted != SIGINT)
			_exit(4);
		_exit(machine_restore() ? 6 : 0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_acpi_pristine(f);
	assert_false(file_exists(f->state));
}

/* `system tune` leaves the machine tuned; `system reset` undoes it. */
static void test_persist_then_reset(void **state)
{
	struct fake *f = *state;
	char msg[512];
	json_t *st;

	/* `system tune` passes no CPU list: every online CPU. */
	assert_int_equal(machine_tune(&req_auto, NULL, 0, NULL, msg,
				      sizeof(msg)), 0);
	assert_int_equal(machine_tune_persist(), 0);
	assert_int_equal(machine_restore(), 0);		/* forgets, keeps */
	assert_string_equal(get(f, GOV(0)), "userspace");
	assert_string_equal(get(f, GOV(3)), "userspace");
	st = load_state(f);
	assert_true(json_is_true(json_object_get(st, "persist")));
	json_decref(st);

	/* A run now finds the machine tuned and leaves it as it is. */
	assert_int_equal(machine_tune(&req_auto, cpus4, 4, NULL, msg,
				      sizeof(msg)), 1);
	assert_non_null(strstr(msg, "left by another lockbench"));
	assert_non_null(strstr(msg, "running with the machine as it is"));
	assert_true(file_exists(f->state));

	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), 0);
	assert_acpi_pristine(f);
	assert_false(file_exists(f->state));
}

/* Another lockbench's state file: explicit requests fail with -EBUSY. */
static void test_busy_state_file(void **state)
{
	struct fake *f = *state;
	struct machine_req r = { FREQ_FIXED, 1500000, NB_KEEP };
	char msg[512], doc[512];

	/* our parent is alive and not persist: a running lockbench */
	snprintf(doc, sizeof(doc),
		 "{\"lockbench\":\"machine state\",\"version\":1,\"pid\":%d,"
		 "\"root\":\"%s\",\"persist\":false,"
		 "\"changes\":[{\"path\":\"" GOV(0) "\",\"old\":\"ondemand\",\"new\":\"userspace\"}]}",
		 (int)getppid(), f->root);
	put_state(f, doc);

	assert_int_equal(machine_tune(&r, cpus4, 4, NULL, msg, sizeof(msg)),
			 -EBUSY);
	assert_string_equal(get(f, GOV(0)), "schedutil");
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "still runs"));
	assert_string_equal(get(f, GOV(0)), "schedutil");
	assert_true(file_exists(f->state));
	unlink(f->state);
}

static void test_reset_malformed(void **state)
{
	struct fake *f = *state;
	char msg[512], doc[1024];

	/* Empty: lockbench creates the state file with its content, so an
	 * empty one is not ours. */
	put_state(f, "");
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "empty, not a state file lockbench wrote; left as it is"));
	assert_true(file_exists(f->state));

	put_state(f, "{not json");
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "lockbench: state file ("));
	assert_non_null(strstr(msg, "not JSON"));

	/* Paths outside /sys and /proc are refused, nothing written. */
	snprintf(doc, sizeof(doc), "{\"lockbench\":\"machine state\",\"pid\":1,"
		 "\"root\":\"%s\",\"persist\":true,\"changes\":[{\"path\":"
		 "\"/etc/passwd\",\"old\":\"x\",\"new\":\"y\"}]}", f->root);
	put_state(f, doc);
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "malformed"));
	snprintf(doc, sizeof(doc), "{\"lockbench\":\"machine state\",\"pid\":1,"
		 "\"root\":\"%s\",\"persist\":true,\"changes\":[{\"path\":"
		 "\"/sys/../etc/passwd\",\"old\":\"x\",\"new\":\"y\"}]}", f->root);
	put_state(f, doc);
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "malformed"));
	assert_true(file_exists(f->state));
	unlink(f->state);
}

/* A complete state file of @f's tree (governor of cpu0 to restore). */
static void state_doc(const struct fake *f, const char *mark, char *doc, size_t len)
{
	snprintf(doc, len, "{%s\"version\":1,\"pid\":1,\"root\":\"%s\",\"persist\":true,"
		 "\"changes\":[{\"path\":\"" GOV(0) "\",\"old\":\"powersave\","
		 "\"new\":\"userspace\"}]}", mark, f->root);
}

/* Reset and probe refuse what is at the state path (@what in the
 * message), write nothing and leave it there. */
static void assert_refused(const struct fake *f, const char *what)
{
	struct stat before, after;
	char msg[512];

	assert_int_equal(lstat(f->state, &before), 0);
	assert_int_equal(machine_state_probe(msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, what));
	assert_int_equal(machine_reset_from_state(msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, what));
	assert_non_null(strstr(msg, "left as it is"));
	assert_int_equal(lstat(f->state, &after), 0);
	assert_true(before.st_ino == after.st_ino && before.st_mode == after.st_mode);
	assert_string_equal(get(f, GOV(0)), "schedutil");
}

/*
 * Only a state file lockbench wrote is recognised: a regular file of the
 * effective user with lockbench's mark.  Anything else at the path
 * (symlink, FIFO, directory, device node, a file without the mark or of
 * another owner) is left as it is; the device node is one this test
 * makes in its own directory (skipped where mknod is not permitted).
 */
static void test_state_not_ours(void **state)
{
	struct fake *f = *state;
	char doc[1024], other[512], msg[512];

	put_state(f, "");	/* makes the directory */
	unlink(f->state);
	state_doc(f, "\"lockbench\":\"machine state\",", doc, sizeof(doc));
	snprintf(other, sizeof(other), "%s/elsewhere.json", f->dir);
	put_state(f, doc);
	assert_int_equal(machine_state_probe(msg, sizeof(msg)), 1);
	assert_int_equal(rename(f->state, other), 0);
	assert_int_equal(symlink(other, f->state), 0);
	assert_refused(f, "a symbolic link");
	assert_true(file_exists(other));
	unlink(f->state);
	assert_int_equal(mkfifo(f->state, 0600), 0);
	assert_refused(f, "a FIFO");
	unlink(f->state);
	assert_int_equal(mkdir(f->state, 0700), 0);
	assert_refused(f, "a directory");
	rmdir(f->state);
	if (mknod(f->state, S_IFCHR | 0666, makedev(1, 3)) == 0) {
		assert_refused(f, "a character device");
		unlink(f->state);
	} else {
		fprintf(stderr, "test_state_not_ours: mknod not permitted (%s): "
			"device case skipped\n", strerror(errno));
	}
	state_doc(f, "", doc, sizeof(doc));	/* valid JSON, no mark */
	put_state(f, doc);
	assert_refused(f, "without \"lockbench\": \"machine state\"");
	if (geteuid() == 0) {
		state_doc(f, "\"lockbench\":\"machine state\",", doc, sizeof(doc));
		put_state(f, doc);
		assert_int_equal(chown(f->state, 65534, 65534), 0);
		assert_refused(f, "owned by uid 65534");
	}
	unlink(f->state);
	unlink(other);
}

/* The state file is created exclusively, mode 0600, with the mark; a
 * run never writes through or over anything else at the path. */
static void test_claim_exclusive(void **state)
{
	struct fake *f = *state;
	struct machine_req fixed = { FREQ_FIXED, 1500000, NB_KEEP };
	struct stat st;
	char msg[512];
	json_t *doc;

	assert_int_equal(machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg)), 0);
	assert_int_equal(lstat(f->state, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	doc = load_state(f);
	assert_string_equal(json_string_value(json_object_get(doc, "lockbench")),
			    "machine state");
	json_decref(doc);
	assert_int_equal(machine_restore(), 0);
	assert_false(file_exists(f->state));

	assert_int_equal(mkfifo(f->state, 0600), 0);
	assert_int_equal(machine_tune(&req_auto, cpus4, 4, NULL, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "a FIFO, not a state file lockbench wrote"));
	assert_int_equal(machine_tune(&fixed, cpus4, 4, NULL, msg, sizeof(msg)), -EEXIST);
	assert_int_equal(machine_restore(), 0);
	assert_int_equal(lstat(f->state, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	assert_acpi_pristine(f);
	unlink(f->state);
}

/* A restore that fails keeps the state file; a later reset finishes. */
static void test_restore_failure_keeps_state(void **state)
{
	struct fake *f = *state;
	char msg[512], path[512];

	assert_int_equal(machine_tune(&req_auto, cpus4, 4, NULL, msg,
				      sizeof(msg)), 0);
	make_unwritable(f, GOV(1));
	assert_int_equal(machine_restore(), -EISDIR);
	assert_true(file_exists(f->state));
	assert_string_equal(get(f, GOV(0)), "schedutil");
	/* repair, retry */
	snprintf(path, sizeof(path), "%s" GOV(1), f->root);
	assert_int_equal(rmdir(path), 0);
	fake_put(f, GOV(1), "userspace");
	assert_int_equal(machine_restore(), 0);
	assert_string_equal(get(f, GOV(1)), "schedutil");
	assert_false(file_exists(f->state));
}

/* ---- describe and report -------------------------------------------- */

/* Run render_machine_report() into a string (caller frees). */
static char *report(const json_t *d, int *warnings)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	*warnings = render_machine_report(d, out);
	fclose(out);
	return text;
}

static void test_describe_acpi(void **state)
{
	json_t *d = machine_describe(cpus4, 4), *c, *f;
	char *text;
	int w;

	(void)state;
	assert_non_null(d);
	assert_string_equal(json_string_value(json_object_get(d, "cpu_model")),
			    "Fake CPU @ 2.40GHz");
	assert_string_equal(json_string_value(json_object_get(
				    json_object_get(d, "kernel"), "release")),
			    "6.9.0-fake");
	c = json_array_get(json_object_get(d, "cpus"), 1);
	f = json_object_get(c, "cpufreq");
	assert_string_equal(json_string_value(json_object_get(f, "governor")),
			    "schedutil");
	assert_string_equal(json_string_value(json_object_get(f, "driver")),
			    "acpi-cpufreq");
	assert_int_equal(json_integer_value(json_object_get(f, "scaling_max_khz")),
			 3600000);
	assert_int_equal(json_integer_value(json_object_get(f, "scaling_cur_khz")),
			 2400000);
	assert_true(json_is_null(json_object_get(f, "setspeed_khz")));
	assert_int_equal(json_array_size(json_object_get(f, "available_governors")),
			 6);
	assert_true(json_is_true(json_object_get(json_object_get(d, "boost"),
						 "on")));
	assert_true(json_is_true(json_object_get(d, "smt_active")));
	assert_int_equal(json_array_size(json_object_get(d, "smt_shared")), 4);
	assert_string_equal(json_string_value(json_object_get(d, "isolated")), "");
	assert_int_equal(json_integer_value(json_object_get(d, "numa_balancing")),
			 1);
	assert_true(json_is_true(json_object_get(d, "irqbalance")));
	assert_true(json_number_value(json_array_get(json_object_get(d, "loadavg"),
						     2)) == 0.30);

	text = report(d, &w);
	assert_int_equal(w, 6);
	assert_non_null(strstr(text, "cpu1             governor schedutil, 800000-3600000 kHz, now 2400000 kHz (acpi-cpufreq)\n"));
	assert_non_null(strstr(text, "warning: governor schedutil on cpus 0-3 "));
	assert_non_null(strstr(text, "warning: boost/turbo is on ("));
	assert_non_null(strstr(text, "warning: SMT siblings in use (cpus 0-3)"));
	assert_non_null(strstr(text, "warning: no isolated CPUs"));
	assert_non_null(strstr(text, "warning: kernel.numa_balancing is 1"));
	assert_non_null(strstr(text, "warning: irqbalance is running"));
	assert_null(strstr(text, "load average 0.10 >"));
	assert_null(strstr(text, "no cpufreq"));
	free(text);
	json_decref(d);
}

/*
 * CPU lists in the report are ranges in CPU order whatever the order of
 * the description (a placement may list CPUs in any order): a JSON
 * description made by hand, no sysfs involved.
 */
static void test_report_cpu_ranges(void **state)
{
	json_t *d = json_pack(
		"{s:[{s:i, s:{s:s}}, {s:i, s:{s:s}}, {s:i, s:{s:s}},"
		" {s:i, s:{s:s}}, {s:i, s:{s:s}}], s:[i, i, i, i]}",
		"cpus",
		"cpu", 5, "cpufreq", "governor", "powersave",
		"cpu", 2, "cpufreq", "governor", "schedutil",
		"cpu", 0, "cpufreq", "governor", "schedutil",
		"cpu", 7, "cpufreq", "governor", "powersave",
		"cpu", 1, "cpufreq", "governor", "schedutil",
		"smt_shared", 9, 3, 1, 2);
	char *text;
	int w;

	(void)state;
	assert_non_null(d);
	text = report(d, &w);
	assert_int_equal(w, 3);
	assert_non_null(strstr(text, "warning: governor powersave on cpus 5,7 "));
	assert_non_null(strstr(text, "warning: governor schedutil on cpus 0-2 "));
	assert_non_null(strstr(text, "warning: SMT siblings in use (cpus 1-3,9)"));
	free(text);
	json_decref(d);
}

/* A quiet, tuned machine: no warning at all. */
static void test_report_quiet(void **state)
{
	struct fake *f = *state;
	static const int two[] = { 0, 1 };	/* not siblings */
	json_t *d;
	char *text;
	int w;

	fake_put(f, GOV(0), "performance");
	fake_put(f, GOV(1), "userspace");
	fake_put(f, BOOST, "0");
	fake_put(f, CPU "/isolated", "1-3");
	fake_put(f, NUMA, "0");
	fake_put(f, "/proc/4242/comm", "bash");
	d = machine_describe(two, 2);
	text = report(d, &w);
	assert_int_equal(w, 0);
	assert_null(strstr(text, "warning"));
	assert_non_null(strstr(text, "isolated cpus    1-3\n"));
	assert_non_null(strstr(text, "boost            off ("));
	free(text);

	fake_put(f, "/proc/loadavg", "2.50 1.00 0.50 3/100 99");
	json_decref(d);
	d = machine_describe(two, 2);
	text = report(d, &w);
	assert_int_equal(w, 1);
	assert_non_null(strstr(text, "warning: load average 2.50 > 0.5"));
	free(text);
	json_decref(d);
}

/* A VM without cpufreq: nulls, and the report says so. */
static void test_describe_no_cpufreq(void **state)
{
	json_t *d = machine_describe(NULL, 0), *cpus;	/* 0: all online */
	char *text;
	int w;

	(void)state;
	cpus = json_object_get(d, "cpus");
	assert_int_equal(json_array_size(cpus), 4);
	for (size_t i = 0; i < 4; i++)
		assert_true(json_is_null(json_object_get(json_array_get(cpus, i),
							 "cpufreq")));
	assert_true(json_is_null(json_object_get(d, "boost")));
	text = report(d, &w);
	assert_non_null(strstr(text, "cpu0             no cpufreq\n"));
	assert_non_null(strstr(text, "warning: frequency cannot be controlled on this machine (no cpufreq)\n"));
	assert_null(strstr(text, "irqbalance is running"));
	assert_non_null(strstr(text, "irqbalance       not running\n"));
	free(text);
	json_decref(d);
}

/* The kernel configuration and environment, every item from the tree. */
static void test_describe_env(void **state)
{
	struct fake *f = *state;
	json_t *d, *e, *st;
	char *text;
	int w;

	fake_put(f, "/sys/devices/system/clocksource/clocksource0/current_clocksource", "hpet");
	fake_put(f, "/sys/devices/system/clocksource/clocksource0/available_clocksource",
		 "tsc hpet acpi_pm");
	fake_put(f, "/proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro "
		 "mitigations=off nohz_full=2-3 isolcpus=domain,2-3 threadirqs quiet");
	fake_put(f, "/proc/sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Thu Jan  1 00:00:00 UTC 2026");
	fake_put(f, "/proc/sys/kernel/osrelease", "6.9.0-fake");
	fake_put(f, "/boot/config-6.9.0-fake", "CONFIG_SMP=y\nCONFIG_PREEMPT_VOLUNTARY=y");
	fake_put(f, CPU "/cpuidle/current_driver", "intel_idle");
	fake_put(f, CPU "/cpuidle/current_governor_ro", "menu");
	fake_put(f, CPU "/cpu0/cpuidle/state0/name", "POLL");
	fake_put(f, CPU "/cpu0/cpuidle/state0/latency", "0");
	fake_put(f, CPU "/cpu0/cpuidle/state1/name", "C6");
	fake_put(f, CPU "/cpu0/cpuidle/state1/latency", "170");
	fake_put(f, CPU "/cpu0/cpuidle/state1/disable", "1");
	fake_put(f, "/sys/class/dmi/id/sys_vendor", "QEMU");
	fake_put(f, "/sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)");
	fake_put(f, "/sys/kernel/mm/transparent_hugepage/enabled", "[always] madvise never");
	fake_put(f, "/sys/kernel/mm/transparent_hugepage/defrag",
		 "always defer defer+madvise [madvise] never");
	d = machine_describe(NULL, 0);
	assert_non_null(d);
	e = json_object_get(d, "clocksource");
	assert_string_equal(json_string_value(json_object_get(e, "current")), "hpet");
	assert_string_equal(json_string_value(json_object_get(e, "available")), "tsc hpet acpi_pm");
	e = json_object_get(d, "preemption");
	assert_string_equal(json_string_value(json_object_get(e, "model")), "voluntary");
	assert_true(json_is_true(json_object_get(e, "dynamic")));
	assert_string_equal(json_string_value(json_object_get(e, "source")), "boot config default");
	e = json_object_get(json_object_get(d, "cmdline"), "notable");
	assert_int_equal(json_object_size(e), 4);
	assert_string_equal(json_string_value(json_object_get(e, "mitigations")), "off");
	assert_string_equal(json_string_value(json_object_get(e, "nohz_full")), "2-3");
	assert_string_equal(json_string_value(json_object_get(e, "isolcpus")), "domain,2-3");
	assert_string_equal(json_string_value(json_object_get(e, "threadirqs")), "");
	e = json_object_get(d, "cpuidle");
	assert_string_equal(json_string_value(json_object_get(e, "driver")), "intel_idle");
	assert_string_equal(json_string_value(json_object_get(e, "governor")), "menu");
	st = json_object_get(e, "states");
	assert_int_equal(json_array_size(st), 2);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(st, 1), "latency_us")), 170);
	assert_true(json_is_true(json_object_get(json_array_get(st, 1), "disabled")));
	assert_true(json_is_false(json_object_get(json_array_get(st, 0), "disabled")));
	e = json_object_get(d, "hypervisor");
	assert_true(json_is_true(json_object_get(e, "detected")));
	assert_string_equal(json_string_value(json_object_get(e, "vendor")), "QEMU");
	assert_true(json_is_null(json_object_get(e, "type")));
	e = json_object_get(d, "thp");
	assert_string_equal(json_string_value(json_object_get(e, "enabled")), "always");
	assert_string_equal(json_string_value(json_object_get(e, "defrag")), "madvise");

	text = report(d, &w);
	assert_non_null(strstr(text, "clocksource      hpet (available: tsc hpet acpi_pm)\n"));
	assert_non_null(strstr(text, "preemption       voluntary, dynamic (boot config default)\n"));
	assert_non_null(strstr(text, "cmdline          mitigations=off nohz_full=2-3 isolcpus=domain,2-3 threadirqs\n"));
	assert_non_null(strstr(text, "cpuidle          intel_idle, governor menu, states: POLL 0 us, C6 170 us (disabled)\n"));
	assert_non_null(strstr(text, "hypervisor       yes (QEMU, Standard PC (Q35 + ICH9, 2009))\n"));
	assert_non_null(strstr(text, "huge pages       always (defrag madvise)\n"));
	assert_non_null(strstr(text, "warning: clocksource hpet is slow to read"));
	assert_non_null(strstr(text, "warning: running under a hypervisor"));
	free(text);
	json_decref(d);

	/* The debugfs view of a dynamic kernel wins; preempt= next. */
	fake_put(f, "/proc/cmdline", "preempt=full quiet");
	d = machine_describe(NULL, 0);
	e = json_object_get(d, "preemption");
	assert_string_equal(json_string_value(json_object_get(e, "model")), "full");
	assert_string_equal(json_string_value(json_object_get(e, "source")), "command line");
	json_decref(d);
	/* The one-line summary of the results' machine (-v). */
	d = json_pack("{s:s, s:s, s:o}", "cpu_model", "Fake CPU", "kernel", "6.9.0-fake",
		      "environment", machine_environment());
	text = NULL;
	{
		size_t len = 0;
		FILE *out = open_memstream(&text, &len);

		render_machine_summary(d, out);
		fclose(out);
	}
	assert_string_equal(text, "machine: Fake CPU, kernel 6.9.0-fake, clocksource hpet, "
			    "preemption full, cpuidle menu, THP always, hypervisor QEMU, "
			    "cmdline: preempt=full\n");
	free(text);
	json_decref(d);
	fake_put(f, "/sys/kernel/debug/sched/preempt", "none (voluntary) full");
	d = machine_describe(NULL, 0);
	e = json_object_get(d, "preemption");
	assert_string_equal(json_string_value(json_object_get(e, "model")), "voluntary");
	json_decref(d);
	fake_put(f, "/proc/sys/kernel/version", "#1 SMP PREEMPT_RT Thu Jan  1 00:00:00 UTC 2026");
	fake_put(f, "/sys/kernel/debug/sched/preempt", "");
	d = machine_describe(NULL, 0);
	assert_string_equal(json_string_value(json_object_get(json_object_get(d, "preemption"),
							      "model")), "rt");
	json_decref(d);
}

/* None of them exposed: nulls, and the report says unknown/none. */
static void test_describe_env_absent(void **state)
{
	json_t *d = machine_describe(cpus4, 4);
	char *text;
	int w;

	(void)state;
	assert_true(json_is_null(json_object_get(d, "clocksource")));
	assert_true(json_is_null(json_object_get(d, "preemption")));
	assert_true(json_is_null(json_object_get(d, "cpuidle")));
	assert_true(json_is_null(json_object_get(d, "thp")));
	assert_true(json_is_false(json_object_get(json_object_get(d, "hypervisor"), "detected")));
	text = report(d, &w);
	assert_non_null(strstr(text, "clocksource      unknown\n"));
	assert_non_null(strstr(text, "preemption       unknown\n"));
	assert_non_null(strstr(text, "cpuidle          none\n"));
	assert_non_null(strstr(text, "hypervisor       none\n"));
	assert_null(strstr(text, "warning: clocksource"));
	assert_null(strstr(text, "warning: running under a hypervisor"));
	free(text);
	json_decref(d);
}

static void test_describe_arm64_model(void **state)
{
	json_t *d = machine_describe(cpus4, 1);

	(void)state;
	assert_string_equal(json_string_value(json_object_get(d, "cpu_model")),
			    "ARM Neoverse-N1");
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sysfs_root, setup_acpi, teardown),
		cmocka_unit_test(test_parse_freq_good),
		cmocka_unit_test(test_parse_freq_bad),
		cmocka_unit_test_setup_teardown(test_tune_userspace_auto, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_fixed, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_restore_setspeed_refused, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_fixed_out_of_range, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_widens_limits, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_userspace_already, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_minmax_pstate, setup_pstate, teardown),
		cmocka_unit_test_setup_teardown(test_tune_minmax_raise, setup_pstate, teardown),
		cmocka_unit_test_setup_teardown(test_tune_shared_policy, setup_shared, teardown),
		cmocka_unit_test_setup_teardown(test_tune_numa_only, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_nothing_to_do, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_midway_failure_auto, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_midway_failure_fixed, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_no_cpufreq, setup_nofreq, teardown),
		cmocka_unit_test_setup_teardown(test_tune_no_numa_balancing, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_tune_readonly_tree, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_reset_after_crash, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_reset_refuses_other_root, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_sigint_restores, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_second_signal_restores, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_ignored_signal_stays, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_persist_then_reset, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_busy_state_file, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_reset_malformed, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_state_not_ours, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_claim_exclusive, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_restore_failure_keeps_state, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_describe_acpi, setup_acpi, teardown),
		cmocka_unit_test_setup_teardown(test_report_quiet, setup_acpi, teardown),
		cmocka_unit_test(test_report_cpu_ranges),
		cmocka_unit_test_setup_teardown(test_describe_no_cpufreq, setup_nofreq, teardown),
		cmocka_unit_test_setup_teardown(test_describe_arm64_model, setup_arm, teardown),
		cmocka_unit_test_setup_teardown(test_describe_env, setup_nofreq, teardown),
		cmocka_unit_test_setup_teardown(test_describe_env_absent, setup_acpi, teardown),
	};

	sysfs_set_root(NOWHERE);
	machine_set_state_path(NOWHERE "/state.json");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
