// SPDX-License-Identifier: MIT
/*
 * ltlog.c - parse kernel locktorture logs.  See ltlog.h for the formats.
 *
 * The log is cut into lines, each line is classified on its own
 * (prefixes, then a stats, start or end body), and the classified lines
 * drive a small state machine that builds the runs.  Every byte is read
 * through a bounded cursor: the buffer need not be NUL-terminated and
 * may hold anything.
 */
#define _GNU_SOURCE
#include "ltlog.h"
#include "../../output/stats/stats.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A read position inside one line: [p, e). */
struct cur {
	const char *p;
	const char *e;
};

enum lt_kind { LT_NONE, LT_STATS, LT_START, LT_END, LT_STOP };

/* What one line says, before it is attached to a run. */
struct lt_line {
	enum lt_kind kind;
	double t;		/* timestamp, NAN if none */
	char type[64];		/* from a "TYPE-torture:" prefix, or "" */
	bool reads;		/* LT_STATS: a "Reads" line */
	struct lt_sample s;	/* LT_STATS: the numbers */
	bool debug;		/* LT_START/LT_END: "[debug]" */
	char status[32];	/* LT_END: "SUCCESS", ... */
	struct cur params;	/* LT_START/LT_END: parameter text */
};

/* Largest number of prefix items (syslog, level, brackets) per line. */
#define LT_MAX_PREFIXES 6
/* How far into a line a syslog "kernel:" tag is looked for. */
#define LT_SYSLOG_SPAN 160

/* True when the cursor has no byte left. */
static bool cur_done(const struct cur *c)
{
	return c->p >= c->e;
}

