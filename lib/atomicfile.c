// SPDX-License-Identifier: MIT
/* lib/atomicfile.c - replacing a record file (atomicfile.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE     /* mkostemp, fallocate */
#endif
#include "atomicfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

int af_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

void af_dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
}

void af_fsync_dir(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	af_dir_of(path, dir, sizeof(dir));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
}

int af_replace(const char *path, const void *buf, size_t len,
	       int (*check)(int fd, const char *path, void *arg), void *arg)
{
	char tmp[PATH_MAX + 32];
	int fd = af_twin_create(path, tmp, sizeof(tmp)), err;

	if (fd < 0)
		return fd;
	err = af_write_all(fd, buf, len);
	if (!err && fsync(fd))
		err = -errno;
	if (!err && check)
		err = check(fd, path, arg);
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		unlink(tmp);
		return err;
	}
	af_fsync_dir(path);
	return 0;
}

int af_twin_create(const char *path, char *tmp, size_t len)
{
	int fd;

	if (snprintf(tmp, len, "%s.tmp.XXXXXX", path) >= (int)len)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);  /* O_CREAT | O_EXCL, mode 0600 */
	return fd < 0 ? -errno : fd;
}

/* The names of the extended attributes of path (fd < 0) or fd, NUL-
 * separated, into *out (malloc'ed, or NULL); their length or -errno.
 * A file system without them has none. */
static ssize_t xattr_names(const char *path, int fd, char **out)
{
	for (*out = NULL;;) {
		ssize_t n = fd < 0 ? llistxattr(path, NULL, 0) : flistxattr(fd, NULL, 0), k;

		if (n < 0)
			return errno == ENOTSUP ? 0 : -errno;
		if (n == 0)
			return 0;
		if (!(*out = malloc((size_t)n)))
			return -ENOMEM;
		k = fd < 0 ? llistxattr(path, *out, (size_t)n) : flistxattr(fd, *out, (size_t)n);
		if (k >= 0)
			return k;
		free(*out);
		*out = NULL;
		if (errno != ERANGE)    /* ERANGE: one was added meanwhile */
			return -errno;
	}
}

static bool name_in(const char *list, ssize_t len, const char *name)
{
	for (ssize_t k = 0; k < len; k += (ssize_t)strlen(list + k) + 1)
		if (!strcmp(list + k, name))
			return true;
	return false;
}

/* Attribute `name` of path onto fd; 0 or -errno. */
static int xattr_copy_one(const char *path, int fd, const char *name)
{
	ssize_t n = lgetxattr(path, name, NULL, 0);
	char *v;
	int rc = 0;

	if (n < 0)
		return -errno;
	if (!(v = malloc(n ? (size_t)n : 1)))
		return -ENOMEM;
	n = lgetxattr(path, name, v, (size_t)n);
	if (n < 0 || fsetxattr(fd, name, v, (size_t)n, 0))
		rc = -errno;
	free(v);
	return rc;
}

/* fd gets exactly path's extended attributes, its POSIX ACL among them
 * (system.posix_acl_access): one the twin inherited from the directory's
 * default ACL and path lacks is removed.  0 or -errno. */
static int xattrs_copy(const char *path, int fd)
{
	char *have = NULL, *want = NULL;
	ssize_t nw = xattr_names(path, -1, &want), nh = 0;
	int rc = nw < 0 ? (int)nw : 0;

	if (!rc && (nh = xattr_names(NULL, fd, &have)) < 0)
		rc = (int)nh;
	for (ssize_t k = 0; !rc && k < nh; k += (ssize_t)strlen(have + k) + 1)
		if (!name_in(want, nw, have + k) && fremovexattr(fd, have + k) &&
		    errno != ENODATA)
			rc = -errno;
	for (ssize_t k = 0; !rc && k < nw; k += (ssize_t)strlen(want + k) + 1)
		rc = xattr_copy_one(path, fd, want + k);
	free(have);
	free(want);
	return rc;
}

/* The twin fd takes the owner, mode and extended attributes of the file
 * st describes (at path); 0, or -errno when one cannot be given. */
static int take_attrs(int fd, const char *path, const struct stat *st)
{
	struct stat tw;

	if (fstat(fd, &tw))
		return -errno;
	if ((tw.st_uid != st->st_uid || tw.st_gid != st->st_gid) &&
	    fchown(fd, st->st_uid, st->st_gid))
		return -errno;
	if (fchmod(fd, st->st_mode & 07777))
		return -errno;
	return xattrs_copy(path, fd);
}

/* The synced twin renamed to path, the directory synced; 0 or -errno. */
static int rename_in(int fd, const char *tmp, const char *path)
{
	if (fsync(fd) || rename(tmp, path))
		return -errno;
	af_fsync_dir(path);
	return 0;
}

/* from[0..size) copied to out[0..size) (pread/pwrite); 0 or -errno. */
static int copy_range(int from, int out, off_t size)
{
	char buf[65536];

	for (off_t off = 0; off < size;) {
		size_t want = size - off < (off_t)sizeof(buf) ? (size_t)(size - off) : sizeof(buf);
		ssize_t n = pread(from, buf, want, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;   /* the twin shrank */
		for (ssize_t w = 0; w < n;) {
			ssize_t k = pwrite(out, buf + w, (size_t)(n - w), off + w);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				return k < 0 ? -errno : -EIO;
			w += k;
		}
		off += n;
	}
	return 0;
}

/*
 * The twin's content written into path's own inode: the space is
 * reserved first (FALLOC_FL_KEEP_SIZE: path's length and bytes do not
 * change, see fallocate(2)), so a full file system fails here with path
 * intact; a file system that cannot reserve (EOPNOTSUPP) is written
 * without.  *partial once path's bytes may have changed.  0 or -errno.
 */
static int fill_in_place(int fd, const char *path, bool *partial)
{
	struct stat tw;
	int out, rc = 0;

	if (fstat(fd, &tw) || fsync(fd))
		return -errno;
	out = open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (out < 0)
		return -errno;
	if (tw.st_size > 0 && fallocate(out, FALLOC_FL_KEEP_SIZE, 0, tw.st_size) &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		rc = -errno;
	if (!rc) {
		*partial = true;
		rc = copy_range(fd, out, tw.st_size);
	}
	if (!rc && ftruncate(out, tw.st_size))
		rc = -errno;
	if (!rc && fsync(out))
		rc = -errno;
	if (close(out) && !rc)
		rc = -errno;
	return rc;
}

int af_install(int fd, const char *tmp, const char *path, unsigned mode,
	       bool *partial)
{
	bool changed = false;
	struct stat st;
	int rc;

	if (lstat(path, &st)) {
		if (errno != ENOENT)
			return -errno;
		rc = fchmod(fd, mode & 07777) ? -errno : 0;
		rc = rc ? rc : rename_in(fd, tmp, path);
	} else if (!S_ISREG(st.st_mode)) {
		rc = -EINVAL;   /* the caller writes special files in place */
	} else if (st.st_nlink == 1 && !take_attrs(fd, path, &st)) {
		rc = rename_in(fd, tmp, path);
	} else {
		rc = fill_in_place(fd, path, &changed);
		if (!rc)
			unlink(tmp);
	}
	if (partial)
		*partial = rc && changed;
	return rc;
}
