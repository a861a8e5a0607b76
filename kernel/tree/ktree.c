/* SPDX-License-Identifier: MIT */
/*
 * The kernel tree builder (docs/kernel-tree.md): compile a tree's lock
 * sources where they are, behind lockbench's compatibility layer
 * (kernel/compat/include first on the include path, linux/kconfig.h
 * forced in as the kernel's own build forces include/linux/kconfig.h),
 * with a generated file that carries the build's identity and includes
 * the glue (kernel/compat/glue.c).  The result is a plugin like any
 * other, kept in the cache under a key of everything that went into it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/sha256.h"
#include "ktree.h"
#include "ktree_cache.h"
#include "../../lib/progpath.h"

/* Bumped when the way a plugin is built changes (it is in the key). */
#define KTREE_RECIPE "lockbench-ktree-3"

/* This binary's loop ABI (workloads/loop_api.h), which a plugin's own
 * worker loops must carry: the Makefile builds this file with it. */
#ifndef LOCKBENCH_LOOP_ABI
#error "LOCKBENCH_LOOP_ABI: built by the Makefile (scripts/gen-loop-template.sh --abi)"
#endif

#define TEMPLATE "lockbench/loop_template.h"

struct klock {
	const char *name;
	const char *macro;          /* what the glue builds */
	const char *srcs[3];        /* compiled, in the tree */
	const char *needs[2];       /* must exist too */
};

static const struct klock klocks[] = {
	{"qspinlock", "LB_KC_QSPINLOCK", {"kernel/locking/qspinlock.c"},
	 {"include/asm-generic/qspinlock.h"}},
	{"qrwlock", "LB_KC_QRWLOCK",
	 {"kernel/locking/qrwlock.c", "kernel/locking/qspinlock.c"},
	 {"include/asm-generic/qrwlock.h", "include/asm-generic/qspinlock.h"}},
	{"osq", "LB_KC_OSQ", {"kernel/locking/osq_lock.c"}, {"include/linux/osq_lock.h"}},
};

const char *const ktree_lock_names[] = {"qspinlock", "qrwlock", "osq"};

/* --lock-events: build the queued locks with the tree's own event
 * counters (CONFIG_LOCK_EVENT_COUNTS). */
static bool lock_events;

void ktree_set_lock_events(bool on)
{
	lock_events = on;
}

/* -v: print each compiler command before it runs (show_cmd). */
static bool verbose;

void ktree_set_verbose(bool on)
{
	verbose = on;
}

/* build-kernel-lock: serve the cache only for the very tree. */
static bool exact_tree;

void ktree_set_exact_tree(bool on)
{
	exact_tree = on;
}
const unsigned ktree_nlocks = sizeof(klocks) / sizeof(klocks[0]);

/* The generic lock headers every lock source includes: checked to be
 * regular files before the dependency pass opens them (a FIFO there
 * would block the compiler for ever). */
static const char *const tree_headers[] = {
	"include/asm-generic/qspinlock.h", "include/asm-generic/qspinlock_types.h",
	"include/asm-generic/qrwlock.h", "include/asm-generic/qrwlock_types.h",
	"include/asm-generic/mcs_spinlock.h", "include/linux/osq_lock.h",
};

