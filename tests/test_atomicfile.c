/* SPDX-License-Identifier: MIT */
/*
 * Replacing a record file (lib/atomicfile.h): the new content in
 * place, mode 0600, no temporary left; a last word that says no leaves
 * the old file as it was; the temporary is a twin of a name no one can
 * guess, so a symlink or a stale file planted at a name another process
 * would have used (path.tmp.PID) is neither followed nor in the way.
 * The -o primitive (af_twin_create, af_install): a new name takes the
 * mode given; an existing file with one link keeps its mode and extended
 * attributes (and loses none the twin inherited); one with two links is
 * written in place, both names seeing the new content; a failure leaves
 * the old file and the complete twin as they were.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cmocka.h>

#include "../lib/atomicfile.h"

static char dir[64], path[128], tmp[160];

/* No twin of path (rec.tmp.*) left in dir. */
static bool no_twin(void)
{
	char pat[96];
	glob_t g;
	int rc;

	snprintf(pat, sizeof(pat), "%s/rec.tmp.*", dir);
	rc = glob(pat, 0, NULL, &g);
	if (!rc)
		globfree(&g);
	return rc == GLOB_NOMATCH;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s", "/tmp/lb-atomicfile-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/rec", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	return 0;
}

static int teardown(void **state)
{
	char victim[96], link2[96], cmd[128];

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	snprintf(link2, sizeof(link2), "%s/link2", dir);
	unlink(tmp);
	unlink(path);
	unlink(victim);
	unlink(link2);
	rmdir(path);
	snprintf(cmd, sizeof(cmd), "rm -f %s/rec.tmp.*", dir);
	return system(cmd) || rmdir(dir);
}

static void read_back(const char *p, char *buf, size_t len)
{
	FILE *f = fopen(p, "r");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, len - 1, f);
	buf[n] = '\0';
	fclose(f);
}

static void write_file(const char *p, const char *text, mode_t mode)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, mode);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	assert_int_equal(fchmod(fd, mode), 0);
	close(fd);
}

static int refuse(int fd, const char *p, void *arg)
{
	(void)fd, (void)p;
	++*(int *)arg;
	return -EEXIST;
}

static void test_replace(void **state)
{
	char buf[64];
	struct stat st;
	int calls = 0;

	(void)state;
	assert_int_equal(af_replace(path, "one\n", 4, NULL, NULL), 0);
	assert_int_equal(af_replace(path, "two\n", 4, NULL, NULL), 0);
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "two\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(no_twin());
	/* the last word says no: the old file stands, no temporary left */
	assert_int_equal(af_replace(path, "three\n", 6, refuse, &calls), -EEXIST);
	assert_int_equal(calls, 1);
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "two\n");
	assert_true(no_twin());
}

static void test_planted_symlink(void **state)
{
	char victim[96], buf[64];

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_int_equal(af_replace(victim, "mine\n", 5, NULL, NULL), 0);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(af_replace(path, "x\n", 2, NULL, NULL), 0);
	read_back(victim, buf, sizeof(buf));
	assert_string_equal(buf, "mine\n");
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "x\n");
	assert_int_equal(unlink(tmp), 0);       /* the link itself untouched */
}

/* A temporary left by a killed process that had this pid: not in the
 * way, and left alone. */
static void test_stale_temporary(void **state)
{
	char buf[64];

	(void)state;
	write_file(tmp, "stale\n", 0600);
	assert_int_equal(af_replace(path, "new\n", 4, NULL, NULL), 0);
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	read_back(tmp, buf, sizeof(buf));
	assert_string_equal(buf, "stale\n");
	assert_int_equal(unlink(tmp), 0);
	assert_true(no_twin());
}

/* A twin of path holding text; its fd, its name in twin. */
static int twin_of(const char *text, char *twin, size_t len)
{
	int fd = af_twin_create(path, twin, len);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	return fd;
}

