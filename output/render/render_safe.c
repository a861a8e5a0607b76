/* SPDX-License-Identifier: MIT */
/*
 * Terminal-safe text (render.h): the one place where strings that came
 * from a file or from the machine (a results file's kernel, CPU model,
 * hostname, recorded command, a floor's reason) are made harmless before
 * a terminal sees them.  A control character (C0, DEL, and the C1
 * controls U+0080..U+009F in UTF-8: ECMA-48 reads ESC, CSI, OSC, BEL
 * among them) becomes a visible escape; everything else, UTF-8 text
 * included, passes as it is.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "render.h"

/* The escape of control byte c (a C1 control: its second UTF-8 byte
 * with c1 set) into out; its length. */
static size_t escape_one(unsigned char c, bool c1, char out[8])
{
	static const char named[] = {['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};

	if (c1)
		return (size_t)snprintf(out, 8, "\\u%04x", c);
	if (c < sizeof(named) && named[c])
		return (size_t)snprintf(out, 8, "\\%c", named[c]);
	return (size_t)snprintf(out, 8, "\\x%02x", c);
}

/* Length of the control character at s[0..n) (1, or 2 for a C1 in
 * UTF-8), 0 when s starts with none; keep_nl lets '\n' pass. */
static size_t control_at(const unsigned char *s, size_t n, bool keep_nl)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return keep_nl && s[0] == '\n' ? 0 : 1;
	if (s[0] == 0xc2 && n > 1 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	return 0;
}

/* s[0..n) written to f, escaped; keep_nl lets '\n' pass.  0 or EOF.
 * A C1 control cut in two by n is not seen (render_wrapped() cuts at
 * ASCII only). */
static int put_safe(FILE *f, const char *s, size_t n, bool keep_nl)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;
	char esc[8];

	while (i + run < n) {
		size_t k = control_at(p + i + run, n - i - run, keep_nl);

		if (!k) {
			run++;
			continue;
		}
		if ((run && fwrite(p + i, 1, run, f) != run) ||
		    fwrite(esc, 1, escape_one(p[i + run + k - 1], k == 2, esc), f) == 0)
			return EOF;
		i += run + k;
		run = 0;
	}
	return run && fwrite(p + i, 1, run, f) != run ? EOF : 0;
}

int render_write_safe(FILE *f, const char *s, size_t n)
{
	return put_safe(f, s, n, false);
}

int render_fputs_safe(const char *s, FILE *f)
{
	return s ? put_safe(f, s, strlen(s), false) : 0;
}

const char *render_safe(const char *s, char *buf, size_t len)
{
	FILE *f = len ? fmemopen(buf, len, "w") : NULL;

	if (!f)
		return len ? strncpy(buf, "?", len) : buf;
	setvbuf(f, NULL, _IONBF, 0);
	render_fputs_safe(s ? s : "", f);
	fclose(f);
	buf[len - 1] = 0;
	return buf;
}

static ssize_t safe_write(void *cookie, const char *buf, size_t n)
{
	return put_safe(cookie, buf, n, true) ? -1 : (ssize_t)n;
}

static int safe_close(void *cookie)
{
	return fflush(cookie) ? EOF : 0;
}

FILE *render_safe_stream(FILE *to)
{
	cookie_io_functions_t io = {.write = safe_write, .close = safe_close};

	return fopencookie(to, "w", io);
}
