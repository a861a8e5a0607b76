/* SPDX-License-Identifier: MIT */
/*
 * The one error convention of the command line: bad usage or bad input
 * is one line on stderr, "lockbench: what (value): why", and exit 2.
 * Callees that fill an err buffer may or may not start it with
 * "lockbench: "; cli_die_msg() prints either exactly once.
 */
#ifndef LOCKBENCH_CLI_ERR_H
#define LOCKBENCH_CLI_ERR_H

#include <stddef.h>

/* "lockbench: " + the formatted text + newline on stderr, then exit 2. */
void cli_die(const char *fmt, ...)
	__attribute__((noreturn, format(printf, 1, 2)));

/* The same for a message from a callee's err buffer (prefix or not). */
void cli_die_msg(const char *msg) __attribute__((noreturn));

/* "lockbench: " + the formatted text + newline on stderr; no exit. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print a callee's message (prefix or not) as one "lockbench: " line. */
void cli_warn_msg(const char *msg);

/* Text bound for the results (a label, a heading): refused with one
 * line (exit 2) unless it is UTF-8, which JSON requires, so that a run
 * never finds it cannot write its results after the sweep.  NULL is
 * accepted. */
void cli_utf8_or_die(const char *what, const char *s);

/* Allocation that cannot fail quietly: out of memory is exit 2. */
void *cli_calloc(size_t n, size_t size);
char *cli_strdup(const char *s);   /* NULL stays NULL */

#endif
