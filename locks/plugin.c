/* SPDX-License-Identifier: MIT */
/*
 * The plugin loader: dlopen a shared object, find its `lockbench_plugin`,
 * check the ABI version and every ops table, then add the locks to the
 * registry.  Everything is checked before anything is registered, and
 * all of it happens before a thread starts, so a bad plugin costs one
 * line on stderr and exit 2, never a crash in the middle of a sweep.
 *
 * Plugins are never unloaded: their ops tables live as long as the
 * registry that points at them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin.h"
#include "registry.h"
#include "../lib/sha256.h"

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"

/* Write "plugin (path): <fmt...>" to err and return rc. */
static int __attribute__((format(printf, 5, 6)))
plugin_err(char *err, size_t len, const char *path, int rc, const char *fmt, ...)
{
	va_list ap;
	int k = snprintf(err, len, "plugin (%s): ", path);

	if (k >= 0 && (size_t)k < len) {
		va_start(ap, fmt);
		vsnprintf(err + k, len - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/*
 * Split "TAG=PATH" (a '=' before any '/') into tag and path; "PATH"
 * leaves tag empty.  Returns 0, or -EINVAL with err set when the tag is
 * not [a-z0-9_]+ or too long, or the path is empty.
 */
static int spec_parse(const char *spec, char tag[PLUGIN_MAX_TAG + 1],
		      const char **path, char *err, size_t len)
{
	const char *eq = strchr(spec, '='), *slash = strchr(spec, '/');
	size_t n;

	tag[0] = 0;
	*path = spec;
	if (eq && (!slash || eq < slash)) {
		n = (size_t)(eq - spec);
		*path = eq + 1;
		if (!n || n > PLUGIN_MAX_TAG || strspn(spec, NAME_CHARS) != n)
			return plugin_err(err, len, *path, -EINVAL,
					  "tag (%.*s) must be 1 to %d of [a-z0-9_]",
					  (int)n, spec, PLUGIN_MAX_TAG);
		memcpy(tag, spec, n);
		tag[n] = 0;
	}
	if (!**path)
		return plugin_err(err, len, spec, -EINVAL,
				  "expected PATH or TAG=PATH");
	return 0;
}

/*
 * The ELF header fields this build's dlopen() needs (System V ABI, "ELF
 * Header", and elf(5)): the class and byte order of this process, and
 * its machine, taken from the compiler's macros; 0 where lockbench
 * knows no machine number (the check is then left to dlopen()).
 */
#if UINTPTR_MAX > 0xffffffffu
#define ELF_CLASS ELFCLASS64
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Phdr elf_phdr;
typedef Elf64_Shdr elf_shdr;
#else
#define ELF_CLASS ELFCLASS32
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Phdr elf_phdr;
typedef Elf32_Shdr elf_shdr;
#endif
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ELF_DATA ELFDATA2LSB
#else
#define ELF_DATA ELFDATA2MSB
#endif
#if defined(__x86_64__)
#define ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define ELF_MACHINE EM_AARCH64
#elif defined(__i386__)
#define ELF_MACHINE EM_386
#elif defined(__riscv)
#define ELF_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define ELF_MACHINE EM_PPC64
#else
#define ELF_MACHINE 0
#endif

/* A machine's name in the messages. */
static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_X86_64: return "x86_64";
	case EM_AARCH64: return "aarch64";
	case EM_386: return "i386";
	case EM_ARM: return "arm";
	case EM_RISCV: return "riscv";
	case EM_PPC64: return "ppc64";
	case EM_S390: return "s390";
	default: return "another machine";
	}
}

/* Whether [off, off + n * size) lies within a file of fsize bytes. */
static bool within(uint64_t off, uint64_t n, uint64_t size, uint64_t fsize)
{
	return off <= fsize && n <= (fsize - off) / (size ? size : 1);
}

/*
 * The header h of a file of fsize bytes, for this build: why not, or
 * NULL.  A file cut short (a copy interrupted, a build that failed)
 * would otherwise be mapped by dlopen() and die by SIGBUS on the first
 * page past its end.
 */
static const char *ehdr_refused(const elf_ehdr *h, uint64_t fsize, char *why, size_t len)
{
	if (h->e_ident[EI_CLASS] != ELF_CLASS)
		return ELF_CLASS == ELFCLASS64 ? "a 32-bit object; this lockbench is 64-bit"
					       : "a 64-bit object; this lockbench is 32-bit";
	if (h->e_ident[EI_DATA] != ELF_DATA)
		return "of the other byte order than this machine's";
	if (h->e_type != ET_DYN)
		return "not a shared object (ELF, but not ET_DYN); build it with "
		       "cc -shared -fPIC";
	if (ELF_MACHINE && h->e_machine != ELF_MACHINE) {
		snprintf(why, len, "built for %s (ELF machine %u); this lockbench runs on "
			 "%s: build the plugin for this machine", machine_name(h->e_machine),
			 (unsigned)h->e_machine, machine_name(ELF_MACHINE));
		return why;
	}
	if (h->e_phentsize != sizeof(elf_phdr) || !h->e_phnum ||
	    !within(h->e_phoff, h->e_phnum, sizeof(elf_phdr), fsize) ||
	    (h->e_shoff && (h->e_shentsize != sizeof(elf_shdr) ||
			    !within(h->e_shoff, h->e_shnum, sizeof(elf_shdr), fsize)))) {
		snprintf(why, len, "truncated or malformed: its headers lie beyond its "
			 "%llu bytes; rebuild or copy it again", (unsigned long long)fsize);
		return why;
	}
	return NULL;
}

/* Every loadable segment of fd (header h) within its fsize bytes? */
static const char *segments_refused(int fd, const elf_ehdr *h, uint64_t fsize,
				    char *why, size_t len)
{
	for (unsigned i = 0; i < h->e_phnum; i++) {
		elf_phdr ph;

		if (pread(fd, &ph, sizeof(ph), (off_t)(h->e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return "cannot read its program headers";
		if (ph.p_type == PT_LOAD && !within(ph.p_offset, 1, ph.p_filesz, fsize)) {
			snprintf(why, len, "truncated: segment %u ends at byte %llu, the file "
				 "has %llu; rebuild or copy it again", i,
				 (unsigned long long)ph.p_offset + ph.p_filesz,
				 (unsigned long long)fsize);
			return why;
		}
	}
	return NULL;
}

/*
 * Is the file open at fd (named `path` in messages) a regular file
 * holding a shared object dlopen() can map on this machine: ELF magic,
 * this build's class, byte order and machine, every header and loadable
 * segment inside the file?  Returns 0, or -EINVAL / -ENOEXEC with one
 * line in err.  dlopen() says "invalid ELF header" at best, and maps a
 * truncated file that then dies by SIGBUS.
 */
static int elf_check(int fd, const char *path, char *err, size_t len)
{
	elf_ehdr h = {0};
	struct stat st;
	char why[256];
	const char *no = NULL;
	int rc = 0;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		rc = plugin_err(err, len, path, -EINVAL, "not a regular file%s",
				S_ISFIFO(st.st_mode) ? " (a FIFO)" : "");
	else if (pread(fd, &h, sizeof(h), 0) < 4 || memcmp(h.e_ident, ELFMAG, SELFMAG))
		rc = plugin_err(err, len, path, -ENOEXEC,
				"not a shared object (no ELF header); build it "
				"with cc -shared -fPIC");
	else if ((uint64_t)st.st_size < sizeof(h))
		no = "truncated: shorter than an ELF header; rebuild or copy it again";
	else if (!(no = ehdr_refused(&h, (uint64_t)st.st_size, why, sizeof(why))))
		no = segments_refused(fd, &h, (uint64_t)st.st_size, why, sizeof(why));
	if (no)
		rc = plugin_err(err, len, path, -ENOEXEC, "%s", no);
	return rc;
}

/* dlerror() text without its leading "PATH: ". */
static const char *dl_reason(const char *path)
{
	const char *e = dlerror();
	size_t n = strlen(path);

	if (!e)
		return "unknown dlopen error";
	if (!strncmp(e, path, n) && !strncmp(e + n, ": ", 2))
		return e + n + 2;
	return e;
}

/* Do a and b name the same file? */
static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/*
 * dlopen the file open at fd, the one that was checked and hashed:
 * through /proc/self/fd/N (proc(5)), which opens that very file
 * whatever has become of its path since.  Without /proc (a chroot),
 * `real` (absolute: no library search) when it names the same file
 * before and after the load, else nothing.  *name: what dlerror() says.
 */
static void *dlopen_fd(int fd, const char *real, char name[64])
{
	struct stat want, st;
	void *h;

	snprintf(name, 64, "/proc/self/fd/%d", fd);
	if (fstat(fd, &want))
		return NULL;
	if (!stat(name, &st) && same_file(&st, &want))
		return dlopen(name, RTLD_NOW | RTLD_LOCAL);
	snprintf(name, 64, "%s", real);
	if (stat(real, &st) || !same_file(&st, &want))
		return NULL;
	h = dlopen(real, RTLD_NOW | RTLD_LOCAL);
	if (h && (stat(real, &st) || !same_file(&st, &want))) {
		dlclose(h);
		h = NULL;
	}
	return h;
}

/*
 * dlopen the checked file at fd (`real` its canonical path) and find its
 * `lockbench_plugin`, checking the ABI version and the lock count.
 * Returns 0 with *handle and *plugin set, or -errno with err set (naming
 * `path`) and the handle closed.
 */
static int plugin_open(int fd, const char *real, const char *path, void **handle,
		       const struct lockbench_plugin **plugin, char *err, size_t len)
{
	const struct lockbench_plugin *p;
	char name[64];
	int rc;

	dlerror();
	*handle = dlopen_fd(fd, real, name);
	if (!*handle)
		return plugin_err(err, len, path, -ENOEXEC, "cannot load: %s",
				  dl_reason(name));
	p = dlsym(*handle, "lockbench_plugin");
	if (!p)
		rc = plugin_err(err, len, path, -ENOENT, "no lockbench_plugin symbol "
				"(export the locks with LOCKBENCH_PLUGIN(...))");
	else if (p->abi != LOCKBENCH_ABI_VERSION)
		rc = plugin_err(err, len, path, -ENOEXEC, "built for ABI version %u, "
				"this lockbench has %u: rebuild it against this "
				"lockbench's lockbench/lock.h", p->abi,
				LOCKBENCH_ABI_VERSION);
	else if (!p->locks || !p->nlocks || p->nlocks > PLUGIN_MAX_LOCKS)
		rc = plugin_err(err, len, path, -EINVAL, "exports %u locks (1 to %d "
				"expected)", p->locks ? p->nlocks : 0, PLUGIN_MAX_LOCKS);
	else
		rc = 0;
	if (rc) {
		dlclose(*handle);
		*handle = NULL;
	}
	*plugin = rc ? NULL : p;
	return rc;
}

/*
 * The ops table to register for `in`: `in` itself without a tag, else a
 * heap copy named NAME_TAG.  Returns NULL when out of memory.
 */
static const struct lock_ops *lock_tagged(const struct lock_ops *in, const char *tag)
{
	struct lock_ops *o;
	char *name;

	if (!*tag || !in->name)
		return in;
	o = malloc(sizeof(*o));
	if (!o || asprintf(&name, "%s_%s", in->name, tag) < 0) {
		free(o);
		return NULL;
	}
	*o = *in;
	o->name = name;
	return o;
}

static void locks_free(const struct lock_ops **ops, const struct lockbench_plugin *p,
		       unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (ops[i] && ops[i] != p->locks[i]) {
			free((char *)ops[i]->name);
			free((struct lock_ops *)ops[i]);
		}
	free(ops);
}

/* Why lock i of ops[0..n-1] cannot be registered, written to err;
 * returns 0 when it can. */
static int lock_refused(const struct lock_ops **ops, unsigned i, const char *path,
			char *err, size_t len)
{
	const struct lock_entry *e;
	const char *why;

	if (!ops[i])
		return plugin_err(err, len, path, -EINVAL, "lock %u is NULL", i);
	if (lock_ops_check(ops[i], &why))
		return plugin_err(err, len, path, -EINVAL, "lock %u (%.64s%s): %s", i,
				  ops[i]->name ? ops[i]->name : "no name",
				  ops[i]->name && strlen(ops[i]->name) > 64 ? "..." : "", why);
	if (ops[i]->caps & LOCK_CAP_NOLOCK)
		return plugin_err(err, len, path, -EINVAL, "lock %s: LOCK_CAP_NOLOCK "
				  "is reserved for the built-in null control",
				  ops[i]->name);
	for (unsigned k = 0; k < i; k++)
		if (!strcmp(ops[k]->name, ops[i]->name))
			return plugin_err(err, len, path, -EEXIST,
					  "exports lock %s twice", ops[i]->name);
	e = lock_registry_find(ops[i]->name);
	if (e)
		return plugin_err(err, len, path, -EEXIST, "duplicate lock name %s "
				  "(already %s%s); load it as --plugin TAG=%s "
				  "to register it as %s_TAG", ops[i]->name,
				  e->origin ? "loaded from " : "built in",
				  e->origin ? e->origin : "", path, ops[i]->name);
	return 0;
}

/*
 * Check, then register, every lock of an opened plugin under `tag`, with
 * origin `real`, hash `sha` and the plugin's identity (NULL: none).  Returns 0 or -errno with err set,
 * naming `path`; on failure nothing is registered.
 */
static int plugin_register(const struct lockbench_plugin *p, const char *tag,
			   const char *real, const char *path, const char *sha,
			   const char *identity, char *err, size_t len)
{
	const struct lock_ops **ops = calloc(p->nlocks, sizeof(*ops));
	int rc = 0;

	if (!ops)
		return plugin_err(err, len, path, -ENOMEM, "out of memory");
	for (unsigned i = 0; !rc && i < p->nlocks; i++) {
		ops[i] = lock_tagged(p->locks[i], tag);
		if (p->locks[i] && !ops[i])
			rc = plugin_err(err, len, path, -ENOMEM, "out of memory");
		else
			rc = lock_refused(ops, i, path, err, len);
	}
	for (unsigned i = 0; !rc && i < p->nlocks; i++) {
		rc = lock_registry_add(ops[i], real, sha, identity);
		if (rc)
			/* Only ENOMEM is left after the checks; the locks
			 * registered so far stay, and plugin_load() keeps
			 * the library open for them. */
			return plugin_err(err, len, path, rc, "registering %s: %s",
					  ops[i]->name, strerror(-rc));
	}
	if (rc) {
		locks_free(ops, p, p->nlocks);
		return rc;
	}
	free(ops);  /* the registry keeps the tables themselves */
	return 0;
}

/* Each registered plugin lock, the table its plugin exported, and the
 * head of the plugin's loop chain (plugin_loops()). */
static struct plugin_lock {
	const struct lock_ops *ops, *orig;
	const void *loops;
} *plugin_locks;
static unsigned nplugin_locks;

/* Remember the locks of `p` registered from ops tables registry[first..]
 * with the plugin's loop chain (NULL: none).  Out of memory forgets them:
 * they run the generic loop. */
static void plugin_remember(const struct lockbench_plugin *p, unsigned first,
			    const void *loops)
{
	unsigned n = lock_registry_count() - first;
	struct plugin_lock *t = realloc(plugin_locks, (nplugin_locks + n) * sizeof(*t));

	if (!t || n != p->nlocks)
		return;
	plugin_locks = t;
	for (unsigned i = 0; i < n; i++)
		t[nplugin_locks++] = (struct plugin_lock){
			lock_registry_at(first + i)->ops, p->locks[i], loops};
}

const void *plugin_loops(const struct lock_ops *ops, const struct lock_ops **orig)
{
	for (unsigned i = 0; i < nplugin_locks; i++)
		if (plugin_locks[i].ops == ops) {
			*orig = plugin_locks[i].orig;
			return plugin_locks[i].loops;
		}
	return NULL;
}

/*
 * Load the plugin open at fd (named `path`; its locks registered under
 * `tag`, "" for none): checked, hashed and loaded by the descriptor, so
 * that what was checked is what runs.  The descriptor stays open while
 * the plugin is loaded (the name dlopen() knows it by must stay its
 * own); it is closed on failure.
 */
static int load_fd(const char *tag, int fd, const char *path, char *err, size_t len)
{
	const struct lockbench_plugin *p = NULL;
	unsigned before = lock_registry_count();
	char sha[65], *real = NULL;
	void *h = NULL;
	int rc = elf_check(fd, path, err, len);

	if (!rc && !(real = realpath(path, NULL)))
		rc = plugin_err(err, len, path, -errno, "cannot resolve: %s",
				strerror(errno));
	if (!rc && (rc = sha256_fd(fd, sha)))
		plugin_err(err, len, path, rc, "cannot read: %s", strerror(-rc));
	if (!rc)
		rc = plugin_open(fd, real, path, &h, &p, err, len);
	if (!rc)
		rc = plugin_register(p, tag, real, path, sha,
				     dlsym(h, "lockbench_plugin_identity"), err, len);
	if (!rc) {
		/* <lockbench/loops.h>: the chain's head, a pointer */
		const void *const *head = dlsym(h, "lockbench_plugin_loops");

		plugin_remember(p, before, head ? *head : NULL);
	}
	/* Close and free only what no registered lock points into. */
	if (rc && lock_registry_count() == before) {
		if (h)
			dlclose(h);
		free(real);
		close(fd);
	}
	return rc;
}

int plugin_load(const char *spec, char *err, size_t len)
{
	char tag[PLUGIN_MAX_TAG + 1], expanded[PATH_MAX];
	const char *path, *home = getenv("HOME");
	int rc, fd;

	rc = spec_parse(spec, tag, &path, err, len);
	if (rc)
		return rc;
	if (tag[0] && !strncmp(path, "~/", 2) && home && *home) {
		/* "TAG=~/x.so": bash makes it $HOME/x.so, dash and zsh do not */
		snprintf(expanded, sizeof(expanded), "%s/%s", home, path + 2);
		path = expanded;
	}
	/* O_NONBLOCK: a FIFO would block open() for ever; then refused */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return plugin_err(err, len, path, -errno, "cannot open: %s",
				  strerror(errno));
	return load_fd(tag, fd, path, err, len);
}

int plugin_load_fd(const char *tag, int fd, const char *path, char *err, size_t len)
{
	size_t n = strlen(tag);

	if (n > PLUGIN_MAX_TAG || strspn(tag, NAME_CHARS) != n) {
		close(fd);
		return plugin_err(err, len, path, -EINVAL, "tag (%s) must be 1 to %d "
				  "of [a-z0-9_]", tag, PLUGIN_MAX_TAG);
	}
	return load_fd(tag, fd, path, err, len);
}

int plugins_load(const char *const *specs, unsigned n, char *err, size_t len)
{
	for (unsigned i = 0; i < n; i++) {
		int rc = plugin_load(specs[i], err, len);

		if (rc)
			return rc;
	}
	return 0;
}
