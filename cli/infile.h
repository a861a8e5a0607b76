/* SPDX-License-Identifier: MIT */
/*
 * Every path the command line reads (results, logs, a floor, a plugin,
 * an hwloc XML file) must be a regular file: a FIFO would block its
 * reader forever in open(), a device would be read without end.  The
 * check never opens the path (stat(), which follows symlinks and does
 * not block), so a FIFO, a device or a socket is refused at once.
 */
#ifndef LOCKBENCH_CLI_INFILE_H
#define LOCKBENCH_CLI_INFILE_H

#include <sys/types.h>

/* "a FIFO", "a directory", "a character device", ... for a mode that is
 * not a regular file's; NULL for a regular file. */
const char *infile_kind(mode_t mode);

/*
 * path exists and is not a regular file: one line, "lockbench: WHAT
 * (PATH): a FIFO, not a regular file", and exit 2.  A path that does
 * not exist or cannot be looked up is left to the reader, whose own
 * message names it.
 */
void infile_check(const char *what, const char *path);

/*
 * path opened for reading, never blocking on a FIFO: checked as
 * infile_check() does, opened with O_NONBLOCK, checked again on the
 * open file (it may have been replaced meanwhile), then made blocking.
 * An fd, or -1 with errno set when it cannot be opened (the caller's
 * message names that).
 */
int infile_open(const char *what, const char *path);

/*
 * The whole of path, opened by infile_open() and read up to the input
 * limit: max bytes, or LOCKBENCH_MAX_INPUT's value when set
 * (input_limit()).  *buf (malloc'ed, NUL-terminated) and *len.  0, or
 * -errno when it cannot be opened or read; -EFBIG, with *len the limit
 * and nothing read beyond it, when it is larger.
 */
int infile_read(const char *what, const char *path, size_t max, char **buf,
		size_t *len);

#endif
