// SPDX-License-Identifier: MIT
/*
 * test_ltlog.c - unit tests of the locktorture log parser (kernel/locktorture/ltlog.c).
 *
 * Fixtures live in tests/fixtures/locktorture/ (LT_FIXTURES overrides the
 * directory); expected values are worked out by hand in the comments.
 *
 * Build: cc -std=gnu11 tests/test_ltlog.c kernel/locktorture/ltlog.c output/stats/median.c \
 *        -lcmocka -lm
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../kernel/locktorture/ltlog.h"

#ifndef LT_FIXTURES
#define LT_FIXTURES "tests/fixtures/locktorture"
#endif

/* Read fixture @name into a malloc'ed buffer (not NUL-terminated). */
static char *load(const char *name, size_t *len)
{
	char path[512];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/%s", LT_FIXTURES, name);
	f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n >= 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Parse fixture @name into @log; the parse must succeed. */
static void parse_fixture(const char *name, struct lt_log *log)
{
	char err[128];
	size_t len;
	char *buf = load(name, &len);
	int ret = lt_parse(buf, len, log, err, sizeof(err));

	free(buf);
	if (ret)
		fail_msg("%s: lt_parse: %d (%s)", name, ret, err);
}

/* Parse the NUL-terminated @text into @log; return lt_parse's result. */
static int parse_str(const char *text, struct lt_log *log)
{
	char err[128];

	return lt_parse(text, strlen(text), log, err, sizeof(err));
}

/* Fail unless @got is within 1e-9 (relative) of @want. */
static void assert_near(double got, double want)
{
	double tol = 1e-9 * (fabs(want) > 1.0 ? fabs(want) : 1.0);

	if (!(fabs(got - want) <= tol))
		fail_msg("got %.12g, want %.12g", got, want);
}

/* Check lt_run_rates(@run, @reads) returns exactly @want[@nwant]. */
static void assert_rates(const struct lt_run *run, bool reads,
			 const double *want, unsigned nwant)
{
	double *r = NULL;
	unsigned n = 99, i;

	assert_int_equal(lt_run_rates(run, reads, &r, &n), 0);
	assert_int_equal(n, nwant);
	for (i = 0; i < n; i++)
		assert_near(r[i], want[i]);
	if (n == 0)
		assert_null(r);
	free(r);
}

/*
 * new-kernel.log: 6.2-style start line, timestamps and caller ids, one
 * "???" line, the stats kthread's early report (line 14) and the
 * cleanup's (line 16) before End of test (line 17).
 */
static void test_new_kernel(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	/*
	 * 69.52 -> 129.52:  (110000000 - 50000000) / 60    = 1000000
	 * 129.52 -> 189.52: (164000000 - 110000000) / 60   =  900000
	 * 189.52 -> 249.58: (224060000 - 164000000) / 60.06 = 1000000
	 * 249.58 -> 264.901234 ends at a stopping line: dropped, and so is
	 * the one ending at the cleanup's line 16.
	 */
	static const double want[] = { 1000000, 900000, 1000000 };

	(void)state;
	parse_fixture("new-kernel.log", &log);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.nlines, 17);
	/* Lines 1, 2, 4-8 (task started), 10 (hrtimer); 15 says stopping. */
	assert_int_equal(log.ignored_lines, 8);
	r = &log.runs[0];
	assert_string_equal(r->type, "rtmutex_lock");
	assert_int_equal(r->nwriters, 4);
	assert_int_equal(r->nreaders, 0);
	assert_int_equal(r->stat_interval, 60);
	assert_true(r->started);
	assert_false(r->debug);
	assert_true(r->ended);
	assert_string_equal(r->end_status, "SUCCESS");
	assert_int_equal(r->first_line, 3);
	assert_int_equal(r->end_line, 17);
	assert_true(r->said_stopping);
	assert_int_equal(r->stop_w, 5);
	assert_near(r->start_t, 9.512345);
	assert_int_equal(strncmp(r->params, "acq_writer_lim=0 bind_readers=0-7",
				 33), 0);
	assert_int_equal(strlen(r->params), 282);
	assert_string_equal(r->params + 269, "writer_fifo=0");
	assert_int_equal(r->nwrites, 6);
	assert_int_equal(r->nreads, 0);
	assert_null(r->reads);

	assert_near(r->writes[0].t, 69.52);
	assert_int_equal(r->writes[0].total, 50000000);
	assert_int_equal(r->writes[0].max, 12600000);
	assert_int_equal(r->writes[0].min, 12400000);
	assert_int_equal(r->writes[0].fail, 0);
	assert_int_equal(r->writes[0].line, 9);
	assert_false(r->writes[0].unfair);
	assert_true(r->writes[2].unfair);	/* 60000000 / 2 > 28000000 */
	assert_false(r->writes[2].failed);
	assert_false(r->writes[3].stopping);
	assert_true(r->writes[4].stopping);
	assert_true(r->writes[5].stopping);
	assert_int_equal(r->writes[5].line, 16);
	assert_int_equal(r->writes[5].total, 239000123);
	assert_rates(r, false, want, 3);
	assert_rates(r, true, NULL, 0);
	lt_log_free(&log);
	assert_null(log.runs);
	assert_int_equal(log.nruns, 0);
}

