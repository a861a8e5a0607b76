/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/atomicfile.h"
#include "err.h"
#include "infile.h"
#include "outfile.h"
#include "outstop.h"
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

/*
 * What a file name's extension says of its format (docs/formats.md,
 * "Where each format goes"): "json" for .json, "csv" for .csv, "text"
 * for .txt (any text format), NULL for any other name.
 */
static const char *name_format(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	const char *dot = strrchr(base, '.');

	if (!dot || dot == base)
		return NULL;
	if (!strcasecmp(dot, ".json"))
		return "json";
	if (!strcasecmp(dot, ".csv"))
		return "csv";
	return strcasecmp(dot, ".txt") ? NULL : "text";
}

/* Does format f fit the name's extension?  One line, exit 2 if not. */
void outputs_name_fits(const char *fmt, const char *path)
{
	const char *want = path ? name_format(path) : NULL;
	bool data = !strcmp(fmt, "json") || !strcmp(fmt, "csv");

	if (!want || (!strcmp(want, "text") ? !data : !strcmp(want, fmt)))
		return;
	cli_die("--output (%s): the name says %s, but %s would be written there; "
		"leave -f out (the name then chooses) or name the file for %s", path,
		want, fmt, fmt);
}

const char *outputs_formats(const char *formats, bool given, const char *path)
{
	const char *want = path ? name_format(path) : NULL;

	if (given || !want || strchr(path, '=') || !strcmp(path, "-"))
		return formats;
	if (strcmp(want, "text"))
		return want;
	/* .txt: the command's text format, or the table */
	return !strcmp(formats, "json") || !strcmp(formats, "csv") ? "table" : formats;
}

