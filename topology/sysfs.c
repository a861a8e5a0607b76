/* SPDX-License-Identifier: MIT */
/*
 * sysfs.c - /sys and /proc access under one root; see sysfs.h.
 *
 * sysfs_path() and sysfs_write_str() use only strlen/memcpy and
 * open/write/close, all async-signal-safe (POSIX.1-2017), so the machine
 * module can restore settings from a signal handler through them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sysfs.h"

/* The module's only state: the root every path is resolved under. */
static char sysfs_root_dir[PATH_MAX];

int sysfs_set_root(const char *root)
{
	size_t n = root ? strlen(root) : 0;

	while (n > 0 && root[n - 1] == '/')
		n--;
	if (n >= sizeof(sysfs_root_dir))
		return -ENAMETOOLONG;
	if (n)
		memcpy(sysfs_root_dir, root, n);
	sysfs_root_dir[n] = '\0';
	return 0;
}

const char *sysfs_root(void)
{
	return sysfs_root_dir;
}

int sysfs_path(const char *path, char *out, size_t len)
{
	size_t r = strlen(sysfs_root_dir), p = strlen(path);

	if (len == 0)
		return -ENAMETOOLONG;
	if (r + p + 1 > len) {
		out[0] = '\0';
		return -ENAMETOOLONG;
	}
	memcpy(out, sysfs_root_dir, r);
	memcpy(out + r, path, p + 1);
	return 0;
}

int sysfs_exists(const char *path)
{
	char full[PATH_MAX];
	struct stat st;

	if (sysfs_path(path, full, sizeof(full)))
		return 0;
	return lstat(full, &st) == 0;
}

/*
 * Open `full` (a resolved path) with `flags`, not blocking (O_NONBLOCK:
 * a FIFO without a writer, or without a reader for O_WRONLY, would wait
 * for ever in open(2) or read(2); then ENXIO for a write), and only a
 * regular file: every sysfs and procfs file is one in stat(2), so
 * anything else is not the kernel's.  The descriptor or -errno (-EINVAL
 * for a file that is not regular).  Only async-signal-safe calls.
 */
static int sysfs_open_regular(const char *full, int flags)
{
	int fd = open(full, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		e = S_ISREG(st.st_mode) ? errno : EINVAL;
		close(fd);
		return -e;
	}
	return fd;
}

FILE *sysfs_fopen(const char *path)
{
	char full[PATH_MAX];
	int fd = sysfs_path(path, full, sizeof(full)) ? -ENAMETOOLONG
						       : sysfs_open_regular(full, O_RDONLY);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	if (!(f = fdopen(fd, "r")))
		close(fd);
	return f;
}

/* Remove the trailing newlines and blanks sysfs and procfs end values with. */
static void strip_trailing(char *buf)
{
	size_t n = strlen(buf);

	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' ' ||
			 buf[n - 1] == '\t'))
		buf[--n] = '\0';
}

int sysfs_read_str(const char *path, char *buf, size_t len)
{
	char full[PATH_MAX];
	size_t got = 0;
	ssize_t n;
	int fd, err;

	if (len == 0)
		return -EINVAL;
	buf[0] = '\0';
	err = sysfs_path(path, full, sizeof(full));
	if (err)
		return err;
	fd = sysfs_open_regular(full, O_RDONLY);
	if (fd < 0)
		return fd;
	while (got < len - 1) {
		n = read(fd, buf + got, len - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			close(fd);
			buf[0] = '\0';
			return err;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	strip_trailing(buf);
	return 0;
}

int sysfs_read_u64(const char *path, uint64_t *val)
{
	char buf[64], *end;
	unsigned long long v;
	int err;

	err = sysfs_read_str(path, buf, sizeof(buf));
	if (err)
		return err;
	if (buf[0] < '0' || buf[0] > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || *end != '\0')
		return -EINVAL;
	*val = v;
	return 0;
}

int sysfs_write_str(const char *path, const char *val)
{
	char full[PATH_MAX];
	size_t len = strlen(val);
	ssize_t n;
	int fd, err;

	err = sysfs_path(path, full, sizeof(full));
	if (err)
		return err;
	fd = sysfs_open_regular(full, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return fd;
	do
		n = write(fd, val, len);
	while (n < 0 && errno == EINTR);
	err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) && !err)
		err = -errno;
	return err;
}

/* A /proc entry name that is a pid; its value, else -1. */
static int pid_of(const char *name)
{
	long v = 0;

	if (!*name)
		return -1;
	for (const char *p = name; *p; p++) {
		if (*p < '0' || *p > '9' || v > INT_MAX / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	return v > 0 && v <= INT_MAX ? (int)v : -1;
}

int sysfs_each_process(int (*fn)(int pid, const char *comm, void *arg), void *arg)
{
	char path[PATH_MAX], rel[64], comm[64];
	struct dirent *d;
	int rc = 0;
	DIR *dir;

	if (sysfs_path("/proc", path, sizeof(path)))
		return -ENAMETOOLONG;
	dir = opendir(path);
	if (!dir)
		return -errno;
	while (!rc && (d = readdir(dir))) {
		int pid = pid_of(d->d_name);

		if (pid < 0)
			continue;
		snprintf(rel, sizeof(rel), "/proc/%d/comm", pid);
		if (!sysfs_read_str(rel, comm, sizeof(comm)))
			rc = fn(pid, comm, arg);
	}
	closedir(dir);
	return rc;
}
