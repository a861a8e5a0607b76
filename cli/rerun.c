// SPDX-License-Identifier: MIT
/*
 * `lockbench rerun FILE.json [options]`: run the configuration a results
 * file records again.  The command line comes from the file's
 * provenance.command, read word by word against the run option table
 * (options.c) by their exact names: a recorded word that is not a run
 * option (an abbreviation such as --outp, another command such as
 * `system` or `locktorture`, a stray argument) is refused, so a rerun
 * never does anything but a run.  Its output options (-o/--output,
 * --resume, and -f when it names several formats, which only made sense
 * with the recorded -o) are dropped: a rerun never writes over what it
 * reruns (give -o anew; given without -f, the recorded -f goes too and
 * the new name's extension chooses).  Its --plugin and --kernel-tree are
 * dropped too, and refused when the user gives none: a rerun loads no
 * code that the results file names (give them again after FILE.json).
 * Its run-order seed is kept (--seed from
 * provenance.seed when the command had none), and the options given
 * after FILE.json replace the recorded ones of the same name.  The new
 * process is this binary (/proc/self/exe), announced on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../output/render/render.h"
#include "../output/results/json_read.h"
#include "cmds.h"
#include "err.h"
#include "infile.h"
#include "outfile.h"

/* One option of a command line: its row, and its value (NULL: none). */
struct word {
	const struct opt *o;
	const char *val;
};

/* Where a command line comes from, for the messages. */
struct line {
	const char *file;   /* the results file */
	bool recorded;      /* its provenance.command, or what the user typed */
	bool had_run;       /* the recorded "run" word was seen */
};

static void __attribute__((noreturn)) refuse(const struct line *l, const char *what,
					     const char *w)
{
	if (l->recorded)
		cli_die("rerun (%s): recorded %s (%s): rerun replays only run options "
			"spelt in full", l->file, what, w);
	cli_die("rerun: %s (%s): give run options spelt in full", what, w);
}

/* The row of short option ch, or NULL. */
static const struct opt *short_row(char ch)
{
	const struct opt_cmd *t = run_options();

	for (unsigned i = 0; i < t->n; i++)
		if (t->opts[i].sname == ch)
			return &t->opts[i];
	return NULL;
}

/* "--name[=value]" at w[*i] into out; *i moves past a separate value. */
static struct word long_word(const struct line *l, char **w, unsigned n, unsigned *i)
{
	const char *s = w[*i] + 2, *eq = strchr(s, '=');
	char name[64];
	const struct opt *o;

	if ((size_t)(eq ? eq - s : (long)strlen(s)) >= sizeof(name))
		refuse(l, "unknown option", w[*i]);
	snprintf(name, sizeof(name), "%.*s", eq ? (int)(eq - s) : (int)strlen(s), s);
	o = opt_find(run_options(), name);
	if (!o)
		refuse(l, "unknown option", w[*i]);
	if (!o->arg && eq)
		refuse(l, "option that takes no value given one", w[*i]);
	if (!o->arg || eq)
		return (struct word){o, eq ? eq + 1 : NULL};
	if (*i + 1 >= n)
		refuse(l, "option without its value", w[*i]);
	return (struct word){o, w[++*i]};
}

/* A cluster "-qo FILE", "-ltas": its options appended to out[*k]. */
static void short_words(const struct line *l, char **w, unsigned n, unsigned *i,
			struct word *out, unsigned *k)
{
	for (const char *p = w[*i] + 1; *p; p++) {
		const struct opt *o = short_row(*p);

		if (!o)
			refuse(l, "unknown option", w[*i]);
		if (!o->arg) {
			out[(*k)++] = (struct word){o, NULL};
			continue;
		}
		if (p[1]) {
			out[(*k)++] = (struct word){o, p + 1};
			return;
		}
		if (*i + 1 >= n)
			refuse(l, "option without its value", w[*i]);
		out[(*k)++] = (struct word){o, w[++*i]};
		return;
	}
}

/* A word that is not an option: only the recorded "run", once. */
static void plain_word(struct line *l, const char *w)
{
	const struct command *cmd = command_find(w);

	if (l->recorded && !strcmp(w, "run") && !l->had_run) {
		l->had_run = true;
		return;
	}
	if (l->recorded && cmd)
		cli_die("rerun (%s): made by 'lockbench %s', not by a run", l->file, w);
	refuse(l, "argument that is not an option", w);
}

/* Room for the options of words w[0..n): a word gives at most one per
 * character ("-qvq"). */
static size_t room(char **w, unsigned n)
{
	size_t c = 1;

	for (unsigned i = 0; i < n; i++)
		c += strlen(w[i]);
	return c;
}

/*
 * The words w[0..n) as run options into out (room(w, n) entries).  Exits
 * 2 on anything else.  Returns the count.
 */