/*
 * old-kernel.log: "spin_lock-torture: Writes: ..." without timestamps,
 * Max/Min printing failure counts (0/0), old start parameter order.
 */
static void test_old_kernel(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	unsigned i;
	/*
	 * No timestamps: divide by stat_interval = 60.
	 * (177746064 - 93746064) / 60 = 84000000 / 60 = 1400000
	 * (264746064 - 177746064) / 60 = 87000000 / 60 = 1450000
	 * The last two lines (270123456) are the stopping reports.
	 */
	static const double want[] = { 1400000, 1450000 };

	(void)state;
	parse_fixture("old-kernel.log", &log);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.nlines, 13);
	/* Five "task started"; the stopping line is taken. */
	assert_int_equal(log.ignored_lines, 5);
	r = &log.runs[0];
	assert_string_equal(r->type, "spin_lock");
	assert_int_equal(r->nwriters, 4);
	assert_int_equal(r->nreaders, 0);
	assert_int_equal(r->stat_interval, 60);
	assert_int_equal(r->first_line, 1);
	assert_string_equal(r->end_status, "SUCCESS");
	assert_int_equal(r->nwrites, 5);
	for (i = 0; i < r->nwrites; i++) {
		assert_true(isnan(r->writes[i].t));
		assert_int_equal(r->writes[i].max, 0);
		assert_int_equal(r->writes[i].min, 0);
		assert_int_equal(r->writes[i].stopping, i >= 3);
	}
	assert_int_equal(r->writes[0].total, 93746064);
	assert_rates(r, false, want, 2);
	lt_log_free(&log);
}

/*
 * rwsem-crlf.log: serial console capture with "\r\n", readers and
 * writers, "???" and "!!!", a WARN splat, End of test: FAILURE.
 */
static void test_rwsem_crlf(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	/* Writes: (2000 - 1000) / 10 = 100, (2500 - 2000) / 10 = 50. */
	static const double wwant[] = { 100, 50 };
	/* Reads: (5000 - 2000) / 10 = 300, (6000 - 5000) / 10 = 100. */
	static const double rwant[] = { 300, 100 };

	(void)state;
	parse_fixture("rwsem-crlf.log", &log);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.nlines, 15);
	assert_int_equal(log.ignored_lines, 3);
	r = &log.runs[0];
	assert_string_equal(r->type, "rwsem_lock");
	assert_int_equal(r->nwriters, 2);
	assert_int_equal(r->nreaders, 2);
	assert_int_equal(r->stat_interval, 10);
	assert_string_equal(r->end_status, "FAILURE");
	/* No '\r' kept at the end of the parameters. */
	assert_string_equal(r->params + strlen(r->params) - 13,
			    "writer_fifo=0");
	assert_int_equal(r->nwrites, 5);
	assert_int_equal(r->nreads, 5);
	assert_int_equal(r->reads[0].total, 2000);
	assert_int_equal(r->reads[0].max, 1100);
	assert_int_equal(r->reads[0].min, 900);
	assert_false(r->reads[0].unfair);
	assert_true(r->reads[1].unfair);	/* 4000 / 2 > 1000 */
	assert_false(r->reads[1].failed);
	assert_int_equal(r->reads[1].fail, 0);
	assert_false(r->writes[1].unfair);	/* 1300 / 2 <= 700 */
	assert_true(r->writes[2].failed);
	assert_int_equal(r->writes[2].fail, 1);
	assert_false(r->writes[2].unfair);
	assert_true(r->reads[2].failed);
	assert_true(r->reads[2].unfair);
	assert_true(r->writes[3].stopping && r->writes[4].stopping);
	assert_true(r->reads[3].stopping && r->reads[4].stopping);
	assert_false(r->reads[2].stopping);
	assert_near(r->reads[0].t, 110.00015);
	assert_rates(r, false, wwant, 2);
	assert_rates(r, true, rwant, 2);
	lt_log_free(&log);
}

