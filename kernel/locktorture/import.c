/* SPDX-License-Identifier: MIT */
/*
 * Glue between the locktorture log parser (ltlog.c) and the results
 * model.  Rows are nwriters_stress values, variants torture types, and
 * every log run one run_sample; what the model has no field for (Max/Min
 * per report, the ??? and !!! flags, the log position and parameters)
 * goes into the run's "locktorture" JSON member.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "import.h"
#include "../../output/results/json_read.h"
#include "ltlog.h"

/* One importable log run. */
struct entry {
	char type[64];            /* the run's torture_type */
	int nwriters;
	bool failed;
	char *why;                /* failure text, or NULL */
	struct run_sample s;
};

struct imp {
	struct entry *e;
	unsigned n, cap;
	struct lt_log *logs;
	unsigned nlogs;
	const struct import_fill *fill;
	char *err;
	size_t errlen;
	char first_skip[512];	/* why the first skipped run was skipped */
	unsigned bad_stats;	/* statistics lines not readable, all logs */
};

/* Say why a run is skipped (on @warn, and kept for the refusal when no
 * run can be imported at all). */
static void __attribute__((format(printf, 3, 4)))
skipped(struct imp *m, FILE *warn, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (!m->first_skip[0])
		snprintf(m->first_skip, sizeof(m->first_skip), "%s", line);
	if (warn)
		fprintf(warn, "lockbench: import: skipped %s\n", line);
}

static int __attribute__((format(printf, 2, 3))) fail(struct imp *m, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m->err, m->errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The reports of one run as JSON: time, Total, Max/Min, Fail, flags. */
static json_t *samples_json(const struct lt_run *run)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < run->nwrites; i++) {
		const struct lt_sample *s = &run->writes[i];

		json_array_append_new(a, json_pack("{s:o, s:I, s:I, s:I, s:I, s:b, s:b, s:b, s:i}",
			"t", isfinite(s->t) ? json_real(s->t) : json_null(),
			"total", (json_int_t)s->total, "max", (json_int_t)s->max,
			"min", (json_int_t)s->min, "fail", (json_int_t)s->fail,
			"unfair", s->unfair, "failed", s->failed,
			"stopping", s->stopping,
			"line", (int)s->line));
	}
	return a;
}

/* How a run's rate was had (docs/formats.md, "Reading locktorture logs"). */
struct basis {
	const char *from;	/* "intervals", "start_to_end" or "duration" */
	double secs;		/* the totals' time base, NAN for intervals */
	double reads;		/* readers' ops/s, NAN when not known */
};

static json_t *run_extra(const char *path, const struct lt_run *run,
			 unsigned nrates, const struct basis *b, bool unfair,
			 bool failed)
{
	json_t *o = json_pack("{s:s, s:i, s:s, s:i, s:i, s:i, s:s, s:s, s:b, s:i, s:s, s:b, s:b, s:o}",
		"log", path, "line", (int)run->first_line,
		"type", run->type, "nwriters_stress", run->nwriters,
		"nreaders_stress", run->nreaders, "stat_interval", run->stat_interval,
		"params", run->params, "end", run->end_status, "debug", run->debug,
		"intervals", b->secs > 0 ? 0 : (int)nrates, "rate_from", b->from,
		"unfair", unfair, "failed", failed, "reports", samples_json(run));

	if (o && b->secs > 0)
		json_object_set_new(o, "seconds", json_real(b->secs));
	if (o && isfinite(b->reads))
		json_object_set_new(o, "reads_ops_per_sec", json_real(b->reads));
	return o ? json_pack("{s:o}", "locktorture", o) : NULL;
}

/*
 * Did the run report failures: Fail > 0 or !!! on a Writes or Reads
 * report, or an End of test FAILURE?  *@line is the first such report's
 * line (else the End line), *@unfair whether any report carried ???.
 */
