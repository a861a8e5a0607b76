/* SPDX-License-Identifier: MIT */
/*
 * Where each requested format goes, and the one writer of -o (run,
 * compare, import, locktorture): the file is written to a temporary
 * twin and put in place only when complete, so an interrupted or failed
 * write never leaves a file that looks whole; a run's results that
 * cannot be written go to a rescue file (outputs_rescue).
 */
#ifndef LOCKBENCH_CLI_OUTFILE_H
#define LOCKBENCH_CLI_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "../output/render/render.h"
#include "opt.h"

/* Where one format goes: a file (written through a temporary twin), a
 * special file or "-" (written in place), or standard output. */
struct outdest {
	const char *path;       /* as given, or NULL: standard output */
	char *target;           /* path with its symlinks followed (a
				 * static buffer of outfile.c: one
				 * struct outputs per process) */
	bool direct;            /* a special file or "-": written in place */
	bool regular_only;      /* only a regular file or a new name (a
				 * plugin): no "-", device or FIFO */
	bool replace;           /* an existing regular file (af_install()
				 * keeps its links, owner, mode, ACLs and
				 * extended attributes) */
	bool cut;               /* a stop signal cut its write short */
	FILE *file;             /* the open twin, or the memory stream of a
				 * special file or stdout, or NULL */
	int fd;                 /* the twin's or the special file's
				 * descriptor (1: stdout), or -1 */
	char *mem;              /* the memory stream's buffer */
	size_t memlen;
};

#define OUTPUTS_MAX 8

struct outputs {
	const struct format_info *fmt[OUTPUTS_MAX];
	unsigned n;
	struct outdest dest[OUTPUTS_MAX]; /* dest[i]: where fmt[i] goes */
	bool resolved;          /* outputs_open() has checked every path */
	bool measured;          /* results that cannot be made again (a run):
				 * every destination that can be written is,
				 * and outputs_rescue() saves the rest */
	bool written[OUTPUTS_MAX]; /* fmt[i] reached its destination */
	bool kept[OUTPUTS_MAX]; /* fmt[i] did not, and its complete twin is
				 * kept beside it (named on stderr) */
	unsigned mode;          /* the mode of a new file (the umask's) */
	struct render_opts ropts;
	bool header;            /* --header: a provenance line above text */
};

/*
 * The output options of the commands that render saved or imported
 * results (compare, import), and their table rows: struct T embeds a
 * struct output_args as member M; DEF is -f's default.
 */
struct output_args {
	const char *formats, *output, *unit;
	unsigned long long width;
	bool no_marks, header, verbose, help, formats_given;
};

#define OUTPUT_ROWS(T, M, DEF)                                        \
	{.name = "format", .sname = 'f', .type = OPT_STR, .arg = "LIST",          \
	 .def = DEF, .off = offsetof(T, M.formats),                   \
	 .given = OPT_GIVEN(T, M.formats_given),                                 \
	 .help = "table, box, lkp, speedup, mmtests, lkp-compare, csv, json"},    \
	{.name = "output", .sname = 'o', .type = OPT_STR, .arg = "FILE",          \
	 .off = offsetof(T, M.output),                                    \
	 .help = "FILE (.json, .csv, .txt: the format without -f), FMT=FILE,..., or -"},  \
	{.name = "unit", .type = OPT_STR, .arg = "UNIT", .def = "kops/s",         \
	 .off = offsetof(T, M.unit),                                              \
	 .help = "ops/s, kops/s, Mops/s, jpm; ns: per op of one thread (table, csv)"}, \
	{.name = "header", .type = OPT_FLAG, .off = offsetof(T, M.header),     \
	 .help = "one line above text tables: kernel, CPU, lockbench, command"}, \
	{.name = "width", .type = OPT_UINT, .arg = "COLS", .def = "80",        \
	 .min = 0, .max = 100000, .off = offsetof(T, M.width),                  \
	 .help = "split wider tables by columns, baseline repeated (0: never)"}, \
	{.name = "no-marks", .type = OPT_FLAG, .off = offsetof(T, M.no_marks), \
	 .help = "no ? ~ # * - marks and notes"},                                 \
	{.name = "verbose", .sname = 'v', .type = OPT_FLAG,                       \
	 .off = offsetof(T, M.verbose),                                           \
	 .help = "every note under text tables in full"},                       \
	OPT_HELP_ROW(T, M.help)

/*
 * -f LIST, --unit, -o and --no-marks (the rule is docs/formats.md's,
 * "Where each format goes"): -o FILE takes the only format, or the one
 * json or csv among several (the text formats then go to stdout); -o
 * FMT=FILE[,FMT=FILE...] names each format's file ("-" is stdout; a
 * format named there and not in -f is added); -o - puts every format on
 * stdout.  Two formats on stdout without -o - or FMT=-, two formats in
 * one file, or a plain FILE that fits no format: one line, exit 2.
 */
