/* SPDX-License-Identifier: MIT */
/*
 * What the kernel tree builder trusts (docs/kernel-tree.md, "The cache
 * and what is trusted").  A cached plugin is code lockbench will load,
 * perhaps as root: it is used only from a directory of this user's that
 * no one else can write, only when it and its recorded digest are this
 * user's, and only when its content still matches that digest.  The
 * tree's own git configuration is never given a chance to run (git-
 * config(1): core.fsmonitor, filters and hooks are commands): HEAD and
 * its ref are read from the files (gitrepository-layout(5)), and the
 * dirty state compares blob ids, which needs no index refresh.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/atomicfile.h"
#include "../../lib/sha256.h"
#include "../../lib/termsig.h"
#include "ktree_cache.h"

/* ---- ownership ------------------------------------------------------ */

/* Why st (of a directory when dir) is not ours, or NULL. */
static const char *not_ours(const struct stat *st, bool dir, char *why, size_t len)
{
	if (dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
		return dir ? "not a directory" : "not a regular file";
	if (st->st_uid != geteuid()) {
		snprintf(why, len, "owned by uid %u, not by this user (uid %u)",
			 (unsigned)st->st_uid, (unsigned)geteuid());
		return why;
	}
	if (st->st_mode & (S_IWGRP | S_IWOTH)) {
		snprintf(why, len, "writable by %s (mode %04o)",
			 st->st_mode & S_IWOTH ? "everyone" : "its group",
			 (unsigned)(st->st_mode & 07777));
		return why;
	}
	return NULL;
}

/*
 * Why directory st, on the way to the cache, is one another user could
 * change (rename or replace what is in it), or NULL: it must be owned
 * by root or this user, and writable by no group or other unless
 * sticky (like /tmp: there no one renames or removes an entry of
 * another's; unlink(2), "EPERM").  `at` names it in why.
 */
static const char *parent_unsafe(const struct stat *st, const char *at, char *why,
				 size_t len)
{
	if (!S_ISDIR(st->st_mode))
		snprintf(why, len, "in %s, which is not a directory", at);
	else if (st->st_uid && st->st_uid != geteuid())
		snprintf(why, len, "in %s, which uid %u owns (neither root nor this "
			 "user, uid %u)", at, (unsigned)st->st_uid, (unsigned)geteuid());
	else if ((st->st_mode & (S_IWGRP | S_IWOTH)) && !(st->st_mode & S_ISVTX))
		snprintf(why, len, "in %s, which is writable by %s (mode %04o) and not "
			 "sticky", at, st->st_mode & S_IWOTH ? "everyone" : "its group",
			 (unsigned)(st->st_mode & 07777));
	else
		return NULL;
	return why;
}

/* Open the next directory `name` below dfd (closed) without following a
 * symbolic link; -errno. */
static int step(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int e = errno;

	close(dfd);
	return fd < 0 ? -e : fd;
}

int kcache_dir_open(const char *dir, char *why, size_t len)
{
	char real[PATH_MAX], at[PATH_MAX] = "/", *save = NULL;
	struct stat st;
	const char *no;
	int fd;

	if (!realpath(dir, real) || (fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return -errno;
	}
	for (char *c = strtok_r(real, "/", &save), *next; ; c = next) {
		next = c ? strtok_r(NULL, "/", &save) : NULL;
		if (fstat(fd, &st)) {
			snprintf(why, len, "%s", strerror(errno));
			close(fd);
			return -EIO;
		}
		no = c ? parent_unsafe(&st, at, why, len) : not_ours(&st, true, why, len);
		if (no) {
			if (no != why)
				snprintf(why, len, "%s", no);
			close(fd);
			return -EPERM;
		}
		if (!c)
			return fd;
		snprintf(at + strlen(at), sizeof(at) - strlen(at), "%s%s", at[1] ? "/" : "", c);
		if ((fd = step(fd, c)) < 0) {
			snprintf(why, len, "%s: %s (changed while it was checked)", at,
				 strerror(-fd));
			return fd;
		}
	}
}

/* Open `name` in directory dfd, not following a link and not blocking
 * (a FIFO), and check it is a regular file of ours; the fd or -errno
 * (-EPERM with why). */
static int open_ours(int dfd, const char *name, char *why, size_t len)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	const char *no;

	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return -errno;
	}
	if (fstat(fd, &st))
		no = strerror(errno);
	else
		no = not_ours(&st, false, why, len);
	if (no) {
		if (no != why)
			snprintf(why, len, "%s", no);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* ---- the digest beside a cached plugin ------------------------------ */

int kcache_digest_write(const char *so)
{
	char hex[65], path[4200];
	int rc = sha256_file(so, hex);

	if (rc)
		return rc;
	if (snprintf(path, sizeof(path), "%s.sha256", so) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	hex[64] = '\n';
	return af_replace(path, hex, sizeof(hex), NULL, NULL);
}

/* Does the plugin open at fd match the digest `name` in dfd?  false with
 * why. */
static bool digest_matches(int dfd, const char *name, int fd, char *why, size_t len)
{
	char want[80] = "", hex[65], no[128];
	int dg = open_ours(dfd, name, no, sizeof(no));
	ssize_t n;

	if (dg < 0) {
		if (dg == -ENOENT)
			snprintf(why, len, "no digest recorded beside it");
		else
			snprintf(why, len, "its digest is %s", no);
		return false;
	}
	n = pread(dg, want, sizeof(want) - 1, 0);
	close(dg);
	want[n > 0 ? n : 0] = 0;
	if (sha256_fd(fd, hex) || strncmp(want, hex, 64) || want[64] != '\n') {
		snprintf(why, len, "its content does not match the digest recorded "
			 "beside it (truncated or overwritten)");
		return false;
	}
	return true;
}

int kcache_open_verified(const char *so, char *why, size_t len)
{
	const char *slash = strrchr(so, '/');
	char dir[PATH_MAX], dg[NAME_MAX + 16];
	int dfd, fd;

	if (!slash || (size_t)(slash - so) >= sizeof(dir) || strlen(slash) > NAME_MAX) {
		snprintf(why, len, "%s", strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - so), so);
	snprintf(dg, sizeof(dg), "%s.sha256", slash + 1);
	if ((dfd = kcache_dir_open(dir[0] ? dir : "/", why, len)) < 0)
		return dfd;
	fd = open_ours(dfd, slash + 1, why, len);
	if (fd >= 0 && !digest_matches(dfd, dg, fd, why, len)) {
		close(fd);
		fd = -EPERM;
	}
	close(dfd);
	return fd;
}

int ktree_plugin_open(const char *path, char *err, size_t errlen)
{
	char why[512];
	int fd = kcache_open_verified(path, why, sizeof(why));

	if (fd < 0)
		snprintf(err, errlen, "the cached plugin %s is not loaded: %s; run again",
			 path, why);
	return fd;
}

bool kcache_names_tree(int fd, const char *root)
{
	char *want = NULL, *buf = NULL;
	json_t *js = json_string(root);
	char *q = js ? json_dumps(js, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
	struct stat st;
	bool found = false;

	if (q && asprintf(&want, "\"tree\":%s", q) < 0)
		want = NULL;
	if (want && !fstat(fd, &st) && st.st_size > 0 && st.st_size < (1 << 28) &&
	    (buf = malloc((size_t)st.st_size)) &&
	    pread(fd, buf, (size_t)st.st_size, 0) == st.st_size)
		found = memmem(buf, (size_t)st.st_size, want, strlen(want)) != NULL;
	free(buf);
	free(want);
	free(q);
	json_decref(js);
	return found;
}

void kcache_drop(const char *so)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s.sha256", so);
	unlink(so);
	unlink(path);
}

/* ---- special files in the tree ------------------------------------- */

/* What a file that is not regular is, for a message. */
static const char *kind_of(mode_t m)
{
	return S_ISFIFO(m) ? "a FIFO" : S_ISDIR(m) ? "a directory" : S_ISSOCK(m) ? "a socket"
	       : S_ISCHR(m) || S_ISBLK(m) ? "a device node" : "not a regular file";
}

int kcache_irregular(const char *path, const char *name, bool dir_ok, char *why, size_t len)
{
	struct stat st;

	if (stat(path, &st) || S_ISREG(st.st_mode) || (dir_ok && S_ISDIR(st.st_mode)))
		return 0;
	snprintf(why, len, "%s is %s, not a regular file: refused", name, kind_of(st.st_mode));
	return -EINVAL;
}

/* The scan of kcache_tree_special() below root/rel, `depth` levels
 * more; *budget entries at most in all. */
static int scan_special(const char *root, const char *rel, int depth, long *budget,
			char *why, size_t len)
{
	char p[PATH_MAX * 2], sub[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	if ((size_t)snprintf(p, sizeof(p), "%s/%s", root, rel) >= sizeof(p) || !(d = opendir(p)))
		return 0;
	while (!rc && --*budget > 0 && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || e->d_type == DT_REG ||
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, e->d_name) >= sizeof(sub))
			continue;
		if (e->d_type == DT_DIR) {
			if (depth > 0)
				rc = scan_special(root, sub, depth - 1, budget, why, len);
			continue;
		}
		snprintf(p, sizeof(p), "%s/%s", root, sub);
		/* a link is followed, as the compiler would */
		rc = kcache_irregular(p, sub, true, why, len);
	}
	closedir(d);
	return rc;
}

int kcache_tree_special(const char *root, const char *rel, char *why, size_t len)
{
	long budget = 500000;

	return scan_special(root, rel, 12, &budget, why, len);
}

/* ---- space and stack ------------------------------------------------ */

bool kcache_disk_full(const char *dir)
{
	struct statvfs v;

	return !statvfs(dir, &v) && (unsigned long long)v.f_bavail * v.f_frsize < 65536;
}

/* Below this the builder's path buffers and the compiler's own stack
 * may not fit (a compiler with a tiny stack dies by SIGSEGV). */
#define KTREE_MIN_STACK (1024 * 1024)

bool kcache_stack_small(char *err, size_t len)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_STACK, &r) || r.rlim_cur == RLIM_INFINITY ||
	    r.rlim_cur >= KTREE_MIN_STACK)
		return false;
	snprintf(err, len, "the stack limit (ulimit -s %llu, in KiB) is too small to "
		 "build a kernel tree's locks: raise it to %d or more",
		 (unsigned long long)r.rlim_cur / 1024, KTREE_MIN_STACK / 1024);
	return true;
}

