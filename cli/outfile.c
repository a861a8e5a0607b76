/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "outfile.h"
#include "suggest.h"

static const struct format_info *format_or_die(const char *name)
{
	const char *names[32];
	unsigned n = 0;

	if (format_find(name))
		return format_find(name);
	for (; formats[n].name && n < 32; n++)
		names[n] = formats[n].name;
	cli_die_unknown("format", name, names, n, NULL);
}

void outputs_parse(struct outputs *o, const char *formats, const char *unit,
		   const char *path, bool marks)
{
	char *list = cli_strdup(formats), *save = NULL;

	memset(o, 0, sizeof(*o));
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct format_info *f = format_or_die(t);

		if (o->n == 8)
			cli_die("--format (%s): too many formats", formats);
		o->fmt[o->n++] = f;
	}
	free(list);
	if (!o->n)
		cli_die("--format: empty list");
	if (unit_parse(unit, &o->ropts.unit))
		cli_die("--unit (%s): valid: ops/s, kops/s, Mops/s, jpm", unit);
	o->ropts.marks = marks;
	o->path = path;
	o->to_file = path ? 0 : -1;
	for (unsigned i = 0; path && i < o->n; i++)
		if (!strcmp(o->fmt[i]->name, "json"))
			o->to_file = (int)i;
}

void outputs_check(const struct outputs *o, const struct results *shape)
{
	char err[256];

	for (unsigned i = 0; i < o->n; i++)
		if (format_check(o->fmt[i], shape, err, sizeof(err)))
			cli_die_msg(err);
}

/*
 * The one temporary twin that may exist, for the exit and signal paths:
 * unlink() is async-signal-safe, and the name is a fixed buffer.
 */
static char live_tmp[PATH_MAX];
static volatile sig_atomic_t live_tmp_set;

void outputs_unlink_signal_safe(void)
{
	if (live_tmp_set)
		unlink(live_tmp);
	live_tmp_set = 0;
}

static void unlink_atexit(void)
{
	outputs_unlink_signal_safe();
}

/* Twins left by a write that was killed (kill -9, a crash): say so. */
static void report_stale_twins(const char *target)
{
	char pat[PATH_MAX + 16];
	glob_t g;

	if (snprintf(pat, sizeof(pat), "%s.tmp.??????", target) >= (int)sizeof(pat))
		return;
	if (glob(pat, GLOB_NOSORT, NULL, &g))
		return;
	for (size_t i = 0; i < g.gl_pathc; i++)
		cli_warn("an interrupted write left a temporary file (%s): "
			 "remove it", g.gl_pathv[i]);
	globfree(&g);
}

/*
 * Decide how -o is written, without creating anything: "-" and special
 * files (devices, FIFOs, sockets) are opened and written directly; a
 * symlink is followed and its target replaced; a regular file (or a
 * new name) is written to a twin in the same directory and renamed.
 */
void outputs_open(struct outputs *o)
{
	struct stat st;
	char dir[PATH_MAX], *slash;
	mode_t mask;

	if (!o->path || o->resolved)
		return;
	o->resolved = true;
	mask = umask(0);
	umask(mask);
	o->mode = 0666 & ~mask;
	if (!strcmp(o->path, "-")) {
		o->direct = true;
		return;
	}
	if (!lstat(o->path, &st) && S_ISLNK(st.st_mode)) {
		if (!realpath(o->path, o->target))
			cli_die("cannot write output (%s): the symlink's target: %s",
				o->path, strerror(errno));
	} else if (snprintf(o->target, sizeof(o->target), "%s", o->path) >=
		   (int)sizeof(o->target)) {
		cli_die("cannot write output (%s): %s", o->path, strerror(ENAMETOOLONG));
	}
	if (!stat(o->target, &st)) {
		if (S_ISDIR(st.st_mode))
			cli_die("cannot write output (%s): %s", o->path, strerror(EISDIR));
		if (!S_ISREG(st.st_mode)) {
			o->direct = true;
			if (access(o->target, W_OK))
				cli_die("cannot write output (%s): %s", o->path,
					strerror(errno));
			return;
		}
	} else if (errno != ENOENT) {
		cli_die("cannot write output (%s): %s", o->path, strerror(errno));
	}
	snprintf(dir, sizeof(dir), "%s", o->target);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = 0;
	if (access(slash ? dir : ".", W_OK | X_OK))
		cli_die("cannot write output (%s): %s", o->path, strerror(errno));
	report_stale_twins(o->target);
}

