/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"

/*
 * The list being built, and a bitmap of the values already in it, so a
 * duplicate is dropped in constant time: "0-1000000" is a million
 * pushes, and scanning the list for each would be quadratic.
 */
struct nl {
	unsigned *v;
	unsigned n, cap;
	unsigned char *seen;	/* bit x set: x is in v */
	size_t seen_bytes;
};

/* Make room in the bitmap for value x.  0 or -ENOMEM. */
static int nl_seen_grow(struct nl *l, unsigned x)
{
	size_t need = (size_t)x / 8 + 1, bytes = l->seen_bytes ? l->seen_bytes : 64;
	unsigned char *b;

	if (need <= l->seen_bytes)
		return 0;
	while (bytes < need)
		bytes *= 2;
	b = realloc(l->seen, bytes);
	if (!b)
		return -ENOMEM;
	memset(b + l->seen_bytes, 0, bytes - l->seen_bytes);
	l->seen = b;
	l->seen_bytes = bytes;
	return 0;
}

static int nl_push(struct nl *l, unsigned x)
{
	if (nl_seen_grow(l, x))
		return -ENOMEM;
	if (l->seen[x / 8] & (1u << (x % 8)))
		return 0;
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 16;
		unsigned *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->seen[x / 8] |= (unsigned char)(1u << (x % 8));
	l->v[l->n++] = x;
	return 0;
}

/* The largest number a list may hold when its caller sets no limit. */
#define NUMLIST_MAX 1000000

/* One number or "max" from *p; advances *p.  0, -EINVAL if none there,
 * -ERANGE if it is a number above NUMLIST_MAX. */
static int get_num(const char **p, unsigned maxval, unsigned long *out)
{
	char *end;

	if (maxval && !strncmp(*p, "max", 3)) {
		*out = maxval;
		*p += 3;
		return 0;
	}
	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	errno = 0;
	*out = strtoul(*p, &end, 10);
	if (errno || *out > NUMLIST_MAX)
		return -ERANGE;
	*p = end;
	return 0;
}

/* Parse one comma-separated token [a[-b[:s]]] into l. */
static int parse_token(const char *tok, size_t len, unsigned maxval,
		       unsigned limit, struct nl *l)
{
	char buf[64];
	const char *p = buf;
	unsigned long a, b, s = 1;

	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, tok, len);
	buf[len] = 0;
	int rc = get_num(&p, maxval, &a);

	if (rc)
		return rc;
	b = a;
	if (*p == '-') {
		p++;
		rc = get_num(&p, maxval, &b);
		if (rc || b < a)
			return rc ? rc : -EINVAL;
		if (*p == ':') {
			p++;
			rc = get_num(&p, 0, &s);
			if (rc || !s)
				return rc ? rc : -EINVAL;
		}
	}
	if (*p)
		return -EINVAL;
	if (limit && b > limit)
		return -ERANGE;
	for (unsigned long x = a; x <= b; x += s)
		if (nl_push(l, (unsigned)x))
			return -ENOMEM;
	return 0;
}

int numlist_parse(const char *s, unsigned maxval, unsigned limit,
		  unsigned **out, unsigned *n, char *err, size_t errlen)
{
	struct nl l = {0};
	const char *p = s;
	int rc = 0;

	while (s && *p && *p != '\n') {
		size_t len = strcspn(p, ",\n");

		rc = parse_token(p, len, maxval, limit, &l);
		if (rc) {
			if (err && rc != -ENOMEM)
				snprintf(err, errlen, rc == -ERANGE ?
					 "'%.*s' is out of range (max %u)" :
					 "'%.*s' is not a number, range a-b or a-b:step",
					 (int)len, p, limit ? limit : NUMLIST_MAX);
			break;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	if (!rc && !l.n && (!s || !*s || *s == '\n') && maxval) {
		if (err)
			snprintf(err, errlen, "empty list");
		rc = -EINVAL;
	}
	free(l.seen);
	if (rc) {
		free(l.v);
		return rc == -ENOMEM ? rc : -EINVAL;
	}
	*out = l.v;
	*n = l.n;
	return 0;
}

int cpulist_parse(const char *s, unsigned **out, unsigned *n, char *err,
		  size_t errlen)
{
	return numlist_parse(s, 0, 0, out, n, err, errlen);
}
