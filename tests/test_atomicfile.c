/* SPDX-License-Identifier: MIT */
/*
 * Replacing a record file (topology/atomicfile.h): the new content in
 * place, mode 0600, no temporary left; a last word that says no leaves
 * the old file as it was; a temporary name already taken (a symlink
 * planted there) is neither followed nor written through.
 */
#define _GNU_SOURCE
#include <errno.h>
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

#include "../topology/atomicfile.h"

static char dir[64], path[128], tmp[160];

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
	char victim[96];

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	unlink(tmp);
	unlink(path);
	unlink(victim);
	return rmdir(dir);
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
	assert_int_equal(access(tmp, F_OK), -1);
	/* the last word says no: the old file stands, no temporary left */
	assert_int_equal(af_replace(path, "three\n", 6, refuse, &calls), -EEXIST);
	assert_int_equal(calls, 1);
	read_back(path, buf, sizeof(buf));
	assert_string_equal(buf, "two\n");
	assert_int_equal(access(tmp, F_OK), -1);
}

static void test_planted_symlink(void **state)
{
	char victim[96], buf[64];

	(void)state;
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	assert_int_equal(af_replace(victim, "mine\n", 5, NULL, NULL), 0);
	assert_int_equal(symlink(victim, tmp), 0);
	assert_int_equal(af_replace(path, "x\n", 2, NULL, NULL), -EEXIST);
	read_back(victim, buf, sizeof(buf));
	assert_string_equal(buf, "mine\n");
	assert_int_equal(access(path, F_OK), -1);
	unlink(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_replace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_planted_symlink, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
