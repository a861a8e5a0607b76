/* SPDX-License-Identifier: MIT */
/*
 * Renderers: one function per format, each only reading the results
 * model (no statistics computed here).
 */
#ifndef LOCKBENCH_RENDER_H
#define LOCKBENCH_RENDER_H

#include <stdio.h>

#include "../results/results.h"

/*
 * The unit of the text formats: a throughput, scaled (unit_scale()), or
 * UNIT_NS, the time one thread spends per operation (one lock + unlock
 * pair with its sections) in ns: threads * 1e9 / ops/s (docs/formats.md,
 * "Unit"; unit_point()); or the handovers (the lock passing from one
 * thread to another, docs/method.md, "Handovers"): UNIT_XFER per second,
 * UNIT_XFER_NS the ns per handover (the window over their count).
 */
enum unit { UNIT_OPS, UNIT_KOPS, UNIT_MOPS, UNIT_JPM, UNIT_NS, UNIT_XFER, UNIT_XFER_NS };

/* A unit of handovers, not of operations. */
#define UNIT_IS_XFER(u) ((u) == UNIT_XFER || (u) == UNIT_XFER_NS)

struct render_opts {
	enum unit unit;
	bool marks;        /* ?, ~, * marks and their notes (default on) */
	bool verbose;      /* -v: every note in full, and a one-line machine
			    * summary under them */
	unsigned width;    /* --width: split wider tables (0: never) */
	const char *rows;  /* --rows: the row dimension of a sweep (NULL: threads) */
};

struct format_info {
	const char *name;
	const char *example;  /* one line, for `list formats` */
	int (*render)(const struct results *r, const struct render_opts *o,
		      FILE *f);
	/* Can these results be shown this way? NULL: always.  0, or -EINVAL
	 * with one line in err (no "lockbench: " prefix). */
	int (*check)(const struct results *r, char *err, size_t len);
};

/* 0, or -EINVAL with the reason in err when `f` cannot show `r`. */
int format_check(const struct format_info *f, const struct results *r,
		 char *err, size_t len);

/*
 * Terminal-safe text (render_safe.c): every control character, newlines
 * included (C0, DEL, the C1 controls U+0080..U+009F: ESC, BEL, CSI), as
 * a visible escape (\n, \t, \x1b, \u009b), the rest as it is.
 * render_fputs_safe: s written to f so (0 or EOF); render_write_safe:
 * s[0..n) so.  render_safe: into
 * buf (NUL-terminated, cut at len); returns buf.  render_safe_stream: a
 * stream that writes to `to` with every control character but '\n'
 * escaped, for a text renderer's whole output (fclose() it; `to` stays
 * open).  JSON needs none of this: jansson escapes every control
 * character.
 */
int render_fputs_safe(const char *s, FILE *f);
int render_write_safe(FILE *f, const char *s, size_t n);
const char *render_safe(const char *s, char *buf, size_t len);
FILE *render_safe_stream(FILE *to);

/* Registered formats, NULL-terminated by name. */
extern const struct format_info formats[];
const struct format_info *format_find(const char *name);

/* Unit name ("kops/s", "ns") and the factor applied to ops/s (UNIT_NS:
 * 1, it is no factor; unit_point() converts). */
const char *unit_name(enum unit u);
/* The unit as a heading shows it ("JPM" for jpm). */
const char *unit_title(enum unit u);
double unit_scale(enum unit u);
/* Parse --unit; 0 or -EINVAL. */
int unit_parse(const char *s, enum unit *u);
/* The formats that show UNIT_NS (the others show a throughput). */
bool unit_shown_by(enum unit u, const char *format);

/*
 * A point's mean, std and change from its baseline in the unit of o
 * (NULL: not wanted).  With UNIT_NS, throughput rows turn into ns per
 * operation of one thread (the point's thread count, else the row's):
 * mean threads * 1e9 / mean ops/s, the std at the same CV, and the
 * change of that time (+ slower); rows of another metric keep theirs.
 * With UNIT_XFER(_NS) every row shows the point's handovers per second
 * (or ns per handover, at the same CV) and their change; NAN where the
 * point counted none.
 */
void unit_point(const struct results *r, const struct render_opts *o, unsigned row,
		const struct point *p, double *mean, double *std, double *rel);

/* The cell size of the box and speedup tables, and a printf into one
 * that truncates silently (render.c). */
