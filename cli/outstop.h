/* SPDX-License-Identifier: MIT */
/*
 * Writes of results that a stop signal cuts short: a FIFO waiting for
 * its reader, or a pipe (-o -, standard output) whose reader stalls,
 * must not hold lockbench once SIGINT, SIGTERM or another stop signal
 * arrives (docs/formats.md, "Where each format goes").  Between
 * outstop_begin() and outstop_end() every stop signal that has a handler
 * is also caught here, without SA_RESTART, and then handed to that
 * handler as before; outstop_open() and outstop_write() wait with poll()
 * on the output and on a self-pipe the signal writes to, so a signal
 * ends the wait whenever it comes.  A signal at its default action ends
 * the process as before; an ignored one stays ignored.
 */
#ifndef LOCKBENCH_CLI_OUTSTOP_H
#define LOCKBENCH_CLI_OUTSTOP_H

#include <stdbool.h>
#include <stddef.h>

void outstop_begin(void);
void outstop_end(void);

/* Has a stop signal arrived since outstop_begin()? */
bool outstop_stopped(void);

/* Open path (a character device or a FIFO) for writing, non-blocking; a
 * FIFO without a reader is waited for.  fd, or -1 with errno (EINTR: a
 * stop signal came first). */
int outstop_open(const char *path);

/* All of buf written to fd, waiting for room with poll(); once a stop
 * signal has come, only as long as the reader takes it without waiting.
 * 0, or -1 with errno (EINTR: a stop signal cut the write short). */
int outstop_write(int fd, const void *buf, size_t len);

#endif
