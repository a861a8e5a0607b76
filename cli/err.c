/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "err.h"

#define PREFIX "lockbench: "

static void vwarn(const char *fmt, va_list ap)
{
	fputs(PREFIX, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
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
	fprintf(stderr, PREFIX "%s\n", unprefixed(msg));
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