/*
 * two-runs.log: the tail of a mutex_lock run whose start line is lost
 * (parameters come from its End of test line), then a [debug]
 * spin_lock run, then a stray stats line after its End of test, which
 * starts a third run (the kernel prints nothing of a run after its End
 * of test) with one report and so no interval.
 */
static void test_two_runs(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	/* (8000000 - 5000000) / 30 = 100000, (11600000 - 8000000) / 30 =
	 * 120000; then two stopping lines. */
	static const double want0[] = { 100000, 120000 };
	/* (1500000 - 600000) / 30 = 30000, (2700000 - 1500000) / 30 =
	 * 40000; then two stopping lines. */
	static const double want1[] = { 30000, 40000 };

	(void)state;
	parse_fixture("two-runs.log", &log);
	assert_int_equal(log.nruns, 3);
	assert_int_equal(log.nlines, 16);
	assert_int_equal(log.ignored_lines, 2);

	r = &log.runs[0];
	assert_false(r->started);
	assert_string_equal(r->type, "mutex_lock");
	assert_int_equal(r->nwriters, 8);
	assert_int_equal(r->nreaders, 0);
	assert_int_equal(r->stat_interval, 30);
	assert_int_equal(r->first_line, 1);
	assert_int_equal(r->end_line, 7);
	assert_true(r->ended);
	assert_int_equal(r->nwrites, 5);
	assert_rates(r, false, want0, 2);

	r = &log.runs[1];
	assert_true(r->started);
	assert_true(r->debug);
	assert_string_equal(r->type, "spin_lock");
	assert_int_equal(r->nwriters, 2);
	assert_int_equal(r->first_line, 9);
	assert_int_equal(r->end_line, 15);
	assert_string_equal(r->end_status, "SUCCESS");
	assert_int_equal(r->nwrites, 5);
	assert_true(r->writes[3].stopping);
	assert_true(r->writes[4].stopping);
	assert_rates(r, false, want1, 2);

	r = &log.runs[2];
	assert_false(r->started);
	assert_false(r->ended);
	assert_int_equal(r->nwriters, -1);
	assert_int_equal(r->first_line, 16);
	assert_int_equal(r->nwrites, 1);
	assert_int_equal(r->writes[0].line, 16);
	assert_rates(r, false, NULL, 0);
	lt_log_free(&log);
}

/*
 * truncated.log: a stats line broken by another message, a garbage
 * "Writes:" line and a cut last line; no start line.
 */
static void test_truncated(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	/* 69.52 -> 189.52: (164000000 - 50000000) / 120 = 950000. */
	static const double want[] = { 950000 };

	(void)state;
	parse_fixture("truncated.log", &log);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.nlines, 5);
	assert_int_equal(log.ignored_lines, 3);
	r = &log.runs[0];
	assert_false(r->started);
	assert_false(r->ended);
	assert_string_equal(r->type, "");
	assert_int_equal(r->nwriters, -1);
	assert_int_equal(r->nreaders, -1);
	assert_int_equal(r->stat_interval, -1);
	assert_string_equal(r->params, "");
	assert_string_equal(r->end_status, "");
	assert_int_equal(r->first_line, 1);
	assert_int_equal(r->nwrites, 2);
	assert_int_equal(r->writes[1].line, 4);
	assert_rates(r, false, want, 1);
	lt_log_free(&log);
}

/*
 * robot-boot.log: a boot log of a kernel with locktorture built in, cut
 * before its Start line (and never ended): no type, no parameters, four
 * reports 60 s apart, the last one flagged ???.  Intervals:
 * (9871204 - 3871204) / 60 = 100000, 5400000 / 60 = 90000,
 * 6300000 / 60 = 105000.
 */