#define RENDER_CELL 64
void render_cellf(char *cell, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The notes under a text format (render_notes.c; docs/formats.md,
 * "Notes"): with marks on, one brief note per kind, most important
 * first, each whole and wrapped at RENDER_WRAP columns, at most
 * RENDER_NOTE_LINES lines, the last counting the kinds cut; every note
 * in full with
 * o->verbose, and always under --no-marks (the mailing-list layouts).
 */
void render_notes(const struct results *r, const struct render_opts *o, FILE *f);
#define RENDER_NOTE_LINES 6
/* Under a text table, one line per kernel tree whose locks are in it:
 * tag, path, git describe and commit, dirty (render_trees.c). */
void render_trees(const struct results *r, FILE *f);
/* --map-topology: one line under a text table saying the placement was
 * made on another topology and mapped onto this machine's CPUs (the
 * header says it too: render.c); nothing when the run was not mapped. */
void render_mapped(const struct results *r, FILE *f);
/* "# kernel K, CPU C, lockbench V (git G): COMMAND" from the results'
 * provenance and machine (what is unknown is left out). */
void render_header(const struct results *r, FILE *f);
/* Notes under the text formats are wrapped at this column. */
#define RENDER_WRAP 72
/* ns with a unit that keeps 3 digits: "875 ns", "1.92 us", "16.0 ms". */
const char *render_ns(double ns, char *buf, size_t len);
/* "at 1 thread", "at 4 threads", "at fserver": where a row is. */
const char *render_at_row(const struct results *r, unsigned row, char *buf,
			  size_t len);
/* text on f, words wrapped at RENDER_WRAP, later lines indented; a
 * \001 in text is a space that never breaks. */
void render_wrapped(FILE *f, const char *text, unsigned indent);
/* The default of --width: a mail's 80 columns. */
#define RENDER_WIDTH 80

/*
 * A table too wide for o->width, split by variants (docs/formats.md,
 * "Width"): the next piece's variants in in[] (nvariants), starting at
 * *next (0 on the first call), so that fixed plus the vw[] of its
 * variants is at most o->width.  A piece holds the baselines its
 * variants are compared with, and at least one variant that is not a
 * baseline, however wide.  One piece of every variant when the table
 * fits or o->width is 0.  False once every variant has been shown.
 */
bool render_piece(const struct results *r, const struct render_opts *o,
		  const unsigned *vw, unsigned fixed, unsigned *next, bool *in);
/* Its vw[] and in[] (nvariants + 1 each, zeroed): 0, or -1 when out of
 * memory (both NULL). */
int render_piece_bufs(const struct results *r, unsigned **vw, bool **in);

/*
 * The significance mark after a point's change from its baseline, with
 * marks on (docs/formats.md, "Marks"): "#" significant, "~" tested and
 * not significant, "_" too few runs to judge (point.unjudged); "" with
 * marks off or no change to mark.
 */
const char *render_sig_mark(const struct render_opts *o, const struct point *p);

/* Row `row` has more threads than the machine had CPUs. */
bool render_oversubscribed(const struct results *r, unsigned row);

int render_table(const struct results *r, const struct render_opts *o, FILE *f);
int render_box(const struct results *r, const struct render_opts *o, FILE *f);
int render_lkp(const struct results *r, const struct render_opts *o, FILE *f);
int render_speedup(const struct results *r, const struct render_opts *o, FILE *f);
/* Exactly two variants (the baseline and one other). */
int speedup_check(const struct results *r, char *err, size_t len);
int render_mmtests(const struct results *r, const struct render_opts *o, FILE *f);
int render_lkpcmp(const struct results *r, const struct render_opts *o, FILE *f);
/* One baseline for every column (no per-lock pairing). */
int lkpcmp_check(const struct results *r, char *err, size_t len);
/* The text formats of a sweep: one table per combination (render_split.c). */
int render_table_split(const struct results *r, const struct render_opts *o, FILE *f);
int render_box_split(const struct results *r, const struct render_opts *o, FILE *f);
int render_lkp_split(const struct results *r, const struct render_opts *o, FILE *f);
int render_speedup_split(const struct results *r, const struct render_opts *o, FILE *f);
int render_mmtests_split(const struct results *r, const struct render_opts *o, FILE *f);
int speedup_check_split(const struct results *r, char *err, size_t len);
int render_lkpcmp_split(const struct results *r, const struct render_opts *o, FILE *f);
int render_csv(const struct results *r, const struct render_opts *o, FILE *f);
/* The JSON document of results_to_json() (results/json_write.c). */
int render_json(const struct results *r, const struct render_opts *o, FILE *f);

/*
 * The machine description (results' "machine", topology's
 * machine_describe()) as `lockbench system show` prints it, one line per
 * item, then one "warning: ..." line per noise source.  Returns the
 * number of warnings printed (>= 0), or -EIO when writing to @out failed.
 */
int render_machine_report(const json_t *desc, FILE *out);

/*
 * One line summing up the results' machine (its "environment" and
 * kernel: what compare checks) into @out: "machine: ...".  Nothing when
 * the results carry no environment (imports, older files).
 */
void render_machine_summary(const json_t *machine, FILE *out);

#endif