/* Skip blanks (space, tab). */
static void skip_ws(struct cur *c)
{
	while (c->p < c->e && (*c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/* If the cursor starts with @lit, consume it and return true. */
static bool eat(struct cur *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->e - c->p) < n || memcmp(c->p, lit, n) != 0)
		return false;
	c->p += n;
	return true;
}

/* If the next byte is @ch, consume it and return true. */
static bool eat_ch(struct cur *c, char ch)
{
	if (cur_done(c) || *c->p != ch)
		return false;
	c->p++;
	return true;
}

/* eat() between blanks: the blanks on both sides are consumed either way. */
static bool eat_w(struct cur *c, const char *lit)
{
	bool r;

	skip_ws(c);
	r = eat(c, lit);
	skip_ws(c);
	return r;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/*
 * Consume one or more decimal digits into *@v.  Returns false, consuming
 * nothing, when there is no digit or the value overflows long long.
 */
static bool eat_num(struct cur *c, long long *v)
{
	const char *p = c->p;
	long long x = 0;

	if (p >= c->e || !is_digit(*p))
		return false;
	for (; p < c->e && is_digit(*p); p++) {
		int d = *p - '0';

		if (x > (LLONG_MAX - d) / 10)
			return false;
		x = x * 10 + d;
	}
	*v = x;
	c->p = p;
	return true;
}

/*
 * Consume a dmesg timestamp "[  444.720153]" and store it in seconds.
 * Consumes nothing and returns false for any other text.
 */
static bool eat_timestamp(struct cur *c, double *t)
{
	struct cur k = *c;
	long long sec, frac = 0;
	double scale = 1.0;

	if (!eat_ch(&k, '['))
		return false;
	skip_ws(&k);
	if (!eat_num(&k, &sec))
		return false;
	if (eat_ch(&k, '.')) {
		/* Keep at most 9 fractional digits; ignore the rest. */
		for (; !cur_done(&k) && is_digit(*k.p); k.p++) {
			if (scale < 1e9) {
				frac = frac * 10 + (*k.p - '0');
				scale *= 10.0;
			}
		}
	}
	skip_ws(&k);
	if (!eat_ch(&k, ']'))
		return false;
	*t = (double)sec + (double)frac / scale;
	*c = k;
	return true;
}

/*
 * Consume any other bracket group ("[   T35]", "[    C1]", a dmesg -T
 * date) up to its ']' if it holds no '[' and is short.  Returns false,
 * consuming nothing, otherwise.
 */
static bool eat_bracket(struct cur *c)
{
	const char *p = c->p;

	if (p >= c->e || *p != '[')
		return false;
	for (p++; p < c->e && p - c->p < 64; p++) {
		if (*p == '[')
			return false;
		if (*p == ']') {
			c->p = p + 1;
			return true;
		}
	}
	return false;
}

/* Consume a console log level "<1>"; false (nothing consumed) otherwise. */
static bool eat_loglevel(struct cur *c)
{
	struct cur k = *c;
	long long lvl;

	if (!eat_ch(&k, '<') || !eat_num(&k, &lvl) || !eat_ch(&k, '>'))
		return false;
	*c = k;
	return true;
}

/*
 * Consume a syslog/journal prefix ending in "kernel:" ("Feb  3 10:00:00
 * host kernel: ") if one occurs near the start of the line.
 */
static bool eat_syslog(struct cur *c)
{
	static const char tag[] = "kernel:";
	const char *p;

	for (p = c->p; p < c->e && p - c->p < LT_SYSLOG_SPAN; p++) {
		if ((size_t)(c->e - p) >= sizeof(tag) - 1 &&
		    memcmp(p, tag, sizeof(tag) - 1) == 0) {
			c->p = p + sizeof(tag) - 1;
			return true;
		}
	}
	return false;
}

/*
 * Consume the quote markers of a mail reply ("> > ") and the blanks
 * around them, so a quoted log reads like the log itself.
 */
static void skip_quote(struct cur *c)
{
	while (!cur_done(c) && (*c->p == '>' || *c->p == ' ' || *c->p == '\t'))
		c->p++;
}

/*
 * Consume the line prefixes: syslog tag, log level, timestamp (the
 * first one seen goes to *@t), caller id and other bracket groups, with
 * the blanks between them.
 */
static void eat_prefixes(struct cur *c, double *t)
{
	bool syslog_done = false;
	int i;

	for (i = 0; i < LT_MAX_PREFIXES; i++) {
		double ts;

		skip_ws(c);
		if (eat_timestamp(c, &ts)) {
			if (isnan(*t))
				*t = ts;
			continue;
		}
		if (eat_bracket(c) || eat_loglevel(c))
			continue;
		if (!syslog_done && eat_syslog(c)) {
			syslog_done = true;
			continue;
		}
		break;
	}
	skip_ws(c);
}

static bool is_type_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
	       is_digit(ch) || ch == '_';
}

/*
 * Consume "TYPE-torture:" and copy TYPE into @type (truncated to fit
 * @size).  Returns false, consuming nothing, when absent.
 */
static bool eat_type(struct cur *c, char *type, size_t size)
{
	struct cur k = *c;
	size_t n;

	while (!cur_done(&k) && is_type_char(*k.p))
		k.p++;
	n = (size_t)(k.p - c->p);
	if (n == 0 || !eat(&k, "-torture:"))
		return false;
	if (n >= size)
		n = size - 1;
	memcpy(type, c->p, n);
	type[n] = '\0';
	*c = k;
	return true;
}

/*
 * Parse a stats body "Writes:  Total: N  Max/Min: A/B [???]  Fail: F
 * [!!!]" filling @l.  Blanks are optional (archives squeeze them); the
 * body must end the line.  Returns false for anything else.
 */
static bool parse_stats(struct cur *c, struct lt_line *l)
{
	struct lt_sample *s = &l->s;

	if (eat(c, "Writes"))
		l->reads = false;
	else if (eat(c, "Reads"))
		l->reads = true;
	else
		return false;
	if (!eat_w(c, ":") || !eat_w(c, "Total:") || !eat_num(c, &s->total) ||
	    !eat_w(c, "Max/Min:") || !eat_num(c, &s->max) || !eat_ch(c, '/') ||
	    !eat_num(c, &s->min))
		return false;
	s->unfair = eat_w(c, "???");
	if (!eat_w(c, "Fail:") || !eat_num(c, &s->fail))
		return false;
	s->failed = eat_w(c, "!!!");
	return cur_done(c);
}

/* Copy the upper-case word at @c ("SUCCESS", "LOCK_HOTPLUG") into @out. */
static void eat_status(struct cur *c, char *out, size_t size)
{
	size_t n = 0;

	while (!cur_done(c) && ((*c->p >= 'A' && *c->p <= 'Z') ||
				*c->p == '_')) {
		if (n + 1 < size)
			out[n++] = *c->p;
		c->p++;
	}
	out[n] = '\0';
}

/*
 * Find "KEY=" at the start of @params or after a blank; on success
 * store the text after '=' in *@val and return true.
 */
static bool find_param(struct cur params, const char *key, struct cur *val)
{
	size_t n = strlen(key);
	const char *p;

	for (p = params.p; p < params.e; p++) {
		if (p != params.p && p[-1] != ' ' && p[-1] != '\t')
			continue;
		if ((size_t)(params.e - p) > n && memcmp(p, key, n) == 0 &&
		    p[n] == '=') {
			val->p = p + n + 1;
			val->e = params.e;
			return true;
		}
	}
	return false;
}

/* The int value of KEY= in @params, or -1 if absent or not a number. */
static int param_int(struct cur params, const char *key)
{
	struct cur v;
	long long x;

	if (!find_param(params, key, &v) || !eat_num(&v, &x) || x > INT_MAX)
		return -1;
	if (!cur_done(&v) && *v.p != ' ' && *v.p != '\t')
		return -1;
	return (int)x;
}

/*
 * Parse a "--- Start of test[ [debug]]: PARAMS" or "--- End of test:
 * STATUS[ [debug]]: PARAMS" body into @l.  Only locktorture's (PARAMS
 * holding nwriters_stress=) are accepted.
 */
static bool parse_startend(struct cur *c, struct lt_line *l)
{
	struct cur v;

	if (!eat(c, "---"))
		return false;
	skip_ws(c);
	if (eat(c, "Start of test")) {
		l->kind = LT_START;
	} else if (eat(c, "End of test")) {
		l->kind = LT_END;
		if (!eat_w(c, ":"))
			return false;
		eat_status(c, l->status, sizeof(l->status));
		if (!l->status[0])
			return false;
	} else {
		return false;
	}
	l->debug = eat_w(c, "[debug]");
	if (!eat_w(c, ":"))
		return false;
	l->params = *c;
	return find_param(l->params, "nwriters_stress", &v);
}

/* Does the line say the stats kthread stopped (verbose torture output)? */
static bool says_stopping(struct cur c)
{
	static const char *const says[] = {"lock_torture_stats is stopping",
					   "Stopping lock_torture_stats"};
	size_t n = (size_t)(c.e - c.p);

	for (unsigned i = 0; i < sizeof(says) / sizeof(says[0]); i++)
		if (memmem(c.p, n, says[i], strlen(says[i])))
			return true;
	return false;
}

/*
 * Classify one line (without its '\n'; a trailing '\r' and blanks are
 * ignored) into @l.  l->kind is LT_NONE for anything not understood.
 */
static void parse_line(const char *p, const char *e, struct lt_line *l)
{
	struct cur c = { p, e }, body;

	memset(l, 0, sizeof(*l));
	l->t = NAN;
	while (c.e > c.p && (c.e[-1] == '\r' || c.e[-1] == ' ' ||
			     c.e[-1] == '\t'))
		c.e--;
	skip_quote(&c);
	eat_prefixes(&c, &l->t);
	if (eat_type(&c, l->type, sizeof(l->type)))
		skip_ws(&c);
	body = c;
	if (parse_stats(&body, l)) {
		l->kind = LT_STATS;
		l->s.t = l->t;
		return;
	}
	body = c;
	if (parse_startend(&body, l))
		return;
	l->kind = says_stopping(c) ? LT_STOP : LT_NONE;
}

/*
 * Return @arr, or a larger reallocation of it, with room for element @n
 * (capacity *@cap, in elements of @elem bytes; updated on growth).
 * Returns NULL when out of memory; @arr is then still valid.
 */
static void *grow(void *arr, unsigned *cap, unsigned n, size_t elem)
{
	unsigned ncap;
	void *p;

	if (n < *cap)
		return arr;
	if (*cap > UINT_MAX / 2)
		return NULL;
	ncap = *cap ? *cap * 2 : 8;
	if ((size_t)ncap > SIZE_MAX / elem)
		return NULL;
	p = realloc(arr, (size_t)ncap * elem);
	if (p)
		*cap = ncap;
	return p;
}

/* Capacities of one run's sample arrays. */
struct lt_caps {
	unsigned w, r;
};

/*
 * Build state: the log under construction and the array capacities.
 * The current run (the one receiving stats lines) is always the last.
 */
struct lt_builder {
	struct lt_log *log;
	struct lt_caps *caps;		/* one per run */
	unsigned cap_runs, cap_caps;
	unsigned nsamples;
};

/* The run receiving stats lines, or NULL before the first one. */
static struct lt_run *cur_run(const struct lt_builder *b)
{
	return b->log->nruns ? &b->log->runs[b->log->nruns - 1] : NULL;
}

/* Copy the text of @c into @out (size @size), truncating, NUL-ending. */
static void copy_cur(char *out, size_t size, struct cur c)
{
	size_t n = (size_t)(c.e - c.p);

	if (n >= size)
		n = size - 1;
	memcpy(out, c.p, n);
	out[n] = '\0';
}

/* Fill @r's parameters from a start or end line @l. */
static void run_set_params(struct lt_run *r, const struct lt_line *l)
{
	if (l->type[0])
		memcpy(r->type, l->type, sizeof(r->type));
	copy_cur(r->params, sizeof(r->params), l->params);
	r->nwriters = param_int(l->params, "nwriters_stress");
	r->nreaders = param_int(l->params, "nreaders_stress");
	r->stat_interval = param_int(l->params, "stat_interval");
	r->debug = l->debug;
}

/*
 * Append an empty run whose first line is @lineno; it becomes current.
 * Returns 0 or -ENOMEM.
 */
static int new_run(struct lt_builder *b, unsigned lineno)
{
	struct lt_log *log = b->log;
	struct lt_caps *caps;
	struct lt_run *r;

	r = grow(log->runs, &b->cap_runs, log->nruns, sizeof(*r));
	if (!r)
		return -ENOMEM;
	log->runs = r;
	caps = grow(b->caps, &b->cap_caps, log->nruns, sizeof(*caps));
	if (!caps)
		return -ENOMEM;
	b->caps = caps;
	r = &log->runs[log->nruns];
	memset(r, 0, sizeof(*r));
	r->nwriters = r->nreaders = r->stat_interval = -1;
	r->start_t = NAN;
	r->first_line = lineno;
	b->caps[log->nruns].w = b->caps[log->nruns].r = 0;
	log->nruns++;
	return 0;
}

/*
 * Does the stats line @l begin a run of its own?  Yes when there is no
 * run yet, when the current run has ended (lock_torture_cleanup() prints
 * the last statistics before "End of test"), and when its Total is
 * below the last one of its kind (the module was loaded again; its
 * start line, and the previous run's end, are missing from the log).
 */
static bool starts_run(const struct lt_run *r, const struct lt_line *l)
{
	const struct lt_sample *s = l->reads ? r->reads : r->writes;
	unsigned n = l->reads ? r->nreads : r->nwrites;

	if (r->ended)
		return true;
	return n > 0 && l->s.total < s[n - 1].total;
}

/*
 * Attach the stats line @l (line @lineno) to the current run, opening a
 * run with unknown parameters when it starts one.  Returns 0 or -ENOMEM.
 */
static int add_sample(struct lt_builder *b, const struct lt_line *l,
		      unsigned lineno)
{
	struct lt_sample **arr, *s;
	unsigned *n, *cap;
	struct lt_caps *caps;
	struct lt_run *r;

	if ((!cur_run(b) || starts_run(cur_run(b), l)) && new_run(b, lineno))
		return -ENOMEM;
	r = cur_run(b);
	caps = &b->caps[b->log->nruns - 1];
	arr = l->reads ? &r->reads : &r->writes;
	n = l->reads ? &r->nreads : &r->nwrites;
	cap = l->reads ? &caps->r : &caps->w;
	s = grow(*arr, cap, *n, sizeof(**arr));
	if (!s)
		return -ENOMEM;
	*arr = s;
	s = &s[(*n)++];
	*s = l->s;
	s->line = lineno;
	if (!r->type[0] && l->type[0])
		memcpy(r->type, l->type, sizeof(r->type));
	b->nsamples++;
	return 0;
}

/* How much of an interval report @i of @s covers: seconds when timed, else counts. */
static double report_size(const struct lt_sample *s, unsigned i, bool timed)
{
	return timed ? s[i].t - s[i - 1].t : (double)(s[i].total - s[i - 1].total);
}

/*
 * The interval grid of the reports @s[0..@n-1] whose last @k are
 * candidates for stop reports: stat_interval when timed and known,
 * else the median size of the intervals before the candidates; NAN
 * when there is none to go by.
 */
static double report_grid(const struct lt_sample *s, unsigned n, unsigned k,
			  bool timed, int stat_interval)
{
	double sz[64];
	unsigned m = 0;

	if (timed && stat_interval > 0)
		return stat_interval;
	for (unsigned i = n > k ? n - k : 0; i > 1 && m < 64; i--)
		sz[m++] = report_size(s, i - 1, timed);
	return stats_median(sz, m);
}

/*
 * Mark the stop reports of @s[@n] (see struct lt_sample): those after
 * the stopping line (@stop reports came before it; UINT_MAX when the log
 * has none) and the stats kthread's partial report just before it, or,
 * without a stopping line, up to @k final reports off the interval grid
 * (with stat_interval 0 the last report is the cleanup's).
 */
static void mark_stopping(struct lt_sample *s, unsigned n, unsigned k,
			  unsigned stop, int stat_interval)
{
	bool timed = n > 0 && !isnan(s[0].t) && !isnan(s[n - 1].t);
	unsigned end = stop < n ? stop : n, i;
	double grid;

	for (i = end; i < n; i++)
		s[i].stopping = true;
	if (stop != UINT_MAX) {
		if (!end || stat_interval == 0)
			return;
		grid = report_grid(s, end, 1, timed, stat_interval);
		if (end < 2 || isnan(grid) || report_size(s, end - 1, timed) < 0.9 * grid)
			s[end - 1].stopping = true;
		return;
	}
	if (stat_interval == 0) {
		if (n)
			s[n - 1].stopping = true;
		return;
	}
	grid = report_grid(s, n, k, timed, stat_interval);
	/* No grid: a last report that adds under 1% to the Total is the
	 * cleanup's reprint of the stats kthread's final one. */
	if (isnan(grid) && n > 1 && (double)(s[n - 1].total - s[n - 2].total) <
				    0.01 * (double)s[n - 1].total)
		s[n - 1].stopping = true;
	for (i = n; i > 1 && k > 0 && !isnan(grid); i--, k--) {
		if (!(report_size(s, i - 1, timed) < 0.9 * grid))
			break;
		s[i - 1].stopping = true;
	}
}

/*
 * Apply the End of test line @l (line @lineno) to the current run.
 * Returns false when there is no run for it (the line is then ignored).
 */
static bool end_run(struct lt_builder *b, const struct lt_line *l,
		    unsigned lineno)
{
	struct lt_run *r = cur_run(b);
	unsigned k;

	if (!r || r->ended)
		return false;
	if (!r->started)
		run_set_params(r, l);
	r->ended = true;
	r->end_line = lineno;
	memcpy(r->end_status, l->status, sizeof(r->end_status));
	if (l->debug)
		r->debug = true;
	/* Stats kthread's early report, then the cleanup's: see ltlog.h. */
	k = r->stat_interval == 0 ? 1 : 2;
	mark_stopping(r->writes, r->nwrites, k, r->said_stopping ? r->stop_w : UINT_MAX,
		      r->stat_interval);
	mark_stopping(r->reads, r->nreads, k, r->said_stopping ? r->stop_r : UINT_MAX,
		      r->stat_interval);
	return true;
}

/*
 * Feed one classified line to the builder.  Returns 0 or -ENOMEM;
 * counts lines that contribute nothing in ignored_lines.
 */
static int feed_line(struct lt_builder *b, const struct lt_line *l,
		     unsigned lineno)
{
	switch (l->kind) {
	case LT_STATS:
		return add_sample(b, l, lineno);
	case LT_START:
		if (new_run(b, lineno))
			return -ENOMEM;
		run_set_params(cur_run(b), l);
		cur_run(b)->started = true;
		cur_run(b)->start_t = l->t;
		return 0;
	case LT_STOP:
		if (cur_run(b) && !cur_run(b)->ended && !cur_run(b)->said_stopping) {
			struct lt_run *r = cur_run(b);

			r->said_stopping = true;
			r->stop_w = r->nwrites;
			r->stop_r = r->nreads;
		} else {
			b->log->ignored_lines++;
		}
		return 0;
	case LT_END:
		if (!end_run(b, l, lineno))
			b->log->ignored_lines++;
		return 0;
	default:
		b->log->ignored_lines++;
		return 0;
	}
}

/* Write a message into @err (size @errlen) if there is room. */
__attribute__((format(printf, 3, 4)))
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* One physical line [p, e) of the log; nl: it ended with '\n'. */
struct lt_phys {
	const char *p, *e;
	bool nl;
};

/* The physical line starting at @p (< @end); returns where the next starts. */
static const char *phys_line(const char *p, const char *end, struct lt_phys *pl)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	pl->p = p;
	pl->e = nl ? nl : end;
	pl->nl = nl != NULL;
	return nl ? nl + 1 : end;
}

