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

#include "../locks/sha256.h"
#include "ktree.h"
#include "ktree_cache.h"

/* Bumped when the way a plugin is built changes (it is in the key). */
#define KTREE_RECIPE "lockbench-ktree-2"

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
const unsigned ktree_nlocks = sizeof(klocks) / sizeof(klocks[0]);

/* Headers outside kernel/locking/ that the lock sources include from
 * the tree; all of kernel/locking/ is in the key as well. */
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
	char cc[256];
	char ccid[512];             /* `cc --version` first line, target */
	char *extra;                /* $LOCKBENCH_KTREE_CFLAGS */
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
 * Run argv with stdout and stderr into `log` (and GIT_OPTIONAL_LOCKS=0,
 * so that git never writes to the tree's index).  Returns the exit
 * status, or -1 when it could not run.
 */
static int run_cmd(char *const argv[], const char *log)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	kcache_sig_child(pid);
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
			_exit(127);
		setenv("GIT_OPTIONAL_LOCKS", "0", 1);
		setenv("LC_ALL", "C", 1);
		execvp(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	kcache_sig_child(0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
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

/* The tree files a build reads that lockbench knows before compiling:
 * the lock's sources and needed headers, the fixed headers, and
 * kernel/locking/ (NULL-ended, each freed with the array by
 * files_free()).  Only existing regular files. */
static char **known_files(const struct kbuild *b)
{
	unsigned nh = sizeof(tree_headers) / sizeof(tree_headers[0]), n = 0;
	char **v = calloc(nh + 256 + 1, sizeof(*v)), rel[PATH_MAX];
	struct dirent **ents;
	int ne;

	pjoin(rel, sizeof(rel), b->root, "kernel/locking");
	ne = scandir(rel, &ents, NULL, alphasort);
	for (int i = 0; i < ne; i++) {
		pjoin(rel, sizeof(rel), "kernel/locking", ents[i]->d_name);
		if (v && n < 256 && ents[i]->d_name[0] != '.' && is_file(b->root, rel))
			v[n++] = strdup(rel);
		free(ents[i]);
	}
	if (ne >= 0)
		free(ents);
	for (unsigned i = 0; v && i < nh; i++)
		if (is_file(b->root, tree_headers[i]))
			v[n++] = strdup(tree_headers[i]);
	for (unsigned i = 0; v && i < n; i++)
		if (!v[i]) {
			n = i;  /* out of memory: fewer files compared */
			break;
		}
	if (v)
		v[n] = NULL;
	return v;
}

/* The tree's git state (kernel/ktree_git.c: nothing the tree configures
 * runs), or JSON null when `root` is not the top of a git work tree. */
static json_t *git_state(struct kbuild *b)
{
	char **files = known_files(b);
	json_t *g = files ? kcache_git_state(b->root, (const char *const *)files, b->tmp)
			  : json_null();

	for (unsigned i = 0; files && files[i]; i++)
		free(files[i]);
	free(files);
	return g;
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
	return 0;
}

/* The key of a build: recipe, lock, compiler, flags, CPUs, layer, the
 * tree's lock files and headers, its git state. */
static void build_key(struct kbuild *b)
{
	struct sha256 s;
	uint8_t d[32];
	char *git = json_dumps(b->git, JSON_ENCODE_ANY | JSON_COMPACT);
	char head[1600];
	int n = snprintf(head, sizeof(head), "%s\n%s\n%s\n%s\n%u\n%s\nloops %#x\n",
			 KTREE_RECIPE, b->k->name, b->ccid, b->extra ? b->extra : "",
			 b->nr_cpus, git ? git : "", b->tmpl[0] ? LOCKBENCH_LOOP_ABI : 0);

	free(git);
	sha256_init(&s);
	sha256_update(&s, head, (size_t)n);
	hash_dir(&s, b->compat, "include", true);
	hash_one(&s, b->compat, "glue.c");
	hash_dir(&s, b->pubinc, "lockbench", false);
	if (b->tmpl[0])
		hash_one(&s, b->tmpl, TEMPLATE);
	hash_dir(&s, b->root, "kernel/locking", false);
	for (unsigned i = 0; i < sizeof(tree_headers) / sizeof(tree_headers[0]); i++)
		hash_one(&s, b->root, tree_headers[i]);
	sha256_final(&s, d);
	for (unsigned i = 0; i < 32; i++)
		sprintf(b->key + 2 * i, "%02x", d[i]);
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
	return t;
}

/*
 * Compile `src` (absolute) to `obj` with deps into `dep`; the compiler's
 * output goes to tmp/cc.log.  Returns the compiler's exit status.
 */
static int compile(struct kbuild *b, const char *src, const char *obj, const char *dep)
{
	char *argv[NBASE + 64], nr[64], inc[4][PATH_MAX + 3], glue[PATH_MAX + 3], log[PATH_MAX];
	char *extra = b->extra ? strdup(b->extra) : NULL, *save = NULL;
	unsigned n = 0;
	int rc;

	argv[n++] = b->cc;
	for (unsigned i = 0; i < NBASE; i++)
		argv[n++] = (char *)base_flags[i];
	snprintf(nr, sizeof(nr), "-DCONFIG_NR_CPUS=%u", b->nr_cpus);
	pjoin(inc[0] + 2, sizeof(inc[0]) - 2, b->compat, "include");
	memcpy(inc[0], "-I", 2);
	snprintf(inc[1], sizeof(inc[1]), "-I%s", b->pubinc);
	snprintf(inc[2], sizeof(inc[2]), "-I%s", b->tmpl[0] ? b->tmpl : b->pubinc);
	pjoin(inc[3] + 2, sizeof(inc[3]) - 2, b->root, "include");
	memcpy(inc[3], "-I", 2);
	snprintf(glue, sizeof(glue), "-I%s", b->compat);
	argv[n++] = nr;
	for (char *w = extra ? strtok_r(extra, " \t", &save) : NULL; w && n < NBASE + 40;
	     w = strtok_r(NULL, " \t", &save))
		argv[n++] = w;
	argv[n++] = "-include";
	argv[n++] = "linux/kconfig.h";
	for (unsigned i = 0; i < 4; i++)
		argv[n++] = inc[i];
	argv[n++] = glue;
	argv[n++] = "-MD";
	argv[n++] = "-MF";
	argv[n++] = (char *)dep;
	argv[n++] = "-c";
	argv[n++] = (char *)src;
	argv[n++] = "-o";
	argv[n++] = (char *)obj;
	argv[n] = NULL;
	pjoin(log, sizeof(log), b->tmp, "cc.log");
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
	if (!*p)
		return kerr(b, -ENOEXEC, "cannot build %s: the compiler failed on %s "
			    "(exit %d) without an error line", b->k->name, what, status);
	return kerr(b, -ENOEXEC, "cannot build %s: %s", b->k->name, p);
}

/* Add the tree files a .d file lists to `files` (path -> sha256). */
static void deps_add(struct kbuild *b, const char *dep, json_t *files)
{
	FILE *f = fopen(dep, "r");
	char word[PATH_MAX + 1], hex[65];
	size_t rl = strlen(b->root);

	while (f && fscanf(f, "%" "4096" "s", word) == 1) {
		if (strncmp(word, b->root, rl) || word[rl] != '/' ||
		    word[strlen(word) - 1] == ':')
			continue;
		if (!sha256_file(word, hex))
			json_object_set_new(files, word + rl + 1, json_string(hex));
	}
	if (f)
		fclose(f);
}

/* The build's identity, a JSON object (its text goes into the plugin). */
static char *identity(struct kbuild *b, json_t *files)
{
	char *flags = flags_text(b), *s;
	json_t *o = json_pack("{s:s, s:s, s:O, s:O, s:s, s:s, s:i, s:s, s:s, s:s}", "lock",
			      b->k->name, "tree", b->root, "git", b->git, "files", files,
			      "compiler", b->ccid, "cflags", flags ? flags : "",
			      "nr_cpus", (int)b->nr_cpus, "layer", b->compat, "key", b->key,
			      "loop", b->tmpl[0] ? "inline" : "generic");

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

/* Compile the lock's tree files, then the glue with their identity. */
static int compile_all(struct kbuild *b)
{
	char src[PATH_MAX * 2], obj[PATH_MAX + 32], dep[PATH_MAX + 32];
	json_t *files = json_object();
	char *id;
	int rc = 0, st;

	for (unsigned i = 0; !rc && i < 3 && b->k->srcs[i]; i++) {
		pjoin(src, sizeof(src), b->root, b->k->srcs[i]);
		snprintf(obj, sizeof(obj), "%s/tree%u.o", b->tmp, i);
		snprintf(dep, sizeof(dep), "%s/tree%u.d", b->tmp, i);
		if ((st = compile(b, src, obj, dep)))
			rc = compile_error(b, b->k->srcs[i], st);
		else
			deps_add(b, dep, files);
	}
	id = rc ? NULL : identity(b, files);
	json_decref(files);
	if (!rc && !id)
		rc = kerr(b, -ENOMEM, "out of memory");
	pjoin(src, sizeof(src), b->tmp, "generated.c");
	if (!rc)
		rc = write_glue(b, src, id);
	free(id);
	pjoin(obj, sizeof(obj), b->tmp, "glue.o");
	pjoin(dep, sizeof(dep), b->tmp, "glue.d");
	if (!rc && (st = compile(b, src, obj, dep)))
		rc = compile_error(b, "lockbench's glue", st);
	return rc;
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
	st = run_cmd(argv, log);
	free(extra);
	return st ? compile_error(b, "the link", st) : 0;
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
	if ((rc = kcache_dir_trusted(buf, why, sizeof(why))))
		return kerr(b, rc == -EPERM ? -EPERM : rc, "the cache directory %s is %s: "
			    "lockbench loads code from it only when it is this user's "
			    "alone (remove it, or set LOCKBENCH_CACHE to another)", buf, why);
	return 0;
}

/* Remove the private build directory and what the build put in it. */
static void tmp_remove(struct kbuild *b)
{
	struct dirent **ents;
	char p[PATH_MAX * 2];
	int n = b->tmp[0] ? scandir(b->tmp, &ents, NULL, NULL) : -1;

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

/* Copy `from` to `to` through a temporary file beside it, renamed in
 * place only when complete. */
static int copy_file(struct kbuild *b, const char *from, const char *to)
{
	char tmp[PATH_MAX + 16], buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, rc = 0;
	ssize_t n;

	snprintf(tmp, sizeof(tmp), "%s.XXXXXX", to);
	out = in < 0 ? -1 : mkstemp(tmp);
	if (out < 0) {
		rc = kerr(b, -errno, "cannot write %s: %s", to, strerror(errno));
		goto out;
	}
	while (!rc && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -EIO;
	if (rc || n < 0 || fchmod(out, 0755))
		rc = -EIO;
	if (close(out) || rc || rename(tmp, to)) {
		rc = kerr(b, -EIO, "cannot write %s: %s", to, strerror(errno ? errno : EIO));
		unlink(tmp);
	}
out:
	if (in >= 0)
		close(in);
	return rc;
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

/* What a file that is not regular is, for a message. */
static const char *kind(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m) || S_ISBLK(m) ? "a device node" : "not a regular file";
}

/* Refuse a file the build reads (or hashes) that exists but is not a
 * regular file: opening a FIFO would block the build (and the compiler)
 * for ever.  stat() opens nothing. */
static int irregular(struct kbuild *b, const char *rel, bool dir_ok)
{
	char p[PATH_MAX * 2];
	struct stat st;

	pjoin(p, sizeof(p), b->root, rel);
	if (stat(p, &st) || S_ISREG(st.st_mode) || (dir_ok && S_ISDIR(st.st_mode)))
		return 0;
	return kerr(b, -EINVAL, "%s is %s, not a regular file: refused", rel, kind(st.st_mode));
}

/* Every file the key hashes and the lock's sources are regular files. */
static int tree_regular(struct kbuild *b)
{
	char rel[PATH_MAX];
	struct dirent **ents;
	int n, rc = 0;

	for (unsigned i = 0; !rc && i < sizeof(tree_headers) / sizeof(tree_headers[0]); i++)
		rc = irregular(b, tree_headers[i], false);
	for (unsigned i = 0; !rc && i < 3 && b->k->srcs[i]; i++)
		rc = irregular(b, b->k->srcs[i], false);
	for (unsigned i = 0; !rc && i < 2 && b->k->needs[i]; i++)
		rc = irregular(b, b->k->needs[i], false);
	pjoin(rel, sizeof(rel), b->root, "kernel/locking");
	n = scandir(rel, &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		pjoin(rel, sizeof(rel), "kernel/locking", ents[i]->d_name);
		if (!rc && ents[i]->d_name[0] != '.')
			rc = irregular(b, rel, true);
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return rc;
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
	if ((rc = find_layer(b)))
		return rc;
	find_template(b);
	snprintf(b->cc, sizeof(b->cc), "%s", cc && *cc ? cc : "cc");
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
	if ((rc = compiler_id(b)))
		return rc;
	b->git = git_state(b);
	build_key(b);
	return 0;
}

/*
 * Is the cache's plugin at `path` usable (kernel/ktree_cache.c)?  One
 * that is there but fails the check (truncated, overwritten, without
 * its digest, another user's) is removed, with a warning, and rebuilt.
 */
static bool cache_hit(struct kbuild *b, const char *path)
{
	char why[256];
	struct stat st;

	if (lstat(path, &st))
		return false;
	if (kcache_verified(path, why, sizeof(why)))
		return true;
	fprintf(stderr, "lockbench: warning: kernel tree (%s): the cached %s %s is "
		"not used: %s; rebuilding it\n", b->root, b->k->name, path, why);
	kcache_drop(path);
	return false;
}

/* Build into the cache at `path`, with the digest beside it; with
 * `out`, copy the build there first (what another process may put at
 * `path` meanwhile is not this build). */
static int build_into(struct kbuild *b, const char *path, const char *out)
{
	char built[PATH_MAX + 16];
	int rc;

	if ((rc = compile_all(b)) || (rc = link_plugin(b)))
		return rc;
	pjoin(built, sizeof(built), b->tmp, "plugin.so");
	if (out && (rc = copy_file(b, built, out)))
		return rc;
	if (rename(built, path))
		return kerr(b, -errno, "cannot write %s: %s", path, strerror(errno));
	if ((rc = kcache_digest_write(path))) {
		kcache_drop(path);
		return kerr(b, rc, "cannot write the digest of %s: %s", path,
			    kcache_disk_full(b->tmp) ? "the disk is full" : strerror(-rc));
	}
	return 0;
}

/* The cache's plugin at `path` once more checked, then copied to `out`. */
static int copy_out(struct kbuild *b, const char *path, const char *out)
{
	char why[256];

	if (!kcache_verified(path, why, sizeof(why)))
		return kerr(b, -EIO, "the cached %s %s changed before it was copied: %s; "
			    "run again", b->k->name, path, why);
	return copy_file(b, path, out);
}

/* ktree_build() once the stack is known to be large enough: the static
 * functions it calls are inlined into it, and their buffers with them. */
static __attribute__((noinline)) int build(const char *dir, const char *name,
					   const char *out, char *path, size_t len,
					   bool *cached, char *err, size_t errlen)
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
		rc = build_into(b, path, out);
	else if (!rc && out)
		rc = copy_out(b, path, out);
	if (!rc && out)
		snprintf(path, len, "%s", out);
	tmp_remove(b);
	kcache_sig_disarm();
	json_decref(b->git);
	free(b);
	return rc;
}

int ktree_build(const char *dir, const char *name, const char *out, char *path,
		size_t len, bool *cached, char *err, size_t errlen)
{
	*cached = false;
	if (kcache_stack_small(err, errlen))
		return -E2BIG;
	return build(dir, name, out, path, len, cached, err, errlen);
}
