/* SPDX-License-Identifier: MIT */
/*
 * lib/atomicfile.h - the one way lockbench replaces a file: the new
 * content written in full to a twin beside it (af_twin_create()) and
 * only then put in its place, so that the path never holds a partial
 * file, whatever happens mid-way.  Its own records (the machine's state
 * file, the record of a loaded module, the digest of a cached plugin)
 * go through af_replace(); the files the user names (-o) through
 * af_install(), with cli/outfile.c's rules (user paths, special files,
 * one line and exit 2).
 */
#ifndef LOCKBENCH_ATOMICFILE_H
#define LOCKBENCH_ATOMICFILE_H

#include <stdbool.h>
#include <stddef.h>

/* Write all of buf[0..len) to fd (a short write or EINTR retried);
 * 0 or -errno. */
int af_write_all(int fd, const void *buf, size_t len);

/* The directory holding path into buf ("." for a bare name). */
void af_dir_of(const char *path, char *buf, size_t len);

/* fsync the directory holding path, so that a rename in it is
 * durable (best effort). */
void af_fsync_dir(const char *path);

/*
 * Replace path by a file holding buf[0..len): written in full to its
 * twin (af_twin_create(), below: mode 0600) and fsync'ed; then, when check is not NULL,
 * check(fd, path, arg) on the new file (0 to go on, else -errno: the
 * caller's last word, e.g. that path is still its own); renamed over
 * path; the directory fsync'ed.  0 or -errno; on failure the temporary
 * is removed and path left as it was.
 */
int af_replace(const char *path, const void *buf, size_t len,
	       int (*check)(int fd, const char *path, void *arg), void *arg);

/*
 * The one way a file the user named is replaced (every -o of the front
 * end goes through cli/outfile.c, which uses these): the new content is
 * written in full to a temporary twin beside the file, synced, and only
 * then put in the file's place by af_install().  The old content
 * survives every failure before that point; the file keeps its hard
 * links, owner, mode, POSIX ACLs and extended attributes.
 */

/* Create path's twin: a new file "path.tmp.XXXXXX" in the same
 * directory (mode 0600 until af_install, created exclusively, never
 * through a symlink); its name into tmp.  The fd, or -errno. */
int af_twin_create(const char *path, char *tmp, size_t len);

/*
 * Put the complete twin tmp (fd open on it) in the place of path:
 *   - path absent: the twin takes `mode`, is synced and renamed to path;
 *   - path a regular file with one link: the twin takes its owner, mode
 *     and every extended attribute (system.posix_acl_access, the ACL,
 *     among them), is synced and renamed over it;
 *   - otherwise (more than one hard link, or an owner or attribute the
 *     twin cannot take): the new length is first reserved in path itself
 *     (fallocate, FALLOC_FL_KEEP_SIZE, so a full disk fails before a byte
 *     of path changes), then the content is copied into it, its length
 *     set and synced (the same inode: links, owner, ACLs stay).
 * The directory is synced after a rename.  0: done, the twin is gone
 * (fd still open: the caller closes it).  -errno: the twin is left as it
 * was, complete, for the caller to keep as a rescue or remove; path is
 * as it was, except when copying in place failed after the reservation
 * (an I/O error, a file system that cannot reserve), where *partial
 * (when not NULL) is set.
 */
int af_install(int fd, const char *tmp, const char *path, unsigned mode,
	       bool *partial);

#endif
