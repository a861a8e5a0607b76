/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"

struct nl {
	unsigned *v;
	unsigned n, cap;
};

static int nl_push(struct nl *l, unsigned x)
{
	for (unsigned i = 0; i < l->n; i++)
		if (l->v[i] == x)
			return 0;
	if (l->n == l->cap) {
		unsigned cap = l->cap ? 2 * l->cap : 16;
		unsigned *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = x;
	return 0;
}

/* One number or "max" from *p; advances *p.  false if none there. */
static bool get_num(const char **p, unsigned maxval, unsigned long *out)
{
	char *end;

	if (maxval && !strncmp(*p, "max", 3)) {
		*out = maxval;
		*p += 3;
		return true;
	}
	if (!isdigit((unsigned char)**p))
		return false;
	errno = 0;
	*out = strtoul(*p, &end, 10);
	if (errno || *out > 1000000)
		return false;
	*p = end;
	return true;
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
	if (!get_num(&p, maxval, &a))
		return -EINVAL;
	b = a;
	if (*p == '-') {
		p++;
		if (!get_num(&p, maxval, &b) || b < a)
			return -EINVAL;
		if (*p == ':') {
			p++;
			if (!get_num(&p, 0, &s) || !s)
				return -EINVAL;
		}
	}
	if (*p || (limit && b > limit))
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
				snprintf(err, errlen, "'%.*s' %s", (int)len, p,
					 rc == -ERANGE && limit
						 ? "is out of range"
						 : "is not a number, range a-b or a-b:step");
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