static bool run_failed(const struct lt_run *run, unsigned *line, bool *unfair)
{
	const struct lt_sample *kinds[2] = {run->writes, run->reads};
	unsigned nk[2] = {run->nwrites, run->nreads};

	*unfair = false;
	*line = 0;
	for (unsigned k = 0; k < 2; k++)
		for (unsigned i = 0; i < nk[k]; i++) {
			const struct lt_sample *s = &kinds[k][i];

			*unfair |= s->unfair;
			if ((s->failed || s->fail > 0) && (!*line || s->line < *line))
				*line = s->line;
		}
	if (!*line && run->ended && strstr(run->end_status, "FAIL"))
		*line = run->end_line;
	return *line != 0;
}

static int add_entry(struct imp *m, const char *path, const struct lt_run *run,
		     double *rates, unsigned n, const struct basis *b)
{
	struct entry *e;
	unsigned fail_line;
	json_t *extra;
	double sum = 0;
	bool unfair;
	int rc;

	if (m->n == m->cap) {
		unsigned cap = m->cap ? 2 * m->cap : 16;
		struct entry *ne = realloc(m->e, cap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		m->e = ne;
		m->cap = cap;
	}
	e = &m->e[m->n];
	memset(e, 0, sizeof(*e));
	for (unsigned i = 0; i < n; i++)
		sum += rates[i];
	snprintf(e->type, sizeof(e->type), "%s", run->type[0] ? run->type : "locktorture");
	e->nwriters = run->nwriters;
	e->failed = run_failed(run, &fail_line, &unfair);
	e->s.unfair_reported = unfair;
	e->s.lock_node = -1;
	e->s.ops_per_sec = sum / n;
	e->s.window_s = b->secs > 0 ? b->secs :
			run->stat_interval > 0 ? (double)n * run->stat_interval : NAN;
	e->s.ops = isfinite(e->s.window_s) ?
		   (uint64_t)llround(e->s.ops_per_sec * e->s.window_s) : 0;
	e->s.nthreads = (unsigned)run->nwriters;
	e->s.exclusion_checked = true;
	e->s.exclusion_ok = !e->failed;
	e->s.series = rates;
	e->s.nseries = n;
	extra = run_extra(path, run, n, b, unfair, e->failed);
	rc = extra ? results_extra_set(&e->s, extra) : -ENOMEM;
	json_decref(extra);
	if (rc)
		return rc;
	if (e->failed && asprintf(&e->why, "locktorture reported a failure (%s line %u: %s)",
				  path, fail_line, fail_line == run->end_line ?
				  "End of test: FAILURE" : "Fail > 0") < 0)
		e->why = NULL;
	m->n++;
	return 0;
}

/*
 * What the log does not say, from the user (import_fill): only fields
 * the log leaves unknown are filled, so a log that says otherwise wins.
 */
static void fill_run(struct lt_run *run, const struct import_fill *f)
{
	if (!f)
		return;
	if (run->nwriters < 0 && f->nwriters >= 0)
		run->nwriters = f->nwriters;
	if (run->nreaders < 0 && f->nreaders >= 0)
		run->nreaders = f->nreaders;
	if (run->stat_interval < 0 && f->stat_interval >= 0)
		run->stat_interval = f->stat_interval;
	if (!run->type[0] && f->type)
		snprintf(run->type, sizeof(run->type), "%s", f->type);
}

/*
 * A run's rate from its totals when it has no complete interval: only
 * for a run the log shows ended (End of test, or the stats kthread
 * stopping) or whose length the user gave (--duration).  On success
 * *@rates holds the one rate and @b says over what.
 */
static int totals_rate(const struct imp *m, const struct lt_run *run, bool reads,
		       double **rates, unsigned *n, struct basis *b, const char **why)
{
	double dur = m->fill ? m->fill->duration : 0, rate, secs;
	int rc;

	if (!run->ended && !run->said_stopping && !(dur > 0)) {
		*why = "no complete statistics interval (a log of final totals only "
		       "needs --duration S)";
		return -EINVAL;
	}
	rc = lt_run_total_rate(run, reads, dur, &rate, &secs);
	if (rc) {
		*why = rc == -EINVAL ? "only final totals and no time base (no timestamped Start "
				       "line): give --duration S, the run's length" :
				       "no statistics";
		return -EINVAL;
	}
	if (!(*rates = malloc(sizeof(**rates))))
		return -ENOMEM;
	(*rates)[0] = rate;
	*n = 1;
	b->secs = secs;
	b->from = isnan(run->start_t) || isnan((reads ? run->reads : run->writes)
					       [(reads ? run->nreads : run->nwrites) - 1].t)
		  ? "duration" : "start_to_end";
	return 0;
}

/*
 * The rates of one run: its statistics intervals (less the warm-up ones
 * of a `lockbench locktorture` run), else its totals.  Returns 0, -ENOMEM,
 * or -EINVAL with *@why saying why the run cannot be used.
 */
static int run_rates(const struct imp *m, const struct lt_run *run, bool reads,
		     double **rates, unsigned *n, struct basis *b, const char **why)
{
	unsigned skip = !reads && m->fill ? m->fill->skip_intervals : 0;
	int rc = lt_run_rates(run, reads, rates, n);

	b->from = "intervals";
	b->secs = NAN;
	if (rc == -ENOMEM)
		return rc;
	if (!rc && *n) {
		unsigned k = skip < *n ? skip : *n;

		memmove(*rates, *rates + k, (*n - k) * sizeof(**rates));
		*n -= k;
		*why = "no complete statistics interval";
		return *n ? 0 : -EINVAL;
	}
	if (rc && !(m->fill && m->fill->duration > 0)) {
		*why = "no timestamps and no stat_interval (give --stat-interval, or "
		       "--duration for the run's length)";
		return -EINVAL;
	}
	return totals_rate(m, run, reads, rates, n, b, why);
}

/* The readers' mean rate where nreaders_stress is known; NAN otherwise. */
static double reads_rate(const struct imp *m, const struct lt_run *run)
{
	double *rates = NULL, sum = 0;
	const char *why;
	struct basis b;
	unsigned n = 0;

	if (run->nreaders <= 0 || !run->nreads ||
	    run_rates(m, run, true, &rates, &n, &b, &why))
		return NAN;
	for (unsigned i = 0; i < n; i++)
		sum += rates[i];
	free(rates);
	return sum / n;
}

/* Each run of one parsed log into entries; unusable runs warned about. */
static int take_runs(struct imp *m, const char *path, struct lt_log *log,
		     FILE *warn)
{
	for (unsigned i = 0; i < log->nruns; i++) {
		struct lt_run *run = &log->runs[i];
		double *rates = NULL;
		const char *why = "";
		struct basis b;
		unsigned n = 0;
		int rc;

		fill_run(run, m->fill);
		if (run->nwriters <= 0) {
			skipped(m, warn, "the run at %s line %u: no nwriters_stress (no Start or "
				"End of test line; give --nwriters)", path, run->first_line);
			continue;
		}
		rc = run_rates(m, run, false, &rates, &n, &b, &why);
		if (rc == -ENOMEM)
			return rc;
		if (rc) {
			skipped(m, warn, "the run at %s line %u: %s", path, run->first_line, why);
			free(rates);
			continue;
		}
		b.reads = reads_rate(m, run);
		if ((rc = add_entry(m, path, run, rates, n, &b))) {
			free(rates);
			return rc;
		}
		/* Its entry holds what is needed: free the reports as we go. */
		free(run->writes);
		free(run->reads);
		run->writes = run->reads = NULL;
		run->nwrites = run->nreads = 0;
	}
	return 0;
}

/*
 * Statistics lines the parse could not read (a Total out of range or
 * negative, garbage after it): their reports are left out, so the
 * interval around each spans two reports and the figure differs from
 * the log's own reading.  Said in one line per log, never silently.
 */
static void bad_stats(struct imp *m, const char *path, const struct lt_log *log,
		      FILE *warn)
{
	m->bad_stats += log->bad_stats;
	if (log->bad_stats && warn)
		fprintf(warn, "lockbench: import (%s): %u statistics line%s could not be "
			"read (a number out of range, negative, or followed by other "
			"text; the first at line %u) and %s left out\n", path,
			log->bad_stats, log->bad_stats > 1 ? "s" : "",
			log->first_bad_stats, log->bad_stats > 1 ? "are" : "is");
}

static int parse_logs(struct imp *m, struct import_src *src, unsigned n,
		      FILE *warn)
{
	m->logs = calloc(n ? n : 1, sizeof(*m->logs));
	if (!m->logs)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		char why[256] = "";
		int rc = lt_parse(src[i].buf, src[i].len, &m->logs[i], why, sizeof(why));

		/* The runs are parsed (lt_run holds copies): the text can go. */
		if (src[i].owned) {
			free(src[i].owned);
			src[i].owned = NULL;
			src[i].buf = NULL;
		}

		if (rc)
			return rc == -ENOMEM ? rc : fail(m, "cannot import (%s): %s", src[i].name,
							 why[0] ? why : "not a locktorture log");
		m->nlogs = i + 1;
		bad_stats(m, src[i].name, &m->logs[i], warn);
		rc = take_runs(m, src[i].name, &m->logs[i], warn);
		/* The entries hold what the results need: the parse can go. */
		lt_log_free(&m->logs[i]);
		if (rc)
			return rc;
	}
	return 0;
}

