/* SPDX-License-Identifier: MIT */
/* Inputs that must be regular files (infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../output/results/json_read.h"
#include "err.h"
#include "infile.h"

const char *infile_kind(mode_t mode)
{
	if (S_ISREG(mode))
		return NULL;
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "a special file";
}

void infile_check(const char *what, const char *path)
{
	struct stat st;
	const char *kind;

	if (!path || stat(path, &st))
		return;
	kind = infile_kind(st.st_mode);
	if (kind)
		cli_die("%s (%s): %s, not a regular file", what, path, kind);
}

int infile_open(const char *what, const char *path)
{
	int fd, fl, e;
	const char *kind;
	struct stat st;

	infile_check(what, path);
	fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!fstat(fd, &st) && (kind = infile_kind(st.st_mode))) {
		close(fd);
		cli_die("%s (%s): %s, not a regular file", what, path, kind);
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* Up to max + 1 bytes of fd into a new buffer; 0 or -errno. */
static int read_bounded(int fd, size_t max, char **buf, size_t *len)
{
	size_t cap = 0, n = 0;
	char *b = NULL, *nb;

	for (;;) {
		ssize_t k;

		if (n + 1 >= cap) {     /* room for a byte and the NUL */
			cap = cap ? cap * 2 : 65536;
			cap = cap > max + 2 ? max + 2 : cap;
			if (!(nb = realloc(b, cap))) {
				free(b);
				return -ENOMEM;
			}
			b = nb;
		}
		k = read(fd, b + n, cap - n - 1 < max + 1 - n ? cap - n - 1 : max + 1 - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			free(b);
			return -errno;
		}
		n += (size_t)k;
		if (!k || n > max)
			break;
	}
	b[n] = 0;
	*buf = b;
	*len = n;
	return 0;
}

int infile_read(const char *what, const char *path, size_t max, char **buf,
		size_t *len)
{
	size_t limit = input_limit(max);
	struct stat st;
	int fd = infile_open(what, path), rc;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -errno;
	/* a file known to be larger is refused before a byte is read */
	rc = !fstat(fd, &st) && (unsigned long long)st.st_size > limit ? -EFBIG
		: read_bounded(fd, limit, buf, len);
	close(fd);
	if (!rc && *len > limit) {
		free(*buf);
		*buf = NULL;
		rc = -EFBIG;
	}
	if (rc == -EFBIG)
		*len = limit;
	return rc;
}
