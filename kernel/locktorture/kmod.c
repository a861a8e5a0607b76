// SPDX-License-Identifier: MIT
/*
 * kmod.c - module checks, load and unload; see kmod.h.
 */
#define _GNU_SOURCE
#include "kmod.h"
#include "../../lib/progpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/atomicfile.h"
#include "../../topology/machine.h"
#include "../../topology/sysfs.h"

const char *kmod_program(void)
{
	const char *p = getenv("LOCKBENCH_MODPROBE");

	return p && *p ? p : "modprobe";
}

/*
 * Does the file "<root>/lib/modules/@rel/@list" name module @name, as
 * ".../NAME.ko" (maybe compressed: .ko.xz, .ko.zst, .ko.gz) at the start
 * of a line (modules.dep "path: deps", modules.builtin "path")?
 * Returns 1, 0, or -errno when the file cannot be read.
 */
static int modlist_has(const char *rel, const char *list, const char *name)
{
	char path[PATH_MAX], rpath[PATH_MAX], want[128], *line = NULL;
	size_t cap = 0, wl;
	int found = 0;
	FILE *f;

	snprintf(rpath, sizeof(rpath), "/lib/modules/%s/%s", rel, list);
	if (sysfs_path(rpath, path, sizeof(path)))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	wl = (size_t)snprintf(want, sizeof(want), "/%s.ko", name);
	while (!found && getline(&line, &cap, f) > 0) {
		char *end = line + strcspn(line, ":\n");
		char *ko = end;

		/* The path ends ".ko" or ".ko.<compression>". */
		while (ko > line && *ko != '/')
			ko--;
		found = end - ko >= (long)wl && !strncmp(ko, want, wl) &&
			(ko + wl == end || ko[wl] == '.');
		/* A module of the kernel tree's top directory has no '/'. */
		if (!found && ko == line && !strncmp(line, want + 1, wl - 1) &&
		    (line + wl - 1 == end || line[wl - 1] == '.'))
			found = 1;
	}
	free(line);
	fclose(f);
	return found;
}

/* "<root>/path" as the user knows it, for messages. */
static const char *shown(const char *path, char *buf, size_t len)
{
	if (sysfs_path(path, buf, len))
		snprintf(buf, len, "%s", path);
	return buf;
}

int kmod_check(const char *name, char *msg, size_t len)
{
	char rel[256], val[64], path[PATH_MAX], where[PATH_MAX];
	int rc;

	if (!sysfs_exists("/proc/modules")) {
		snprintf(msg, len, "this kernel cannot load modules (no %s: built "
			 "without CONFIG_MODULES)", shown("/proc/modules", where,
							 sizeof(where)));
		return -ENOTSUP;
	}
	if (geteuid() != 0) {
		snprintf(msg, len, "loading %s needs root", name);
		return -EPERM;
	}
	if (!sysfs_read_str("/proc/sys/kernel/modules_disabled", val, sizeof(val)) &&
	    strcmp(val, "0")) {
		snprintf(msg, len, "module loading is disabled "
			 "(kernel.modules_disabled=%s until reboot)", val);
		return -EPERM;
	}
	if (sysfs_read_str("/proc/sys/kernel/osrelease", rel, sizeof(rel)) || !rel[0]) {
		snprintf(msg, len, "cannot tell the kernel release (%s unreadable)",
			 shown("/proc/sys/kernel/osrelease", where, sizeof(where)));
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "/lib/modules/%s", rel);
	if (!sysfs_exists(path)) {
		snprintf(msg, len, "no modules for kernel %s (%s missing)", rel,
			 shown(path, where, sizeof(where)));
		return -ENOENT;
	}
	if (modlist_has(rel, "modules.builtin", name) == 1) {
		snprintf(msg, len, "%s is built into kernel %s (CONFIG_LOCK_TORTURE_TEST=y: "
			 "it runs at boot only; a kernel with =m is needed)", name, rel);
		return -ENOTSUP;
	}
	rc = modlist_has(rel, "modules.dep", name);
	if (rc != 1) {
		snprintf(msg, len, "module %s not found for kernel %s (%s %s/modules.dep; "
			 "needs CONFIG_LOCK_TORTURE_TEST=m)", name, rel,
			 rc < 0 ? "no" : "not in", shown(path, where, sizeof(where)));
		return -ENOENT;
	}
	if (kmod_loaded(name)) {
		snprintf(msg, len, "%s is loaded already (a test is running, or a "
			 "crashed lockbench left it: lockbench system reset)", name);
		return -EBUSY;
	}
	return 0;
}

bool kmod_loaded(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return sysfs_exists(path) == 1;
}

/*
 * Run kmod_program() with @argv[1..] (argv[0] is filled here: its
 * absolute path, lib/progpath.h), its stdout to /dev/null and the
 * first line of its stderr into @first.  Returns its exit status
 * (0..255), 256 + signal, or -errno (-ENOENT: not found).
 */
static int run_prog(const char **argv, char *first, size_t flen)
{
	int pfd[2], status, null;
	char buf[512], prog[PATH_MAX];
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	first[0] = '\0';
	/* found before it runs, through absolute PATH entries only */
	if (prog_resolve(kmod_program(), prog, sizeof(prog)))
		return -ENOENT;
	argv[0] = prog;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	if (pid == 0) {
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
		}
		dup2(pfd[1], STDERR_FILENO);
		execv(argv[0], (char *const *)argv);
		dprintf(STDERR_FILENO, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		if (got + 1 < flen) {
			size_t take = (size_t)n < flen - 1 - got ? (size_t)n : flen - 1 - got;

			memcpy(first + got, buf, take);
			got += take;
			first[got] = '\0';
		}
	}
	close(pfd[0]);
	first[strcspn(first, "\n")] = '\0';
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 256 + WTERMSIG(status);
}