static unsigned read_line(struct line *l, char **w, unsigned n, struct word *out)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!strcmp(w[i], "--"))
			refuse(l, "end of options (a run takes no arguments)", w[i]);
		if (!strncmp(w[i], "--", 2))
			out[k++] = long_word(l, w, n, &i);
		else if (w[i][0] == '-' && w[i][1])
			short_words(l, w, n, &i, out, &k);
		else
			plain_word(l, w[i]);
	}
	return k;
}

/* Whether one of the user's options replaces the recorded option o:
 * the same row (not a repeatable one), or one the other contradicts. */
static bool replaced(const struct opt *o, const struct word *u, unsigned nu)
{
	for (unsigned i = 0; i < nu; i++) {
		if (u[i].o == o && o->type != OPT_MULTI)
			return true;
		for (unsigned k = 0; o->conflicts && o->conflicts[k]; k++)
			if (!strcmp(o->conflicts[k], u[i].o->name))
				return true;
		for (unsigned k = 0; u[i].o->conflicts && u[i].o->conflicts[k]; k++)
			if (!strcmp(u[i].o->conflicts[k], o->name))
				return true;
	}
	return false;
}

/* A recorded option a rerun leaves out: where the output went. */
static bool output_option(const struct word *w)
{
	return !strcmp(w->o->name, "output") || !strcmp(w->o->name, "resume") ||
	       (!strcmp(w->o->name, "format") && strchr(w->val, ','));
}

/* A recorded option that loads code: --plugin or --kernel-tree. */
static bool code_option(const struct word *w)
{
	return !strcmp(w->o->name, "plugin") || !strcmp(w->o->name, "kernel-tree");
}

/*
 * A results file is data someone may have sent: the code it names
 * (--plugin FILE.so, whose constructor runs when it loads, and
 * --kernel-tree DIR, built and loaded) is never loaded because the file
 * says so.  Recorded ones are left out; when the user names none on
 * this command line, the rerun is refused, saying what to give.
 */
static void check_code(const char *file, const struct word *r, unsigned nr,
		       const struct word *u, unsigned nu)
{
	for (unsigned i = 0; i < nu; i++)
		if (code_option(&u[i]))
			return;
	for (unsigned i = 0; i < nr; i++)
		if (code_option(&r[i])) {
			char v[256];
			size_t n = 0;

			/* the file's text, shown on one line */
			for (const char *c = r[i].val; *c && n < sizeof(v) - 1; c++)
				v[n++] = (unsigned char)*c < 32 || *c == 127 ? '?' : *c;
			v[n] = 0;
			cli_die("rerun (%s): recorded --%s %s loads code, and a rerun runs "
				"none that the results file names: give it on this command "
				"line (lockbench rerun %s --%s %s)", file, r[i].o->name, v,
				file, r[i].o->name, v);
		}
}

/* The recorded -f when the user gives -o and no -f: the new name's
 * extension chooses the format (docs/formats.md). */
static bool format_of_old_output(const struct word *w, const struct word *u, unsigned nu)
{
	bool out = false;

	if (strcmp(w->o->name, "format"))
		return false;
	for (unsigned i = 0; i < nu; i++) {
		if (!strcmp(u[i].o->name, "format"))
			return false;
		out |= !strcmp(u[i].o->name, "output");
	}
	return out;
}

struct input_id {
	const char *file;
	struct stat st;
};

/* One file -o names (outputs_each_path()): the input itself, by file
 * identity (a link, a symlink or another spelling of it too)? */
static void not_the_input(const char *path, void *arg)
{
	const struct input_id *in = arg;
	struct stat st;

	if (!stat(path, &st) && st.st_dev == in->st.st_dev && st.st_ino == in->st.st_ino)
		cli_die("rerun (%s): -o (%s) names the file being rerun; give another",
			in->file, path);
}

/* The user's -o must not name the input, however -o splits into files
 * (outputs_each_path(): a file name may hold commas). */
static void check_not_input(const char *file, const struct word *u, unsigned nu)
{
	struct input_id in = {.file = file};

	if (stat(file, &in.st))
		return;
	for (unsigned i = 0; i < nu; i++)
		if (!strcmp(u[i].o->name, "output"))
			outputs_each_path(u[i].val, not_the_input, &in);
}

/* The results file at path and the run command it records (*cmd,
 * borrowed from the returned document); exit 2 when it has none.  Only
 * the document without its runs is read: the command is all a rerun
 * needs, and the runs are most of a large file. */
static json_t *recorded(const char *path, json_t **cmd)
{
	char err[512];
	json_t *doc;

	infile_check("rerun", path);
	doc = results_json_skeleton(path, err, sizeof(err));
	if (!doc)
		cli_die("rerun: %s", err);
	*cmd = json_object_get(json_object_get(doc, "provenance"), "command");
	if (!json_is_array(*cmd) || json_array_size(*cmd) < 1)
		cli_die("rerun (%s): no provenance.command (written by an older lockbench "
			"or another tool)", path);
	return doc;
}