static void test_robot_boot(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	static const double want[] = { 100000, 90000, 105000 };

	(void)state;
	parse_fixture("robot-boot.log", &log);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.nlines, 8);
	assert_int_equal(log.ignored_lines, 4);
	r = &log.runs[0];
	assert_false(r->started);
	assert_false(r->ended);
	assert_string_equal(r->type, "");
	assert_int_equal(r->nwriters, -1);
	assert_int_equal(r->stat_interval, -1);
	assert_int_equal(r->first_line, 3);
	assert_int_equal(r->nwrites, 4);
	assert_false(r->writes[2].unfair);
	assert_true(r->writes[3].unfair);	/* 5800000 / 2 > 2700000 */
	assert_int_equal(r->writes[3].line, 7);
	assert_rates(r, false, want, 3);
	lt_log_free(&log);
}

/*
 * mail-wrapped.log: a quoted ("> ") log in a reply, its start line
 * wrapped over five lines (nwriters_stress on the second, stat_interval
 * on the fourth) and three of its four stats lines wrapped, one of them
 * right after "Fail:".  Intervals of 10 s: 6100000 / 10 = 610000,
 * 5900000 / 10 = 590000, 6200000 / 10 = 620000.
 */
static void test_mail_wrapped(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	static const double want[] = { 610000, 590000, 620000 };

	(void)state;
	parse_fixture("mail-wrapped.log", &log);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.nlines, 22);
	r = &log.runs[0];
	assert_true(r->started);
	assert_string_equal(r->type, "rtmutex_lock");
	assert_int_equal(r->nwriters, 8);
	assert_int_equal(r->nreaders, 0);
	assert_int_equal(r->stat_interval, 10);
	assert_non_null(strstr(r->params, "acq_writer_lim=0 long_hold=0"));
	assert_non_null(strstr(r->params, "verbose=1 writer_fifo=0"));
	assert_int_equal(r->first_line, 8);
	assert_int_equal(r->nwrites, 4);
	assert_int_equal(r->writes[0].line, 13);
	assert_int_equal(r->writes[1].line, 15);
	assert_int_equal(r->writes[2].line, 17);
	assert_int_equal(r->writes[3].line, 18);
	assert_int_equal(r->writes[3].max, 3190000);
	assert_int_equal(r->writes[3].min, 2890000);
	assert_near(r->writes[3].t, 752.0);
	assert_rates(r, false, want, 3);
	lt_log_free(&log);
}

/* Wrapped pieces are taken only when they complete the line. */
static void test_wrap_limits(void **state)
{
	struct lt_log log;

	(void)state;
	/* A timestamped line is a message of its own, never a piece. */
	assert_int_equal(parse_str(
		"[ 1.0] Writes:  Total: 5  Max/Min: 3/2\n"
		"[ 2.0] Fail: 0\n"
		"[ 3.0] Writes:  Total: 9  Max/Min: 5/4   Fail: 0\n", &log), 0);
	assert_int_equal(log.runs[0].nwrites, 1);
	assert_int_equal(log.ignored_lines, 2);
	lt_log_free(&log);
	/* Prose after a start line is not a parameter. */
	assert_int_equal(parse_str(
		"spin_lock-torture:--- Start of test: nwriters_stress=2\n"
		"stat_interval=30 verbose=1\n"
		"and then it hung\n"
		"Writes:  Total: 9  Max/Min: 5/4   Fail: 0\n", &log), 0);
	assert_int_equal(log.runs[0].stat_interval, 30);
	assert_int_equal(log.ignored_lines, 1);
	assert_int_equal(log.runs[0].writes[0].line, 4);
	lt_log_free(&log);
	/* More than three pieces: not a wrapped stats line. */
	assert_int_equal(parse_str(
		"Writes:  Total: 5\nMax/Min:\n3/2\nFail:\n0\n"
		"Writes:  Total: 9  Max/Min: 5/4   Fail: 0\n", &log), 0);
	assert_int_equal(log.runs[0].nwrites, 1);
	assert_int_equal(log.runs[0].writes[0].line, 6);
	lt_log_free(&log);
}

/*
 * two-startless.log: two rtmutex_lock runs with no Start line, each
 * with its End of test (parameters from there).  Run 1: 1800000 / 15,
 * 1800000 / 15, 1500000 / 15; run 2: 1800000 / 15, 1500000 / 15; the
 * two reports before each End are the stopping ones.
 */
