/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of SHA-256 (FIPS 180-2 known answers and every padding
 * boundary) and of the plugin loader: what it registers, under which
 * name, and the one-line reason for each refusal.  The plugins are the
 * ones `make examples` builds (LB_PLUGIN_DIR, default build/).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../locks/plugin.h"
#include "../locks/registry.h"
#include "../lib/sha256.h"

/* The ELF machine of this build (the loader checks the plugin's). */
#if defined(__aarch64__)
#define ELF_THIS_MACHINE EM_AARCH64
#else
#define ELF_THIS_MACHINE EM_X86_64
#endif

/* ---- SHA-256 ------------------------------------------------------- */

static void check_hex(const char *msg, size_t len, const char *want)
{
	char hex[65];

	sha256_hex(msg, len, hex);
	assert_string_equal(hex, want);
}

/* FIPS 180-2 appendix B (one block, two blocks, long message). */
static void test_sha256_fips(void **state)
{
	struct sha256 s;
	uint8_t d[32];
	char a[1000];

	(void)state;
	check_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	check_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	check_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	check_hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
		  "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu", 112,
		  "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
	/* One million 'a', fed in uneven pieces through the streaming API. */
	memset(a, 'a', sizeof(a));
	sha256_init(&s);
	for (size_t done = 0, n = 1; done < 1000000; done += n, n = n % 997 + 1) {
		if (n > 1000000 - done)
			n = 1000000 - done;
		sha256_update(&s, a, n);
	}
	sha256_final(&s, d);
	assert_int_equal(d[0], 0xcd);
	assert_int_equal(d[1], 0xc7);
	assert_int_equal(d[31], 0xd0);
}