/* " (kernel lockdown: integrity)" when a lockdown mode is active, else "". */
static void lockdown_note(char *out, size_t len)
{
	char val[128], *a, *b;

	out[0] = '\0';
	if (sysfs_read_str("/sys/kernel/security/lockdown", val, sizeof(val)))
		return;
	a = strchr(val, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b && strncmp(a + 1, "none", (size_t)(b - a - 1)))
		snprintf(out, len, "; kernel lockdown: %.*s", (int)(b - a - 1), a + 1);
}

int kmod_load(const char *name, const char *const *params, char *msg, size_t len)
{
	const char *argv[64];
	char first[256], lock[160];
	unsigned n = 1;
	int st;

	argv[n++] = name;
	for (unsigned i = 0; params && params[i] && n < 63; i++)
		argv[n++] = params[i];
	argv[n] = NULL;
	st = run_prog(argv, first, sizeof(first));
	if (st == 0)
		return 0;
	lockdown_note(lock, sizeof(lock));
	if (st == -ENOENT)
		snprintf(msg, len, "cannot load %s: %s not found (a path, or a program in an "
			 "absolute PATH entry; set LOCKBENCH_MODPROBE)", name, kmod_program());
	else if (st < 0)
		snprintf(msg, len, "cannot load %s (%s): %s%s", name, kmod_program(),
			 strerror(-st), lock);
	else
		snprintf(msg, len, "cannot load %s (%s exit %d): %s%s", name, kmod_program(),
			 st, first[0] ? first : "no message", lock);
	return -EIO;
}

int kmod_unload(const char *name, char *msg, size_t len)
{
	const char *argv[] = {NULL, "-r", name, NULL};
	char first[256];
	int st = run_prog(argv, first, sizeof(first));

	if (st == 0)
		return 0;
	if (st == -ENOENT)
		snprintf(msg, len, "cannot unload %s: %s not found (a path, or a program in "
			 "an absolute PATH entry; set LOCKBENCH_MODPROBE)", name, kmod_program());
	else
		snprintf(msg, len, "cannot unload %s (%s -r, exit %d): %s", name, kmod_program(),
		 st, st < 0 ? strerror(-st) : first[0] ? first : "no message");
	return -EIO;
}

/* The companion of the machine state file that records a loaded module. */
static void record_path(char *out, size_t len)
{
	snprintf(out, len, "%s.module", machine_state_path());
}

/* 1 when @path is a regular file of the effective user (not a symlink,
 * device or FIFO): the only kind of module record lockbench writes. */
static int record_is_file(const char *path)
{
	struct stat st;

	return !lstat(path, &st) && S_ISREG(st.st_mode) && st.st_uid == geteuid();
}

/* af_replace()'s last word: never rename over what we did not write. */
static int record_ours(int fd, const char *path, void *arg)
{
	(void)fd, (void)arg;
	return !access(path, F_OK) && !record_is_file(path) ? -EEXIST : 0;
}

int kmod_record(const char *name)
{
	char path[PATH_MAX + 16], dir[PATH_MAX + 16], line[256], *slash;
	int n;

	record_path(path, sizeof(path));
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		mkdir(dir, 0700);	/* as the state file's own directory */
	}
	n = snprintf(line, sizeof(line), "%s %d\n", name, (int)getpid());
	if (n < 0 || n >= (int)sizeof(line))
		return -ENAMETOOLONG;
	return af_replace(path, line, (size_t)n, record_ours, NULL);
}

void kmod_forget(void)
{
	char path[PATH_MAX + 16];

	record_path(path, sizeof(path));
	if (record_is_file(path))
		unlink(path);
}

int kmod_reset_from_state(char *msg, size_t len)
{
	char path[PATH_MAX + 16], name[64], why[512];
	int pid = 0;
	FILE *f;

	msg[0] = '\0';
	record_path(path, sizeof(path));
	if (access(path, F_OK))
		return 0;
	if (!record_is_file(path)) {
		snprintf(msg, len, "lockbench: module record (%s): not a file lockbench "
			 "wrote; left as it is", path);
		return -EINVAL;
	}
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%63s %d", name, &pid) != 2 || pid <= 0 ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyz_0123456789") != strlen(name)) {
		fclose(f);
		snprintf(msg, len, "lockbench: malformed module record (%s); remove it "
			 "after checking lsmod", path);
		return -EINVAL;
	}
	fclose(f);
	if (pid != (int)getpid() && (kill(pid, 0) == 0 || errno == EPERM)) {
		snprintf(msg, len, "lockbench: %s was loaded by lockbench pid %d, which "
			 "still runs (it unloads it on exit)", name, pid);
		return -EBUSY;
	}
	if (!kmod_loaded(name)) {
		unlink(path);
		snprintf(msg, len, "%s was not loaded any more", name);
		return 0;
	}
	if (kmod_unload(name, why, sizeof(why))) {
		snprintf(msg, len, "lockbench: %s", why);
		return -EIO;
	}
	unlink(path);
	snprintf(msg, len, "unloaded %s (left by lockbench pid %d)", name, pid);
	return 0;
}