/* Distinct types in first-seen order, distinct nwriters ascending. */
static int grid(struct imp *m, const char ***types, unsigned *nt, unsigned **rows,
		unsigned *nr)
{
	*types = calloc(m->n, sizeof(char *));
	*rows = calloc(m->n, sizeof(unsigned));
	*nt = *nr = 0;
	if (!*types || !*rows)
		return -ENOMEM;
	for (unsigned i = 0; i < m->n; i++) {
		unsigned k, j;

		for (k = 0; k < *nt && strcmp((*types)[k], m->e[i].type); k++)
			;
		if (k == *nt)
			(*types)[(*nt)++] = m->e[i].type;
		for (k = 0; k < *nr && (*rows)[k] < (unsigned)m->e[i].nwriters; k++)
			;
		if (k < *nr && (*rows)[k] == (unsigned)m->e[i].nwriters)
			continue;
		for (j = *nr; j > k; j--)
			(*rows)[j] = (*rows)[j - 1];
		(*rows)[k] = (unsigned)m->e[i].nwriters;
		(*nr)++;
	}
	return 0;
}

/* The logs' names as a JSON array. */
static json_t *logs_json(const struct import_src *src, unsigned n)
{
	json_t *logs = json_array();

	for (unsigned i = 0; i < n; i++)
		json_array_append_new(logs, json_string(src[i].name));
	return logs;
}

