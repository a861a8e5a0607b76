/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE     /* vasprintf */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../output/render/render.h"
#include "err.h"

#define PREFIX "lockbench: "

/* One line on stderr: whatever the message quotes (a path, a file's
 * text, a host's name) cannot start another line or speak to the
 * terminal (render_fputs_safe()). */
static void put_line(const char *msg)
{
	fputs(PREFIX, stderr);
	render_fputs_safe(msg, stderr);
	fputc('\n', stderr);
}

static void vwarn(const char *fmt, va_list ap)
{
	char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0) {
		put_line("out of memory");
		return;
	}
	put_line(msg);
	free(msg);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void cli_die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(2);
}

static const char *unprefixed(const char *msg)
{
	return strncmp(msg, PREFIX, strlen(PREFIX)) ? msg : msg + strlen(PREFIX);
}

void cli_warn_msg(const char *msg)
{
	put_line(unprefixed(msg));
}

void cli_die_msg(const char *msg)
{
	cli_warn_msg(msg);
	exit(2);
}

void *cli_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		cli_die("out of memory");
	return p;
}

char *cli_strdup(const char *s)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		cli_die("out of memory");
	return d;
}

void cli_utf8_or_die(const char *what, const char *s)
{
	json_t *j = s ? json_string(s) : NULL;

	/* json_string() refuses exactly what a JSON string cannot hold. */
	if (s && !j)
		cli_die("%s: not UTF-8 text (the JSON results could not hold it)", what);
	json_decref(j);
}
