/* SPDX-License-Identifier: MIT */
/*
 * kmsg.h - read the kernel log from a cursor, as dmesg-style text.
 *
 * `lockbench locktorture` opens /dev/kmsg (under the sysfs root, so tests
 * read a fake one) before it loads the module, seeks to its end, and
 * from then on appends every new record to a text buffer as
 * "[  SSSS.UUUUUU] message" lines, the shape the locktorture log parser
 * (output/ltlog.h) reads.  Nothing printed before the cursor is seen, so
 * an old run in the ring buffer cannot leak into this one.
 *
 * /dev/kmsg (Documentation/ABI/testing/dev-kmsg) gives one record per
 * read(): "PRIO,SEQ,USEC,FLAGS[,...];TEXT\n" followed by continuation
 * lines " KEY=VALUE\n" (dropped here); a reader that fell behind the
 * ring buffer gets EPIPE once (counted in lost, and reading goes on).
 * A regular file holding such records (the tests' fake) may give
 * several records, or part of one, per read(): the reader cuts lines
 * itself and keeps a partial last line for the next poll.
 */
#ifndef LOCKBENCH_KMSG_H
#define LOCKBENCH_KMSG_H

#include <stdbool.h>
#include <stddef.h>

/* One record can be at most this long (the kernel's limit is 1024 + prefix). */
#define KMSG_LINE_MAX 8192

struct kmsg {
	int fd;
	char *text;              /* captured lines since kmsg_open() or kmsg_take() */
	size_t len, cap;
	char part[KMSG_LINE_MAX];/* an unfinished last line (regular files) */
	size_t npart;
	unsigned long lost;      /* EPIPE: records overwritten before read */
};

/*
 * Open "<root>/dev/kmsg" without blocking and put the cursor at its end.
 * Returns 0, or -errno with one line in @err (e.g. "cannot read the
 * kernel log (/dev/kmsg): Permission denied").
 */
int kmsg_open(struct kmsg *k, char *err, size_t errlen);

/*
 * Append every record available now to k->text.  Returns the number of
 * records appended (>= 0), or -ENOMEM / -errno of a failed read.
 */
int kmsg_poll(struct kmsg *k);

/*
 * Hand the captured text over: *@text (malloc'ed, NUL-terminated, may be
 * NULL when empty) and *@len; the buffer starts empty again.
 */
void kmsg_take(struct kmsg *k, char **text, size_t *len);

/* Close and free; idempotent. */
void kmsg_close(struct kmsg *k);

/*
 * Turn one record line @rec (@n bytes, no '\n') into a dmesg line in
 * @out (@outlen bytes, "\n"-terminated, NUL-terminated).  Returns its
 * length, 0 for a line to drop (a continuation " KEY=VALUE", or not a
 * record), or -ENOSPC when @out is too small.  Escapes ("\x0a") are
 * kept as they are: locktorture prints none.
 */
int kmsg_record_line(const char *rec, size_t n, char *out, size_t outlen);

#endif /* LOCKBENCH_KMSG_H */