static void test_install_new(void **state)
{
	char twin[160], buf[64];
	struct stat st;
	bool partial = true;
	int fd;

	(void)state;
	fd = twin_of("new\n", twin, sizeof(twin));
	assert_non_null(strstr(twin, "/rec.tmp."));
	assert_int_equal(af_install(fd, twin, path, 0640, &partial), 0);
	close(fd);
	assert_false(partial);
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(access(twin, F_OK), -1);
}

/* One link: renamed, the file's mode and attributes kept, an attribute
 * only the twin had gone. */
static void test_install_keeps_attrs(void **state)
{
	char twin[160], buf[64];
	struct stat before, after;
	int fd;

	(void)state;
	write_file(path, "old\n", 0604);
	if (setxattr(path, "user.lockbench", "kept", 4, 0))
		skip();         /* a file system without user attributes */
	assert_int_equal(stat(path, &before), 0);
	fd = twin_of("new\n", twin, sizeof(twin));
	assert_int_equal(fsetxattr(fd, "user.extra", "x", 1, 0), 0);
	assert_int_equal(af_install(fd, twin, path, 0666, NULL), 0);
	close(fd);
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	assert_int_equal(stat(path, &after), 0);
	assert_true(after.st_ino != before.st_ino);     /* renamed */
	assert_int_equal(after.st_mode & 07777, 0604);
	assert_int_equal(getxattr(path, "user.lockbench", buf, sizeof(buf)), 4);
	assert_memory_equal(buf, "kept", 4);
	assert_int_equal(getxattr(path, "user.extra", buf, sizeof(buf)), -1);
}

/* Two links: the same inode written in place, both names see it, the
 * twin is gone; a shorter content leaves no tail of the old one. */
static void test_install_links(void **state)
{
	char twin[160], buf[64], link2[96];
	struct stat before, after;
	int fd;

	(void)state;
	snprintf(link2, sizeof(link2), "%s/link2", dir);
	write_file(path, "the old and longer content\n", 0644);
	assert_int_equal(link(path, link2), 0);
	assert_int_equal(stat(path, &before), 0);
	fd = twin_of("new\n", twin, sizeof(twin));
	assert_int_equal(af_install(fd, twin, path, 0600, NULL), 0);
	close(fd);
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(after.st_ino, before.st_ino);
	assert_int_equal(after.st_nlink, 2);
	assert_int_equal(after.st_mode & 07777, 0644);
	read_back(link2, buf, sizeof(buf));
	assert_string_equal(buf, "new\n");
	assert_int_equal(access(twin, F_OK), -1);
}

/* A failure (here: what is at path is a directory) leaves path and the
 * complete twin as they were. */
static void test_install_failure_keeps_twin(void **state)
{
	char twin[160], buf[64];
	bool partial = true;
	int fd;

	(void)state;
	assert_int_equal(mkdir(path, 0755), 0);
	fd = twin_of("complete\n", twin, sizeof(twin));
	assert_int_equal(af_install(fd, twin, path, 0644, &partial), -EINVAL);
	close(fd);
	assert_false(partial);
	read_back(twin, buf, sizeof(buf));
	assert_string_equal(buf, "complete\n");
	unlink(twin);
	assert_int_equal(rmdir(path), 0);
}

/* The directory a twin goes in and a rename is synced in. */
static void test_dir_of(void **state)
{
	char buf[64];

	(void)state;
	af_dir_of("out.json", buf, sizeof(buf));
	assert_string_equal(buf, ".");
	af_dir_of("/out.json", buf, sizeof(buf));
	assert_string_equal(buf, "/");
	af_dir_of("/a/b/out.json", buf, sizeof(buf));
	assert_string_equal(buf, "/a/b");
	af_dir_of("a/out.json", buf, sizeof(buf));
	assert_string_equal(buf, "a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dir_of),
		cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_temporary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_install_new, setup, teardown),
		cmocka_unit_test_setup_teardown(test_install_keeps_attrs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_install_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_install_failure_keeps_twin, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
