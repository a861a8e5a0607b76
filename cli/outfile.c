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

static const struct format_info *format_or_die_in(const char *name, const char *what)
{
	const char *names[32];
	unsigned n = 0;

	if (format_find(name))
		return format_find(name);
	for (; formats[n].name && n < 32; n++)
		names[n] = formats[n].name;
	cli_die_unknown(what, name, names, n, NULL);
}

static const struct format_info *format_or_die(const char *name)
{
	return format_or_die_in(name, "format");
}

/* A format that is read by programs rather than people: the one that a
 * plain -o FILE takes when text formats go along with it. */
static bool is_data_format(const struct format_info *f)
{
	return !strcmp(f->name, "json") || !strcmp(f->name, "csv");
}

/* Is s "FMT=..." for a known format name?  Its format, or NULL. */
static const struct format_info *item_format(const char *s)
{
	const char *eq = strchr(s, '=');
	char name[32];

	if (!eq || eq == s || (size_t)(eq - s) >= sizeof(name))
		return NULL;
	memcpy(name, s, (size_t)(eq - s));
	name[eq - s] = 0;
	return format_find(name);
}

static int format_index(const struct outputs *o, const struct format_info *f)
{
	for (unsigned i = 0; i < o->n; i++)
		if (o->fmt[i] == f)
			return (int)i;
	return -1;
}

static void add_format(struct outputs *o, const struct format_info *f,
		       const char *formats)
{
	if (format_index(o, f) >= 0)
		cli_die("--format (%s): %s given twice", formats, f->name);
	if (o->n == OUTPUTS_MAX)
		cli_die("--format (%s): too many formats", formats);
	o->fmt[o->n++] = f;
}

/*
 * -o FMT=FILE[,FMT=FILE...]: an item ends at the next comma that starts
 * another "FMT=", so a file name may hold commas.  spec is modified
 * (the items' paths point into it); a named format missing from -f is
 * added.
 */
static void parse_items(struct outputs *o, char *spec, const char *output)
{
	char *p = spec;

	while (p) {
		const struct format_info *f = item_format(p);
		char *next = p, *path;
		int i;

		for (next = strchr(next, ','); next && !item_format(next + 1);
		     next = strchr(next + 1, ','))
			;
		if (next)
			*next++ = 0;
		path = strchr(p, '=') + 1;
		if (!*path)
			cli_die("--output (%s): no file after %s=", output, f->name);
		i = format_index(o, f);
		if (i >= 0 && o->dest[i].path)
			cli_die("--output (%s): %s given twice", output, f->name);
		if (i < 0) {
			add_format(o, f, output);
			i = (int)o->n - 1;
		}
		o->dest[i].path = path;
		p = next;
	}
}

/* The formats as "table,json" (for messages). */
static const char *format_list(const struct outputs *o, bool only_stdout,
			       char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < o->n && k < len; i++)
		if (!only_stdout || !o->dest[i].path)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "," : "",
					      o->fmt[i]->name);
	return buf;
}

/* A plain -o FILE: the only format, or the one json or csv. */
static void plain_file(struct outputs *o, const char *path)
{
	char list[128];
	int data = -1;
	unsigned ndata = 0;

	if (!strcmp(path, "-")) {
		for (unsigned i = 0; i < o->n; i++)
			o->dest[i].path = path;
		return;
	}
	for (unsigned i = 0; i < o->n; i++)
		if (is_data_format(o->fmt[i])) {
			data = (int)i;
			ndata++;
		}
	if (o->n == 1)
		data = 0;
	else if (ndata != 1)
		cli_die("--output (%s): which of %s goes there? name each, e.g. "
			"-o %s=%s,%s=FILE2", path, format_list(o, false, list, sizeof(list)),
			o->fmt[0]->name, path, o->fmt[1]->name);
	o->dest[data].path = path;
}