/* Open what -o names for writing, right before the first byte. */
static int outputs_create(struct outputs *o)
{
	static bool registered;
	int fd;

	outputs_open(o);
	if (o->direct) {
		if (!strcmp(o->path, "-")) {
			o->file = stdout;
			return 0;
		}
		fd = open(o->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	} else {
		if (!registered)
			atexit(unlink_atexit);
		registered = true;
		fd = -1;
		errno = ENAMETOOLONG;
		if (strlen(o->target) + sizeof(".tmp.XXXXXX") <= sizeof(live_tmp)) {
			strcpy(live_tmp, o->target);
			strcat(live_tmp, ".tmp.XXXXXX");
			fd = mkostemp(live_tmp, O_CLOEXEC);
		}
		if (fd >= 0) {
			live_tmp_set = 1;
			memcpy(o->tmp, live_tmp, sizeof(o->tmp));
			if (fchmod(fd, o->mode)) {
				int e = errno;

				close(fd);
				fd = -1;
				errno = e;
			}
		}
	}
	if (fd < 0 || !(o->file = fdopen(fd, "w"))) {
		cli_warn("cannot write output (%s): %s", o->path, strerror(errno));
		outputs_unlink_signal_safe();
		return 2;
	}
	return 0;
}

static void outputs_discard(struct outputs *o)
{
	if (o->file && o->file != stdout)
		fclose(o->file);
	o->file = NULL;
	if (!o->direct)
		outputs_unlink_signal_safe();
}

/* Flush, sync and close what -o names (then move the twin into place);
 * 0, or 2 with one line.  Special files are not synced (a pipe cannot). */
static int outputs_commit(struct outputs *o)
{
	bool bad = fflush(o->file) != 0 || ferror(o->file);

	if (o->file == stdout) {
		o->file = NULL;
		return bad ? 2 : 0;
	}
	if (!o->direct)
		bad |= fsync(fileno(o->file)) != 0;
	bad |= fclose(o->file) != 0;
	o->file = NULL;
	if (bad || (!o->direct && rename(o->tmp, o->target))) {
		cli_warn("cannot write output (%s): %s", o->path, strerror(errno));
		outputs_discard(o);
		return 2;
	}
	live_tmp_set = 0;
	return 0;
}

/* stdout: everything written?  One line and 2 when not. */
static int stdout_commit(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	cli_warn("cannot write standard output: %s", strerror(errno ? errno : EIO));
	return 2;
}

int outputs_write(struct outputs *o, const struct results *r)
{
	int rc;

	if (o->path && (rc = outputs_create(o)))
		return rc;
	for (unsigned i = 0; i < o->n; i++) {
		FILE *f = (int)i == o->to_file ? o->file : stdout;

		if (i && f == stdout)
			fputc('\n', stdout);
		errno = 0;
		if (o->header && strcmp(o->fmt[i]->name, "json") &&
		    strcmp(o->fmt[i]->name, "csv"))
			render_header(r, f);
		if (o->fmt[i]->render(r, &o->ropts, f) || ferror(f)) {
			cli_warn("cannot write %s output (%s): %s", o->fmt[i]->name,
				 f == stdout ? "standard output" : o->path,
				 strerror(errno ? errno : EIO));
			outputs_discard(o);
			return 2;
		}
	}
	if (o->file && (rc = outputs_commit(o)))
		return rc;
	return stdout_commit();
}
