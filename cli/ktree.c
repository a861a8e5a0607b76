/* SPDX-License-Identifier: MIT */
/*
 * Kernel trees on the command line (docs/kernel-tree.md): `lockbench
 * build-kernel-lock DIR [--lock L] [-o FILE.so]`, and `--kernel-tree
 * [TAG=]DIR`, which builds a tree's locks (kernel/tree/ktree.c, cached) and
 * loads each plugin as `--plugin TAG=FILE` would, so that they run as
 * NAME_TAG (qspinlock_stock, qrwlock_stock, osq_stock).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../kernel/tree/ktree.h"
#include "../kernel/tree/ktree_cache.h"
#include "../locks/plugin.h"
#include "../output/results/json_read.h"
#include "../locks/registry.h"
#include "cmds.h"
#include "err.h"
#include "opt.h"
#include "outfile.h"

struct bkl_args {
	const char *lock, *output;
	bool quiet, help, events, verbose;
};

static const struct opt bkl_rows[] = {
	{.name = "lock", .type = OPT_STR, .arg = "L", .def = "qspinlock",
	 .off = offsetof(struct bkl_args, lock),
	 .help = "the lock to build: qspinlock, qrwlock or osq"},
	{.name = "output", .sname = 'o', .type = OPT_STR, .arg = "FILE.so",
	 .shown = "the cache only", .off = offsetof(struct bkl_args, output),
	 .help = "write the plugin here too, a file (not -, a device or a FIFO); "
		 "load it with --plugin TAG=FILE.so"},
	{.name = "lock-events", .type = OPT_FLAG, .off = offsetof(struct bkl_args, events),
	 .help = "count the tree's own lock events (CONFIG_LOCK_EVENT_COUNTS)"},
	{.name = "quiet", .sname = 'q', .type = OPT_FLAG,
	 .off = offsetof(struct bkl_args, quiet), .help = "print nothing but errors"},
	{.name = "verbose", .sname = 'v', .type = OPT_FLAG,
	 .off = offsetof(struct bkl_args, verbose),
	 .help = "print each compiler command (flags, include path in order) on stderr"},
	OPT_HELP_ROW(struct bkl_args, help),
};

const struct opt_cmd bkl_options = OPT_CMD("build-kernel-lock", bkl_rows);

void bkl_usage(FILE *f)
{
	fprintf(f,
		"usage: lockbench build-kernel-lock DIR [--lock L] [-o FILE.so]\n"
		"Compile the lock sources of the kernel tree at DIR, unchanged, behind\n"
		"lockbench's compatibility layer into a plugin (kernel/locking/qspinlock.c,\n"
		"the target's arch/ARCH/include/asm/qspinlock.h where the tree has one, and\n"
		"include/asm-generic/qspinlock.h; qrwlock.c and qrwlock.h with the tree's\n"
		"qspinlock as wait lock; osq_lock.c).  Builds are cached by content\n"
		"in $LOCKBENCH_CACHE or ${XDG_CACHE_HOME:-~/.cache}/lockbench; the compiler\n"
		"is $LOCKBENCH_CC (cc), extra flags $LOCKBENCH_KTREE_CFLAGS.  A tree with\n"
		"arch/ but not the target's arch/ARCH/include/asm is refused unless\n"
		"LOCKBENCH_KTREE_ARCH=generic.  The cache must be this user's alone, and\n"
		"every directory on the way to it root's or this user's (else exit 2); a\n"
		"cached plugin that does not match the digest beside it is built again,\n"
		"with a warning.  Programs are found in absolute PATH entries only; each\n"
		"(git, the compiler) is killed after $LOCKBENCH_KTREE_TIMEOUT seconds (300).\n");
	opt_help(&bkl_options, f);
	fprintf(f, "The lock carries its own worker loop (lock and unlock inlined), made\n"
		"of this lockbench's loop template; without a template of this binary's\n"
		"loop ABI a warning says so and the lock runs the generic loop.\n"
		"Prints the plugin's path and whether it was built or cached.\n"
		"Exit status: 0 success; 2 bad usage, or a tree that cannot be built\n"
		"(one line: the compiler's first error and its file).\n");
}

/* The cached plugin at `from`, verified and read through one
 * descriptor (ktree_plugin_open()), copied to -o (mode 0777 less the
 * umask, as a linker makes it); 0, or 2 after one line. */
