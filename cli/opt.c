/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "opt.h"
#include "suggest.h"

#define FIELD(dst, o, type) ((type *)((char *)(dst) + (o)->off))

_Static_assert(sizeof(union opt_val) == sizeof(unsigned long long) &&
	       sizeof(double) == sizeof(unsigned long long), "a numeric field is 8 bytes");

static unsigned long long parse_uint(const struct opt *o, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (!errno && end != s && (*end == 'e' || *end == 'E') && strncmp(s, "0x", 2)) {
		/* 1e5: a whole number written with an exponent. */
		double d = strtod(s, &end);

		if (d != floor(d) || d < 0 || d > 18446744073709549568.0)
			end = (char *)s;
		v = (unsigned long long)d;
	}
	if (end != s && !*end && *s != '-' && (errno == ERANGE || v > o->max))
		cli_die("--%s (%s): out of range (max %.0f)", o->name, s, o->max);
	if (errno || end == s || *end || *s == '-' || v < o->min || v > o->max)
		cli_die("--%s (%s): must be a whole number in [%.0f, %.0f]",
			o->name, s, o->min, o->max);
	return v;
}

int opt_parse_duration(const char *s, double plain_ns, double *ns)
{
	static const struct {
		const char *sfx;
		double ns;
	} units[] = {
		{"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"m", 60e9}, {"h", 3600e9},
	};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || *s == '-' || v < 0)
		return -1;
	if (!*end) {
		*ns = v * plain_ns;
		return 0;
	}
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].sfx)) {
			*ns = v * units[i].ns;
			return 0;
		}
	return -1;
}

static double parse_seconds(const struct opt *o, const char *s)
{
	double ns;

	if (opt_parse_duration(s, 1e9, &ns) || ns / 1e9 < o->min || ns / 1e9 > o->max)
		cli_die("--%s (%s): must be a number of seconds in [%g, %g] "
			"(or with a unit: 500ms, 2s, 1m)", o->name, s, o->min, o->max);
	return ns / 1e9;
}

/* A whole number of `unit_ns` (ns or ms): plain, or a duration with a unit. */
static unsigned long long parse_whole(const struct opt *o, const char *s,
				      double unit_ns, const char *unit)
{
	double ns;

	if (!strpbrk(s, "nums") || !strncmp(s, "0x", 2))
		return parse_uint(o, s);
	if (opt_parse_duration(s, unit_ns, &ns) || fmod(ns, unit_ns) != 0 ||
	    ns / unit_ns < o->min || ns / unit_ns > o->max)
		cli_die("--%s (%s): must be a whole number of %s in [%.0f, %.0f] "
			"(or with a unit: 1us, 2ms, 1s)", o->name, s, unit, o->min, o->max);
	return (unsigned long long)(ns / unit_ns);
}

static double parse_percent(const struct opt *o, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (*end == '%')
		end++;
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 100)
		cli_die("--%s (%s): must be a percentage in (0, 100], e.g. 1%%",
			o->name, s);
	return v / 100;
}

static double parse_factor(const struct opt *o, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 1 || v > o->max)
		cli_die("--%s (%s): must be a ratio above 1, e.g. 1.5", o->name, s);
	return v;
}

static const char *parse_enum(const struct opt *o, const char *s)
{
	char valid[256] = "", hint[96];
	unsigned n = 0;

	for (; o->choices[n]; n++) {
		if (!strcmp(o->choices[n], s))
			return s;
		snprintf(valid + strlen(valid), sizeof(valid) - strlen(valid), "%s%s",
			 n ? ", " : "", o->choices[n]);
	}
	cli_die("--%s (%s): %svalid: %s", o->name, s,
		suggest_text(hint, sizeof(hint), s, o->choices, n), valid);
}

static void add_multi(struct opt_strlist *l, const char *arg)
{
	const char **v = realloc(l->v, (l->n + 1) * sizeof(*v));

	if (!v)
		cli_die("out of memory");
	l->v = v;
	l->v[l->n++] = arg;
}

void opt_set(const struct opt *o, void *dst, const char *arg)
{
	switch (o->type) {
	case OPT_FLAG: *FIELD(dst, o, bool) = true; break;
	case OPT_STR: *FIELD(dst, o, const char *) = arg; break;
	case OPT_ENUM: *FIELD(dst, o, const char *) = parse_enum(o, arg); break;
	case OPT_UINT: *FIELD(dst, o, unsigned long long) = parse_uint(o, arg); break;
	case OPT_SECONDS: *FIELD(dst, o, double) = parse_seconds(o, arg); break;
	case OPT_NS: *FIELD(dst, o, unsigned long long) = parse_whole(o, arg, 1, "ns"); break;
	case OPT_MS: *FIELD(dst, o, unsigned long long) = parse_whole(o, arg, 1e6, "ms"); break;
	case OPT_PERCENT: *FIELD(dst, o, double) = parse_percent(o, arg); break;
	case OPT_FACTOR: *FIELD(dst, o, double) = parse_factor(o, arg); break;
	case OPT_MULTI: add_multi(FIELD(dst, o, struct opt_strlist), arg); break;
	case OPT_CALL: o->set(dst, arg); break;
	}
}