/* Lengths around the 55/56/64-byte padding boundaries (python hashlib). */
static void test_sha256_boundaries(void **state)
{
	static const struct {
		size_t len;
		const char *hex;
	} v[] = {
		{55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"},
		{56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"},
		{63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"},
		{64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"},
		{65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"},
		{119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"},
		{120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"},
		{127, "92ca0fa6651ee2f97b884b7246a562fa71250fedefe5ebf270d31c546bfea976"},
		{128, "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5"},
	};
	char msg[128];

	(void)state;
	for (unsigned i = 0; i < sizeof(msg); i++)
		msg[i] = (char)i; /* bytes 0, 1, 2, ... */
	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		check_hex(msg, v[i].len, v[i].hex);
}

static void test_sha256_file(void **state)
{
	char path[] = "/tmp/lb-sha256-XXXXXX", hex[65];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(sha256_file(path, hex), 0);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	unlink(path);
	assert_int_equal(sha256_file(path, hex), -ENOENT);
	assert_string_equal(hex, "");
	/* a FIFO with no writer: refused at once, never a blocked open() */
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(sha256_file(path, hex), -EINVAL);
	assert_string_equal(hex, "");
	unlink(path);
	/* a directory */
	assert_int_equal(sha256_file("/", hex), -EINVAL);
}

/* ---- the loader ---------------------------------------------------- */

static const char *dir(void)
{
	const char *d = getenv("LB_PLUGIN_DIR");

	return d ? d : "build";
}

/* "[TAG=]<dir>/<rel>" in a static buffer. */
static const char *spec(const char *tag, const char *rel)
{
	static char buf[4096];

	snprintf(buf, sizeof(buf), "%s%s%s/%s", tag ? tag : "", tag ? "=" : "",
		 dir(), rel);
	return buf;
}

/* Loading `s` fails with rc and a message containing `want`, and the
 * registry is unchanged. */
static void refused(const char *s, int rc, const char *want)
{
	unsigned n = lock_registry_count();
	char err[1024] = "";

	assert_int_equal(plugin_load(s, err, sizeof(err)), rc);
	if (!strstr(err, want) || strncmp(err, "plugin (", 8) || strchr(err, '\n'))
		fail_msg("'%s': got '%s', want '%s'", s, err, want);
	assert_int_equal(lock_registry_count(), n);
}

static void test_load_example(void **state)
{
	const struct lock_entry *e;
	char err[1024], hex[65];

	(void)state;
	assert_int_equal(plugin_load(spec(NULL, "examples/ticket_backoff.so"),
				     err, sizeof(err)), 0);
	e = lock_registry_find("ticket_backoff");
	assert_non_null(e);
	assert_non_null(e->origin);
	assert_true(e->origin[0] == '/'); /* canonical path */
	assert_non_null(strstr(e->origin, "examples/ticket_backoff.so"));
	assert_int_equal(sha256_file(e->origin, hex), 0);
	assert_string_equal(e->sha256, hex);
	assert_null(lock_registry_find("ticket")->origin);
	/* The same file again: its name is taken ... */
	refused(spec(NULL, "examples/ticket_backoff.so"), -EEXIST,
		"duplicate lock name ticket_backoff (already loaded from /");
	/* ... unless tagged: a second variant, same code and hash. */
	assert_int_equal(plugin_load(spec("patched", "examples/ticket_backoff.so"),
				     err, sizeof(err)), 0);
	e = lock_registry_find("ticket_backoff_patched");
	assert_non_null(e);
	assert_string_equal(e->sha256, hex);
	assert_int_equal(e->ops->lock, lock_registry_find("ticket_backoff")->ops->lock);
	refused(spec("patched", "examples/ticket_backoff.so"), -EEXIST,
		"duplicate lock name ticket_backoff_patched");
}

static void test_refusals(void **state)
{
	char notso[] = "/tmp/lb-notso-XXXXXX";
	int fd = mkstemp(notso);

	(void)state;
	refused(spec(NULL, "tests/plugins/wrong_abi.so"), -ENOEXEC,
		"built for ABI version 2, this lockbench has 1");
	refused(spec(NULL, "tests/plugins/no_symbol.so"), -ENOENT,
		"no lockbench_plugin symbol");
	refused(spec(NULL, "tests/plugins/dup_builtin.so"), -EEXIST,
		"duplicate lock name ticket (already built in)");
	refused(spec(NULL, "tests/plugins/bad_ops.so"), -EINVAL,
		"lock 0 (bad_ops): lock and unlock are required");
	refused(spec(NULL, "tests/plugins/nolock.so"), -EINVAL,
		"lock sneaky_nolock: LOCK_CAP_NOLOCK is reserved");
	refused(spec(NULL, "tests/plugins/zero_size.so"), -EINVAL,
		"lock 0 (zero_size): lock_size 0");
	refused("/nonexistent/x.so", -ENOENT, "plugin (/nonexistent/x.so): cannot open");
	refused("/tmp", -EINVAL, "plugin (/tmp): not a regular file");
	refused("Bad=x.so", -EINVAL, "tag (Bad) must be");
	refused("=x.so", -EINVAL, "tag () must be");
	refused("tag=", -EINVAL, "expected PATH or TAG=PATH");
	/* A text file, and an ELF object that is not loadable (truncated). */
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not ELF\n", 8), 8);
	close(fd);
	refused(notso, -ENOEXEC, "not a shared object (no ELF header)");
	fd = open(notso, O_WRONLY | O_TRUNC);
	assert_int_equal(write(fd, "\177ELF", 4), 4);
	close(fd);
	refused(notso, -ENOEXEC, "truncated: shorter than an ELF header");
	unlink(notso);
}

/* A copy of the example plugin, cut to `keep` bytes (0: all of it) and
 * with byte `at` set to `val` (at < 0: none), at path. */
static void plugin_copy(const char *path, long keep, long at, unsigned char val)
{
	FILE *in = fopen(spec(NULL, "examples/ticket_backoff.so"), "rb");
	FILE *out = fopen(path, "wb");
	long k = 0;
	int c;

	assert_non_null(in);
	assert_non_null(out);
	while ((c = fgetc(in)) != EOF && (!keep || k < keep)) {
		fputc(k == at ? val : c, out);
		k++;
	}
	fclose(in);
	assert_int_equal(fclose(out), 0);
}

/* Checked before dlopen: a file cut short (dlopen would map it and die
 * by SIGBUS past its end), another machine, class or type. */
static void test_elf_refusals(void **state)
{
	char path[] = "/tmp/lb-elf-XXXXXX";
	int fd = mkstemp(path);
	struct stat st;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(stat(spec(NULL, "examples/ticket_backoff.so"), &st), 0);
	plugin_copy(path, st.st_size / 2, -1, 0);
	refused(path, -ENOEXEC, "truncated");
	plugin_copy(path, 100, -1, 0);
	refused(path, -ENOEXEC, "truncated or malformed");
	/* e_machine (byte 18, little-endian low byte): another machine. */
	plugin_copy(path, 0, 18, (unsigned char)(ELF_THIS_MACHINE == EM_X86_64 ? EM_AARCH64
										: EM_X86_64));
	refused(path, -ENOEXEC, ELF_THIS_MACHINE == EM_X86_64 ? "built for aarch64 (ELF machine 183)"
							       : "built for x86_64 (ELF machine 62)");
	plugin_copy(path, 0, EI_CLASS, ELFCLASS32);
	refused(path, -ENOEXEC, "a 32-bit object");
	plugin_copy(path, 0, 16, ET_EXEC);  /* e_type */
	refused(path, -ENOEXEC, "not ET_DYN");
	/* The whole copy loads. */
	plugin_copy(path, 0, -1, 0);
	{
		char tagged[64], err[1024];

		snprintf(tagged, sizeof(tagged), "elfcopy=%s", path);
		assert_int_equal(plugin_load(tagged, err, sizeof(err)), 0);
	}
	unlink(path);
}

/* A tag turns a refused duplicate of a built-in into a new lock. */
static void test_tag_renames(void **state)
{
	char err[1024];
	const struct lock_entry *e;

	(void)state;
	assert_int_equal(plugin_load(spec("mine", "tests/plugins/dup_builtin.so"),
				     err, sizeof(err)), 0);
	e = lock_registry_find("ticket_mine");
	assert_non_null(e);
	assert_non_null(e->origin);
	assert_null(lock_registry_find("ticket")->origin); /* built-in untouched */
	assert_int_equal(lock_ops_check(e->ops, NULL), 0);
}

static void test_plugins_load_stops(void **state)
{
	const char *specs[] = {"/nonexistent/a.so", "/nonexistent/b.so"};
	char err[1024];

	(void)state;
	assert_int_equal(plugins_load(specs, 2, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "a.so"));
	assert_int_equal(plugins_load(specs, 0, err, sizeof(err)), 0);
}

/*
 * What was opened is what runs: a plugin open at a descriptor whose path
 * then names another file (renamed over it) loads the file opened, with
 * that file's hash; the path is only its name.  Loaded by path, the
 * other file would run (a duplicate of the built-in ticket, refused).
 */
static void test_load_fd(void **state)
{
	char dirt[] = "/tmp/lb-fd-XXXXXX", path[128], other[128], err[1024];
	char good[65], hex[65];
	const struct lock_entry *e;
	unsigned n = lock_registry_count();
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dirt));
	snprintf(path, sizeof(path), "%s/x.so", dirt);
	snprintf(other, sizeof(other), "%s/other.so", dirt);
	char *a = realpath(spec(NULL, "examples/ticket_backoff.so"), NULL);
	char *b = realpath(spec(NULL, "tests/plugins/dup_builtin.so"), NULL);

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(symlink(a, path), 0);
	assert_int_equal(symlink(b, other), 0);
	free(a);
	free(b);
	assert_int_equal(sha256_file(path, good), 0);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(rename(other, path), 0);  /* the path now names another */
	assert_int_equal(plugin_load_fd("byfd", fd, path, err, sizeof(err)), 0);
	e = lock_registry_find("ticket_backoff_byfd");
	assert_non_null(e);
	assert_string_equal(e->sha256, good);
	assert_int_equal(sha256_fd(fd, hex), 0);  /* still open: the plugin's */
	assert_string_equal(hex, good);
	assert_int_equal(lock_registry_count(), n + 1);
	/* a bad tag closes the descriptor and registers nothing */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_int_equal(plugin_load_fd("Bad!", fd, path, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "tag (Bad!) must be 1 to 32 of [a-z0-9_]"));
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(lock_registry_count(), n + 1);
	unlink(path);
	rmdir(dirt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_fips),
		cmocka_unit_test(test_sha256_boundaries),
		cmocka_unit_test(test_sha256_file),
		cmocka_unit_test(test_load_example),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_elf_refusals),
		cmocka_unit_test(test_tag_renames),
		cmocka_unit_test(test_plugins_load_stops),
		cmocka_unit_test(test_load_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
