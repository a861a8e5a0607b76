/* SPDX-License-Identifier: MIT */
/* text.c - machine text as valid UTF-8 JSON strings; see text.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

/* Whether c is a continuation byte in [lo, hi] (default 0x80-0xbf). */
static int cont(unsigned char c, unsigned char lo, unsigned char hi)
{
	return c >= lo && c <= hi;
}

size_t utf8_seq_len(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return c ? 1 : 0;
	if (c >= 0xc2 && c <= 0xdf)
		return cont(s[1], 0x80, 0xbf) ? 2 : 0;
	if (c >= 0xe0 && c <= 0xef) {
		/* E0: no overlong forms; ED: no UTF-16 surrogates. */
		unsigned char lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;

		return cont(s[1], lo, hi) && cont(s[2], 0x80, 0xbf) ? 3 : 0;
	}
	if (c >= 0xf0 && c <= 0xf4) {
		/* F0: no overlong forms; F4: nothing above U+10FFFF. */
		unsigned char lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;

		return cont(s[1], lo, hi) && cont(s[2], 0x80, 0xbf) &&
		       cont(s[3], 0x80, 0xbf) ? 4 : 0;
	}
	return 0;
}

json_t *json_text(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = s ? strlen(s) : 0, k = 0;
	char *out;
	json_t *j;

	if (!s)
		return NULL;
	out = malloc(4 * n + 1);
	if (!out)
		return NULL;
	while (*p) {
		size_t len = utf8_seq_len(p);

		if (len) {
			memcpy(out + k, p, len);
			k += len;
			p += len;
		} else {
			k += (size_t)snprintf(out + k, 5, "\\x%02x", *p++);
		}
	}
	out[k] = '\0';
	j = json_string(out);
	free(out);
	return j;
}