/* The body of a line: after quote markers, prefixes and "TYPE-torture:". */
static struct cur line_body(const char *p, const char *e)
{
	struct cur c = { p, e };
	double t = NAN;
	char type[64];

	while (c.e > c.p && (c.e[-1] == '\r' || c.e[-1] == ' ' ||
			     c.e[-1] == '\t'))
		c.e--;
	skip_quote(&c);
	eat_prefixes(&c, &t);
	if (eat_type(&c, type, sizeof(type)))
		skip_ws(&c);
	return c;
}

enum lt_head { HEAD_NONE, HEAD_STATS, HEAD_PARAMS };

/* Does the line begin a stats line ("Writes:", "Reads :") or a start/end
 * line ("--- Start of test", "--- End of test"), complete or not? */
static enum lt_head line_head(const char *p, const char *e)
{
	struct cur c = line_body(p, e);

	if (eat(&c, "Writes") || eat(&c, "Reads")) {
		skip_ws(&c);
		return eat_ch(&c, ':') ? HEAD_STATS : HEAD_NONE;
	}
	if (!eat(&c, "---"))
		return HEAD_NONE;
	skip_ws(&c);
	return eat(&c, "Start of test") || eat(&c, "End of test") ? HEAD_PARAMS
								  : HEAD_NONE;
}