static bool numeric(const struct opt *o)
{
	return o->type == OPT_UINT || o->type == OPT_SECONDS || o->type == OPT_NS ||
	       o->type == OPT_MS || o->type == OPT_PERCENT || o->type == OPT_FACTOR;
}

unsigned opt_set_list(const struct opt *o, void *dst, const char *arg,
		      struct opt_dim *d)
{
	char *copy, *save = NULL, *was;
	unsigned n = 1;
	size_t len = strlen(arg);

	if (!strchr(arg, ',')) {
		opt_set(o, dst, arg);
		return 0;
	}
	if (!o->list || !numeric(o))
		cli_die("--%s (%s): takes one value, not a list", o->name, arg);
	if (*arg == ',' || arg[len - 1] == ',' || strstr(arg, ",,"))
		cli_die("--%s (%s): empty element in the list", o->name, arg);
	for (const char *p = arg; *p; p++)
		n += *p == ',';
	copy = cli_strdup(arg);
	*d = (struct opt_dim){.o = o, .v = cli_calloc(n, sizeof(*d->v))};
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		opt_set(o, dst, t);
		/* Every numeric field is one of union opt_val's members. */
		memcpy(&d->v[d->n], FIELD(dst, o, char), sizeof(*d->v));
		/* The elements before t, one NUL apart in copy (none is empty). */
		was = copy;
		for (unsigned i = 0; i < d->n; i++, was += strlen(was) + 1)
			if (!memcmp(&d->v[i], &d->v[d->n], sizeof(*d->v)))
				cli_die("--%s (%s): %s and %s are the same value; "
					"give each once", o->name, arg, was, t);
		d->n++;
	}
	memcpy(FIELD(dst, o, char), &d->v[0], sizeof(*d->v));
	free(copy);
	return d->n;
}

const char *opt_param_key(const struct opt *o, char *key, size_t len)
{
	const char *unit = o->type == OPT_MS ? "_ms" : o->type == OPT_SECONDS ? "_s" :
			   o->type == OPT_NS ? "_ns" : "";
	size_t n, u = strlen(unit);

	snprintf(key, len, "%s", o->name);
	for (char *p = key; *p; p++)
		*p = *p == '-' ? '_' : *p;
	n = strlen(key);
	if (u && (n < u || strcmp(key + n - u, unit)))
		snprintf(key + n, len - n, "%s", unit);
	return key;
}

void opt_dims_free(struct opt_dims *d)
{
	for (unsigned i = 0; i < d->n; i++)
		free(d->d[i].v);
	free(d->d);
	*d = (struct opt_dims){0};
}

void opt_defaults(const struct opt_cmd *c, void *dst)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->opts[i].def)
			opt_set(&c->opts[i], dst, c->opts[i].def);
}

bool opt_given(const struct opt *o, const void *dst)
{
	return o->given && *(const bool *)((const char *)dst + o->given - 1);
}

const struct opt *opt_find(const struct opt_cmd *c, const char *name)
{
	for (unsigned i = 0; i < c->n; i++)
		if (!strcmp(c->opts[i].name, name))
			return &c->opts[i];
	return NULL;
}

/* getopt_long's tables: the long option's val is 256 + its row. */
static void getopt_tables(const struct opt_cmd *c, struct option *lo, char *so)
{
	size_t k = 0;

	so[k++] = '+';
	for (unsigned i = 0; i < c->n; i++) {
		const struct opt *o = &c->opts[i];

		lo[i] = (struct option){o->name, o->arg ? required_argument : no_argument,
					NULL, 256 + (int)i};
		if (o->sname) {
			so[k++] = o->sname;
			if (o->arg)
				so[k++] = ':';
		}
	}
	lo[c->n] = (struct option){0};
	so[k] = 0;
}

static const struct opt *row_of(const struct opt_cmd *c, int id)
{
	for (unsigned i = 0; id < 256 && i < c->n; i++)
		if (c->opts[i].sname == id)
			return &c->opts[i];
	return id >= 256 && id < 256 + (int)c->n ? &c->opts[id - 256] : NULL;
}

