// SPDX-License-Identifier: MIT
/*
 * test_kernel.c - unit tests of kernel/: the kernel log cursor, the
 * module checks and the kthread discovery, all against a fake tree
 * (tests/fakesys); pinning only of this test's own process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../kernel/locktorture/kmod.h"
#include "../kernel/locktorture/kmsg.h"
#include "../kernel/locktorture/kthreads.h"
#include "../topology/sysfs.h"
#include "fakesys/fakesys.h"

static struct fake fk;

static int setup(void **state)
{
	struct fake_opts o = {.flavour = FAKE_NOFREQ};

	(void)state;
	if (fake_create(&fk, &o))
		return -1;
	return sysfs_set_root(fk.root);
}

static int teardown(void **state)
{
	(void)state;
	sysfs_set_root(NULL);
	fake_destroy(&fk);
	return 0;
}

/* Append @s to <root>/dev/kmsg as one write(). */
static void kmsg_append(const char *s)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/dev", fk.root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/dev/kmsg", fk.root);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
}

static void test_record_line(void **state)
{
	char out[256];
	static const char rec[] = "1,2042,69520000123,-;Writes:  Total: 5  Max/Min: 3/2   Fail: 0 ";
	static const char more[] = "4,7,1500,c,caller=T35;spin_lock-torture: x";

	(void)state;
	assert_int_equal(kmsg_record_line(rec, strlen(rec), out, sizeof(out)), 58);
	assert_int_equal(strlen(out), 58);
	assert_string_equal(out, "[69520.000123] Writes:  Total: 5  Max/Min: 3/2   Fail: 0 \n");
	assert_true(kmsg_record_line(more, strlen(more), out, sizeof(out)) > 0);
	assert_string_equal(out, "[    0.001500] spin_lock-torture: x\n");
	/* Continuation lines and non-records are dropped. */
	assert_int_equal(kmsg_record_line(" SUBSYSTEM=cpu", 14, out, sizeof(out)), 0);
	assert_int_equal(kmsg_record_line("hello; world", 12, out, sizeof(out)), 0);
	assert_int_equal(kmsg_record_line("1,2;x", 5, out, sizeof(out)), 0);
	assert_int_equal(kmsg_record_line("", 0, out, sizeof(out)), 0);
	assert_int_equal(kmsg_record_line(rec, strlen(rec), out, 20), -ENOSPC);
}

/* The cursor starts at the end; records cut between reads are joined. */
static void test_cursor(void **state)
{
	struct kmsg k;
	char err[256], *text;
	size_t len;

	(void)state;
	kmsg_append("1,1,1000000,-;old run: Writes:  Total: 9  Max/Min: 5/4   Fail: 0\n");
	assert_int_equal(kmsg_open(&k, err, sizeof(err)), 0);
	assert_int_equal(kmsg_poll(&k), 0);
	kmsg_append("1,2,2000000,-;first\n SUBSYSTEM=x\n1,3,3000000,-;sec");
	assert_int_equal(kmsg_poll(&k), 1);
	kmsg_append("ond\n");
	assert_int_equal(kmsg_poll(&k), 1);
	kmsg_take(&k, &text, &len);
	assert_string_equal(text, "[    2.000000] first\n[    3.000000] second\n");
	assert_int_equal(len, strlen(text));
	free(text);
	assert_int_equal(kmsg_poll(&k), 0);
	kmsg_take(&k, &text, &len);
	assert_null(text);
	assert_int_equal(len, 0);
	kmsg_close(&k);
	kmsg_close(&k);
}

static void test_cursor_missing(void **state)
{
	struct fake_opts o = {.flavour = FAKE_NOFREQ};
	struct fake other;
	struct kmsg k;
	char err[512];

	(void)state;
	assert_int_equal(fake_create(&other, &o), 0);
	assert_int_equal(sysfs_set_root(other.root), 0);
	assert_int_equal(kmsg_open(&k, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "cannot read the kernel log ("));
	assert_non_null(strstr(err, "/dev/kmsg): No such file or directory"));
	assert_int_equal(sysfs_set_root(fk.root), 0);
	fake_destroy(&other);
}

