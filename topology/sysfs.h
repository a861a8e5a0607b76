/* SPDX-License-Identifier: MIT */
/*
 * sysfs.h - every /sys and /proc access of lockbench goes through here.
 *
 * Paths are written as on a live system ("/sys/devices/system/cpu/online",
 * "/proc/loadavg") and resolved under one root directory, "" by default.
 * Tests and `LOCKBENCH_SYSROOT=/tmp/fake lockbench ...` point the root at
 * a fake tree, so no test ever reads or writes the real /sys or /proc.
 *
 * The root is the only state of this module: set it once, before any other
 * module reads through it, from the main thread.
 */
#ifndef LOCKBENCH_SYSFS_H
#define LOCKBENCH_SYSFS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Resolve every later path under @root ("" or NULL: the real root).  A
 * trailing '/' is dropped.  Returns 0, or -ENAMETOOLONG when @root does
 * not fit PATH_MAX; the old root is then kept.
 */
int sysfs_set_root(const char *root);

/* The current root, "" for the real one.  Never NULL. */
const char *sysfs_root(void);

/*
 * Write "<root><path>" into @out (@len bytes).  Returns 0, or
 * -ENAMETOOLONG when it does not fit (@out then holds "").
 */
int sysfs_path(const char *path, char *out, size_t len);

/* 1 when "<root><path>" exists (any type), 0 when not. */
int sysfs_exists(const char *path);

/*
 * Read the whole of "<root><path>" (at most @len - 1 bytes) into @buf,
 * NUL-terminated, trailing newlines and spaces removed.  Returns 0 or
 * -errno (-ENOENT for a missing file, -EISDIR for a directory); @buf is
 * "" on failure.
 */
int sysfs_read_str(const char *path, char *buf, size_t len);

/* fopen(path, "r") of `path` under the root, for a file read line by
 * line (/proc/cpuinfo): only a regular file (every sysfs and procfs
 * file is one), opened without blocking; NULL with errno (EINVAL: not a
 * regular file, a FIFO in a fake root).  Every read and write of this
 * module opens so: a FIFO never blocks lockbench. */
FILE *sysfs_fopen(const char *path);

/*
 * Call fn(pid, comm, arg) for each process of "<root>/proc" whose comm
 * can be read (one that exits meanwhile is skipped), in directory order,
 * until fn returns non-zero.  Returns that value, 0 when every process
 * was visited, or -errno when the directory cannot be read.
 */
int sysfs_each_process(int (*fn)(int pid, const char *comm, void *arg), void *arg);

/*
 * Read "<root><path>" as one unsigned decimal number into @val.  Returns 0,
 * -errno from the read, or -EINVAL when the content is not a number
 * (e.g. "<unsupported>" in scaling_setspeed).  @val is untouched on failure.
 */
int sysfs_read_u64(const char *path, uint64_t *val);

/*
 * Replace the content of "<root><path>" with @val, as `echo val > path`
 * does: open(O_WRONLY | O_TRUNC), one write(), close().  The file must
 * exist (sysfs attributes are never created).  Returns 0 or -errno; a
 * short write is -EIO.
 */
int sysfs_write_str(const char *path, const char *val);

#endif /* LOCKBENCH_SYSFS_H */