/* ---- a build directory removed when a signal ends the build --------- */

/* What the handler needs, set before it is armed: only async-signal-safe
 * calls on it (signal-safety(7)): kill, waitpid, getdents64, unlinkat,
 * sigaction, raise.  The stop signals (lib/termsig.h), SIGPIPE and
 * SIGXFSZ, which would end the build too, and the real-time signals are
 * handled alike. */
static const int sig_fixed[] = { TERMSIG_STOP, SIGPIPE, SIGXFSZ };
static struct sigaction sig_old[NSIG];
static bool sig_armed[NSIG];
static volatile sig_atomic_t sig_pid;
static int sig_cachefd = -1, sig_tmpfd = -1;
static char sig_base[256];

/* Is sig one the build handles (a terminating signal, above)? */
static bool sig_handled(int sig)
{
	for (unsigned i = 0; i < sizeof(sig_fixed) / sizeof(sig_fixed[0]); i++)
		if (sig_fixed[i] == sig)
			return true;
	return sig >= SIGRTMIN && sig <= SIGRTMAX;
}

/* Empty directory dfd, its subdirectories (the build's include links)
 * to `depth` levels; only signal-safe calls (openat, close as well). */
static void sig_empty(int dfd, int depth)
{
	char buf[2048];
	long n;

	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n;) {
			/* struct linux_dirent64: ino, off, reclen, type, name */
			unsigned short rl;
			const char *name = buf + off + 19;
			int sub;

			memcpy(&rl, buf + off + 16, sizeof(rl));
			off += rl;
			if (!strcmp(name, ".") || !strcmp(name, "..") || !unlinkat(dfd, name, 0))
				continue;
			if (depth <= 0 || (sub = openat(dfd, name, O_RDONLY | O_DIRECTORY |
							 O_NOFOLLOW | O_CLOEXEC)) < 0)
				continue;
			sig_empty(sub, depth - 1);
			close(sub);
			unlinkat(dfd, name, AT_REMOVEDIR);
		}
}