/* Each missing piece gives its own error, in order. */
static void test_check(void **state)
{
	char msg[512], path[600];

	(void)state;
	snprintf(path, sizeof(path), "%s/proc/modules", fk.root);
	unlink(path);
	assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), -ENOTSUP);
	assert_non_null(strstr(msg, "cannot load modules"));
	assert_non_null(strstr(msg, "CONFIG_MODULES"));

	assert_int_equal(fake_put(&fk, "/proc/modules", ""), 0);
	if (geteuid() != 0) {
		assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), -EPERM);
		assert_string_equal(msg, "loading locktorture needs root");
		return;
	}
	assert_int_equal(fake_put(&fk, "/proc/sys/kernel/modules_disabled", "1"), 0);
	assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), -EPERM);
	assert_non_null(strstr(msg, "kernel.modules_disabled=1"));
	assert_int_equal(fake_put(&fk, "/proc/sys/kernel/modules_disabled", "0"), 0);

	assert_int_equal(fake_put(&fk, "/proc/sys/kernel/osrelease", "6.6.0-t"), 0);
	assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "no modules for kernel 6.6.0-t ("));

	assert_int_equal(fake_put(&fk, "/lib/modules/6.6.0-t/modules.builtin",
				  "kernel/kernel/locking/locktorture.ko"), 0);
	assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), -ENOTSUP);
	assert_non_null(strstr(msg, "built into kernel 6.6.0-t (CONFIG_LOCK_TORTURE_TEST=y"));

	assert_int_equal(fake_put(&fk, "/lib/modules/6.6.0-t/modules.builtin",
				  "kernel/kernel/rcu/rcutorture.ko"), 0);
	assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "module locktorture not found for kernel 6.6.0-t (no "));
	/* A name that merely ends the same way is not the module. */
	assert_int_equal(fake_put(&fk, "/lib/modules/6.6.0-t/modules.dep",
				  "kernel/x/notlocktorture.ko: kernel/kernel/torture.ko"), 0);
	assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, "(not in "));

	assert_int_equal(fake_put(&fk, "/lib/modules/6.6.0-t/modules.dep",
				  "kernel/kernel/torture.ko:\n"
				  "kernel/kernel/locking/locktorture.ko.zst: kernel/kernel/torture.ko"), 0);
	assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), 0);

	assert_int_equal(fake_put(&fk, "/sys/module/locktorture/refcnt", "0"), 0);
	assert_true(kmod_loaded("locktorture"));
	assert_int_equal(kmod_check("locktorture", msg, sizeof(msg)), -EBUSY);
	assert_non_null(strstr(msg, "loaded already"));
}

/* Load and unload go through $LOCKBENCH_MODPROBE; its complaint is kept. */
static void test_load_program(void **state)
{
	char msg[512], script[600];
	const char *params[] = {"torture_type=spin_lock", NULL};
	FILE *f;

	(void)state;
	snprintf(script, sizeof(script), "%s/modprobe.sh", fk.dir);
	f = fopen(script, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"$@\" >>%s/args\n"
		"[ \"$1\" = -r ] && exit 0\n"
		"echo \"modprobe: ERROR: could not insert 'locktorture': Operation not permitted\" >&2\n"
		"echo second line >&2\nexit 1\n", fk.dir);
	fclose(f);
	assert_int_equal(chmod(script, 0755), 0);
	setenv("LOCKBENCH_MODPROBE", script, 1);
	assert_string_equal(kmod_program(), script);
	assert_int_equal(kmod_load("locktorture", params, msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, "cannot load locktorture ("));
	assert_non_null(strstr(msg, " exit 1): modprobe: ERROR: could not insert "
			       "'locktorture': Operation not permitted"));
	assert_null(strstr(msg, "second line"));
	assert_int_equal(kmod_unload("locktorture", msg, sizeof(msg)), 0);
	setenv("LOCKBENCH_MODPROBE", "/nonexistent/modprobe", 1);
	assert_int_equal(kmod_load("locktorture", params, msg, sizeof(msg)), -EIO);
	assert_non_null(strstr(msg, "cannot load locktorture: /nonexistent/modprobe not found"));
	/* a bare name is never found through a relative or empty PATH
	 * entry, even where the current directory holds it */
	{
		char cwd[PATH_MAX], *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;

		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(chdir(fk.dir), 0);
		setenv("LOCKBENCH_MODPROBE", "modprobe.sh", 1);
		for (unsigned i = 0; i < 3; i++) {
			static const char *const rel[] = {".:/nonexistent", ":/nonexistent",
							  "/nonexistent::"};

			setenv("PATH", rel[i], 1);
			assert_int_equal(kmod_load("locktorture", params, msg, sizeof(msg)), -EIO);
			assert_non_null(strstr(msg, "modprobe.sh not found (a path, or a program "
						    "in an absolute PATH entry"));
		}
		assert_int_equal(chdir(cwd), 0);
		if (path)
			setenv("PATH", path, 1);
		free(path);
	}
	unsetenv("LOCKBENCH_MODPROBE");
	assert_string_equal(kmod_program(), "modprobe");
	snprintf(script, sizeof(script), "%s/args", fk.dir);
	f = fopen(script, "r");
	assert_non_null(f);
	assert_non_null(fgets(msg, sizeof(msg), f));
	assert_string_equal(msg, "locktorture torture_type=spin_lock\n");
	assert_non_null(fgets(msg, sizeof(msg), f));
	assert_string_equal(msg, "-r locktorture\n");
	fclose(f);
}