/* Unknown option or missing argument: one line, a close name if any. */
static void __attribute__((noreturn)) bad_option(const struct opt_cmd *c,
						 const char *word, int shortopt)
{
	const char *names[256], *cmd = c->name, *close = NULL;
	const char *sep = *cmd ? " " : "", *colon = *cmd ? ": " : "";
	char name[64], hint[96] = "";
	unsigned n = 0;

	for (unsigned i = 0; i < c->n && n < 256; i++)
		names[n++] = c->opts[i].name;
	if (shortopt)
		cli_die("%s%s-%c: unknown option or missing argument; "
			"try 'lockbench %s%s--help'", cmd, colon, shortopt, cmd, sep);
	if (!strncmp(word, "--", 2)) {
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(word + 2, "="), word + 2);
		close = opt_find(c, name) ? NULL : suggest(name, names, n);
	}
	if (close)
		snprintf(hint, sizeof(hint), "did you mean --%s? ", close);
	cli_die("%s%s%s: unknown option or missing argument; %stry 'lockbench %s%s--help'",
		cmd, colon, word, hint, cmd, sep);
}

/* What the command line said for each row, to refuse repeats and
 * contradictions: the argument (or the option's name for a flag). */
static void note_given(const struct opt_cmd *c, const char **said,
		       const struct opt *o, const char *arg)
{
	const char *now = arg ? arg : o->name;
	size_t i = (size_t)(o - c->opts);

	if (said[i] && o->arg && o->type != OPT_MULTI)
		cli_die("--%s given twice (%s, %s): give it once", o->name, said[i], now);
	said[i] = now;
}

static void check_conflicts(const struct opt_cmd *c, const char **said)
{
	for (unsigned i = 0; i < c->n; i++)
		for (unsigned k = 0; said[i] && c->opts[i].conflicts &&
		     c->opts[i].conflicts[k]; k++) {
			const struct opt *x = opt_find(c, c->opts[i].conflicts[k]);
			size_t j = x ? (size_t)(x - c->opts) : 0;

			if (x && said[j])
				cli_die("--%s%s%s%s contradicts --%s%s%s%s: give one",
					c->opts[i].name, c->opts[i].arg ? " (" : "",
					c->opts[i].arg ? said[i] : "", c->opts[i].arg ? ")" : "",
					x->name, x->arg ? " (" : "", x->arg ? said[j] : "",
					x->arg ? ")" : "");
		}
}

/*
 * The last parse's words, and its tables while it runs, held here too: a
 * command that dies over them (cli_die() exits from deep in the call)
 * leaves them to the end of the process, and LeakSanitizer counts memory
 * no global reaches as leaked.  volatile: a store never read is otherwise
 * dropped.
 */
static char **volatile last_pos;
static void *volatile parse_tables[3];

/*
 * The comma-separated part of a list-valued argument, or NULL when the
 * row takes no list: a LIST or "X,.." metavar (all of it), LOCK.KEY=V
 * (after the '='), a placement POLICY (after the ':').
 */
static const char *list_part(const struct opt *o, const char *arg)
{
	const char *m = o->arg;

	if (!m || (!strstr(m, "LIST") && !strstr(m, ",..") && !strchr(m, '=') &&
		   strcmp(m, "POLICY")))
		return NULL;
	if (strchr(m, '=') || !strcmp(m, "POLICY")) {
		const char *at = strchr(arg, !strcmp(m, "POLICY") ? ':' : '=');

		return at ? at + 1 : NULL;
	}
	return arg;
}

/* Every list option: no empty element ("a,", ",a", "a,,b", ""), and no
 * element written twice ("cycles,cycles"); one line, exit 2. */
static void check_items(const struct opt *o, const char *arg)
{
	const char *l = list_part(o, arg);
	size_t len;

	if (!l)
		return;
	len = strlen(l);
	if (!len || *l == ',' || l[len - 1] == ',' || strstr(l, ",,"))
		cli_die("--%s (%s): empty element in the list", o->name, arg);
	for (const char *a = l; *a; a += strcspn(a, ","), a += *a == ',') {
		size_t n = strcspn(a, ",");

		for (const char *b = a + n; *b; b += strcspn(b, ",")) {
			b += *b == ',';
			if (strcspn(b, ",") == n && !strncmp(a, b, n))
				cli_die("--%s (%s): %.*s given twice; give each once",
					o->name, arg, (int)n, a);
		}
	}
}

/* Free text that heads a table column or names a row (--label TEXT,
 * --row-name NAME, --baseline LABEL, import's --label L): at most
 * OPT_TEXT_MAX characters and no control character (a newline or an
 * escape sequence would break the table's lines, or reach the
 * terminal), else one line, exit 2. */
