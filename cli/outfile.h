/* SPDX-License-Identifier: MIT */
/*
 * Where each requested format goes, and the one atomic writer of -o
 * (run, compare, import): the file is written to a temporary twin and
 * renamed into place only when complete, so an interrupted or failed
 * write never leaves a file that looks whole.
 */
#ifndef LOCKBENCH_CLI_OUTFILE_H
#define LOCKBENCH_CLI_OUTFILE_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "../output/render/render.h"
#include "opt.h"

struct outputs {
	const struct format_info *fmt[8];
	unsigned n;
	int to_file;            /* index of the format written to -o, or -1 */
	const char *path;       /* -o, or NULL */
	char tmp[PATH_MAX];
	FILE *file;             /* the open temporary twin, or NULL */
	struct render_opts ropts;
};

/*
 * The output options of the commands that render saved or imported
 * results (compare, import), and their table rows: struct T embeds a
 * struct output_args as member M; DEF is -f's default.
 */
struct output_args {
	const char *formats, *output, *unit;
	bool no_marks, help;
};

#define OUTPUT_ROWS(T, M, DEF)                                        \
	{.name = "format", .sname = 'f', .type = OPT_STR, .arg = "LIST",          \
	 .def = DEF, .off = offsetof(T, M.formats),                   \
	 .help = "table, box, lkp, speedup, csv, json"},                          \
	{.name = "output", .sname = 'o', .type = OPT_STR, .arg = "FILE",          \
	 .off = offsetof(T, M.output),                                    \
	 .help = "write JSON (or the only format) here"},                         \
	{.name = "unit", .type = OPT_STR, .arg = "UNIT", .def = "kops/s",         \
	 .off = offsetof(T, M.unit), .help = "ops/s, kops/s, Mops/s or jpm"}, \
	{.name = "no-marks", .type = OPT_FLAG, .off = offsetof(T, M.no_marks), \
	 .help = "no ? ~ * - marks and notes"},                                   \
	{.name = "help", .sname = 'h', .type = OPT_FLAG,                          \
	 .off = offsetof(T, M.help), .help = "this help"}

/* -f LIST, --unit, -o and --no-marks: JSON (or the first format) goes
 * to -o, the others to stdout.  Bad usage: one line, exit 2. */
void outputs_parse(struct outputs *o, const char *formats, const char *unit,
		   const char *path, bool marks);

/* Can every format show results of this shape?  Exit 2 if not. */
void outputs_check(const struct outputs *o, const struct results *shape);

/* Create the temporary twin now (an unwritable path fails early). */
void outputs_open(struct outputs *o);

/* Render every format; -o appears only when complete.  0 or 2. */
int outputs_write(struct outputs *o, const struct results *r);

#endif