static int copy_out(struct outdest *out, const char *from)
{
	char err[PATH_MAX + 1024], *buf = NULL, *t;
	size_t len = 0, cap = 0;
	int fd = ktree_plugin_open(from, err, sizeof(err)), rc = 0;
	ssize_t n = 1;

	if (fd < 0) {
		cli_warn("%s", err);
		return 2;
	}
	while (n > 0) {
		if (len == cap) {
			if (!(t = realloc(buf, cap = cap ? 2 * cap : 1 << 20)))
				break;
			buf = t;
		}
		n = pread(fd, buf + len, cap - len, (off_t)len);
		len += n > 0 ? (size_t)n : 0;
	}
	close(fd);
	if (n) {
		cli_warn("cannot read the built plugin (%s): %s", from,
			 n < 0 ? strerror(errno) : strerror(ENOMEM));
		free(buf);
		return 2;
	}
	rc = outfile_put(out, buf, len, 0777);
	free(buf);
	return rc;
}

int cmd_build_kernel_lock(int argc, char **argv)
{
	struct bkl_args a = {0};
	struct outdest out;
	char path[PATH_MAX + 64], err[PATH_MAX + 1024];
	bool cached;
	char **pos;
	int n;

	opt_defaults(&bkl_options, &a);
	pos = opt_parse(&bkl_options, &a, argc, argv, &n);
	if (a.help) {
		bkl_usage(stdout);
		free(pos);
		return 0;
	}
	if (n != 1)
		cli_die("build-kernel-lock: %s; usage: lockbench build-kernel-lock DIR "
			"[--lock L] [-o FILE.so]", n ? "one tree at a time" : "no tree given");
	/* -o is checked before the build, and written by the one writer of
	 * -o files: never over a device or FIFO, never as "-". */
	if (a.output)
		outfile_open(&out, a.output, true);
	ktree_set_lock_events(a.events);
	ktree_set_verbose(a.verbose);
	/* -o: the file written names the tree given, not a copy's */
	ktree_set_exact_tree(a.output != NULL);
	if (ktree_build(pos[0], a.lock, path, sizeof(path), &cached, err, sizeof(err)))
		cli_die_msg(err);
	if (a.output && copy_out(&out, path))
		return 2;
	if (!a.quiet)
		printf("%s %s (%s)\n", cached ? "cached" : "built",
		       a.output ? a.output : path, a.lock);
	free(pos);
	return 0;
}

#define TAG_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"

/* "TAG=DIR" or "DIR": the tag is the text before a '=' that comes before
 * any '/', checked as --plugin checks it (1 to PLUGIN_MAX_TAG of
 * [a-z0-9_]).  A leading "~/" of the DIR after "TAG=" becomes $HOME/, as
 * bash would have made it (dash and zsh leave it).  Exits 2 on a bad
 * TAG; the DIR is returned (malloc'd). */
static char *tree_spec(const char *spec, char tag[PLUGIN_MAX_TAG + 1])
{
	const char *eq = strchr(spec, '='), *slash = strchr(spec, '/'), *dir = spec;
	const char *home = getenv("HOME");
	char *out;
	size_t n;

	tag[0] = 0;
	if (eq && (!slash || eq < slash)) {
		n = (size_t)(eq - spec);
		if (!n || n > PLUGIN_MAX_TAG || strspn(spec, TAG_CHARS) < n)
			cli_die("--kernel-tree (%s): TAG (%.*s) must be 1 to %d of [a-z0-9_]",
				spec, (int)n, spec, PLUGIN_MAX_TAG);
		memcpy(tag, spec, n);
		tag[n] = 0;
		dir = eq + 1;
		if (!strncmp(dir, "~/", 2) && home && *home) {
			if (asprintf(&out, "%s/%s", home, dir + 2) < 0)
				cli_die("--kernel-tree (%s): out of memory", spec);
			return out;
		}
	}
	if (!*dir)
		cli_die("--kernel-tree (%s): expected DIR or TAG=DIR", spec);
	return cli_strdup(dir);
}

/* The TAG of a tree given without one: its folder's name (of the path
 * resolved, so "linux/." is "linux") in [a-z0-9_]; a name longer than a
 * TAG is refused rather than cut. */
static void tree_tag(const char *spec, const char *dir, char tag[PLUGIN_MAX_TAG + 1])
{
	char *real = realpath(dir, NULL), *base;
	size_t n = 0;

	base = real ? strrchr(real, '/') : NULL;
	base = base ? base + 1 : NULL;
	if (!base || !*base) {
		free(real);
		snprintf(tag, PLUGIN_MAX_TAG + 1, "tree");
		return;
	}
	if (strlen(base) > PLUGIN_MAX_TAG)
		cli_die("--kernel-tree (%s): the folder name %s is longer than a TAG "
			"(%d characters): give TAG=DIR", spec, base, PLUGIN_MAX_TAG);
	for (; base[n]; n++)
		tag[n] = isalnum((unsigned char)base[n]) ? (char)tolower((unsigned char)base[n]) : '_';
	tag[n] = 0;
	free(real);
}