/* Does the line begin as a statistics line does, "Writes:  Total:"? */
static bool stats_begun(const char *p, const char *e)
{
	struct cur c = line_body(p, e);

	if (!eat(&c, "Writes") && !eat(&c, "Reads"))
		return false;
	skip_ws(&c);
	if (!eat_ch(&c, ':'))
		return false;
	skip_ws(&c);
	return eat(&c, "Total:");
}

/*
 * A bare continuation of a mail-wrapped line: after quote markers and
 * blanks, some text that starts no log line of its own (no timestamp,
 * caller id or log level bracket, no stats/start/end head).  Its text
 * goes to *@out.
 */
static bool bare_piece(const char *p, const char *e, struct cur *out)
{
	struct cur c = { p, e };

	while (c.e > c.p && (c.e[-1] == '\r' || c.e[-1] == ' ' ||
			     c.e[-1] == '\t'))
		c.e--;
	skip_quote(&c);
	if (cur_done(&c) || *c.p == '[' || *c.p == '<' ||
	    line_head(c.p, c.e) != HEAD_NONE)
		return false;
	*out = c;
	return true;
}

/* Only "key=value" words (a wrapped piece of a parameter list)? */
static bool params_only(struct cur c)
{
	while (!cur_done(&c)) {
		const char *w = c.p;

		if (!is_type_char(*c.p) || is_digit(*c.p))
			return false;
		while (!cur_done(&c) && is_type_char(*c.p))
			c.p++;
		if (c.p == w || !eat_ch(&c, '='))
			return false;
		while (!cur_done(&c) && *c.p != ' ' && *c.p != '\t')
			c.p++;
		skip_ws(&c);
	}
	return true;
}