static int build(struct imp *m, struct results *r, const char *label,
		 const struct import_src *src, unsigned n)
{
	const char **types = NULL;
	unsigned *rows = NULL, nt, nr;
	int rc = grid(m, &types, &nt, &rows, &nr);

	if (rc || (rc = results_init(r, nt, nr)))
		goto out;
	memcpy(r->rows, rows, nr * sizeof(*rows));
	for (unsigned v = 0; v < nt; v++) {
		/* --label heads the column (label/type when the logs hold several types). */
		if (!label)
			r->variants[v].name = strdup(types[v]);
		else if (nt == 1)
			r->variants[v].name = strdup(label);
		else if (asprintf(&r->variants[v].name, "%s/%s", label, types[v]) < 0)
			r->variants[v].name = NULL;
		r->variants[v].lock = strdup(types[v]);
		r->variants[v].label = label ? strdup(label) : NULL;
		r->variants[v].kernel = true;
	}
	for (unsigned i = 0; i < m->n && !rc; i++) {
		unsigned v = 0, row = 0;
		struct point *p;

		while (strcmp(types[v], m->e[i].type))
			v++;
		while (rows[row] != (unsigned)m->e[i].nwriters)
			row++;
		p = results_point(r, v, row);
		/* Every locktorture run is its own module load: an invocation. */
		m->e[i].s.invocation = i + 1;
		rc = results_add_run(r, v, row, &m->e[i].s);
		/* The point holds a copy; the entry's can go (a large log's
		 * runs would otherwise be held twice). */
		free(m->e[i].s.extra);
		m->e[i].s.extra = NULL;
		if (p->status != POINT_FAILED)
			p->status = m->e[i].failed ? POINT_FAILED : POINT_OK;
		if (m->e[i].failed && !p->error && m->e[i].why)
			p->error = strdup(m->e[i].why);
	}
	r->variant_heading = strdup("Kernel");
	r->row_heading = strdup("nwriters_stress");
	r->workload = strdup("locktorture");
	r->label = label ? strdup(label) : NULL;
	r->config = json_pack("{s:s, s:o, s:I}", "command", "import locktorture", "logs",
			      logs_json(src, n), "unreadable_stats_lines",
			      (json_int_t)m->bad_stats);
	for (unsigned v = 0; v < nt && !rc; v++)
		if (!r->variants[v].name || !r->variants[v].lock)
			rc = -ENOMEM;
	if (!rc && (!r->variant_heading || !r->row_heading || !r->workload))
		rc = -ENOMEM;
out:
	free(types);
	free(rows);
	return rc;
}