void outputs_parse(struct outputs *o, const char *formats, const char *unit,
		   const char *path, bool marks)
{
	char *list = cli_strdup(formats), *save = NULL, names[128];
	unsigned nstdout = 0, last = 0;
	bool asked = false;

	memset(o, 0, sizeof(*o));
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save))
		add_format(o, format_or_die(t), formats);
	free(list);
	if (!o->n)
		cli_die("--format: empty list");
	if (unit_parse(unit, &o->ropts.unit))
		cli_die("--unit (%s): valid: ops/s, kops/s, Mops/s, jpm", unit);
	o->ropts.marks = marks;
	o->ropts.width = RENDER_WIDTH;
	if (path && !*path)
		cli_die("--output: empty file name");
	if (path && item_format(path)) {
		/* The items' paths point into this copy for the whole run
		 * (one struct outputs per process; kept reachable). */
		static char *items;

		free(items);
		items = cli_strdup(path);
		parse_items(o, items, path);
	}
	else if (path) {
		/* WORD=... where WORD is no format: a misspelt one (-o jsn=x),
		 * not a file name (a file with '=' in its name: ./a=b). */
		size_t w = strspn(path, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-");

		if (w && w < 32 && path[w] == '=') {
			char word[32];

			memcpy(word, path, w);
			word[w] = 0;
			format_or_die_in(word, "format in -o");
		}
		plain_file(o, path);
	}
	for (unsigned i = 0; i < o->n; i++) {
		const char *pi = o->dest[i].path;

		if (pi && !strcmp(pi, "-"))
			asked = true;
		nstdout += !pi || !strcmp(pi, "-");
		last = pi ? last : i;
		for (unsigned k = 0; pi && strcmp(pi, "-") && k < i; k++)
			if (o->dest[k].path && !strcmp(o->dest[k].path, pi))
				cli_die("--output (%s): %s and %s would both be written there",
					pi, o->fmt[k]->name, o->fmt[i]->name);
	}
	if (nstdout > 1 && !asked)
		cli_die("--format (%s): several formats on standard output; name a "
			"file for each (-o %s=FILE) or ask for stdout (-o -, or FMT=-)",
			format_list(o, true, names, sizeof(names)), o->fmt[last]->name);
}

void outputs_check(const struct outputs *o, const struct results *shape)
{
	char err[256];

	for (unsigned i = 0; i < o->n; i++)
		if (format_check(o->fmt[i], shape, err, sizeof(err)))
			cli_die_msg(err);
}

/*
 * The temporary twins being written, for the exit and signal paths:
 * unlink() is async-signal-safe, and the names are fixed buffers.
 */
static char live_tmp[OUTPUTS_MAX][PATH_MAX];
static volatile sig_atomic_t live_tmp_set[OUTPUTS_MAX];
/* Each destination's target (kept out of struct outputs, which lives
 * on the stack). */
static char dest_target[OUTPUTS_MAX][PATH_MAX];

void outputs_unlink_signal_safe(void)
{
	for (unsigned i = 0; i < OUTPUTS_MAX; i++) {
		if (live_tmp_set[i])
			unlink(live_tmp[i]);
		live_tmp_set[i] = 0;
	}
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
 * Decide how one destination is written, without creating anything:
 * "-" and special files (devices, FIFOs, sockets) are opened and
 * written directly; a symlink is followed and its target replaced; a
 * regular file (or a new name) is written to a twin in the same
 * directory and renamed.
 */
static void dest_open(struct outdest *d, unsigned slot)
{
	struct stat st;
	char dir[PATH_MAX], *slash;

	d->target = dest_target[slot];

	if (!strcmp(d->path, "-")) {
		d->direct = true;
		return;
	}
	if (!lstat(d->path, &st) && S_ISLNK(st.st_mode)) {
		if (!realpath(d->path, d->target))
			cli_die("cannot write output (%s): the symlink's target: %s",
				d->path, strerror(errno));
	} else if (snprintf(d->target, PATH_MAX, "%s", d->path) >= PATH_MAX) {
		cli_die("cannot write output (%s): %s", d->path, strerror(ENAMETOOLONG));
	}
	if (!stat(d->target, &st)) {
		if (S_ISDIR(st.st_mode))
			cli_die("cannot write output (%s): %s", d->path, strerror(EISDIR));
		if (!S_ISREG(st.st_mode)) {
			d->direct = true;
			if (access(d->target, W_OK))
				cli_die("cannot write output (%s): %s", d->path,
					strerror(errno));
			return;
		}
	} else if (errno != ENOENT) {
		cli_die("cannot write output (%s): %s", d->path, strerror(errno));
	}
	snprintf(dir, sizeof(dir), "%s", d->target);
	slash = strrchr(dir, '/');
	if (slash)
		slash[slash == dir ? 1 : 0] = 0;
	if (access(slash ? dir : ".", W_OK | X_OK))
		cli_die("cannot write output (%s): %s", d->path, strerror(errno));
	report_stale_twins(d->target);
}

/* target with its directory's symlinks and dots resolved (the file
 * itself may not exist yet); false when that fails. */
static bool canonical(const char *target, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - target) : 1,
		 slash ? target : ".");
	if (!*dir)
		strcpy(dir, "/");
	if (!realpath(dir, real))
		return false;
	return snprintf(out, len, "%s/%s", real, base) < (int)len;
}

/* Two names for one file (a link, "./x" and "x"): refused. */
static void check_distinct(const struct outputs *o)
{
	char ci[PATH_MAX], ck[PATH_MAX];
	struct stat a, b;

	for (unsigned i = 0; i < o->n; i++)
		for (unsigned k = 0; k < i; k++) {
			const struct outdest *di = &o->dest[i], *dk = &o->dest[k];

			if (!di->path || !dk->path ||
			    !strcmp(di->path, "-") || !strcmp(dk->path, "-"))
				continue;
			if (!strcmp(di->target, dk->target) ||
			    (canonical(di->target, ci, sizeof(ci)) &&
			     canonical(dk->target, ck, sizeof(ck)) && !strcmp(ci, ck)) ||
			    (!stat(di->target, &a) && !stat(dk->target, &b) &&
			     a.st_dev == b.st_dev && a.st_ino == b.st_ino))
				cli_die("--output (%s): %s and %s would both be written "
					"there", di->path, o->fmt[k]->name, o->fmt[i]->name);
		}
}