/* Longest line rebuilt from wrapped pieces, and how many pieces follow. */
#define LT_JOIN_MAX 4096
#define LT_JOIN_STATS 3
#define LT_JOIN_PARAMS 32

/*
 * Rejoin the line @head (a stats or start/end head, see line_head())
 * with the wrapped pieces after it, from @next on, in @jb (LT_JOIN_MAX
 * bytes, the caller's: @l->params points into it); classify the result
 * into @l.  Returns how many physical lines were absorbed (0: @l is the
 * head line on its own) and sets *@last_nl to whether the last of them
 * ended with '\n'.
 */
static unsigned join_wrapped(const struct lt_phys *head, enum lt_head kind,
			     const char *next, const char *end, char *jb,
			     struct lt_line *l, bool *last_nl)
{
	unsigned k, took = 0, max = kind == HEAD_STATS ? LT_JOIN_STATS
						       : LT_JOIN_PARAMS;
	size_t n = (size_t)(head->e - head->p);
	struct lt_line t;

	*last_nl = head->nl;
	if (n >= LT_JOIN_MAX)
		return 0;
	memcpy(jb, head->p, n);
	while (n && (jb[n - 1] == '\r' || jb[n - 1] == ' ' || jb[n - 1] == '\t'))
		n--;
	for (k = 1; k <= max && next < end; k++) {
		struct lt_phys pl;
		struct cur piece;
		size_t m;

		next = phys_line(next, end, &pl);
		if (!bare_piece(pl.p, pl.e, &piece))
			break;
		if (kind == HEAD_PARAMS && !params_only(piece))
			break;
		m = (size_t)(piece.e - piece.p);
		if (n + 1 + m >= LT_JOIN_MAX)
			break;
		jb[n++] = ' ';
		memcpy(jb + n, piece.p, m);
		n += m;
		if (kind == HEAD_STATS) {
			parse_line(jb, jb + n, &t);
			if (t.kind == LT_STATS) {
				*l = t;
				*last_nl = pl.nl;
				return k;
			}
			continue;
		}
		took = k;
		*last_nl = pl.nl;
	}
	if (kind == HEAD_PARAMS && took) {
		parse_line(jb, jb + n, &t);
		if (t.kind == LT_START || t.kind == LT_END) {
			*l = t;
			return took;
		}
	}
	*last_nl = head->nl;
	return 0;
}