static void test_two_startless(void **state)
{
	struct lt_log log;
	static const double want0[] = { 120000, 120000, 100000 };
	static const double want1[] = { 120000, 100000 };

	(void)state;
	parse_fixture("two-startless.log", &log);
	assert_int_equal(log.nruns, 2);
	for (unsigned i = 0; i < 2; i++) {
		const struct lt_run *r = &log.runs[i];

		assert_false(r->started);
		assert_true(r->ended);
		assert_string_equal(r->type, "rtmutex_lock");
		assert_string_equal(r->end_status, "SUCCESS");
		assert_int_equal(r->nwriters, 2);
		assert_int_equal(r->stat_interval, 15);
	}
	assert_int_equal(log.runs[0].first_line, 1);
	assert_int_equal(log.runs[0].end_line, 7);
	assert_int_equal(log.runs[1].first_line, 9);
	assert_int_equal(log.runs[1].end_line, 14);
	assert_rates(&log.runs[0], false, want0, 3);
	assert_rates(&log.runs[1], false, want1, 2);
	lt_log_free(&log);
}

/*
 * fail.log: a mutex_lock run whose writers report Fail: 1 !!! from line
 * 7 on (after a WARNING splat), ending with FAILURE.
 */
static void test_fail(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	static const double want[] = { 100000, 90000, 90000 };

	(void)state;
	parse_fixture("fail.log", &log);
	assert_int_equal(log.nruns, 1);
	r = &log.runs[0];
	assert_string_equal(r->end_status, "FAILURE");
	assert_int_equal(r->nwrites, 6);
	assert_int_equal(r->writes[1].fail, 0);
	assert_false(r->writes[1].failed);
	assert_int_equal(r->writes[2].fail, 1);
	assert_true(r->writes[2].failed);
	assert_int_equal(r->writes[2].line, 7);
	assert_rates(r, false, want, 3);
	lt_log_free(&log);
}

/* no-stats.log: locktorture refused to start; nothing to import. */
static void test_no_stats(void **state)
{
	struct lt_log log;
	char err[128];
	size_t len;
	char *buf = load("no-stats.log", &len);

	(void)state;
	assert_int_equal(lt_parse(buf, len, &log, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "no locktorture statistics lines found"));
	assert_null(log.runs);
	assert_int_equal(log.nruns, 0);
	lt_log_free(&log);
	free(buf);
}

/* syslog.log: "Feb  3 10:00:00 host kernel: [ 12.3] ..." prefixes. */
static void test_syslog(void **state)
{
	struct lt_log log;
	const struct lt_run *r;
	/*
	 * 17.3 -> 22.3: (2500 - 1000) / 5 = 300 (timestamps);
	 * 22.3 -> no timestamp: (4500 - 2500) / stat_interval 5 = 400.
	 */
	static const double want[] = { 300, 400 };

	(void)state;
	parse_fixture("syslog.log", &log);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.ignored_lines, 1);
	r = &log.runs[0];
	assert_string_equal(r->type, "mutex_lock");
	assert_int_equal(r->nwriters, 2);
	assert_int_equal(r->stat_interval, 5);
	assert_int_equal(r->nwrites, 3);
	assert_near(r->writes[0].t, 17.3);
	assert_true(isnan(r->writes[2].t));
	assert_rates(r, false, want, 2);
	lt_log_free(&log);
}

/* A last line without '\n' counts when it is a complete stats line. */
static void test_unterminated_complete(void **state)
{
	struct lt_log log;

	(void)state;
	assert_int_equal(parse_str("Writes:  Total: 5  Max/Min: 3/2   Fail: 0",
				   &log), 0);
	assert_int_equal(log.nlines, 1);
	assert_int_equal(log.runs[0].nwrites, 1);
	assert_int_equal(log.runs[0].writes[0].total, 5);
	lt_log_free(&log);

	/* ... but a cut start or end line does not. */
	assert_int_equal(parse_str("Writes:  Total: 5  Max/Min: 3/2  Fail: 0\n"
				   "x-torture:--- Start of test: nwriters_stress=1",
				   &log), 0);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.ignored_lines, 1);
	lt_log_free(&log);
}

