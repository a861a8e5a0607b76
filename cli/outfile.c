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

#include "err.h"
#include "infile.h"
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

/* The twin's name pattern for target (mkostemp's XXXXXX); 0, or
 * -ENAMETOOLONG when it does not fit a path. */
static int twin_pattern(const char *target, char *buf, size_t len)
{
	if (snprintf(buf, len, "%s.tmp.XXXXXX", target) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* The directory of path into buf ("." for a bare name). */
static void dir_of(const char *path, char *buf, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(buf, len, ".");
	else if (slash == path)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - path), path);
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
	int fd = -1;

	errno = ENAMETOOLONG;
	if (!twin_pattern(d->target, name, sizeof(name)))
		fd = mkostemp(name, O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		char dir[PATH_MAX];
		struct stat st;

		dir_of(d->target, dir, sizeof(dir));
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
	d->old_mode = st->st_mode & 07777;
	d->old_uid = st->st_uid;
	d->old_gid = st->st_gid;
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

void outfile_open(struct outdest *d, const char *path, bool regular_only)
{
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->regular_only = regular_only;
	if (!path || !*path)
		cli_die("cannot write output: an empty file name");
	dest_open(d, OUTPUTS_MAX);
}

/*
 * The twin of an existing file takes its mode and, where this process
 * may give it (root, or its own file and group), its owner; 0, or -errno.
 */
static int twin_attrs(const struct outdest *d, int fd, unsigned mode)
{
	struct stat st;

	if (!d->replace)
		return fchmod(fd, mode) ? -errno : 0;
	if (fstat(fd, &st))
		return -errno;
	if (st.st_uid != d->old_uid || st.st_gid != d->old_gid)
		(void)!fchown(fd, d->old_uid, d->old_gid); /* else: copied in place */
	return fchmod(fd, d->old_mode) ? -errno : 0;
}

/* Create destination `slot`'s twin; fd or -1 (errno set). */
static int twin_create(struct outdest *d, unsigned slot, unsigned mode)
{
	static bool registered;
	int fd, rc;

	if (!registered)
		atexit(unlink_atexit);
	registered = true;
	errno = ENAMETOOLONG;
	if (twin_pattern(d->target, live_tmp[slot], sizeof(live_tmp[slot])))
		return -1;
	fd = mkostemp(live_tmp[slot], O_CLOEXEC);
	if (fd < 0)
		return -1;
	live_tmp_set[slot] = 1;
	rc = twin_attrs(d, fd, mode);
	if (rc) {
		close(fd);
		errno = -rc;
		return -1;
	}
	return fd;
}

/* Open destination `slot` for writing, right before the first byte. */
static int dest_create(struct outdest *d, unsigned slot, unsigned mode)
{
	int fd;

	if (d->direct && !strcmp(d->path, "-")) {
		d->file = stdout;
		return 0;
	}
	if (d->direct)
		fd = open(d->target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	else
		fd = twin_create(d, slot, mode);
	if (fd < 0 || !(d->file = fdopen(fd, "w"))) {
		cli_warn("cannot write output (%s): %s", d->path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return 2;
	}
	return 0;
}

/* Close destination i and remove its twin, if any. */
static void dest_discard(struct outdest *d, unsigned i)
{
	if (d->file && d->file != stdout)
		fclose(d->file);
	d->file = NULL;
	if (live_tmp_set[i])
		unlink(live_tmp[i]);
	live_tmp_set[i] = 0;
}

/* Flush, sync and close destination `slot` (its twin stays until
 * every destination is complete); 0, or 2 with one line.  Special
 * files are not synced (a pipe cannot). */
static int dest_close(struct outdest *d)
{
	bool bad;

	if (!d->file)
		return 0;
	errno = 0;
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

/* write(2) all of buf; 0 or -1 (errno set). */
static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t k = write(fd, buf, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/*
 * Copy the complete twin into the existing file (same inode: its links,
 * mode, owner, ACLs stay).  If that fails part way, the file is emptied
 * rather than left looking complete.  0, or -errno.
 */
static int copy_in_place(const char *twin, const char *target)
{
	int in = open(twin, O_RDONLY | O_CLOEXEC), out = -1, e = 0;
	char buf[65536];
	ssize_t n = -1;

	if (in >= 0)
		out = open(target, O_WRONLY | O_TRUNC | O_NOCTTY | O_CLOEXEC);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write_all(out, buf, (size_t)n))
			break;
	if (in < 0 || out < 0 || n != 0 || fsync(out))
		e = errno ? errno : EIO;
	if (e && out >= 0)
		(void)!ftruncate(out, 0);
	if (out >= 0 && close(out) && !e)
		e = errno;
	if (in >= 0)
		close(in);
	return -e;
}

/*
 * Put destination i's complete twin in place: renamed over a new name or
 * a file with one link whose owner the twin has; copied into the file
 * otherwise (a rename would break its other links or change its owner).
 * 0, or 2 with one line.
 */
static int dest_commit(struct outdest *d, unsigned i)
{
	struct stat st, tw;
	int rc = 0;

	if (d->replace && !stat(d->target, &st) && S_ISREG(st.st_mode) &&
	    (st.st_nlink > 1 || stat(live_tmp[i], &tw) ||
	     tw.st_uid != st.st_uid || tw.st_gid != st.st_gid))
		rc = copy_in_place(live_tmp[i], d->target);
	else if (rename(live_tmp[i], d->target))
		rc = -errno;
	if (rc) {
		cli_warn("cannot write output (%s): %s", d->path, strerror(-rc));
		dest_discard(d, i);
		return 2;
	}
	if (live_tmp_set[i])
		unlink(live_tmp[i]);   /* after a copy; gone after a rename */
	live_tmp_set[i] = 0;
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

int outfile_put(struct outdest *d, const void *buf, size_t len, unsigned mode)
{
	const unsigned slot = OUTPUTS_MAX;
	mode_t mask = umask(0);

	umask(mask);
	if (dest_create(d, slot, mode & ~mask & 07777))
		return 2;
	errno = 0;
	if (fwrite(buf, 1, len, d->file) != len) {
		cli_warn("cannot write output (%s): %s", d->path,
			 strerror(errno ? errno : EIO));
		dest_discard(d, slot);
		return 2;
	}
	if (dest_close(d)) {
		dest_discard(d, slot);
		return 2;
	}
	return d->direct ? 0 : dest_commit(d, slot);
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
 * Create, render and close every destination, in order; ok[i] says
 * which succeeded.  Without o->measured, stop at the first failure
 * (nothing will be kept anyway: one line).
 */
static bool render_all(struct outputs *o, const struct results *r, bool *ok)
{
	unsigned on_stdout = 0;
	bool all = true;

	for (unsigned i = 0; i < o->n; i++) {
		struct outdest *d = &o->dest[i];
		FILE *f;

		ok[i] = all || o->measured;
		if (ok[i] && d->path)
			ok[i] = !dest_create(d, i, o->mode);
		f = d->file ? d->file : stdout;
		if (ok[i] && f == stdout && on_stdout++)
			fputc('\n', stdout);
		if (ok[i])
			ok[i] = !render_one(o, i, r, f);
		if (ok[i])
			ok[i] = !dest_close(d);
		all &= ok[i];
	}
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

		if (!ok[i] || (!all && !o->measured)) {
			ok[i] = false;
			dest_discard(d, i);
		} else if (d->path && !d->direct)
			ok[i] = !dest_commit(d, i);
		rc |= ok[i] ? 0 : 2;
	}
	if (stdout_failed(o, ok) ? fflush(stdout) != 0 : stdout_commit() != 0) {
		rc = 2;
		for (unsigned i = 0; i < o->n; i++)
			ok[i] &= o->dest[i].path && strcmp(o->dest[i].path, "-");
	}
	memcpy(o->written, ok, sizeof(ok));
	return rc;
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

		if (!o->written[i])
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
		dir_of(o->dest[pick].target, buf, len);
}

int outputs_rescue(struct outputs *o, const struct results *r)
{
	const struct format_info *table = format_find("table");
	char dir[PATH_MAX], path[PATH_MAX + 32], err[256];
	const char *tmp = getenv("TMPDIR");
	const char *dirs[] = {dir, ".", tmp, "/tmp"};
	bool saved = delivered(o, true);

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
	if (!delivered(o, false) && !ferror(stdout) && table &&
	    !format_check(table, r, err, sizeof(err))) {
		if (o->header)
			render_header(r, stdout);
		table->render(r, &o->ropts, stdout);
		fflush(stdout);
	}
	return 2;
}
