// SPDX-License-Identifier: MIT
/*
 * kmsg.c - the kernel log from a cursor; see kmsg.h.
 */
#include "kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../topology/sysfs.h"

int kmsg_record_line(const char *rec, size_t n, char *out, size_t outlen)
{
	unsigned long long usec = 0;
	const char *p = rec, *e = rec + n, *semi;
	int fields = 0, w;

	if (n == 0 || rec[0] == ' ')
		return 0;
	semi = memchr(rec, ';', n);
	if (!semi)
		return 0;
	/* PRIO,SEQ,USEC,FLAGS: the third field is the timestamp. */
	for (; p < semi; p++) {
		if (*p == ',') {
			fields++;
			continue;
		}
		if (*p < '0' || *p > '9') {
			if (fields < 3)
				return 0;
			continue;
		}
		if (fields == 2) {
			if (usec > (ULLONG_MAX - 9) / 10)
				return 0;
			usec = usec * 10 + (unsigned long long)(*p - '0');
		}
	}
	if (fields < 3)
		return 0;
	p = semi + 1;
	w = snprintf(out, outlen, "[%5llu.%06llu] %.*s\n", usec / 1000000,
		     usec % 1000000, (int)(e - p), p);
	if (w < 0 || (size_t)w >= outlen)
		return -ENOSPC;
	return w;
}

int kmsg_open(struct kmsg *k, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int e;

	memset(k, 0, sizeof(*k));
	k->fd = -1;
	if (sysfs_path("/dev/kmsg", path, sizeof(path))) {
		snprintf(err, errlen, "cannot read the kernel log (%s/dev/kmsg): "
			 "path too long", sysfs_root());
		return -ENAMETOOLONG;
	}
	k->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd < 0 || lseek(k->fd, 0, SEEK_END) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot read the kernel log (%s): %s", path,
			 strerror(e));
		kmsg_close(k);
		return -e;
	}
	return 0;
}

/* Append @n bytes of @s to k->text; 0 or -ENOMEM. */
static int append(struct kmsg *k, const char *s, size_t n)
{
	if (k->len + n + 1 > k->cap) {
		size_t cap = k->cap ? k->cap : 4096;
		char *t;

		while (cap < k->len + n + 1)
			cap *= 2;
		t = realloc(k->text, cap);
		if (!t)
			return -ENOMEM;
		k->text = t;
		k->cap = cap;
	}
	memcpy(k->text + k->len, s, n);
	k->len += n;
	k->text[k->len] = '\0';
	return 0;
}

/* One complete record line into the text; 1 appended, 0 dropped, -errno. */
static int take_line(struct kmsg *k, const char *rec, size_t n)
{
	char line[KMSG_LINE_MAX + 32];
	int w = kmsg_record_line(rec, n, line, sizeof(line));

	if (w <= 0)
		return 0;	/* too long for a locktorture line: not one */
	return append(k, line, (size_t)w) ? -ENOMEM : 1;
}

int kmsg_poll(struct kmsg *k)
{
	char buf[KMSG_LINE_MAX];
	int count = 0;

	if (k->fd < 0)
		return -EBADF;
	for (;;) {
		ssize_t got = read(k->fd, buf, sizeof(buf));
		size_t i, start = 0;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0 && errno == EPIPE) {
			k->lost++;
			continue;
		}
		if (got < 0 && errno == EAGAIN)
			return count;
		if (got < 0)
			return -errno;
		if (got == 0)
			return count;
		for (i = 0; i < (size_t)got; i++) {
			const char *rec = buf + start;
			size_t n = i - start;
			int rc;

			if (buf[i] != '\n')
				continue;
			if (k->npart) {
				/* Finish the line a previous read cut. */
				if (k->npart + n < sizeof(k->part)) {
					memcpy(k->part + k->npart, rec, n);
					k->npart += n;
				}
				rc = take_line(k, k->part, k->npart);
				k->npart = 0;
			} else {
				rc = take_line(k, rec, n);
			}
			if (rc < 0)
				return rc;
			count += rc;
			start = i + 1;
		}
		/* A record without its '\n' yet: keep it for the next read. */
		if (start < (size_t)got) {
			size_t n = (size_t)got - start;

			if (k->npart + n < sizeof(k->part)) {
				memcpy(k->part + k->npart, buf + start, n);
				k->npart += n;
			}
		}
	}
}

void kmsg_take(struct kmsg *k, char **text, size_t *len)
{
	*text = k->text;
	*len = k->len;
	k->text = NULL;
	k->len = k->cap = 0;
}

void kmsg_close(struct kmsg *k)
{
	if (k->fd >= 0)
		close(k->fd);
	k->fd = -1;
	free(k->text);
	k->text = NULL;
	k->len = k->cap = 0;
	k->npart = 0;
}