/*
 * Cut @buf into lines, rejoin mail-wrapped ones and feed them; returns
 * 0 or -ENOMEM.
 */
static int parse_lines(struct lt_builder *b, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	/* A rejoined line; it must outlive feed_line() (l.params points in). */
	char jb[LT_JOIN_MAX];
	struct lt_line l;

	while (p < end) {
		struct lt_phys pl;
		enum lt_head head;
		unsigned lineno, extra = 0;
		bool nl, begun;
		int ret;

		p = phys_line(p, end, &pl);
		if (b->log->nlines == UINT_MAX)
			return -ENOMEM;
		lineno = ++b->log->nlines;
		parse_line(pl.p, pl.e, &l);
		nl = pl.nl;
		head = l.kind == LT_STATS ? HEAD_NONE : line_head(pl.p, pl.e);
		begun = head == HEAD_STATS && stats_begun(pl.p, pl.e);
		if (head != HEAD_NONE)
			extra = join_wrapped(&pl, head, p, end, jb, &l, &nl);
		while (extra--) {
			if (b->log->nlines == UINT_MAX)
				return -ENOMEM;
			b->log->nlines++;
			p = phys_line(p, end, &pl);
		}
		/* A cut last line counts only as a complete stats line. */
		if (!nl && l.kind != LT_STATS)
			l.kind = LT_NONE;
		if (l.kind != LT_STATS && begun && !b->log->bad_stats++)
			b->log->first_bad_stats = lineno;
		ret = feed_line(b, &l, lineno);
		if (ret)
			return ret;
	}
	return 0;
}