/* Everything one build needs, in one place. */
struct kbuild {
	const struct klock *k;
	char root[PATH_MAX];        /* the tree, canonical */
	char compat[PATH_MAX];      /* kernel/compat of this lockbench */
	char pubinc[PATH_MAX];      /* where lockbench/lock.h is */
	char tmpl[PATH_MAX];        /* where lockbench/loop_template.h is, of
				     * this binary's loop ABI; "": none */
	char tmp[PATH_MAX];         /* private build directory */
	char lbinc[PATH_MAX];       /* tmp/inc: only lockbench/ in it */
	char cc[256];
	char ccid[512];             /* `cc --version` first line, target */
	char arch[16];              /* the tree's arch/ARCH/include, or "" */
	char arch_note[96];         /* generic although the target maps to an
				     * arch: "generic: no arch/x86/include/asm" */
	char *extra;                /* $LOCKBENCH_KTREE_CFLAGS */
	const char *defs[4];        /* -D flags of this build, in the key and the
				     * recorded flags: CONFIG_LOCK_EVENT_COUNTS,
				     * room for another variant's CONFIG_ */
	json_t *files;              /* tree file -> sha256, what it compiles */
	bool events;                /* CONFIG_LOCK_EVENT_COUNTS (--lock-events) */
	unsigned nr_cpus;
	json_t *git;                /* {describe, commit, dirty} or null */
	char key[65];
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 3, 4)))
kerr(struct kbuild *b, int rc, const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(b->err, b->errlen, "kernel tree (%s): ", b->root);

	if (k >= 0 && (size_t)k < b->errlen) {
		va_start(ap, fmt);
		vsnprintf(b->err + k, b->errlen - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* "a/b" into buf; a path too long for it is cut (and then not found). */
static __attribute__((noinline)) void pjoin(char *buf, size_t len, const char *a,
					    const char *b)
{
	if ((size_t)snprintf(buf, len, "%s/%s", a, b) >= len)
		buf[len - 1] = 0;
}

static bool is_file(const char *dir, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	pjoin(p, sizeof(p), dir, rel);
	return !stat(p, &st) && S_ISREG(st.st_mode);
}

static const struct klock *klock_find(const char *name)
{
	for (unsigned i = 0; i < ktree_nlocks; i++)
		if (!strcmp(klocks[i].name, name))
			return &klocks[i];
	return NULL;
}

bool ktree_has_lock(const char *dir, const char *name)
{
	const struct klock *k = klock_find(name);

	for (unsigned i = 0; k && i < 3 && k->srcs[i]; i++)
		if (!is_file(dir, k->srcs[i]))
			return false;
	for (unsigned i = 0; k && i < 2 && k->needs[i]; i++)
		if (!is_file(dir, k->needs[i]))
			return false;
	return k != NULL;
}

/*
 * Run argv (argv[0] an absolute path) with stdout and stderr into `log`
 * (kcache_run(): stdin from /dev/null, killed at the time limit), with
 * GIT_OPTIONAL_LOCKS=0, so that git never writes to the tree's index.
 */
static int run_cmd(char *const argv[], const char *log)
{
	static const char *const env[][2] = {
		{"GIT_OPTIONAL_LOCKS", "0"}, {"LC_ALL", "C"}, {"", ""},
	};

	return kcache_run(argv, log, true, NULL, env);
}

/* The first line of file `path` into buf (no newline); "" if none. */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f && fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = 0;
	if (f)
		fclose(f);
}

/* Run a command and return the first line of its output, or NULL. */
static bool cmd_line(struct kbuild *b, char *const argv[], char *buf, size_t len)
{
	char log[PATH_MAX];

	pjoin(log, sizeof(log), b->tmp, "cmd.log");
	if (run_cmd(argv, log))
		return false;
	first_line(log, buf, len);
	return buf[0] != 0;
}

/*
 * This lockbench's layer: $LOCKBENCH_COMPAT_DIR, else kernel/compat
 * beside the binary (./lockbench in the source tree, or
 * build/<flavour>/lockbench), else the installed share/lockbench/compat.
 * The public headers are the source tree's locks/ or the installed
 * copy in the layer's include/.
 */
static int find_layer(struct kbuild *b)
{
	static const char *const rel[] = {"kernel/compat", "../../kernel/compat",
					  "../share/lockbench/compat"};
	char exe[PATH_MAX], p[PATH_MAX + 64];
	const char *env = getenv("LOCKBENCH_COMPAT_DIR");
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	b->compat[0] = 0;
	if (env && *env && realpath(env, b->compat) && is_file(b->compat, "glue.c"))
		goto found;
	if (n > 0) {
		exe[n] = 0;
		*strrchr(exe, '/') = 0;
	}
	for (unsigned i = 0; n > 0 && i < 3; i++) {
		pjoin(p, sizeof(p), exe, rel[i]);
		if (realpath(p, b->compat) && is_file(b->compat, "glue.c"))
			goto found;
	}
	return kerr(b, -ENOENT, "lockbench's kernel compatibility layer not found "
		    "(set LOCKBENCH_COMPAT_DIR to its kernel/compat)");
found:
	pjoin(p, sizeof(p), b->compat, "../../locks");
	if (!realpath(p, b->pubinc) || !is_file(b->pubinc, "lockbench/lock.h"))
		pjoin(b->pubinc, sizeof(b->pubinc), b->compat, "include");
	return 0;
}

/* The loop ABI a template file states, or 0 when it states none. */
static unsigned long template_abi(const char *dir)
{
	char p[PATH_MAX + 32], line[256];
	unsigned long abi = 0;
	FILE *f;

	pjoin(p, sizeof(p), dir, TEMPLATE);
	f = fopen(p, "r");
	while (f && !abi && fgets(line, sizeof(line), f))
		if (!strncmp(line, "#define LOCKBENCH_LOOP_ABI ", 27))
			abi = strtoul(line + 27, NULL, 0);
	if (f)
		fclose(f);
	return abi;
}

/*
 * The worker-loop template the glue instantiates the plugin's own loops
 * from (<lockbench/loops.h>): the public headers' copy (installed:
 * share/lockbench/compat/include), else the one the source tree's
 * Makefile generates (build/include beside kernel/).  It must be this
 * binary's (the same loop ABI); otherwise, or without one, the locks
 * are built without loops of their own and run the generic loop, which
 * a warning says.
 */
static void find_template(struct kbuild *b)
{
	char p[PATH_MAX + 32], built[PATH_MAX] = "";
	const char *dirs[2] = {b->pubinc, built};
	unsigned long abi = 0;

	b->tmpl[0] = 0;
	pjoin(p, sizeof(p), b->compat, "../../build/include");
	if (!realpath(p, built))
		built[0] = 0;
	for (unsigned i = 0; i < 2 && !abi; i++)
		if (dirs[i][0] && is_file(dirs[i], TEMPLATE) && (abi = template_abi(dirs[i])))
			memcpy(b->tmpl, dirs[i], strlen(dirs[i]) + 1);
	if (abi == LOCKBENCH_LOOP_ABI)
		return;
	if (abi)
		fprintf(stderr, "lockbench: warning: kernel tree (%s): the worker-loop "
			"template %s/%s is for loop ABI %#lx, this lockbench has %#x: "
			"%s runs the generic loop (regenerate the template with this "
			"lockbench's build, or install it again)\n", b->root, b->tmpl,
			TEMPLATE, abi, (unsigned)LOCKBENCH_LOOP_ABI, b->k->name);
	else
		fprintf(stderr, "lockbench: warning: kernel tree (%s): no worker-loop "
			"template (%s) beside the layer %s: %s runs the generic loop\n",
			b->root, TEMPLATE, b->compat, b->k->name);
	b->tmpl[0] = 0;
}

/* Hash "rel sha\n" of dir/rel into s; missing files hash as "rel -". */
static void hash_one(struct sha256 *s, const char *dir, const char *rel)
{
	char p[PATH_MAX * 2], hex[65] = "-", line[PATH_MAX + 80];
	int n;

	pjoin(p, sizeof(p), dir, rel);
	(void)sha256_file(p, hex);
	n = snprintf(line, sizeof(line), "%s %s\n", rel, hex);
	sha256_update(s, line, (size_t)n);
}

/* Hash every regular file under dir/sub (recursively when deep), in
 * name order. */
static void hash_dir(struct sha256 *s, const char *dir, const char *sub, bool deep)
{
	char p[PATH_MAX], rel[PATH_MAX];
	struct dirent **ents;
	int n;

	pjoin(p, sizeof(p), dir, sub);
	n = scandir(p, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		struct stat st;

		pjoin(rel, sizeof(rel), sub, ents[i]->d_name);
		pjoin(p, sizeof(p), dir, rel);
		if (ents[i]->d_name[0] != '.' && !stat(p, &st)) {
			if (S_ISREG(st.st_mode))
				hash_one(s, dir, rel);
			else if (deep && S_ISDIR(st.st_mode))
				hash_dir(s, dir, rel, deep);
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
}

/* The tree files a build reads: those the dependency pass listed, the
 * files the key hashes (NULL-ended, each freed with the array).  Their
 * git state is the tree's (docs/kernel-tree.md): a change elsewhere in
 * the tree (kernel/locking/mutex.c) neither rebuilds nor dirties. */
static char **known_files(const struct kbuild *b)
{
	size_t nd = b->files ? json_object_size(b->files) : 0, n = 0;
	char **v = calloc(nd + 1, sizeof(*v));
	const char *dep;
	json_t *val;

	json_object_foreach(b->files, dep, val)
		if (v && !(v[n++] = strdup(dep)))
			n--;  /* out of memory: fewer files compared */
	if (v)
		v[n] = NULL;
	return v;
}

/* The tree's git state (kernel/tree/ktree_git.c: nothing the tree configures
 * runs), or JSON null when `root` is not the top of a git work tree;
 * NULL with b->err set when git cannot be run on it safely. */
static json_t *git_state(struct kbuild *b)
{
	char **files = known_files(b), why[PATH_MAX + 128];
	json_t *g = files ? kcache_git_state(b->root, (const char *const *)files, b->tmp,
					     why, sizeof(why)) : json_null();

	if (!g)
		kerr(b, -EINVAL, "%s", why);

	for (unsigned i = 0; files && files[i]; i++)
		free(files[i]);
	free(files);
	return g;
}

/* Add to v (room for `cap`) the tree files that the layer's shim `rel`
 * (a path under kernel/compat/include) stands in for: include/REL, and
 * for asm/X the tree's arch/ARCH/include/asm/X and asm-generic/X. */
static unsigned shadow_add(const struct kbuild *b, const char *rel, char **v, unsigned n,
			   unsigned cap)
{
	char c[3][PATH_MAX + 64];
	unsigned k = 0;

	if (!strncmp(rel, "asm/", 4)) {
		if (b->arch[0])
			snprintf(c[k++], sizeof(c[0]), "arch/%s/include/%s", b->arch, rel);
		snprintf(c[k++], sizeof(c[0]), "include/asm-generic/%s", rel + 4);
	} else {
		snprintf(c[k++], sizeof(c[0]), "include/%s", rel);
	}
	for (unsigned i = 0; i < k && n < cap; i++)
		if (is_file(b->root, c[i]) && (v[n] = strdup(c[i])))
			n++;
	return n;
}

/* Walk kernel/compat/include/`sub` for shims (shadow_add). */
static unsigned shadow_walk(const struct kbuild *b, const char *sub, char **v, unsigned n,
			    unsigned cap)
{
	char p[PATH_MAX * 3], rel[PATH_MAX];
	struct dirent **ents;
	struct stat st;
	int ne;

	snprintf(p, sizeof(p), "%s/include%s%s", b->compat, *sub ? "/" : "", sub);
	ne = scandir(p, &ents, NULL, alphasort);
	for (int i = 0; i < ne; i++) {
		snprintf(rel, sizeof(rel), "%s%s%s", sub, *sub ? "/" : "", ents[i]->d_name);
		snprintf(p, sizeof(p), "%s/include/%s", b->compat, rel);
		if (ents[i]->d_name[0] != '.' && !stat(p, &st))
			n = S_ISDIR(st.st_mode) ? shadow_walk(b, rel, v, n, cap)
						: shadow_add(b, rel, v, n, cap);
		free(ents[i]);
	}
	if (ne >= 0)
		free(ents);
	return n;
}

/*
 * The tree files the layer stands in for are never compiled, so a change
 * to one would not be measured: each that differs from the tree's commit
 * is a warning naming it and makes the tree dirty (in the key, so a
 * clean build is not reused).  Outside git there is nothing to compare.
 */
static void shadowed_check(struct kbuild *b)
{
	enum { CAP = 200 };  /* within what git_run passes on one command line */
	char **v = calloc(CAP + 1, sizeof(*v));
	bool *changed = calloc(CAP, sizeof(*changed)), any = false;
	unsigned n = v ? shadow_walk(b, "", v, 0, CAP) : 0;

	if (v && changed && json_is_object(b->git) &&
	    !kcache_git_changed(b->root, (const char *const *)v, b->tmp, changed))
		for (unsigned i = 0; i < n; i++) {
			if (!changed[i])
				continue;
			fprintf(stderr, "lockbench: warning: kernel tree (%s): %s differs from "
				"the tree's commit, but lockbench's layer stands in for it "
				"(kernel/compat): the change is not built; the tree counts as "
				"dirty\n", b->root, v[i]);
			any = true;
		}
	if (any && json_is_true(json_object_get(b->git, "dirty")) == 0) {
		const char *d = json_string_value(json_object_get(b->git, "describe"));
		char desc[400];

		snprintf(desc, sizeof(desc), "%s-dirty", d ? d : "");
		json_object_set_new(b->git, "describe", json_string(desc));
		json_object_set_new(b->git, "dirty", json_true());
	}
	for (unsigned i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
	free(changed);
}

/* CONFIG_NR_CPUS: the machine's CPUs rounded up to a power of two, at
 * least 64 (threads beyond the CPUs are allowed), at most the 16383 the
 * queued spinlock's tail encodes. */
static unsigned nr_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	unsigned v = 64;

	while (n > 0 && v < (unsigned long)n && v < 8192)
		v *= 2;
	return n > 8192 ? (n < 16383 ? (unsigned)n : 16383) : v;
}

/*
 * The tree's architecture directory for the compiler's target, as the
 * kernel's build puts arch/$(SRCARCH)/include on its include path:
 * x86 for x86_64 and i?86, arm64 for aarch64; "" (the generic headers
 * only) for a target lockbench does not map.  A tree with an arch/
 * directory but not the target's is refused: its lock would be built
 * as no kernel for this CPU builds it.  LOCKBENCH_KTREE_ARCH=generic
 * builds it with the generic headers anyway, and a tree without arch/
 * at all (the lock files alone) builds that way too; either is named
 * in b->arch_note, which the identity and the table's tree line carry
 * (docs/kernel-tree.md).
 */
static int tree_arch(struct kbuild *b, const char *target)
{
	static const char *const map[][2] = {
		{"x86_64-", "x86"}, {"i386-", "x86"}, {"i686-", "x86"}, {"aarch64-", "arm64"},
	};
	const char *env = getenv("LOCKBENCH_KTREE_ARCH");
	char p[PATH_MAX + 64];
	struct stat st;

	b->arch[0] = b->arch_note[0] = 0;
	for (unsigned i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strncmp(target, map[i][0], strlen(map[i][0])))
			snprintf(b->arch, sizeof(b->arch), "%s", map[i][1]);
	snprintf(p, sizeof(p), "%s/arch/%s/include/asm", b->root, b->arch);
	if (!b->arch[0] || (!stat(p, &st) && S_ISDIR(st.st_mode)))
		return 0;
	snprintf(b->arch_note, sizeof(b->arch_note), "generic: no arch/%s/include/asm",
		 b->arch);
	snprintf(p, sizeof(p), "%s/arch", b->root);
	if (!stat(p, &st) && S_ISDIR(st.st_mode) && !(env && !strcmp(env, "generic")))
		return kerr(b, -ENOENT, "cannot build %s: the tree has no arch/%s/include/asm "
			    "for the compiler's target (%s); LOCKBENCH_KTREE_ARCH=generic "
			    "builds it with the generic headers only", b->k->name, b->arch,
			    target);
	b->arch[0] = 0;
	return 0;
}

/* The compiler's identity (version line and target), or an error when it
 * cannot run. */
static int compiler_id(struct kbuild *b)
{
	char ver[256], target[128];
	char *a_ver[] = {b->cc, "--version", NULL};
	char *a_tgt[] = {b->cc, "-dumpmachine", NULL};

	if (!cmd_line(b, a_ver, ver, sizeof(ver)) || !cmd_line(b, a_tgt, target, sizeof(target)))
		return kerr(b, -ENOENT, "compiler %s does not run (set LOCKBENCH_CC)", b->cc);
	snprintf(b->ccid, sizeof(b->ccid), "%s; %s", ver, target);
	return tree_arch(b, target);
}

/* The flags every file is compiled with, before the include paths: the
 * kernel's own -fno-strict-aliasing/-fno-strict-overflow/-fno-common
 * and -Wno-pointer-sign, and an undeclared function as an error (the
 * layer lacks it: say where, rather than fail at load time). */
static const char *const base_flags[] = {
	"-std=gnu11", "-O2", "-g", "-fPIC", "-fno-strict-aliasing",
	"-fno-strict-overflow", "-fno-common", "-Wno-pointer-sign",
	"-Werror=implicit-function-declaration", "-Werror=implicit-int",
};
#define NBASE (sizeof(base_flags) / sizeof(base_flags[0]))

/* The recorded flags: base, CONFIG_NR_CPUS and the extra ones. */
static char *flags_text(const struct kbuild *b)
{
	char *s = NULL, *t;

	for (unsigned i = 0; i < NBASE; i++) {
		if (asprintf(&t, "%s%s%s", s ? s : "", s ? " " : "", base_flags[i]) < 0)
			t = NULL;
		free(s);
		s = t;
	}
	if (s && asprintf(&t, "%s -DCONFIG_NR_CPUS=%u%s%s", s, b->nr_cpus,
			  b->extra ? " " : "", b->extra ? b->extra : "") < 0)
		t = NULL;
	free(s);
	for (unsigned i = 0; t && i < 4 && b->defs[i]; i++) {
		s = t;
		if (asprintf(&t, "%s %s", s, b->defs[i]) < 0)
			t = NULL;
		free(s);
	}
	return t;
}

/* The key of a build: recipe, lock, compiler, flags, CPUs, layer, the
 * contents of every tree file the build compiles (b->files, from the
 * compiler's dependency output), its git state. */
static void build_key(struct kbuild *b)
{
	struct sha256 s;
	uint8_t d[32];
	char *git = json_dumps(b->git, JSON_ENCODE_ANY | JSON_COMPACT), *files;
	char *flags = flags_text(b);
	char head[2600];
	int n = snprintf(head, sizeof(head), "%s\n%s\n%s\n%s\n%u\n%s\nloops %#x\narch %s\n",
			 KTREE_RECIPE, b->k->name, b->ccid, flags ? flags : "",
			 b->nr_cpus, git ? git : "", b->tmpl[0] ? LOCKBENCH_LOOP_ABI : 0,
			 b->arch);

	free(flags);
	n = n < (int)sizeof(head) ? n : (int)sizeof(head) - 1;

	free(git);
	sha256_init(&s);
	sha256_update(&s, head, (size_t)n);
	hash_dir(&s, b->compat, "include", true);
	hash_dir(&s, b->compat, "generic", true);
	hash_one(&s, b->compat, "glue.c");
	hash_dir(&s, b->pubinc, "lockbench", false);
	if (b->tmpl[0])
		hash_one(&s, b->tmpl, TEMPLATE);
	files = json_dumps(b->files, JSON_COMPACT | JSON_SORT_KEYS);
	if (files)
		sha256_update(&s, files, strlen(files));
	free(files);
	sha256_final(&s, d);
	for (unsigned i = 0; i < 32; i++)
		sprintf(b->key + 2 * i, "%02x", d[i]);
}

/*
 * The include path, as the kernel's build orders its own (-I
 * arch/$(SRCARCH)/include, its generated generic-y wrappers, -I
 * include): the layer's shims first, where the lock files need user
 * space; lockbench's public headers, reached only as <lockbench/...>
 * (tmp/inc holds nothing but a link lockbench/ to them, so that no other
 * lockbench header can stand in for a tree file); the tree's arch
 * directory; the layer's generic-y wrappers (kernel/compat/generic),
 * for what the arch does not define itself; the tree's include/.
 * Each into inc[] as "-IDIR"; returns how many.
 */
static unsigned include_path(const struct kbuild *b, char inc[][2 * PATH_MAX + 80])
{
	char arch[64];
	unsigned n = 0;

	snprintf(inc[n++], 2 * PATH_MAX + 80, "-I%s/include", b->compat);
	snprintf(inc[n++], 2 * PATH_MAX + 80, "-I%s", b->lbinc);
	if (b->tmpl[0] && strcmp(b->tmpl, b->pubinc))
		snprintf(inc[n++], 2 * PATH_MAX + 80, "-I%s", b->tmpl);
	snprintf(arch, sizeof(arch), "arch/%s/include", b->arch);
	if (b->arch[0])
		snprintf(inc[n++], 2 * PATH_MAX + 80, "-I%s/%s", b->root, arch);
	snprintf(inc[n++], 2 * PATH_MAX + 80, "-I%s/generic", b->compat);
	snprintf(inc[n++], 2 * PATH_MAX + 80, "-I%s/include", b->root);
	snprintf(inc[n++], 2 * PATH_MAX + 80, "-I%s", b->compat);
	if (b->events) /* the glue's <lock_events.h>, the tree's */
		snprintf(inc[n++], 2 * PATH_MAX + 80, "-I%s/kernel/locking", b->root);
	return n;
}

/* -v: the command on stderr, one line, a word with a space or a quote
 * in single quotes. */
static void show_cmd(const struct kbuild *b, char *const argv[])
{
	if (!verbose)
		return;
	fprintf(stderr, "lockbench: kernel tree (%s):", b->root);
	for (unsigned i = 0; argv[i]; i++)
		if (argv[i][strcspn(argv[i], " \t'\"\\$")])
			fprintf(stderr, " '%s'", argv[i]);
		else
			fprintf(stderr, " %s", argv[i]);
	fputc('\n', stderr);
}

/*
 * Compile `src` (absolute) to `obj`, or with obj NULL only list what it
 * includes into `dep` (-M: the preprocessor's pass, which the key is
 * made of); the compiler's output goes to tmp/cc.log.  Returns the
 * compiler's exit status.
 */
static int compile(struct kbuild *b, const char *src, const char *obj, const char *dep)
{
	char *argv[NBASE + 64], nr[64], inc[8][2 * PATH_MAX + 80], log[PATH_MAX];
	char *extra = b->extra ? strdup(b->extra) : NULL, *save = NULL;
	unsigned n = 0, ni = include_path(b, inc);
	int rc;

	argv[n++] = b->cc;
	for (unsigned i = 0; i < NBASE; i++)
		argv[n++] = (char *)base_flags[i];
	snprintf(nr, sizeof(nr), "-DCONFIG_NR_CPUS=%u", b->nr_cpus);
	argv[n++] = nr;
	for (char *w = extra ? strtok_r(extra, " \t", &save) : NULL; w && n < NBASE + 36;
	     w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	for (unsigned i = 0; i < 4 && b->defs[i]; i++)
		argv[n++] = (char *)b->defs[i];
	argv[n++] = "-include";
	argv[n++] = "linux/kconfig.h";
	for (unsigned i = 0; i < ni; i++)
		argv[n++] = inc[i];
	argv[n++] = obj ? "-c" : "-M";
	if (!obj) {
		argv[n++] = "-MF";
		argv[n++] = (char *)dep;
	}
	argv[n++] = (char *)src;
	if (obj) {
		argv[n++] = "-o";
		argv[n++] = (char *)obj;
	}
	argv[n] = NULL;
	pjoin(log, sizeof(log), b->tmp, "cc.log");
	show_cmd(b, argv);
	rc = run_cmd(argv, log);
	free(extra);
	return rc;
}

/* One line for a failed compile of `what`: the compiler's first error,
 * paths in the tree shown relative to it. */
static int compile_error(struct kbuild *b, const char *what, int status)
{
	char log[PATH_MAX], line[1024] = "", *p;
	size_t rl = strlen(b->root);
	FILE *f;

	bool full = kcache_disk_full(b->tmp);  /* the compiler's log may be empty */

	pjoin(log, sizeof(log), b->tmp, "cc.log");
	f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f) && !strstr(line, "error:"))
		line[0] = 0;
	full |= strstr(line, strerror(ENOSPC)) != NULL;
	for (char more[1024]; f && !full && fgets(more, sizeof(more), f);)
		full = strstr(more, strerror(ENOSPC)) != NULL;
	if (f)
		fclose(f);
	if (full)
		return kerr(b, -ENOSPC, "cannot build %s: the disk holding the cache "
			    "(%.*s) is full: %s", b->k->name, (int)(strrchr(b->tmp, '/') - b->tmp),
			    b->tmp, strerror(ENOSPC));
	line[strcspn(line, "\n")] = 0;
	p = line;
	if (!strncmp(p, b->root, rl) && p[rl] == '/')
		p += rl + 1;
	if (status == KCACHE_LATE)
		return kerr(b, -ETIMEDOUT, "cannot build %s: the compiler did not finish %s "
			    "in %u s and was killed (LOCKBENCH_KTREE_TIMEOUT sets the limit)",
			    b->k->name, what, kcache_child_limit());
	if (!*p)
		return kerr(b, -ENOEXEC, "cannot build %s: the compiler failed on %s "
			    "(exit %d) without an error line", b->k->name, what, status);
	return kerr(b, -ENOEXEC, "cannot build %s: %s", b->k->name, p);
}

/*
 * The next word of a make rule (a .d file as the compiler writes it)
 * into buf: `\ ` and `\#` are a space and a # in a path, `$$` is `$`, a
 * backslash before the line's end continues the rule.  Returns 2 for a
 * target (the word ended in ':'), 1 for a prerequisite, 0 at the end.
 */
static int dep_word(FILE *f, char *buf, size_t len)
{
	size_t n = 0;
	int c, d;

	while ((c = getc(f)) != EOF) {
		if (c == '\\' && (d = getc(f)) != EOF) {
			if (d == '\n' || d == '\r') {
				if (n)
					break;
				continue;
			}
			if (d != ' ' && d != '#')
				ungetc(d, f);
			else
				c = d;
		} else if (c == '$' && (d = getc(f)) != '$' && d != EOF) {
			ungetc(d, f);
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			if (n)
				break;
			continue;
		}
		if (n + 1 < len)
			buf[n++] = (char)c;
	}
	buf[n] = 0;
	if (n && buf[n - 1] == ':' && (c == EOF || c == ' ' || c == '\t' || c == '\n')) {
		buf[n - 1] = 0;
		return 2;
	}
	return n ? 1 : 0;
}

/* Add the tree files a .d file lists to `files` (path in the tree ->
 * sha256); a path that leaves the tree (the layer, the C library) is
 * not the tree's. */
static void deps_add(struct kbuild *b, const char *dep, json_t *files)
{
	FILE *f = fopen(dep, "r");
	char word[PATH_MAX + 1], real[PATH_MAX], hex[65];
	size_t rl = strlen(b->root);
	int t;

	while (f && (t = dep_word(f, word, sizeof(word)))) {
		if (t != 1 || !realpath(word, real) || strncmp(real, b->root, rl) ||
		    real[rl] != '/')
			continue;
		if (!sha256_file(real, hex))
			json_object_set_new(files, real + rl + 1, json_string(hex));
	}
	if (f)
		fclose(f);
}

/* The recorded flags with what follows them on the compiler's command
 * line: -include linux/kconfig.h and the include path, in order, the
 * private build directory shown as BUILD (it is removed afterwards). */
static char *cmd_flags(const struct kbuild *b)
{
	char inc[8][2 * PATH_MAX + 80], *s = flags_text(b), *t;
	unsigned ni = include_path(b, inc);
	size_t tl = strlen(b->tmp);

	if (s && asprintf(&t, "%s -include linux/kconfig.h", s) < 0)
		t = NULL;
	free(s);
	for (unsigned i = 0; t && i < ni; i++) {
		const char *d = inc[i] + 2;
		bool priv = tl && !strncmp(d, b->tmp, tl);

		s = t;
		if (asprintf(&t, "%s -I%s%s", s, priv ? "BUILD" : "", priv ? d + tl : d) < 0)
			t = NULL;
		free(s);
	}
	return t;
}

/* The build's identity, a JSON object (its text goes into the plugin). */
static char *identity(struct kbuild *b, json_t *files)
{
	char *flags = cmd_flags(b), *s;
	const char *arch = b->arch[0] ? b->arch : b->arch_note[0] ? b->arch_note : "generic";
	json_t *o = json_pack("{s:s, s:s, s:O, s:O, s:s, s:s, s:i, s:s, s:s, s:s, s:b, s:s}",
			      "lock", b->k->name, "tree", b->root, "git", b->git, "files", files,
			      "compiler", b->ccid, "cflags", flags ? flags : "",
			      "nr_cpus", (int)b->nr_cpus, "layer", b->compat, "key", b->key,
			      "loop", b->tmpl[0] ? "inline" : "generic", "lock_events", b->events,
			      "arch", arch);

	s = o ? json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(o);
	free(flags);
	return s;
}

/* Write the generated glue: the identity as a C string, the lock's
 * macro, and the glue itself. */
static int write_glue(struct kbuild *b, const char *path, const char *id)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return kerr(b, -errno, "cannot write %s: %s", path, strerror(errno));
	fprintf(f, "/* Generated by lockbench build-kernel-lock. */\n"
		   "#define %s 1\n%s#define LB_KC_IDENTITY \"", b->k->macro,
		b->tmpl[0] ? "#define LB_KC_LOOPS 1\n" : "");
	for (const char *c = id; *c; c++)
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if ((unsigned char)*c < 32 || (unsigned char)*c > 126)
			fprintf(f, "\\%03o", (unsigned char)*c);
		else
			fputc(*c, f);
	fprintf(f, "\"\n#include \"glue.c\"\n");
	return fclose(f) ? kerr(b, -EIO, "cannot write %s", path) : 0;
}

/*
 * b->files: every tree file the build compiles, with its SHA-256, from
 * the compiler's dependency output (-M) over each of the lock's sources
 * and over the glue, which includes the tree's headers too.  The key is
 * made of exactly these; a file the tree lacks stops it here, named.
 */
static int scan_deps(struct kbuild *b)
{
	char src[PATH_MAX * 2], dep[PATH_MAX + 32];
	int st;

	if (!(b->files = json_object()))
		return kerr(b, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < 3 && b->k->srcs[i]; i++) {
		pjoin(src, sizeof(src), b->root, b->k->srcs[i]);
		snprintf(dep, sizeof(dep), "%s/tree%u.d", b->tmp, i);
		if ((st = compile(b, src, NULL, dep)))
			return compile_error(b, b->k->srcs[i], st);
		deps_add(b, dep, b->files);
	}
	pjoin(src, sizeof(src), b->tmp, "generated.c");
	pjoin(dep, sizeof(dep), b->tmp, "glue.d");
	if ((st = write_glue(b, src, "")))
		return st;
	if ((st = compile(b, src, NULL, dep)))
		return compile_error(b, "lockbench's glue", st);
	deps_add(b, dep, b->files);
	return 0;
}

/* Compile the lock's tree files, then the glue with their identity. */
static int compile_all(struct kbuild *b)
{
	char src[PATH_MAX * 2], obj[PATH_MAX + 32];
	char *id;
	int rc = 0, st;

	for (unsigned i = 0; !rc && i < 3 && b->k->srcs[i]; i++) {
		pjoin(src, sizeof(src), b->root, b->k->srcs[i]);
		snprintf(obj, sizeof(obj), "%s/tree%u.o", b->tmp, i);
		if ((st = compile(b, src, obj, NULL)))
			rc = compile_error(b, b->k->srcs[i], st);
	}
	id = rc ? NULL : identity(b, b->files);
	if (!rc && !id)
		rc = kerr(b, -ENOMEM, "out of memory");
	pjoin(src, sizeof(src), b->tmp, "generated.c");
	if (!rc)
		rc = write_glue(b, src, id);
	free(id);
	pjoin(obj, sizeof(obj), b->tmp, "glue.o");
	if (!rc && (st = compile(b, src, obj, NULL)))
		rc = compile_error(b, "lockbench's glue", st);
	return rc;
}

/* One line for a failed link: the symbols the linker found undefined
 * ("undefined reference to `SYM'"), each once, else its first error. */
static int link_error(struct kbuild *b, int status)
{
	char log[PATH_MAX], line[1024], syms[600] = ",", *p, *q, key[260];
	unsigned n = 0;
	FILE *f;

	pjoin(log, sizeof(log), b->tmp, "cc.log");
	f = fopen(log, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!(p = strstr(line, "undefined reference to `")) || !(q = strchr(p += 24, '\'')))
			continue;
		*q = 0;
		snprintf(key, sizeof(key), ",%.250s,", p);
		if (strstr(syms, key) || strlen(syms) + strlen(key) >= sizeof(syms))
			continue;
		strcat(syms, key + 1);
		n++;
	}
	if (f)
		fclose(f);
	if (!n)
		return compile_error(b, "the link", status);
	syms[strlen(syms) - 1] = 0;
	for (p = syms; (p = strchr(p, ',')) && p[1]; p++)
		if (p != syms)
			*p = ' ';
	return kerr(b, -ENOEXEC, "cannot build %s: the link failed: undefined symbol%s: %s "
		    "(neither the tree's files nor lockbench's layer define %s)", b->k->name,
		    n > 1 ? "s" : "", syms + 1, n > 1 ? "them" : "it");
}

/* Link the objects into tmp/plugin.so; undefined symbols are refused. */
static int link_plugin(struct kbuild *b)
{
	char o[4][PATH_MAX + 16], out[PATH_MAX + 16], log[PATH_MAX];
	char *argv[24], *extra = b->extra ? strdup(b->extra) : NULL, *save = NULL;
	unsigned n = 0, k = 0;
	int st;

	argv[n++] = b->cc;
	for (char *w = extra ? strtok_r(extra, " \t", &save) : NULL; w && n < 12;
	     w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	argv[n++] = "-shared";
	argv[n++] = "-Wl,--no-undefined";
	pjoin(o[k], sizeof(o[k]), b->tmp, "glue.o");
	argv[n++] = o[k++];
	for (unsigned i = 0; i < 3 && b->k->srcs[i]; i++, k++) {
		snprintf(o[k], sizeof(o[k]), "%s/tree%u.o", b->tmp, i);
		argv[n++] = o[k];
	}
	pjoin(out, sizeof(out), b->tmp, "plugin.so");
	argv[n++] = "-o";
	argv[n++] = out;
	argv[n] = NULL;
	pjoin(log, sizeof(log), b->tmp, "cc.log");
	show_cmd(b, argv);
	st = run_cmd(argv, log);
	free(extra);
	return st ? link_error(b, st) : 0;
}

/* mkdir -p for the cache directory (0700: it holds code we will load). */
static int mkdirs(char *path)
{
	for (char *p = path + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(path, 0700) && errno != EEXIST) {
				*p = '/';
				return -errno;
			}
			*p = '/';
		}
	return mkdir(path, 0700) && errno != EEXIST ? -errno : 0;
}

/* The cache directory into buf: $LOCKBENCH_CACHE, else
 * ${XDG_CACHE_HOME:-$HOME/.cache}/lockbench; created. */
static int cache_dir(struct kbuild *b, char *buf, size_t len)
{
	const char *env = getenv("LOCKBENCH_CACHE"), *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	char why[128];
	int rc;

	if (env && *env)
		snprintf(buf, len, "%s", env);
	else if (xdg && *xdg)
		snprintf(buf, len, "%s/lockbench", xdg);
	else if (home && *home)
		snprintf(buf, len, "%s/.cache/lockbench", home);
	else
		return kerr(b, -ENOENT, "no cache directory (set LOCKBENCH_CACHE or HOME)");
	if ((rc = mkdirs(buf)))
		return kerr(b, rc, "cannot create the cache directory %s: %s", buf,
			    strerror(-rc));
	if ((rc = kcache_dir_open(buf, why, sizeof(why))) < 0)
		return kerr(b, rc, "the cache directory %s is %s: lockbench loads code "
			    "from it only when it is this user's alone (remove it, or set "
			    "LOCKBENCH_CACHE to another)", buf, why);
	close(rc);
	return 0;
}

/* tmp/inc with only a link lockbench/ to the public headers in it: the
 * one way the build reaches lockbench's own headers (include_path). */
static int lbinc_make(struct kbuild *b)
{
	char link[PATH_MAX + 16], to[PATH_MAX + 16];

	pjoin(b->lbinc, sizeof(b->lbinc), b->tmp, "inc");
	pjoin(link, sizeof(link), b->lbinc, "lockbench");
	pjoin(to, sizeof(to), b->pubinc, "lockbench");
	if (mkdir(b->lbinc, 0700) || symlink(to, link))
		return kerr(b, -errno, "cannot create %s: %s", link, strerror(errno));
	return 0;
}

/* Remove the private build directory and what the build put in it. */
static void tmp_remove(struct kbuild *b)
{
	struct dirent **ents;
	char p[PATH_MAX * 2];
	int n = b->tmp[0] ? scandir(b->tmp, &ents, NULL, NULL) : -1;

	if (b->lbinc[0]) {
		pjoin(p, sizeof(p), b->lbinc, "lockbench");
		unlink(p);
		rmdir(b->lbinc);
	}

	for (int i = 0; i < n; i++) {
		pjoin(p, sizeof(p), b->tmp, ents[i]->d_name);
		if (ents[i]->d_name[0] != '.')
			unlink(p);
		free(ents[i]);
	}
	if (n >= 0) {
		free(ents);
		rmdir(b->tmp);
	}
}

/* b->root: the tree at `dir`, canonical, with a kernel/locking/. */
static int tree_root(struct kbuild *b, const char *dir)
{
	char p[PATH_MAX + 32], real[PATH_MAX];

	snprintf(b->root, sizeof(b->root), "%s", dir);
	if (!realpath(dir, real))  /* the path as given in the message */
		return kerr(b, -errno, "%s", strerror(errno));
	memcpy(b->root, real, sizeof(real));
	pjoin(p, sizeof(p), b->root, "kernel/locking");
	if (access(p, X_OK))
		return kerr(b, -ENOENT, "not a kernel source tree (no kernel/locking/)");
	return 0;
}

/* Refuse a file the build reads (or hashes) that exists but is not a
 * regular file (kcache_irregular()): opening a FIFO would block the
 * build (and the compiler) for ever. */
static int irregular(struct kbuild *b, const char *rel, bool dir_ok)
{
	char p[PATH_MAX * 2], why[PATH_MAX + 128];

	pjoin(p, sizeof(p), b->root, rel);
	return kcache_irregular(p, rel, dir_ok, why, sizeof(why)) ? kerr(b, -EINVAL, "%s", why) : 0;
}

/* Every file the key hashes and the lock's sources are regular files,
 * and no file below kernel/locking/ is special (kcache_tree_special()):
 * refused before a build directory is made or the compiler runs. */
static int tree_regular(struct kbuild *b)
{
	char why[PATH_MAX + 128];
	int rc = 0;

	for (unsigned i = 0; !rc && i < sizeof(tree_headers) / sizeof(tree_headers[0]); i++)
		rc = irregular(b, tree_headers[i], false);
	for (unsigned i = 0; !rc && i < 3 && b->k->srcs[i]; i++)
		rc = irregular(b, b->k->srcs[i], false);
	for (unsigned i = 0; !rc && i < 2 && b->k->needs[i]; i++)
		rc = irregular(b, b->k->needs[i], false);
	if (!rc && kcache_tree_special(b->root, "kernel/locking", why, sizeof(why)))
		rc = kerr(b, -EINVAL, "%s", why);
	return rc;
}

/* No FIFO, device node or socket anywhere else the compiler looks:
 * include/ and the arch's include/, however deep (the lock's directory:
 * tree_regular()). */
static int tree_special(struct kbuild *b)
{
	char arch[64], why[PATH_MAX + 128];
	const char *dirs[] = {"include", arch};
	unsigned n = b->arch[0] ? 2 : 1;

	snprintf(arch, sizeof(arch), "arch/%s/include", b->arch);
	for (unsigned i = 0; i < n; i++)
		if (kcache_tree_special(b->root, dirs[i], why, sizeof(why)))
			return kerr(b, -EINVAL, "%s", why);
	return 0;
}

int ktree_check(const char *dir, char *err, size_t errlen)
{
	struct kbuild *b = calloc(1, sizeof(*b));
	int rc;

	if (!b)
		return -ENOMEM;
	b->err = err;
	b->errlen = errlen;
	rc = tree_root(b, dir);
	free(b);
	return rc;
}

/* --lock-events for the queued locks (osq counts none): the tree's
 * counters exist since v5.2 (kernel/locking/lock_events_list.h). */
static int events_setup(struct kbuild *b)
{
	b->events = lock_events && strcmp(b->k->name, "osq");
	if (!b->events)
		return 0;
	if (!is_file(b->root, "kernel/locking/lock_events_list.h"))
		return kerr(b, -ENOENT, "--lock-events: the tree has no "
			    "kernel/locking/lock_events_list.h (lock event counters are v5.2 and later)");
	b->defs[0] = "-DCONFIG_LOCK_EVENT_COUNTS";
	return 0;
}

/* A tree with the CNA series (Kogan, "[PATCH v15 0/6] Add NUMA-awareness
 * to qspinlock", linux-arch 2021-05-14: kernel/locking/qspinlock_cna.h)
 * builds its qspinlock with CONFIG_NUMA_AWARE_SPINLOCKS, the slow path
 * the glue then calls (kernel/compat/glue.c; docs/kernel-tree.md). */
static void cna_setup(struct kbuild *b)
{
	unsigned i = 0;

	if (strcmp(b->k->name, "qspinlock") ||
	    !is_file(b->root, "kernel/locking/qspinlock_cna.h"))
		return;
	while (i < 3 && b->defs[i])
		i++;
	b->defs[i] = "-DCONFIG_NUMA_AWARE_SPINLOCKS";
}

/* Set up b for lock `name` of tree `dir`: the tree, the layer, the
 * compiler and the key; a private build directory in `cache`. */
static int build_setup(struct kbuild *b, const char *dir, const char *name,
		       const char *cache)
{
	const char *cc = getenv("LOCKBENCH_CC");
	int rc;

	if ((rc = tree_root(b, dir)))
		return rc;
	if (!(b->k = klock_find(name)))
		return kerr(b, -EINVAL, "no lock %s (valid: qspinlock, qrwlock, osq)", name);
	if ((rc = tree_regular(b)))
		return rc;
	if (!ktree_has_lock(b->root, name))
		return kerr(b, -ENOENT, "cannot build %s: the tree lacks %s or %s", name,
			    b->k->srcs[0], b->k->needs[0]);
	if ((rc = find_layer(b)) || (rc = events_setup(b)))
		return rc;
	cna_setup(b);
	find_template(b);
	/* the compiler found now, by an absolute path (lib/progpath.h) */
	if (prog_resolve(cc && *cc ? cc : "cc", b->cc, sizeof(b->cc)))
		return kerr(b, -ENOENT, "compiler %s not found (a path, or a program in an "
			    "absolute PATH entry; set LOCKBENCH_CC)", b->cc);
	b->extra = getenv("LOCKBENCH_KTREE_CFLAGS");
	if (b->extra && !*b->extra)
		b->extra = NULL;
	b->nr_cpus = nr_cpus();
	pjoin(b->tmp, sizeof(b->tmp), cache, "build-XXXXXX");
	if (!mkdtemp(b->tmp)) {
		b->tmp[0] = 0;
		return kerr(b, -errno, "cannot create a build directory in %s: %s",
			    cache, strerror(errno));
	}
	if ((rc = kcache_sig_arm(b->tmp)))
		return kerr(b, rc, "cannot open the build directory %s: %s", b->tmp,
			    strerror(-rc));
	if ((rc = compiler_id(b)) || (rc = tree_special(b)) || (rc = lbinc_make(b)))
		return rc;
	if ((rc = scan_deps(b)))
		return rc;
	if (!(b->git = git_state(b)))
		return -EINVAL;  /* b->err set */
	shadowed_check(b);
	build_key(b);
	return 0;
}

/*
 * Is the cache's plugin at `path` usable (kernel/tree/ktree_cache.c)?  One
 * that is there but fails the check (truncated, overwritten, without
 * its digest, another user's) is removed, with a warning, and rebuilt.
 * With exact_tree, one built from another tree of the same content is
 * built again (its identity names that tree).
 */
static bool cache_hit(struct kbuild *b, const char *path)
{
	char why[256];
	struct stat st;
	int fd;
	bool hit;

	if (lstat(path, &st))
		return false;
	if ((fd = kcache_open_verified(path, why, sizeof(why))) >= 0) {
		hit = !exact_tree || kcache_names_tree(fd, b->root);
		close(fd);
		return hit;
	}
	fprintf(stderr, "lockbench: warning: kernel tree (%s): the cached %s %s is "
		"not used: %s; rebuilding it\n", b->root, b->k->name, path, why);
	kcache_drop(path);
	return false;
}

/* Build into the cache at `path`, with the digest beside it. */
static int build_into(struct kbuild *b, const char *path)
{
	char built[PATH_MAX + 16];
	int rc;

	if ((rc = compile_all(b)) || (rc = link_plugin(b)))
		return rc;
	pjoin(built, sizeof(built), b->tmp, "plugin.so");
	if (rename(built, path))
		return kerr(b, -errno, "cannot write %s: %s", path, strerror(errno));
	if ((rc = kcache_digest_write(path))) {
		kcache_drop(path);
		return kerr(b, rc, "cannot write the digest of %s: %s", path,
			    kcache_disk_full(b->tmp) ? "the disk is full" : strerror(-rc));
	}
	return 0;
}

/* ktree_build() once the stack is known to be large enough: the static
 * functions it calls are inlined into it, and their buffers with them. */
static __attribute__((noinline)) int build(const char *dir, const char *name,
					   char *path, size_t len, bool *cached, char *err,
					   size_t errlen)
{
	struct kbuild *b;
	char cache[PATH_MAX];
	int rc;

	if (!(b = calloc(1, sizeof(*b))))
		return -ENOMEM;
	b->err = err;
	b->errlen = errlen;
	snprintf(b->root, sizeof(b->root), "%s", dir);
	rc = cache_dir(b, cache, sizeof(cache));
	if (!rc)
		rc = build_setup(b, dir, name, cache);
	if (!rc)
		snprintf(path, len, "%s/ktree-%s-%.32s.so", cache, name, b->key);
	*cached = !rc && cache_hit(b, path);
	if (!rc && !*cached)
		rc = build_into(b, path);
	tmp_remove(b);
	kcache_sig_disarm();
	json_decref(b->git);
	json_decref(b->files);
	free(b);
	return rc;
}

int ktree_build(const char *dir, const char *name, char *path, size_t len,
		bool *cached, char *err, size_t errlen)
{
	const char *arch = getenv("LOCKBENCH_KTREE_ARCH");
	const char *limit = getenv("LOCKBENCH_KTREE_TIMEOUT");

	*cached = false;
	if (kcache_stack_small(err, errlen))
		return -E2BIG;
	/* A setting mistyped is one line, never a silent default. */
	if (arch && *arch && strcmp(arch, "generic")) {
		snprintf(err, errlen, "LOCKBENCH_KTREE_ARCH=%s: the one value is generic", arch);
		return -EINVAL;
	}
	if (limit && (!*limit || limit[strspn(limit, "0123456789")] ||
		      kcache_child_limit() != strtoul(limit, NULL, 10))) {
		snprintf(err, errlen, "LOCKBENCH_KTREE_TIMEOUT=%s: want whole seconds, 1 to 86400",
			 limit);
		return -EINVAL;
	}
	return build(dir, name, path, len, cached, err, errlen);
}