void outputs_parse(struct outputs *o, const char *formats, const char *unit,
		   const char *path, bool marks);

/*
 * -f from -o's name (docs/formats.md, "Where each format goes"): with
 * -f absent (!given), a plain -o FILE ending in .json or .csv takes that
 * format, one ending in .txt the command's text format (the table where
 * its default is json or csv); otherwise formats as they are.
 */
const char *outputs_formats(const char *formats, bool given, const char *path);

/* outputs_parse() of the output options @a (-f from -o's name, as
 * outputs_formats() says), with --header, --width and -v. */
void outputs_from_args(struct outputs *o, const struct output_args *a);

/* Call fn(path, arg) for each file -o names, split as outputs_parse()
 * splits it: FMT=FILE[,FMT=FILE...] at the commas that start another
 * FMT=, anything else one name (commas included). */
void outputs_each_path(const char *spec, void (*fn)(const char *path, void *arg),
		       void *arg);

/* A plain -o FILE whose extension (.json, .csv, .txt) names another
 * format than fmt, the one written there: one line, exit 2. */
void outputs_name_fits(const char *fmt, const char *path);

/* Can every format show results of this shape?  Exit 2 if not. */
void outputs_check(const struct outputs *o, const struct results *shape);

/*
 * Check every destination now (an unwritable path fails early, one
 * line, exit 2): a regular file or a new name is written to a temporary
 * twin next to it (NAME.tmp.XXXXXX); that twin is created and removed
 * here once, so a name too long for it, a directory that takes no new
 * file (/proc) or a missing directory is refused before anything runs.
 * An existing regular file must be writable, and writable by its owner
 * (mode bits: root, who bypasses them, does not overwrite a read-only
 * file).  A symlink is followed and its target replaced, the link kept;
 * "-", character devices and FIFOs are opened and written in place,
 * never replaced; a directory, a block device or a socket is refused.
 * Two names for
 * one file are refused.  Twins left by a killed run are reported, one
 * line each.
 */
void outputs_open(struct outputs *o);

/*
 * Render every format into its twin (or stream), then put each in
 * place with af_install() (lib/atomicfile.h): a new name by
 * rename; an existing file keeps its owner, mode, POSIX ACLs and
 * extended attributes (copied to the twin, then renamed), and where a
 * rename would lose something (more than one hard link, an owner or
 * attribute the twin cannot take) the complete twin's contents are
 * copied into it in place once the space is reserved.  When that
 * fails the old file stands and the complete twin is kept, named on
 * stderr (o->kept).  Standard output, devices and FIFOs are rendered in
 * memory and written so that a stop signal cuts a stalled reader short
 * (outstop.h).  Every write and the final flush, fsync and close are
 * checked, stdout included (docs/formats.md, "Where each format goes"):
 * 0; 1 when a stop signal cut a write short (an interrupted run); 2
 * after one line on stderr per failure otherwise.  Without o->measured
 * nothing appears unless everything can (compare, import: run them
 * again); with it, every destination that can be written is, and
 * o->written says which.
 */
int outputs_write(struct outputs *o, const struct results *r);

/*
 * After outputs_write() failed on measured results: unless the JSON
 * reached its destination or its complete twin was kept, save it (it
 * holds everything) to a new file lockbench-rescue-XXXXXX.json in the
 * failed destination's directory, else the current one, else $TMPDIR,
 * else /tmp, and name it in one line on stderr; unless a text format
 * was delivered or a stop signal cut a write short, print the table on
 * stdout.  Returns 2.
 */
int outputs_rescue(struct outputs *o, const struct results *r);

/*
 * One file written by the same rule, for the commands that write one
 * file of their own (system check -o, build-kernel-lock -o): check path
 * now as outputs_open() checks a destination (one line and exit 2 when
 * it cannot be written; with regular_only, "-", a character device and
 * a FIFO are refused too), then outfile_put() writes buf: through a
 * twin renamed into place when complete (a new file with mode & ~umask,
 * an existing one keeping its own), in place for "-" (standard output),
 * a character device or a FIFO.  0, or 2 after one line on stderr, with
 * no partial file left.
 */
void outfile_open(struct outdest *d, const char *path, bool regular_only);
int outfile_put(struct outdest *d, const void *buf, size_t len, unsigned mode);

/* Remove the temporary twins being written, if any: from a signal
 * handler before dying by the signal (exit() removes it by itself). */
void outputs_unlink_signal_safe(void);

#endif