int lt_parse(const char *buf, size_t len, struct lt_log *out, char *err,
	     size_t errlen)
{
	struct lt_builder b = { .log = out };
	int ret;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (!buf)
		len = 0;
	ret = parse_lines(&b, buf, len);
	free(b.caps);
	if (ret) {
		lt_log_free(out);
		set_err(err, errlen, "out of memory");
		return ret;
	}
	if (b.nsamples == 0) {
		set_err(err, errlen,
			"no locktorture statistics lines found (%u lines read)",
			out->nlines);
		lt_log_free(out);
		return -EINVAL;
	}
	return 0;
}

void lt_log_free(struct lt_log *log)
{
	unsigned i;

	if (!log)
		return;
	for (i = 0; i < log->nruns; i++) {
		free(log->runs[i].writes);
		free(log->runs[i].reads);
	}
	free(log->runs);
	memset(log, 0, sizeof(*log));
}

/*
 * Seconds covered by the interval @a -> @b: the timestamp delta when both
 * have one, else @stat_interval.  Returns 0 when unknown (stat_interval
 * not positive) and a negative value when the timestamps do not advance.
 */
static double interval_secs(const struct lt_sample *a,
			    const struct lt_sample *b, int stat_interval)
{
	if (!isnan(a->t) && !isnan(b->t))
		return b->t > a->t ? b->t - a->t : -1.0;
	return stat_interval > 0 ? (double)stat_interval : 0.0;
}

