/* SPDX-License-Identifier: MIT */
/*
 * topology/atomicfile.h - the one way lockbench replaces a file of its
 * own records (the machine's state file, the record of a loaded
 * module): never a partial file at the path, whatever happens mid-way.
 * (The -o files of the front end have rules of their own: user paths,
 * special files, one line and exit 2; cli/outfile.c.)
 */
#ifndef LOCKBENCH_ATOMICFILE_H
#define LOCKBENCH_ATOMICFILE_H

#include <stddef.h>

/* Write all of buf[0..len) to fd (a short write or EINTR retried);
 * 0 or -errno. */
int af_write_all(int fd, const void *buf, size_t len);

/* fsync the directory holding path, so that a rename in it is
 * durable (best effort). */
void af_fsync_dir(const char *path);

/*
 * Replace path by a file holding buf[0..len): written in full to a new
 * file beside it (path.tmp.PID, mode 0600, created exclusively, never
 * through a symlink) and fsync'ed; then, when check is not NULL,
 * check(fd, path, arg) on the new file (0 to go on, else -errno: the
 * caller's last word, e.g. that path is still its own); renamed over
 * path; the directory fsync'ed.  0 or -errno; on failure the temporary
 * is removed and path left as it was.
 */
int af_replace(const char *path, const void *buf, size_t len,
	       int (*check)(int fd, const char *path, void *arg), void *arg);

#endif
