/* SPDX-License-Identifier: MIT */
/*
 * Programs found by absolute path only (lib/progpath.h).  execvp(3)
 * searches $PATH at exec time, from the current directory of the child
 * (a kernel tree, for git), and takes "" and "." as that directory;
 * here the search happens once, before any chdir, over absolute
 * entries only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "progpath.h"

#define DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

/* $PATH without its empty and relative entries, set again when it had
 * any (an empty result: the default). */
static void path_clean(void)
{
	const char *path = getenv("PATH");
	char *out, *w;
	size_t n;

	if (!path)
		return;
	n = strlen(path);
	if (!(out = malloc(n + 1)))
		return;
	w = out;
	for (const char *p = path, *end; ; p = end + 1) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (*p == '/') {
			if (w != out)
				*w++ = ':';
			memcpy(w, p, (size_t)(end - p));
			w += end - p;
		}
		if (!*end)
			break;
	}
	*w = 0;
	if (strcmp(out, path))
		setenv("PATH", out[0] ? out : DEFAULT_PATH, 1);
	free(out);
}

/* Is p an executable regular file? */
static int runnable(const char *p)
{
	struct stat st;

	return !stat(p, &st) && S_ISREG(st.st_mode) && !access(p, X_OK);
}

int prog_resolve(const char *name, char *out, size_t len)
{
	const char *path;
	char cand[PATH_MAX];

	path_clean();
	snprintf(out, len, "%s", name);
	if (!*name)
		return -ENOENT;
	if (strchr(name, '/')) {
		/* made absolute, links kept (a wrapper may go by its name) */
		char cwd[PATH_MAX];

		if (*name != '/' && !getcwd(cwd, sizeof(cwd)))
			return -errno;
		if ((size_t)snprintf(cand, sizeof(cand), "%s%s%s", *name == '/' ? "" : cwd,
				     *name == '/' ? "" : "/", name) >= sizeof(cand))
			return -ENAMETOOLONG;
		if (!runnable(cand))
			return -ENOENT;
		snprintf(out, len, "%s", cand);
		return strlen(cand) < len ? 0 : -ENAMETOOLONG;
	}
	path = getenv("PATH");
	if (!path || !*path)
		path = DEFAULT_PATH;
	for (const char *p = path, *end; *p; p = *end ? end + 1 : end) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if (*p != '/' ||
		    (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", (int)(end - p), p, name) >=
			    sizeof(cand) || !runnable(cand))
			continue;
		snprintf(out, len, "%s", cand);
		return strlen(cand) < len ? 0 : -ENAMETOOLONG;
	}
	return -ENOENT;
}