/* Empty the build directory and remove it; only signal-safe calls. */
static void sig_clean(void)
{
	if (sig_tmpfd < 0)
		return;
	sig_empty(sig_tmpfd, 3);
	unlinkat(sig_cachefd, sig_base, AT_REMOVEDIR);
}

static void sig_handler(int sig)
{
	pid_t pid = (pid_t)sig_pid;

	if (pid > 0) {
		kill(-pid, SIGKILL);  /* its group: the compiler's own children */
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
	sig_clean();
	if (sig > 0 && sig < NSIG && sig_armed[sig]) {
		sigaction(sig, &sig_old[sig], NULL);
		if (sig_old[sig].sa_handler != SIG_DFL)
			sig_old[sig].sa_handler(sig);
		else
			raise(sig);  /* delivered when this handler returns */
	}
}

int kcache_sig_arm(const char *tmp)
{
	const char *slash = strrchr(tmp, '/');
	char parent[4096];
	struct sigaction sa = {.sa_handler = sig_handler};

	if (!slash || (size_t)(slash - tmp) >= sizeof(parent) ||
	    strlen(slash + 1) >= sizeof(sig_base))
		return -ENAMETOOLONG;
	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - tmp), tmp);
	snprintf(sig_base, sizeof(sig_base), "%s", slash + 1);
	sig_cachefd = open(parent[0] ? parent : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	sig_tmpfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (sig_cachefd < 0 || sig_tmpfd < 0) {
		kcache_sig_disarm();
		return -errno;
	}
	sigfillset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++) {
		/* a signal ignored at start (nohup) stays ignored */
		sig_armed[sig] = sig_handled(sig) && !sigaction(sig, NULL, &sig_old[sig]) &&
				 sig_old[sig].sa_handler != SIG_IGN &&
				 !(sig_old[sig].sa_flags & SA_SIGINFO);
		if (sig_armed[sig])
			sigaction(sig, &sa, NULL);
	}
	return 0;
}