/* Prefix and spacing variants: log level, C caller id, "Reads:". */
static void test_variants(void **state)
{
	struct lt_log log;
	const struct lt_run *r;

	(void)state;
	assert_int_equal(parse_str(
		"<1>[    5.250000][    C1] Reads :  Total: 7  Max/Min: 4/3   Fail: 0 \n"
		"[    6.250000] Reads:Total:9 Max/Min:5/4 Fail:0\n"
		"Writes: Total: 10 Max/Min: 6/4 ??? Fail: 1 !!!\n"
		"[Mon Feb  3 10:00:00 2025] Writes:  Total: 11  Max/Min: 6/5  Fail: 0\n"
		"Writes:  Total: 99999999999999999999  Max/Min: 1/1  Fail: 0\n"
		"Writes:  Total: 12  Max/Min: 6/6  Fail: 0 trailing\n"
		"Writes:  Total: -12  Max/Min: 6/6  Fail: 0\n", &log), 0);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.ignored_lines, 3);
	r = &log.runs[0];
	assert_int_equal(r->nreads, 2);
	assert_near(r->reads[0].t, 5.25);
	assert_int_equal(r->reads[1].total, 9);
	assert_int_equal(r->nwrites, 2);
	assert_true(r->writes[0].unfair);
	assert_true(r->writes[0].failed);
	assert_int_equal(r->writes[0].fail, 1);
	assert_true(isnan(r->writes[1].t));
	assert_int_equal(r->writes[1].total, 11);
	lt_log_free(&log);
}

/* Other torture modules' Start/End lines neither split nor end runs. */
static void test_other_torture(void **state)
{
	struct lt_log log;

	(void)state;
	assert_int_equal(parse_str(
		"Writes:  Total: 5  Max/Min: 3/2   Fail: 0\n"
		"rcu-torture:--- Start of test: nreaders=7 nfakewriters=4 stat_interval=60\n"
		"Writes:  Total: 6  Max/Min: 3/3   Fail: 0\n"
		"rcu-torture:--- End of test: SUCCESS: nreaders=7 nfakewriters=4\n"
		"lock-torture:--- End of test: nwriters_stress=4\n",
		&log), 0);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.runs[0].nwrites, 2);
	assert_false(log.runs[0].ended);
	assert_int_equal(log.ignored_lines, 3);
	lt_log_free(&log);
}

/* Rates need a timestamp pair or stat_interval; errors leave no array. */
static void test_rates_edge(void **state)
{
	struct lt_log log;
	double *r = (double *)&r;
	unsigned n = 99;
	/* Without timestamps and with no start line: no divisor. */
	static const char nodiv[] =
		"Writes:  Total: 5  Max/Min: 3/2   Fail: 0\n"
		"Writes:  Total: 9  Max/Min: 5/4   Fail: 0\n";

	(void)state;
	assert_int_equal(parse_str(nodiv, &log), 0);
	assert_int_equal(lt_run_rates(&log.runs[0], false, &r, &n), -EINVAL);
	assert_null(r);
	assert_int_equal(n, 0);
	/* One line: no interval, no error, even without a divisor. */
	log.runs[0].nwrites = 1;
	r = (double *)&r;
	assert_int_equal(lt_run_rates(&log.runs[0], false, &r, &n), 0);
	assert_null(r);
	assert_int_equal(n, 0);
	lt_log_free(&log);
	lt_log_free(&log);	/* freeing twice is harmless */
	lt_log_free(NULL);

	/*
	 * Total going backwards starts a new run (the module was loaded
	 * again and its start line is lost); timestamps not advancing are
	 * skipped: the second run has only (30 - 10) / 2 = 10.
	 */
	assert_int_equal(parse_str(
		"[ 1.0] Writes:  Total: 100  Max/Min: 3/2   Fail: 0\n"
		"[ 2.0] Writes:  Total: 10  Max/Min: 5/4   Fail: 0\n"
		"[ 4.0] Writes:  Total: 30  Max/Min: 5/4   Fail: 0\n"
		"[ 4.0] Writes:  Total: 40  Max/Min: 5/4   Fail: 0\n", &log), 0);
	assert_int_equal(log.nruns, 2);
	assert_int_equal(log.runs[0].nwrites, 1);
	assert_int_equal(log.runs[1].first_line, 2);
	{
		static const double want[] = { 10 };

		assert_rates(&log.runs[1], false, want, 1);
	}
	lt_log_free(&log);
}