/*
 * The identity of the locks registered from entry `first` on names the
 * tree of this invocation (canonical `dir`): the cache is shared by
 * trees of the same content, and the plugin's own identity names the
 * tree that built it (docs/kernel-tree.md).
 */
static void own_tree(unsigned first, const char *dir)
{
	char *real = realpath(dir, NULL), *text = NULL;
	const char *was = first < lock_registry_count() ? lock_registry_at(first)->identity : NULL;
	json_t *o = was ? json_loads(was, 0, NULL) : NULL;

	if (real && json_is_object(o) && !json_object_set_new(o, "tree", json_string(real)))
		text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	for (unsigned i = first; text && i < lock_registry_count(); i++)
		lock_registry_set_identity(i, text);  /* kept for the process's life */
	json_decref(o);
	free(real);
}

/* Does -l ask for NAME_TAG (or is there no -l)? */
static bool wanted(const char *locks, const char *name, const char *tag)
{
	char full[128];
	size_t n;

	if (!locks)
		return true;
	n = (size_t)snprintf(full, sizeof(full), "%s_%s", name, tag);
	for (const char *p = locks; (p = strstr(p, full)); p += n)
		if ((p == locks || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
	return false;
}

/* The lock list of a run without -l: the default sweep, then each
 * tree's locks (kept for the run: c->locks points at it). */
static char *sweep;

/* Append ",NAME_TAG" to the sweep. */
static void sweep_add(const char *name, const char *tag)
{
	char *s;

	if (asprintf(&s, "%s,%s_%s", sweep, name, tag) < 0)
		cli_die("out of memory");
	free(sweep);
	sweep = s;
}

/*
 * Build and load the locks of one --kernel-tree argument: those -l names
 * (as NAME_TAG), or every lock the tree holds when -l is not given, which
 * then join the sweep.  A tree that cannot be built, or holds none of the
 * locks, exits 2.
 */
static void tree_load(const char *spec, const char *locks, bool quiet)
{
	char tag[PLUGIN_MAX_TAG + 1], path[PATH_MAX + 64], err[PATH_MAX + 1024];
	char *dir = tree_spec(spec, tag);
	unsigned built = 0, first;
	int fd;
	bool cached;

	if (ktree_check(dir, err, sizeof(err)))
		cli_die_msg(err);
	if (!tag[0])
		tree_tag(spec, dir, tag);
	for (unsigned i = 0; i < ktree_nlocks; i++) {
		const char *name = ktree_lock_names[i];

		if (!wanted(locks, name, tag) || (!locks && !ktree_has_lock(dir, name)))
			continue;
		if (ktree_build(dir, name, path, sizeof(path), &cached, err, sizeof(err)))
			cli_die_msg(err);
		if (!quiet)
			fprintf(stderr, "lockbench: kernel tree %s: %s_%s %s (%s)\n", dir,
				name, tag, cached ? "cached" : "built", path);
		/* what was verified by descriptor is what is loaded */
		if ((fd = ktree_plugin_open(path, err, sizeof(err))) < 0)
			cli_die_msg(err);
		first = lock_registry_count();
		if (plugin_load_fd(tag, fd, path, err, sizeof(err)))
			cli_die_msg(err);
		if (!locks)
			sweep_add(name, tag);
		own_tree(first, dir);
		built++;
	}
	if (!built && !locks)
		cli_die("--kernel-tree (%s): no lock sources found (kernel/locking/"
			"qspinlock.c, qrwlock.c, osq_lock.c)", dir);
	free(dir);
}

void ktrees_load(struct cli *c)
{
	if (c->lock_events && !c->ktrees.n)
		cli_die("--lock-events: the tree's counters need --kernel-tree");
	ktree_set_lock_events(c->lock_events);
	ktree_set_verbose(c->verbose);
	if (!c->locks_given && c->ktrees.n)
		sweep = cli_strdup(c->locks);
	for (unsigned i = 0; i < c->ktrees.n; i++)
		tree_load(c->ktrees.v[i], c->locks_given ? c->locks : NULL, c->quiet);
	if (sweep)
		c->locks = sweep;
}
