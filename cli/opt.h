/* SPDX-License-Identifier: MIT */
/*
 * The option engine: a command declares its options as one table of
 * `struct opt` rows (name, short name, type, default, range, help, the
 * field it sets), in the spirit of fio's option tables.  From the table
 * come getopt_long's tables, parsing and range checks, the defaults
 * (each default is a string parsed by the same parser as the command
 * line, so a default is written once), --help and the bash completion
 * (help.c); tests/e2e.sh and tests/e2e_cli.sh check the man page against
 * --help both ways.
 */
#ifndef LOCKBENCH_CLI_OPT_H
#define LOCKBENCH_CLI_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum opt_type {
	OPT_FLAG,      /* bool, no argument */
	OPT_STR,       /* const char *, checked where it is used */
	OPT_ENUM,      /* const char *, one of .choices */
	OPT_UINT,      /* unsigned long long in [min, max] (0x.. accepted) */
	OPT_SECONDS,   /* double seconds: 1.5, 500ms, 2s, 1m (plain = s) */
	OPT_NS,        /* unsigned long long ns: 250, 1us, 2ms (plain = ns) */
	OPT_MS,        /* unsigned long long ms: 10, 1s (plain = ms) */
	OPT_PERCENT,   /* double fraction of 1: "1%", "0.5%" or "1" */
	OPT_FACTOR,    /* double ratio above 1, at most max */
	OPT_MULTI,     /* struct opt_strlist: repeatable, in given order */
	OPT_CALL,      /* .set(dst, arg); arg NULL when .arg is NULL */
};

/* Every value of a repeatable option, in command-line order. */
struct opt_strlist {
	const char **v;
	unsigned n;
};

struct opt {
	const char *name;       /* long name, without "--" */
	char sname;             /* short name, 0: none */
	enum opt_type type;
	const char *arg;        /* metavar; NULL: takes no argument */
	const char *def;        /* default, parsed like the command line */
	const char *shown;      /* --help's default when not .def */
	double min, max;        /* range (numeric types) */
	size_t off;             /* offsetof() the field it sets */
	size_t given;           /* OPT_GIVEN(field): a bool set when given */
	const char *const *choices; /* OPT_ENUM: NULL-terminated */
	void (*set)(void *dst, const char *arg); /* OPT_CALL */
	const char *help;
	const char *group;      /* starts a --help section */
	/* Options this one contradicts (NULL-terminated names): giving both
	 * is refused with a line naming both. */
	const char *const *conflicts;
	/* May be a list: "0,100,1us" gives each value in turn (a sweep
	 * dimension, recorded in the command's opt_dims); the field holds
	 * the first.  A numeric row without it refuses a list. */
	bool list;
};

/* One value of a numeric row, as opt_set() stores it in the field. */
union opt_val {
	unsigned long long u;   /* OPT_UINT, OPT_NS, OPT_MS */
	double d;               /* OPT_SECONDS, OPT_PERCENT, OPT_FACTOR */
};

/* A list-valued row given with several values, each parsed. */
struct opt_dim {
	const struct opt *o;
	unsigned n;
	union opt_val *v;
};

/* Every such row of one command line, in command-line order. */
struct opt_dims {
	struct opt_dim *d;
	unsigned n;
};
void opt_dims_free(struct opt_dims *d);

/* The longest free text a TEXT, L, LABEL or NAME row takes (a label). */
#define OPT_TEXT_MAX 256

/* .given of a row: offsetof a bool of the destination, plus one. */
#define OPT_GIVEN(type, field) (offsetof(type, field) + 1)

/* The -h, --help row of every command: it sets the bool F of a T. */
#define OPT_HELP_ROW(T, F)                                                 \
	{.name = "help", .sname = 'h', .type = OPT_FLAG,                  \
	 .off = offsetof(T, F), .help = "this help"}

/* The table of command `name` made of the array `rows` (no .list rows,
 * nothing of the command line kept). */
#define OPT_CMD(name, rows) {name, rows, sizeof(rows) / sizeof((rows)[0]), 0, 0}

/* A command and its table. */
struct opt_cmd {
	const char *name;       /* "compare"; "" for the default command */
	const struct opt *opts;
	unsigned n;
	/* OPT_GIVEN-style offset of the struct opt_dims in dst that gets
	 * the lists of the .list rows; 0: the command has none. */
	size_t dims;
	/* OPT_GIVEN-style offset of a `const char **` in dst that gets what
	 * the command line said for each row (its argument, or its name for
	 * a row without one; NULL: not given), c->n of them, malloc'ed; 0:
	 * not kept. */
	size_t said;
};

/* Set every field to its parsed default (exit 2 on a broken default). */
void opt_defaults(const struct opt_cmd *c, void *dst);

/*
 * Parse argv[1..argc-1] into dst: options anywhere on the line, the
 * other words returned in order (malloc'ed, NULL-terminated, *npos of
 * them).  Bad usage: one line on stderr (with "did you mean" for a
 * misspelt long option) and exit 2; so is an option that takes a value
 * given twice (only OPT_MULTI rows repeat; a flag may) and two options
 * one of which lists the other in .conflicts.
 */
char **opt_parse(const struct opt_cmd *c, void *dst, int argc, char **argv,
		 int *npos);

/*
 * One value of a .list row split from `arg` (e.g. "0,100,1us"): each
 * element parsed into dst in turn (bad one, empty one or the same value
 * twice: one line, exit 2), the field left at the first.  0 for a
 * single value (no list); else the count, with the parsed values
 * (malloc'ed) in d.
 */
unsigned opt_set_list(const struct opt *o, void *dst, const char *arg,
		      struct opt_dim *d);

/*
 * The name a swept value of row o carries in results (JSON params, CSV
 * columns, --rows): the option's name with '_' for '-', and the unit of
 * a plain number when the name does not end in it ("long_hold_ms",
 * "stutter_s", "cs_ns").  Returns key.
 */
const char *opt_param_key(const struct opt *o, char *key, size_t len);

/* One option's value into dst (the parser of the command line). */
void opt_set(const struct opt *o, void *dst, const char *arg);

/* The option list of --help: sections, one line per option. */
void opt_help(const struct opt_cmd *c, FILE *f);
void opt_help_row(const struct opt *o, FILE *f);

/* The row named `name`, or NULL. */
const struct opt *opt_find(const struct opt_cmd *c, const char *name);

/* Whether the row's OPT_GIVEN bool is set in dst (false without one). */
bool opt_given(const struct opt *o, const void *dst);

/*
 * Durations: "1.5" in `plain_ns` units, or a number with a unit (ns, us,
 * ms, s, m).  0 and the value in ns, or -1.
 */
int opt_parse_duration(const char *s, double plain_ns, double *ns);

#endif
