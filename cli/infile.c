/* SPDX-License-Identifier: MIT */
/* Inputs that must be regular files (infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