void outputs_from_args(struct outputs *o, const struct output_args *a)
{
	outputs_parse(o, outputs_formats(a->formats, a->formats_given, a->output), a->unit,
		      a->output, !a->no_marks);
	o->header = a->header;
	o->ropts.width = (unsigned)a->width;
	o->ropts.verbose = a->verbose;
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

/* The comma that ends the -o item at p: the next one that starts
 * another "FMT=" (a file name may hold commas), or NULL. */
static char *item_end(char *p)
{
	char *next;

	for (next = strchr(p, ','); next && !item_format(next + 1);
	     next = strchr(next + 1, ','))
		;
	return next;
}

void outputs_each_path(const char *spec, void (*fn)(const char *path, void *arg),
		       void *arg)
{
	char *copy, *p;

	if (!spec || !*spec)
		return;
	if (!item_format(spec)) {
		fn(spec, arg);
		return;
	}
	copy = cli_strdup(spec);
	for (p = copy; p;) {
		char *next = item_end(p);

		if (next)
			*next++ = 0;
		fn(strchr(p, '=') + 1, arg);
		p = next;
	}
	free(copy);
}

/*
 * -o FMT=FILE[,FMT=FILE...]: an item ends at the next comma that starts
 * another "FMT=" (item_end()).  spec is modified (the items' paths point
 * into it); a named format missing from -f is added.
 */
static void parse_items(struct outputs *o, char *spec, const char *output)
{
	char *p = spec;

	while (p) {
		const struct format_info *f = item_format(p);
		char *next = item_end(p), *path;
		int i;

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
	outputs_name_fits(o->fmt[data]->name, path);
	o->dest[data].path = path;
}

/* Can `format` show `u`?  Else one line and exit 2. */
static void unit_or_die(enum unit u, const char *format)
{
	if (unit_shown_by(u, format))
		return;
	if (UNIT_IS_XFER(u))
		cli_die("--unit %s: the %s format shows a throughput; the "
			"handovers are shown by table (and always in json)",
			unit_name(u), format);
	cli_die("--unit ns: the %s format shows a throughput; ns per "
		"operation is shown by table and csv", format);
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
		cli_die("--unit (%s): valid: ops/s, kops/s, Mops/s, jpm, ns, handovers/s, "
			"ns/handover", unit);
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

		unit_or_die(o->ropts.unit, o->fmt[i]->name);
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
/* Slot OUTPUTS_MAX is the one file of outfile_open() and outfile_put(). */
#define SLOTS (OUTPUTS_MAX + 1)
static char live_tmp[SLOTS][PATH_MAX];
static volatile sig_atomic_t live_tmp_set[SLOTS];
/* Each destination's target (kept out of struct outputs, which lives
 * on the stack). */
static char dest_target[SLOTS][PATH_MAX];

void outputs_unlink_signal_safe(void)
{
	for (unsigned i = 0; i < SLOTS; i++) {
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
 * Create and remove the twin the writer will create later, with the
 * same name pattern in the same directory: a name too long for the
 * directory (NAME_MAX, PATH_MAX), a directory that takes no new file
 * (/proc, a read-only file system) or that does not exist fails now,
 * before any run, instead of after the sweep.
 */
static void probe_twin(const struct outdest *d)
{
	char name[PATH_MAX];
	int fd = af_twin_create(d->target, name, sizeof(name));

	errno = fd < 0 ? -fd : 0;
	if (fd < 0 && errno == ENOENT) {
		char dir[PATH_MAX];
		struct stat st;

		af_dir_of(d->target, dir, sizeof(dir));
		if (stat(dir, &st))
			cli_die("cannot write output (%s): no directory %s", d->path, dir);
		errno = ENOENT;
	}
	if (fd < 0)
		cli_die("cannot write output (%s): its temporary file (%s.tmp.XXXXXX) "
			"cannot be created: %s", d->path, d->target, strerror(errno));
	close(fd);
	unlink(name);
}

/*
 * An existing regular file: its mode and owner are kept (outputs_write).
 * Refused when it is not writable (an immutable file, a read-only file
 * system, permissions) and when its owner may not write it: root
 * bypasses the permission bits, and a file made read-only is not
 * overwritten silently.
 */
static void existing_file(struct outdest *d, const struct stat *st)
{
	int fd;

	if (!(st->st_mode & S_IWUSR))
		cli_die("cannot write output (%s): the file is read-only (mode %04o): "
			"make it writable or remove it", d->path,
			(unsigned)(st->st_mode & 07777));
	fd = open(d->target, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		cli_die("cannot write output (%s): %s", d->path, strerror(errno));
	close(fd);
	d->replace = true;
}

/*
 * What is at the target and is not a regular file: a directory, a block
 * device (a disk: never written over) and a socket are refused; a
 * character device or a FIFO is written in place (it stays what it
 * is), unless the destination takes only a regular file (a plugin).
 * Exit 2 with one line when refused.
 */
static void special_target(struct outdest *d, mode_t mode)
{
	const char *kind = infile_kind(mode);

	if (S_ISDIR(mode))
		cli_die("cannot write output (%s): %s", d->path, strerror(EISDIR));
	if (S_ISBLK(mode) || S_ISSOCK(mode) || d->regular_only)
		cli_die("cannot write output (%s): %s, not a regular file (%s)",
			d->path, kind, d->regular_only ? "a plugin is loaded from a file" :
			"lockbench writes files, character devices and FIFOs");
	d->direct = true;
	if (access(d->target, W_OK))
		cli_die("cannot write output (%s): %s", d->path, strerror(errno));
}

/*
 * Decide how one destination is written, and check it now: "-" and
 * character devices and FIFOs are opened and written directly (never
 * replaced); a symlink is followed and its target replaced, the link
 * kept; a regular file (or a new name) is written to a twin in the same
 * directory and put in place when complete.  Exit 2 with one line when
 * it cannot be (special_target()).
 */
static void dest_open(struct outdest *d, unsigned slot)
{
	struct stat st;

	d->target = dest_target[slot];
	if (!strcmp(d->path, "-") && d->regular_only)
		cli_die("cannot write output (-): a plugin is binary: name a file "
			"(-o FILE.so), not standard output");
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
		if (!S_ISREG(st.st_mode)) {
			special_target(d, st.st_mode);
			return;
		}
		existing_file(d, &st);
	} else if (errno != ENOENT) {
		cli_die("cannot write output (%s): %s", d->path, strerror(errno));
	}
	probe_twin(d);
	report_stale_twins(d->target);
}

/* target with its directory's symlinks and dots resolved (the file
 * itself may not exist yet); false when that fails. */
static bool canonical(const char *target, char *out, size_t len)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *slash = strrchr(target, '/'), *base = slash ? slash + 1 : target;

	af_dir_of(target, dir, sizeof(dir));
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

void outfile_open(struct outdest *d, const char *path, bool regular_only)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->regular_only = regular_only;
	if (!path || !*path)
		cli_die("cannot write output: an empty file name");
	dest_open(d, OUTPUTS_MAX);
}

/* Create destination `slot`'s twin (atomicfile.h: mode 0600 until it
 * is put in place); fd or -1 (errno set). */
static int twin_create(const struct outdest *d, unsigned slot)
{
	static bool registered;
	int fd;

	if (!registered)
		atexit(unlink_atexit);
	registered = true;
	fd = af_twin_create(d->target, live_tmp[slot], sizeof(live_tmp[slot]));
	if (fd < 0) {
		errno = -fd;
		return -1;
	}
	live_tmp_set[slot] = 1;
	return fd;
}

/* The one line of a failed write to d (error e, or d->cut). */
static void dest_warn(const struct outdest *d, int e)
{
	const char *why = d->cut ? "a stop signal cut the write short" : strerror(e);

	if (d->path)
		cli_warn("cannot write output (%s): %s", d->path, why);
	else
		cli_warn("cannot write standard output: %s", why);
}

/*
 * Open destination `slot` for writing, right before the first byte: a
 * twin is written through stdio; standard output ("-" or no -o), a
 * character device and a FIFO are rendered into memory first (d->file a
 * memory stream) and written by outstop_write() when complete, so that
 * a stop signal can cut a stalled reader short (outstop.h).
 */
static int dest_create(struct outdest *d, unsigned slot)
{
	int fd;

	d->mem = NULL;
	d->memlen = 0;
	if (!d->path || d->direct) {
		d->fd = !d->path || !strcmp(d->path, "-") ? STDOUT_FILENO :
			outstop_open(d->target);
		fd = d->fd;
		if (fd >= 0 && !(d->file = open_memstream(&d->mem, &d->memlen)))
			fd = -1;
	} else {
		d->fd = fd = twin_create(d, slot);
		if (fd >= 0 && !(d->file = fdopen(fd, "w")))
			fd = -1;
	}
	if (fd < 0) {
		d->cut = errno == EINTR && outstop_stopped();
		dest_warn(d, errno);
		if (d->fd >= 0 && d->fd != STDOUT_FILENO)
			close(d->fd);
		d->fd = -1;
		return 2;
	}
	return 0;
}

/* Close destination i and remove its twin, if any. */
static void dest_discard(struct outdest *d, unsigned i)
{
	if (d->file)
		fclose(d->file);
	d->file = NULL;
	free(d->mem);
	d->mem = NULL;
	if (d->fd >= 0 && d->fd != STDOUT_FILENO)
		close(d->fd);
	d->fd = -1;
	if (live_tmp_set[i])
		unlink(live_tmp[i]);
	live_tmp_set[i] = 0;
}

/* A rendered memory stream written to its descriptor (outstop.h);
 * false, errno set, when it was not. */
static bool stream_out(struct outdest *d)
{
	bool bad = fclose(d->file) != 0;
	int e = errno;

	d->file = NULL;
	if (!bad && d->fd == STDOUT_FILENO && fflush(stdout))
		bad = true, e = errno;
	if (!bad && outstop_write(d->fd, d->mem, d->memlen))
		bad = true, e = errno;
	d->cut = bad && e == EINTR && outstop_stopped();
	free(d->mem);
	d->mem = NULL;
	if (d->fd != STDOUT_FILENO && close(d->fd) && !bad)
		bad = true, e = errno;
	d->fd = -1;
	errno = e;
	return !bad;
}

/* Flush, sync and close destination d: a twin's descriptor stays open
 * (d->fd) until every destination is complete; a memory stream goes out
 * (stream_out).  0, or 2 with one line. */
static int dest_close(struct outdest *d)
{
	bool bad;
	int fd;

	if (!d->file)
		return 0;
	errno = 0;
	if (d->mem || !d->path || d->direct) {
		bad = !stream_out(d);
	} else {
		bad = fflush(d->file) != 0 || ferror(d->file) || fsync(d->fd) != 0;
		fd = bad ? -1 : dup(d->fd);
		bad |= fd < 0;
		bad |= fclose(d->file) != 0;
		d->file = NULL;
		d->fd = fd;
	}
	if (bad) {
		dest_warn(d, errno ? errno : EIO);
		return 2;
	}
	return 0;
}

/*
 * Put destination i's complete twin in place (af_install(): renamed
 * with the old file's owner, mode, ACLs and extended attributes, or
 * copied into it once the space is reserved where a rename would lose
 * a hard link or an owner).  0, or 2 with one line; the old file then
 * stands, and the complete twin is kept and named (*kept true).
 */
static int dest_commit(struct outdest *d, unsigned i, unsigned mode, bool *kept)
{
	bool partial = false;
	int rc = af_install(d->fd, live_tmp[i], d->target, mode, &partial);

	close(d->fd);
	d->fd = -1;
	*kept = rc != 0;
	if (!rc) {
		live_tmp_set[i] = 0;
		return 0;
	}
	live_tmp_set[i] = 0;    /* kept: not removed at exit */
	cli_warn("cannot write output (%s): %s; %s; the complete new content is "
		 "kept in %s", d->path, strerror(-rc), partial ?
		 "the file may hold part of it" : "the file is as it was", live_tmp[i]);
	return 2;
}

/* stdout: everything written?  One line and 2 when not. */
static int stdout_commit(void)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return 0;
	cli_warn("cannot write standard output: %s", strerror(errno ? errno : EIO));
	return 2;
}

int outfile_put(struct outdest *d, const void *buf, size_t len, unsigned mode)
{
	const unsigned slot = OUTPUTS_MAX;
	mode_t mask = umask(0);
	bool kept;
	int rc = 0;

	umask(mask);
	outstop_begin();
	d->fd = -1;
	if (dest_create(d, slot))
		rc = 2;
	errno = 0;
	if (!rc && fwrite(buf, 1, len, d->file) != len) {
		cli_warn("cannot write output (%s): %s", d->path,
			 strerror(errno ? errno : EIO));
		rc = 2;
	}
	if (!rc && dest_close(d))
		rc = 2;
	outstop_end();
	if (rc) {
		dest_discard(d, slot);
		return 2;
	}
	return d->direct ? 0 : dest_commit(d, slot, mode & ~mask & 07777, &kept);
}

/* Render format i into f, a text format through render_safe_stream()
 * (a file's kernel, CPU model or names never reach a terminal raw; JSON
 * and CSV are data, escaped by their own rules); 0, or 2 with one line. */
static int render_one(struct outputs *o, unsigned i, const struct results *r,
		      FILE *f)
{
	const char *name = o->fmt[i]->name;
	bool text = strcmp(name, "json") && strcmp(name, "csv");
	FILE *t = text ? render_safe_stream(f) : f;
	bool bad;

	errno = 0;
	if (!t) {
		cli_warn("cannot write %s output: %s", name, strerror(errno));
		return 2;
	}
	if (o->header && text)
		render_header(r, t);
	bad = o->fmt[i]->render(r, &o->ropts, t) || ferror(t);
	if (t != f)
		bad |= fclose(t) != 0;
	if (bad || ferror(f)) {
		cli_warn("cannot write %s output (%s): %s", name,
			 o->dest[i].path ? o->dest[i].path : "standard output",
			 strerror(errno ? errno : EIO));
		return 2;
	}
	return 0;
}

/*
 * Create, render and close every destination, in order; ok[i] says
 * which succeeded.  Without o->measured, stop at the first failure
 * (nothing will be kept anyway: one line).  Everything bound for a
 * stream (stdout, a device, a FIFO) goes out under outstop_begin().
 */
static bool render_all(struct outputs *o, const struct results *r, bool *ok)
{
	unsigned on_stdout = 0;
	bool all = true;

	outstop_begin();
	for (unsigned i = 0; i < o->n; i++) {
		struct outdest *d = &o->dest[i];

		d->fd = -1;
		ok[i] = (all || o->measured) && !dest_create(d, i);
		if (ok[i] && d->fd == STDOUT_FILENO && on_stdout++)
			fputc('\n', d->file);
		if (ok[i])
			ok[i] = !render_one(o, i, r, d->file);
		if (ok[i])
			ok[i] = !dest_close(d);
		all &= ok[i];
	}
	outstop_end();
	return all;
}

/* Did a format bound for stdout fail already (its line printed)? */
static bool stdout_failed(const struct outputs *o, const bool *ok)
{
	for (unsigned i = 0; i < o->n; i++)
		if (!ok[i] && (!o->dest[i].path || !strcmp(o->dest[i].path, "-")))
			return true;
	return false;
}

/* 1 when a stop signal cut a write short (the run was interrupted:
 * docs/guide.md's exit status 1), else 2. */
static int write_status(const struct outputs *o)
{
	for (unsigned i = 0; i < o->n; i++)
		if (o->dest[i].cut)
			return 1;
	return 2;
}

/*
 * Every destination is rendered into its twin (or stream) and closed
 * first; then the twins are put in place.  Without o->measured a
 * failure anywhere leaves none of them; with it, every complete one is
 * put in place.
 */
int outputs_write(struct outputs *o, const struct results *r)
{
	bool ok[OUTPUTS_MAX], all;
	int rc = 0;

	outputs_open(o);
	all = render_all(o, r, ok);
	for (unsigned i = 0; i < o->n; i++) {
		struct outdest *d = &o->dest[i];

		o->kept[i] = false;
		if (!ok[i] || (!all && !o->measured)) {
			ok[i] = false;
			dest_discard(d, i);
		} else if (d->path && !d->direct) {
			ok[i] = !dest_commit(d, i, o->mode, &o->kept[i]);
		}
		rc |= ok[i] ? 0 : 2;
	}
	if (stdout_failed(o, ok) ? fflush(stdout) != 0 : stdout_commit() != 0) {
		rc = 2;
		for (unsigned i = 0; i < o->n; i++)
			ok[i] &= o->dest[i].path && strcmp(o->dest[i].path, "-");
	}
	memcpy(o->written, ok, sizeof(ok));
	return rc ? write_status(o) : 0;
}

/* The JSON of r in a new file lockbench-rescue-XXXXXX.json in dir;
 * true when complete (path holds its name), else nothing is left. */
static bool rescue_in(const char *dir, const struct outputs *o,
		      const struct results *r, char *path, size_t len)
{
	FILE *f;
	bool bad;
	int fd;

	if (!dir || !*dir ||
	    snprintf(path, len, "%s/lockbench-rescue-XXXXXX.json", dir) >= (int)len)
		return false;
	fd = mkostemps(path, 5, O_CLOEXEC);
	if (fd < 0)
		return false;
	if (fchmod(fd, o->mode) || !(f = fdopen(fd, "w"))) {
		close(fd);
		unlink(path);
		return false;
	}
	bad = format_find("json")->render(r, &o->ropts, f) != 0;
	bad |= fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad)
		unlink(path);
	return !bad;
}

/* Did the JSON (json true) or a text format (not JSON, not CSV) reach
 * its place? */
static bool delivered(const struct outputs *o, bool json)
{
	for (unsigned i = 0; i < o->n; i++) {
		const char *name = o->fmt[i]->name;

		if (!o->written[i] && !(json && o->kept[i]))
			continue;
		if (json ? !strcmp(name, "json") : strcmp(name, "json") && strcmp(name, "csv"))
			return true;
	}
	return false;
}

/* Where a rescue file goes first: the directory of the failed JSON (or
 * of the first failed file), not of a device or FIFO. */
static void rescue_dir(const struct outputs *o, char *buf, size_t len)
{
	int pick = -1;

	*buf = 0;
	for (unsigned i = 0; i < o->n; i++)
		if (!o->written[i] && o->dest[i].path && !o->dest[i].direct &&
		    (pick < 0 || !strcmp(o->fmt[i]->name, "json")))
			pick = (int)i;
	if (pick >= 0)
		af_dir_of(o->dest[pick].target, buf, len);
}

int outputs_rescue(struct outputs *o, const struct results *r)
{
	const struct format_info *table = format_find("table");
	char dir[PATH_MAX], path[PATH_MAX + 32], err[256];
	const char *tmp = getenv("TMPDIR");
	const char *dirs[] = {dir, ".", tmp, "/tmp"};
	bool saved = delivered(o, true), cut = false;

	for (unsigned i = 0; i < o->n; i++)
		cut |= o->dest[i].cut;

	if (saved)
		return 2;
	rescue_dir(o, dir, sizeof(dir));
	for (unsigned k = 0; k < 4 && !saved; k++)
		saved = rescue_in(dirs[k], o, r, path, sizeof(path));
	if (saved && realpath(path, dir))
		cli_warn("the results are saved in %s", dir);
	else if (saved)
		cli_warn("the results are saved in %s", path);
	else
		cli_warn("the results could not be saved (in the output's directory, "
			 "., $TMPDIR or /tmp)");
	if (!delivered(o, false) && !cut && !ferror(stdout) && table &&
	    !format_check(table, r, err, sizeof(err))) {
		FILE *t = render_safe_stream(stdout);

		if (t && o->header)
			render_header(r, t);
		if (t) {
			table->render(r, &o->ropts, t);
			fclose(t);
		}
		fflush(stdout);
	}
	return 2;
}