static void imp_free(struct imp *m)
{
	for (unsigned i = 0; i < m->n; i++) {
		run_sample_free(&m->e[i].s);
		free(m->e[i].why);
	}
	for (unsigned i = 0; i < m->nlogs; i++)
		lt_log_free(&m->logs[i]);
	free(m->e);
	free(m->logs);
}

int import_locktorture_srcs(struct import_src *src, unsigned n,
			    const char *label, const struct import_fill *fill,
			    struct results *r, FILE *warn, char *err, size_t errlen)
{
	struct imp m = {.err = err, .errlen = errlen, .fill = fill};
	char *held = NULL;
	size_t heldlen = 0;
	/* Warnings are held until a run is imported: a refusal is one line. */
	FILE *hold = warn ? open_memstream(&held, &heldlen) : NULL;
	int rc;

	memset(r, 0, sizeof(*r));
	err[0] = 0;
	rc = parse_logs(&m, src, n, hold ? hold : warn);
	if (hold)
		fclose(hold);
	if (!rc && !m.n)
		rc = fail(&m, "cannot import (%s%s): no run with nwriters_stress and a "
			  "complete statistics interval%s%s", n ? src[0].name : "",
			  n > 1 ? ", ..." : "", m.first_skip[0] ? "; skipped " : "",
			  m.first_skip);
	else if (!rc && held && warn)
		fputs(held, warn);
	free(held);
	if (!rc)
		rc = build(&m, r, label, src, n);
	if (rc == -ENOMEM)
		snprintf(err, errlen, "import: out of memory");
	if (rc)
		results_free(r);
	imp_free(&m);
	return rc;
}

int import_locktorture(const char *const *paths, unsigned n, const char *label,
		       const struct import_fill *fill, struct results *r, FILE *warn,
		       char *err, size_t errlen)
{
	struct import_src *src = calloc(n ? n : 1, sizeof(*src));
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (!src) {
		snprintf(err, errlen, "import: out of memory");
		return -ENOMEM;
	}
	for (unsigned i = 0; i < n && !rc; i++) {
		char *buf = NULL;

		src[i].name = paths[i];
		rc = file_slurp(paths[i], input_limit(LOG_MAX_BYTES), &buf, &src[i].len);
		src[i].buf = src[i].owned = buf;
		if (rc == -EFBIG) {
			snprintf(err, errlen, "cannot import (%s): larger than the input limit "
				 "of %zu bytes (LOCKBENCH_MAX_INPUT raises it)", paths[i],
				 input_limit(LOG_MAX_BYTES));
			rc = -EINVAL;
		} else if (rc == -ENOMEM)
			snprintf(err, errlen, "import: out of memory");
		else if (rc) {
			snprintf(err, errlen, "cannot import (%s): %s", paths[i], strerror(-rc));
			rc = -ENOENT;
		}
	}
	if (!rc)
		rc = import_locktorture_srcs(src, n, label, fill, r, warn, err, errlen);
	for (unsigned i = 0; i < n; i++)
		free(src[i].owned);
	free(src);
	return rc;
}

int import_status(const struct results *r, FILE *f)
{
	int rc = 0;

	for (unsigned v = 0; v < r->nvariants; v++)
		for (unsigned row = 0; row < r->nrows; row++) {
			const struct point *p = results_point(r, v, row);

			if (p->status != POINT_FAILED)
				continue;
			if (f)
				fprintf(f, "lockbench: %s nwriters_stress=%u: %s\n",
					r->variants[v].name, r->rows[row],
					p->error ? p->error : "locktorture reported a failure");
			rc = 1;
		}
	return rc;
}