int lt_run_rates(const struct lt_run *run, bool reads, double **out,
		 unsigned *n)
{
	const struct lt_sample *s = reads ? run->reads : run->writes;
	unsigned ns = reads ? run->nreads : run->nwrites;
	unsigned i, k = 0;
	double *r;

	*out = NULL;
	*n = 0;
	if (ns < 2)
		return 0;
	r = malloc((size_t)(ns - 1) * sizeof(*r));
	if (!r)
		return -ENOMEM;
	for (i = 1; i < ns; i++) {
		double dt;

		if (s[i].stopping)
			continue;
		dt = interval_secs(&s[i - 1], &s[i], run->stat_interval);
		if (dt == 0.0) {
			free(r);
			return -EINVAL;
		}
		if (dt < 0.0)
			continue;
		r[k++] = (double)(s[i].total - s[i - 1].total) / dt;
	}
	if (k == 0) {
		free(r);
		return 0;
	}
	*out = r;
	*n = k;
	return 0;
}

int lt_run_total_rate(const struct lt_run *run, bool reads, double duration,
		      double *rate, double *secs)
{
	const struct lt_sample *s = reads ? run->reads : run->writes;
	unsigned ns = reads ? run->nreads : run->nwrites;
	const struct lt_sample *last;

	*rate = *secs = NAN;
	if (!ns)
		return -ENODATA;
	/* The final totals, printed once or several times at stop: the last. */
	last = &s[ns - 1];
	if (!isnan(run->start_t) && !isnan(last->t) && last->t > run->start_t)
		*secs = last->t - run->start_t;
	else if (duration > 0)
		*secs = duration;
	else
		return -EINVAL;
	*rate = (double)last->total / *secs;
	return 0;
}
