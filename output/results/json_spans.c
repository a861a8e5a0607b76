/* SPDX-License-Identifier: MIT */
/*
 * The scan of json_spans.h: a character-level walk of the JSON text that
 * tracks strings, escapes and the stack of containers, enough to know
 * when it is inside the array a "runs" key holds in an element of the
 * array the top-level "points" key holds.  Those arrays' elements are
 * recorded (offset, length) and left out of the skeleton; the rest is
 * copied.  It checks brackets and strings, not the whole grammar: jansson
 * parses the skeleton and each run afterwards.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "json_spans.h"

#define SCAN_MAX_DEPTH 2048

enum role { R_NONE, R_TOP, R_POINTS, R_POINT, R_RUNS };

struct frame {
	bool arr;            /* an array (else an object) */
	bool want;           /* object: a key comes next; array: an element */
	unsigned char role;
	unsigned char key;   /* object: the role its current key's value takes */
};

struct scan {
	struct json_spans *o;
	struct frame st[SCAN_MAX_DEPTH];
	unsigned depth;
	size_t max, skel_cap, span_cap, first_cap;
	uint64_t pos;
	bool in_str, esc, key_str;
	char key[8];
	unsigned keylen;
	bool in_run, run_scalar;
	unsigned run_depth;
	uint64_t run_off;
	char *err;
	size_t errlen;
};

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

static int copy(struct scan *s, char c)
{
	struct json_spans *o = s->o;

	if (s->in_run)
		return 0;
	if (o->skel_len >= s->max)
		return -EFBIG;
	if (grow((void **)&o->skel, &s->skel_cap, o->skel_len + 1, 1))
		return -ENOMEM;
	o->skel[o->skel_len++] = c;
	return 0;
}

static int bad(struct scan *s, const char *what)
{
	snprintf(s->err, s->errlen, "not valid JSON (byte %llu: %s)",
		 (unsigned long long)s->pos, what);
	return -EINVAL;
}

static int end_run(struct scan *s, uint64_t end)
{
	struct json_spans *o = s->o;

	s->in_run = false;
	if (end - s->run_off > s->max)
		return -EFBIG;
	if (grow((void **)&o->span, &s->span_cap, o->nspan + 1, sizeof(*o->span)))
		return -ENOMEM;
	o->span[o->nspan++] = (struct run_span){s->run_off, end - s->run_off};
	return 0;
}

/* An element of the array on top begins with c. */
static int element(struct scan *s, struct frame *top, char c)
{
	struct json_spans *o = s->o;

	top->want = false;
	if (top->role == R_POINTS) {
		if (grow((void **)&o->first, &s->first_cap, o->npoints + 2, sizeof(*o->first)))
			return -ENOMEM;
		o->first[o->npoints++] = o->nspan;
	} else if (top->role == R_RUNS) {
		s->in_run = true;
		s->run_depth = s->depth;
		s->run_off = s->pos;
		s->run_scalar = c != '{' && c != '[';
	}
	return 0;
}

static int open_frame(struct scan *s, struct frame *top, char c)
{
	struct frame *f;
	unsigned char role = R_NONE;

	if (s->depth == SCAN_MAX_DEPTH)
		return bad(s, "nested too deep");
	if (!top)
		role = c == '{' ? R_TOP : R_NONE;
	else if (!top->arr)
		role = (top->key == R_POINTS && c == '[') || (top->key == R_RUNS && c == '[')
			       ? top->key : R_NONE;
	else if (top->role == R_POINTS && c == '{')
		role = R_POINT;
	f = &s->st[s->depth++];
	*f = (struct frame){.arr = c == '[', .want = true, .role = role};
	return 0;
}

static void end_key(struct scan *s, struct frame *top)
{
	bool points = s->keylen == 6 && !memcmp(s->key, "points", 6);
	bool runs = s->keylen == 4 && !memcmp(s->key, "runs", 4);

	s->key_str = false;
	top->key = top->role == R_TOP && points ? R_POINTS :
		   top->role == R_POINT && runs ? R_RUNS : R_NONE;
}

static int in_string(struct scan *s, char c)
{
	if (s->esc) {
		s->esc = false;
	} else if (c == '\\') {
		s->esc = true;
	} else if (c == '"') {
		s->in_str = false;
		if (s->key_str)
			end_key(s, &s->st[s->depth - 1]);
	} else if (s->key_str && s->keylen < sizeof(s->key)) {
		s->key[s->keylen++] = c;
	}
	return copy(s, c);
}

static int step(struct scan *s, char c)
{
	struct frame *top = s->depth ? &s->st[s->depth - 1] : NULL;
	bool ws = c == ' ' || c == '\t' || c == '\n' || c == '\r';
	int rc;

	if (s->in_str)
		return in_string(s, c);
	if (s->in_run && s->run_scalar && s->depth == s->run_depth && (c == ',' || c == ']') &&
	    (rc = end_run(s, s->pos)))
		return rc;
	if (top && top->arr && top->want && !ws && c != ']' && c != ',' &&
	    (rc = element(s, top, c)))
		return rc;
	switch (c) {
	case '"':
		s->in_str = true;
		s->key_str = top && !top->arr && top->want;
		s->keylen = 0;
		break;
	case ':':
		if (top && !top->arr)
			top->want = false;
		break;
	case ',':
		if (top) {
			top->want = true;
			if (!top->arr)
				top->key = R_NONE;
			if (top->role == R_RUNS)
				return 0;	/* the runs go: so do their commas */
		}
		break;
	case '{':
	case '[':
		if ((rc = copy(s, c)))
			return rc;
		return open_frame(s, top, c);
	case '}':
	case ']':
		if (!top || top->arr != (c == ']'))
			return bad(s, "a closing bracket that does not match");
		rc = copy(s, c);
		s->depth--;
		if (!rc && s->in_run && !s->run_scalar && s->depth == s->run_depth)
			rc = end_run(s, s->pos + 1);
		return rc;
	}
	return copy(s, c);
}

void json_spans_free(struct json_spans *s)
{
	free(s->skel);
	free(s->span);
	free(s->first);
	memset(s, 0, sizeof(*s));
}

int json_spans_scan(FILE *f, size_t max, struct json_spans *out, char *err,
		    size_t errlen)
{
	struct scan *s = calloc(1, sizeof(*s));
	char buf[1 << 16];
	size_t n;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (errlen)
		err[0] = 0;
	if (!s)
		return -ENOMEM;
	*s = (struct scan){.o = out, .max = max, .err = err, .errlen = errlen};
	while (!rc && (n = fread(buf, 1, sizeof(buf), f)))
		for (size_t i = 0; i < n && !rc; i++, s->pos++)
			rc = step(s, buf[i]);
	if (!rc && ferror(f))
		rc = errno ? -errno : -EIO;
	if (!rc && (s->depth || s->in_str))
		rc = bad(s, "the file ends inside a value (truncated?)");
	if (!rc && grow((void **)&out->first, &s->first_cap, out->npoints + 1,
			sizeof(*out->first)))
		rc = -ENOMEM;
	if (!rc)
		out->first[out->npoints] = out->nspan;
	free(s);
	if (rc)
		json_spans_free(out);
	return rc;
}