/* The recorded words (after the program's name), checked to be strings. */
static char **recorded_words(const char *path, json_t *cmd, unsigned *n)
{
	char **w;

	*n = (unsigned)json_array_size(cmd) - 1;
	w = cli_calloc(*n + 1, sizeof(*w));
	for (unsigned i = 0; i < *n; i++) {
		w[i] = (char *)json_string_value(json_array_get(cmd, i + 1));
		if (!w[i])
			cli_die("rerun (%s): provenance.command[%u] is not a string", path,
				i + 1);
	}
	return w;
}

/* Append option w as words to av[*k]: "--name" and its value apart. */
static void emit(char **av, size_t *k, const struct word *w, char *name, size_t len)
{
	snprintf(name, len, "--%s", w->o->name);
	av[(*k)++] = name;
	if (w->val)
		av[(*k)++] = (char *)w->val;
}

/* The new command line: the recorded options the user does not replace,
 * the seed, then the user's.  Names are kept in names[] (64 each). */
static size_t build(char **av, char (*names)[64], const struct word *r, unsigned nr,
		    const struct word *u, unsigned nu, json_t *seed, char *seedbuf)
{
	size_t k = 0, m = 0;
	bool has_seed = false;

	av[k++] = "lockbench";
	for (unsigned i = 0; i < nr; i++) {
		if (output_option(&r[i]) || code_option(&r[i]) || replaced(r[i].o, u, nu) ||
		    format_of_old_output(&r[i], u, nu))
			continue;
		has_seed |= !strcmp(r[i].o->name, "seed");
		emit(av, &k, &r[i], names[m++], 64);
	}
	for (unsigned i = 0; i < nu; i++)
		has_seed |= !strcmp(u[i].o->name, "seed");
	if (!has_seed && json_is_integer(seed)) {
		snprintf(seedbuf, 32, "%" PRIu64, (uint64_t)json_integer_value(seed));
		av[k++] = "--seed";
		av[k++] = seedbuf;
	}
	for (unsigned i = 0; i < nu; i++)
		emit(av, &k, &u[i], names[m++], 64);
	return k;
}

static void rerun_usage(void)
{
	printf("usage: lockbench rerun FILE.json [options]\n"
	       "Run the command recorded in FILE.json again, with its seed, without\n"
	       "its -o (give one); options after FILE.json replace recorded ones.\n"
	       "A recorded --plugin or --kernel-tree is never loaded from the file:\n"
	       "give them again after FILE.json (without, the rerun is refused).\n");
}

static int rerun(int argc, char **argv)
{
	struct line rl = {.file = argc > 1 ? argv[1] : NULL, .recorded = true};
	struct line ul = {.file = rl.file};
	json_t *doc, *cmd;
	unsigned nw, nr, nu;
	struct word *r, *u;
	char **w, **av, (*names)[64], seedbuf[32];
	size_t k;
	bool quiet = false;

	if (argc < 2)
		cli_die("rerun: no results file given; usage: lockbench rerun FILE.json "
			"[options]");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		rerun_usage();
		return 0;
	}
	doc = recorded(argv[1], &cmd);
	w = recorded_words(argv[1], cmd, &nw);
	r = cli_calloc(room(w, nw), sizeof(*r));
	u = cli_calloc(room(argv + 2, (unsigned)argc - 2), sizeof(*u));
	nr = read_line(&rl, w, nw, r);
	free(w);        /* the words themselves belong to doc */
	nu = read_line(&ul, argv + 2, (unsigned)argc - 2, u);
	check_not_input(argv[1], u, nu);
	check_code(argv[1], r, nr, u, nu);
	av = cli_calloc(2 * ((size_t)nr + nu) + 4, sizeof(*av));
	names = cli_calloc((size_t)nr + nu + 1, sizeof(*names));
	k = build(av, names, r, nr, u, nu,
		  json_object_get(json_object_get(doc, "provenance"), "seed"), seedbuf);
	for (size_t i = 0; i < k; i++)
		quiet |= !strcmp(av[i], "--quiet");
	for (size_t i = 0; i < k && !quiet; i++) {
		/* the words come from the file: shown terminal-safe */
		fputs(i ? " " : "lockbench: rerun: ", stderr);
		render_fputs_safe(av[i], stderr);
		fputs(i + 1 == k ? "\n" : "", stderr);
	}
	fflush(NULL);
	execv("/proc/self/exe", av);
	cli_die("rerun (%s): cannot start lockbench again: %s", argv[1], strerror(errno));
}

int cmd_rerun(int argc, char **argv)
{
	/* `rerun -- FILE`: "--" before the file ends nothing but itself */
	if (argc > 2 && !strcmp(argv[1], "--"))
		return rerun(argc - 1, argv + 1);
	return rerun(argc, argv);
}