void kcache_sig_disarm(void)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig_armed[sig]) {
			sigaction(sig, &sig_old[sig], NULL);
			sig_armed[sig] = false;
		}
	sig_pid = 0;
	if (sig_tmpfd >= 0)
		close(sig_tmpfd);
	if (sig_cachefd >= 0)
		close(sig_cachefd);
	sig_tmpfd = sig_cachefd = -1;
}

/* ---- children run with a time limit --------------------------------- */

unsigned kcache_child_limit(void)
{
	const char *e = getenv("LOCKBENCH_KTREE_TIMEOUT");
	char *end;
	unsigned long v = e ? strtoul(e, &end, 10) : 0;

	return e && *e && !*end && v > 0 && v <= 86400 ? (unsigned)v : 300;
}

/* In the parent: wait for the child `pid`, killing its group at the
 * limit; its exit status, -1 for another end, or KCACHE_LATE. */
static int child_wait(pid_t pid)
{
	unsigned limit_ms = kcache_child_limit() * 1000u, waited = 0, nap = 1;
	int st = 0;
	pid_t r;

	setpgid(pid, pid);  /* as the child does: whichever runs first */
	sig_pid = pid;  /* the child a signal kills first */
	while ((r = waitpid(pid, &st, WNOHANG)) == 0 || (r < 0 && errno == EINTR)) {
		if (waited >= limit_ms) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			sig_pid = 0;
			return KCACHE_LATE;
		}
		usleep(nap * 1000u);
		waited += nap;
		nap = nap < 20 ? nap * 2 : 20;
	}
	sig_pid = 0;
	return r < 0 || !WIFEXITED(st) ? -1 : WEXITSTATUS(st);
}

int kcache_run(char *const argv[], const char *log, bool errors, const char *dir,
	       const char *const env[][2])
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		setpgid(0, 0);
		if (fd < 0 || null < 0 || dup2(fd, 1) < 0 || dup2(errors ? fd : null, 2) < 0 ||
		    dup2(null, 0) < 0 || (dir && chdir(dir)))
			_exit(127);
		for (unsigned i = 0; env[i][0][0]; i++)
			setenv(env[i][0], env[i][1], 1);
		execv(argv[0], argv);
		_exit(127);
	}
	return child_wait(pid);
}