static void check_text(const struct opt *o, const char *arg)
{
	static const char *const kinds[] = {"TEXT", "L", "LABEL", "NAME", NULL};
	size_t n = strlen(arg);
	bool text = false;

	for (unsigned i = 0; o->type == OPT_STR && kinds[i]; i++)
		text |= !strcmp(o->arg, kinds[i]);
	if (text && n > OPT_TEXT_MAX)
		cli_die("--%s (%.32s...): %zu characters; at most %d (it names a "
			"table column or row)", o->name, arg, n, OPT_TEXT_MAX);
	for (size_t i = 0; text && i < n; i++)
		if ((unsigned char)arg[i] < 0x20 || arg[i] == 0x7f)
			cli_die("--%s: a control character (0x%02x) at byte %zu; it names a "
				"table column or row", o->name, (unsigned char)arg[i], i + 1);
}

/* A value that may be a list; a list lands in the command's opt_dims. */
static void add_dim(const struct opt_cmd *c, void *dst, const struct opt *o,
		    const char *arg)
{
	struct opt_dims *ds = c->dims ? (struct opt_dims *)((char *)dst + c->dims - 1) : NULL;
	struct opt_dim d;

	if (!o->list || !ds) {
		if (numeric(o) && strchr(arg, ','))
			cli_die("--%s (%s): takes one value, not a list", o->name, arg);
		opt_set(o, dst, arg);
		return;
	}
	if (!opt_set_list(o, dst, arg, &d))
		return;
	ds->d = realloc(ds->d, (ds->n + 1) * sizeof(*ds->d));
	if (!ds->d)
		cli_die("out of memory");
	ds->d[ds->n++] = d;
}

char **opt_parse(const struct opt_cmd *c, void *dst, int argc, char **argv,
		 int *npos)
{
	const char **said = cli_calloc(c->n, sizeof(*said));
	struct option *lo = cli_calloc(c->n + 1, sizeof(*lo));
	char *so = cli_calloc(2 * c->n + 2, 1);
	char **pos = cli_calloc((size_t)argc + 1, sizeof(char *));
	int id, n = 0;

	parse_tables[0] = said, parse_tables[1] = lo, parse_tables[2] = so;
	getopt_tables(c, lo, so);
	optind = 0;             /* glibc: start afresh, even on a second parse */
	opterr = 0;
	for (;;) {
		const struct opt *o;
		int before = optind ? optind : 1;

		id = getopt_long(argc, argv, so, lo, NULL);
		if (id == -1) {
			/* "--" (consumed by getopt): every word after it is not an
			 * option (POSIX getopt, Utility Syntax Guideline 10). */
			if (optind > before && !strcmp(argv[optind - 1], "--")) {
				while (optind < argc && n < argc)
					pos[n++] = argv[optind++];
				break;
			}
			if (optind >= argc || optind < before || n >= argc)
				break;
			pos[n++] = argv[optind++];
			continue;
		}
		o = row_of(c, id);
		if (id == '?' || !o)
			bad_option(c, argv[optind - 1], optopt && optopt < 256 ? optopt : 0);
		note_given(c, said, o, o->arg ? optarg : NULL);
		if (o->arg) {
			check_items(o, optarg);
			check_text(o, optarg);
		}
		if (o->arg && o->type != OPT_CALL)
			add_dim(c, dst, o, optarg);
		else
			opt_set(o, dst, optarg);
		if (o->given)
			*(bool *)((char *)dst + o->given - 1) = true;
	}
	check_conflicts(c, said);
	if (c->said)
		*(const char ***)((char *)dst + c->said - 1) = said;
	else
		free(said);
	free(lo);
	free(so);
	parse_tables[0] = parse_tables[1] = parse_tables[2] = NULL;
	last_pos = pos;
	*npos = n;
	return pos;
}

void opt_help_row(const struct opt *o, FILE *f)
{
	const char *def = o->shown ? o->shown : o->def;
	char lhs[64];

	if (o->sname)
		snprintf(lhs, sizeof(lhs), "-%c, --%s%s%s", o->sname, o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	else
		snprintf(lhs, sizeof(lhs), "  --%s%s%s", o->name,
			 o->arg ? " " : "", o->arg ? o->arg : "");
	fprintf(f, "  %-28s %s", lhs, o->help);
	if (def && *def)
		fprintf(f, " [%s]", def);
	fputc('\n', f);
}

void opt_help(const struct opt_cmd *c, FILE *f)
{
	for (unsigned i = 0; i < c->n; i++) {
		if (c->opts[i].group)
			fprintf(f, "\n%s:\n", c->opts[i].group);
		opt_help_row(&c->opts[i], f);
	}
}