/* stat_interval=0: only the cleanup's report precedes End of test. */
static void test_stat_interval_zero(void **state)
{
	struct lt_log log;
	const struct lt_run *r;

	(void)state;
	assert_int_equal(parse_str(
		"t-torture:--- Start of test: nwriters_stress=1 stat_interval=0\n"
		"[ 1.0] Writes:  Total: 1  Max/Min: 1/1   Fail: 0\n"
		"[ 2.0] Writes:  Total: 3  Max/Min: 3/3   Fail: 0\n"
		"[ 3.0] Writes:  Total: 6  Max/Min: 6/6   Fail: 0\n"
		"t-torture:--- End of test: LOCK_HOTPLUG: nwriters_stress=1 stat_interval=0\n",
		&log), 0);
	r = &log.runs[0];
	assert_int_equal(r->stat_interval, 0);
	assert_string_equal(r->end_status, "LOCK_HOTPLUG");
	assert_false(r->writes[1].stopping);
	assert_true(r->writes[2].stopping);
	{
		static const double want[] = { 2 };	/* (3 - 1) / 1 */

		assert_rates(r, false, want, 1);
	}
	lt_log_free(&log);
}

/*
 * on-grid.log: four reports on the 10 s grid before End of test and no
 * stopping line: none is a stop report, all three intervals count.
 */
static void test_on_grid(void **state)
{
	struct lt_log log;
	static const double want[] = { 100000, 110000, 90000 };

	(void)state;
	parse_fixture("on-grid.log", &log);
	assert_int_equal(log.nruns, 1);
	assert_false(log.runs[0].said_stopping);
	for (unsigned i = 0; i < log.runs[0].nwrites; i++)
		assert_false(log.runs[0].writes[i].stopping);
	assert_rates(&log.runs[0], false, want, 3);
	lt_log_free(&log);
	/* The same reports with a partial last one (5 s): that one is the
	 * stats kthread's early report, and only it is dropped. */
	assert_int_equal(parse_str(
		"[100.0] t-torture:--- Start of test: nwriters_stress=2 stat_interval=10\n"
		"[110.0] Writes:  Total: 1000  Max/Min: 500/500   Fail: 0\n"
		"[120.0] Writes:  Total: 2000  Max/Min: 1000/1000   Fail: 0\n"
		"[130.0] Writes:  Total: 3000  Max/Min: 1500/1500   Fail: 0\n"
		"[135.0] Writes:  Total: 3500  Max/Min: 1750/1750   Fail: 0\n"
		"[135.1] t-torture:--- End of test: SUCCESS: nwriters_stress=2 stat_interval=10\n",
		&log), 0);
	assert_false(log.runs[0].writes[2].stopping);
	assert_true(log.runs[0].writes[3].stopping);
	{
		static const double w2[] = { 100, 100 };

		assert_rates(&log.runs[0], false, w2, 2);
	}
	lt_log_free(&log);
}

/* No timestamps, no grid: a last report adding under 1% is a reprint. */
static void test_reprint(void **state)
{
	struct lt_log log;

	(void)state;
	assert_int_equal(parse_str(
		"t-torture: Writes:  Total: 6000  Max/Min: 1/1   Fail: 0\n"
		"t-torture: Writes:  Total: 6001  Max/Min: 1/1   Fail: 0\n"
		"t-torture:--- End of test: SUCCESS: nwriters_stress=4 stat_interval=15\n",
		&log), 0);
	assert_false(log.runs[0].writes[0].stopping);
	assert_true(log.runs[0].writes[1].stopping);
	lt_log_free(&log);
	/* ... but one that adds a real interval's count is an interval. */
	assert_int_equal(parse_str(
		"t-torture: Writes:  Total: 6000  Max/Min: 1/1   Fail: 0\n"
		"t-torture: Writes:  Total: 12000  Max/Min: 1/1   Fail: 0\n"
		"t-torture:--- End of test: SUCCESS: nwriters_stress=4 stat_interval=15\n",
		&log), 0);
	assert_false(log.runs[0].writes[1].stopping);
	lt_log_free(&log);
}