static void test_find(void **state)
{
	struct kthread_ent *kt;
	unsigned n;

	(void)state;
	assert_int_equal(fake_put(&fk, "/proc/100/comm", "lock_torture_wr"), 0);
	assert_int_equal(fake_put(&fk, "/proc/50/comm", "lock_torture_re"), 0);
	assert_int_equal(fake_put(&fk, "/proc/7/comm", "lock_torture_wr"), 0);
	assert_int_equal(fake_put(&fk, "/proc/8/comm", "lock_torture_st"), 0);
	assert_int_equal(fake_put(&fk, "/proc/9/comm", "bash"), 0);
	assert_int_equal(fake_put(&fk, "/proc/12x/comm", "lock_torture_wr"), 0);
	/* Newer kernels show a kthread's full name in /proc/PID/comm. */
	assert_int_equal(fake_put(&fk, "/proc/101/comm", "lock_torture_writer"), 0);
	assert_int_equal(fake_put(&fk, "/proc/51/comm", "lock_torture_reader"), 0);
	assert_int_equal(fake_put(&fk, "/proc/52/comm", "lock_torture_stats"), 0);
	assert_int_equal(kthreads_find(&kt, &n), 0);
	/* Whatever else the fake tree lists, these five in this order. */
	assert_int_equal(n, 5);
	assert_int_equal(kt[0].pid, 7);
	assert_int_equal(kt[0].role, 'w');
	assert_int_equal(kt[1].pid, 100);
	assert_int_equal(kt[1].role, 'w');
	assert_int_equal(kt[2].pid, 101);
	assert_int_equal(kt[2].role, 'w');
	assert_int_equal(kt[3].pid, 50);
	assert_int_equal(kt[3].role, 'r');
	assert_int_equal(kt[4].pid, 51);
	assert_int_equal(kt[4].role, 'r');
	free(kt);
}

/* Pinning: this process to a CPU it may use, and the refusals. */
static void test_pin(void **state)
{
	cpu_set_t old, now;
	int cpu = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(old), &old), 0);
	for (int c = 0; c < CPU_SETSIZE && cpu < 0; c++)
		if (CPU_ISSET(c, &old))
			cpu = c;
	assert_int_equal(kthread_pin(getpid(), cpu), 0);
	assert_int_equal(sched_getaffinity(0, sizeof(now), &now), 0);
	assert_int_equal(CPU_COUNT(&now), 1);
	assert_true(CPU_ISSET(cpu, &now));
	assert_int_equal(sched_setaffinity(0, sizeof(old), &old), 0);
	assert_int_equal(kthread_pin(4194999, cpu), -ESRCH);
	assert_int_equal(kthread_pin(getpid(), -1), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_line),
		cmocka_unit_test(test_cursor),
		cmocka_unit_test(test_cursor_missing),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_load_program),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_pin),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