void outputs_open(struct outputs *o)
{
	mode_t mask;

	if (o->resolved)
		return;
	o->resolved = true;
	mask = umask(0);
	umask(mask);
	o->mode = 0666 & ~mask;
	for (unsigned i = 0; i < o->n; i++)
		if (o->dest[i].path)
			dest_open(&o->dest[i], i);
	check_distinct(o);
}

/* Open destination `slot` for writing, right before the first byte. */
static int dest_create(struct outdest *d, unsigned slot, unsigned mode)
{
	static bool registered;
	int fd;

	if (d->direct) {
		if (!strcmp(d->path, "-")) {
			d->file = stdout;
			return 0;
		}
		fd = open(d->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	} else {
		if (!registered)
			atexit(unlink_atexit);
		registered = true;
		fd = -1;
		errno = ENAMETOOLONG;
		if (strlen(d->target) + sizeof(".tmp.XXXXXX") <= sizeof(live_tmp[slot])) {
			strcpy(live_tmp[slot], d->target);
			strcat(live_tmp[slot], ".tmp.XXXXXX");
			fd = mkostemp(live_tmp[slot], O_CLOEXEC);
		}
		if (fd >= 0) {
			live_tmp_set[slot] = 1;
			if (fchmod(fd, mode)) {
				int e = errno;

				close(fd);
				fd = -1;
				errno = e;
			}
		}
	}
	if (fd < 0 || !(d->file = fdopen(fd, "w"))) {
		cli_warn("cannot write output (%s): %s", d->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 2;
	}
	return 0;
}

/* Close every destination and remove every twin: nothing appears. */
static void outputs_discard(struct outputs *o)
{
	for (unsigned i = 0; i < o->n; i++) {
		struct outdest *d = &o->dest[i];

		if (d->file && d->file != stdout)
			fclose(d->file);
		d->file = NULL;
	}
	outputs_unlink_signal_safe();
}

/* Flush, sync and close destination `slot` (its twin stays until
 * every destination is complete); 0, or 2 with one line.  Special
 * files are not synced (a pipe cannot). */
static int dest_close(struct outdest *d)
{
	bool bad;

	if (!d->file)
		return 0;
	bad = fflush(d->file) != 0 || ferror(d->file);
	if (d->file != stdout) {
		if (!d->direct)
			bad |= fsync(fileno(d->file)) != 0;
		bad |= fclose(d->file) != 0;
	}
	d->file = NULL;
	if (bad) {
		cli_warn("cannot write output (%s): %s", d->path,
			 strerror(errno ? errno : EIO));
		return 2;
	}
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

/* Render format i into f; 0, or 2 with one line. */
static int render_one(struct outputs *o, unsigned i, const struct results *r,
		      FILE *f)
{
	const char *name = o->fmt[i]->name;

	errno = 0;
	if (o->header && strcmp(name, "json") && strcmp(name, "csv"))
		render_header(r, f);
	if (o->fmt[i]->render(r, &o->ropts, f) || ferror(f)) {
		cli_warn("cannot write %s output (%s): %s", name,
			 f == stdout ? "standard output" : o->dest[i].path,
			 strerror(errno ? errno : EIO));
		return 2;
	}
	return 0;
}

/*
 * Every file's twin is created and written, then every one is synced
 * and closed, and only then are they renamed into place: a failure
 * anywhere leaves none of them.
 */
int outputs_write(struct outputs *o, const struct results *r)
{
	unsigned on_stdout = 0;
	int rc = 0;

	outputs_open(o);
	for (unsigned i = 0; i < o->n && !rc; i++)
		if (o->dest[i].path)
			rc = dest_create(&o->dest[i], i, o->mode);
	for (unsigned i = 0; i < o->n && !rc; i++) {
		FILE *f = o->dest[i].file ? o->dest[i].file : stdout;

		if (f == stdout && on_stdout++)
			fputc('\n', stdout);
		rc = render_one(o, i, r, f);
	}
	for (unsigned i = 0; i < o->n && !rc; i++)
		rc = dest_close(&o->dest[i]);
	if (rc) {
		outputs_discard(o);
		return rc;
	}
	for (unsigned i = 0; i < o->n; i++) {
		struct outdest *d = &o->dest[i];

		if (!d->path || d->direct)
			continue;
		if (rename(live_tmp[i], d->target)) {
			cli_warn("cannot write output (%s): %s", d->path, strerror(errno));
			outputs_discard(o);
			return 2;
		}
		live_tmp_set[i] = 0;
	}
	return stdout_commit();
}