/* Final totals only: over Start -> last report, else over a duration. */
static void test_total_rate(void **state)
{
	struct lt_log log;
	double rate, secs;
	unsigned n;
	double *rates;

	(void)state;
	parse_fixture("totals-start.log", &log);
	assert_int_equal(lt_run_rates(&log.runs[0], false, &rates, &n), 0);
	assert_int_equal(n, 0);		/* the two final reports: no interval */
	assert_int_equal(lt_run_total_rate(&log.runs[0], false, 0, &rate, &secs), 0);
	assert_near(secs, 30.0);
	assert_near(rate, 1500000);
	/* A duration does not override the log's own timestamps. */
	assert_int_equal(lt_run_total_rate(&log.runs[0], false, 10, &rate, &secs), 0);
	assert_near(secs, 30.0);
	assert_int_equal(lt_run_total_rate(&log.runs[0], true, 10, &rate, &secs), -ENODATA);
	lt_log_free(&log);
	parse_fixture("totals-end.log", &log);
	assert_int_equal(lt_run_total_rate(&log.runs[0], false, 0, &rate, &secs), -EINVAL);
	assert_int_equal(lt_run_total_rate(&log.runs[0], false, 30, &rate, &secs), 0);
	assert_near(rate, 1200000);
	lt_log_free(&log);
	parse_fixture("totals-bare.log", &log);
	assert_int_equal(lt_run_total_rate(&log.runs[0], true, 20, &rate, &secs), 0);
	assert_near(rate, 3000000);
	lt_log_free(&log);
}

/* Empty input, NULL buffer and a NULL error buffer are all fine. */
static void test_empty(void **state)
{
	struct lt_log log;
	char err[8];

	(void)state;
	assert_int_equal(lt_parse("", 0, &log, err, sizeof(err)), -EINVAL);
	assert_int_equal(strlen(err), sizeof(err) - 1);	/* truncated */
	assert_int_equal(lt_parse(NULL, 0, &log, NULL, 0), -EINVAL);
	assert_int_equal(log.nlines, 0);
	assert_int_equal(lt_parse("\n\n\r\n", 4, &log, NULL, 0), -EINVAL);
}

/*
 * Statistics lines that begin as such and cannot be read (a Total that
 * overflows, a negative one, bytes after the line's end, a line cut
 * short) are counted, with the first one's line number; readable ones
 * and other text are not.
 */
static void test_bad_stats(void **state)
{
	static const char text[] =
		"Writes:  Total: 100  Max/Min: 0/0   Fail: 0\n"
		"hrtimer: interrupt took 12345 ns\n"
		"Writes:  Total: 99999999999999999999999  Max/Min: 0/0   Fail: 0\n"
		"Writes:  Total: -200  Max/Min: 0/0   Fail: 0\n"
		"Writes:  Total: 300  Max/Min: 0/0   Fail: 0 \x01\xff\n"
		"Reads :  Total: 400  Max/Min: 0/0   Fail: 0\n"
		"Writes:  Total: 500  Max/Min: 0/0   Fail: 0\n"
		"Writes:  Total: 600  Max/Min: 0/\n";
	struct lt_log log;

	(void)state;
	assert_int_equal(parse_str(text, &log), 0);
	assert_int_equal(log.bad_stats, 4);
	assert_int_equal(log.first_bad_stats, 3);
	assert_int_equal(log.nruns, 1);
	assert_int_equal(log.runs[0].nwrites, 2);
	assert_int_equal(log.runs[0].nreads, 1);
	lt_log_free(&log);
	parse_fixture("new-kernel.log", &log);
	assert_int_equal(log.bad_stats, 0);
	lt_log_free(&log);
	parse_fixture("mail-wrapped.log", &log);
	assert_int_equal(log.bad_stats, 0);
	lt_log_free(&log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_kernel),
		cmocka_unit_test(test_old_kernel),
		cmocka_unit_test(test_rwsem_crlf),
		cmocka_unit_test(test_two_runs),
		cmocka_unit_test(test_robot_boot),
		cmocka_unit_test(test_mail_wrapped),
		cmocka_unit_test(test_wrap_limits),
		cmocka_unit_test(test_two_startless),
		cmocka_unit_test(test_fail),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_no_stats),
		cmocka_unit_test(test_syslog),
		cmocka_unit_test(test_unterminated_complete),
		cmocka_unit_test(test_variants),
		cmocka_unit_test(test_other_torture),
		cmocka_unit_test(test_rates_edge),
		cmocka_unit_test(test_stat_interval_zero),
		cmocka_unit_test(test_on_grid),
		cmocka_unit_test(test_reprint),
		cmocka_unit_test(test_total_rate),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_bad_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
