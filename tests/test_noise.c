/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the noise handling: run flags from synthetic
 * probe, steal, migration and section-length values; the `!` mark and
 * the summary line under the table; --exclude-flagged; the -r auto
 * stopping rule on synthetic sample streams (constant, noisy, drifting,
 * time budget); steal parsing against a fake /proc/stat; probe pairs;
 * and one real probe on this machine when it has two CPUs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../output/results/noise.h"
#include "../output/render/render.h"
#include "testlib.h"
#include "../topology/steal.h"
#include "../topology/sysfs.h"
#include "../workloads/probe.h"
#include "fakesys.h"

static struct noise_opts opts(void)
{
	struct noise_opts o;

	noise_opts_default(&o);
	return o;
}

/* A run with one probed pair, two pinned workers and no steal. */
static struct run_noise quiet_run(double before, double after)
{
	static int pair[2] = {0, 1};
	static double b, a;
	static struct worker_noise w[2];

	b = before;
	a = after;
	w[0] = (struct worker_noise){.cpu = 0, .cpu_end = 0};
	w[1] = (struct worker_noise){.cpu = 1, .cpu_end = 1};
	return (struct run_noise){
		.present = true, .npairs = 1, .pair_cpu = pair,
		.probe_before = &b, .probe_after = &a,
		.steal_known = true, .steal_ncpus = 2, .steal_s = 0,
		.steal_window_s = 1, .nworkers = 2, .w = w,
		.cs_requested = 0, .cs_actual = NAN,
		.ncs_requested = 0, .ncs_actual = NAN,
	};
}

static void test_flags_probe(void **state)
{
	struct noise_opts o = opts();
	struct run_noise n;
	double typ = 60;

	(void)state;
	n = quiet_run(60, 70);
	assert_int_equal(noise_run_flags(&n, &typ, &o), 0);
	/* The host moved the vCPUs during the run: 60 -> 480 ns. */
	n = quiet_run(60, 480);
	assert_int_equal(noise_run_flags(&n, &typ, &o), NOISE_PLACEMENT);
	/* Far placement throughout, but the point's typical value is close. */
	n = quiet_run(480, 470);
	assert_int_equal(noise_run_flags(&n, &typ, &o), NOISE_PLACEMENT);
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	/* The factor is a ratio either way; just inside it is not flagged. */
	n = quiet_run(100, 149);
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	n = quiet_run(151, 100);
	assert_int_equal(noise_run_flags(&n, NULL, &o), NOISE_PLACEMENT);
	o.probe_factor = 2;
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	/* A failed probe (NAN) flags nothing. */
	n = quiet_run(NAN, 480);
	assert_int_equal(noise_run_flags(&n, &typ, &(struct noise_opts){.probe_factor = 100}), 0);
	/* No measurements at all (an imported run). */
	n = (struct run_noise){0};
	assert_int_equal(noise_run_flags(&n, &typ, &o), 0);
}

static void test_flags_steal_migration_cs(void **state)
{
	struct noise_opts o = opts();
	struct run_noise n = quiet_run(60, 60);

	(void)state;
	/* 2 CPUs x 1 s: 20 ms stolen is 1%, not above; 30 ms is 1.5%. */
	n.steal_s = 0.020;
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	n.steal_s = 0.030;
	assert_int_equal(noise_run_flags(&n, NULL, &o), NOISE_STEAL);
	assert_true(fabs(noise_steal_frac(&n) - 0.015) < 1e-12);
	n.steal_known = false;
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	assert_true(isnan(noise_steal_frac(&n)));
	/* A pinned worker that ends on another CPU. */
	n = quiet_run(60, 60);
	n.w[1].cpu_end = 0;
	assert_int_equal(noise_run_flags(&n, NULL, &o), NOISE_MIGRATED);
	n.w[1].cpu = -1;  /* not pinned (-p none): it may move */
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	/* Section lengths: 10% tolerance, only from 50 ns requests. */
	n = quiet_run(60, 60);
	n.cs_requested = 200;
	n.cs_actual = 219;
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	n.cs_actual = 170;
	assert_int_equal(noise_run_flags(&n, NULL, &o), NOISE_CS_OFF);
	n.cs_requested = 40;
	n.cs_actual = 80;
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	n.ncs_requested = 100;
	n.ncs_actual = 67;
	assert_int_equal(noise_run_flags(&n, NULL, &o), NOISE_CS_OFF);
	n.ncs_actual = NAN;
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	assert_string_equal(noise_flag_name(0), "placement_changed");
	assert_string_equal(noise_flag_name(3), "cs_length_off");
	assert_string_equal(noise_flag_name(4), "core_speed_moved");
}

/* The core-speed probe: the median worker's speed moving by more than
 * speed_tolerance (2%) flags the run as noisy, either way; an unknown
 * speed flags nothing. */
static void test_flag_core_speed(void **state)
{
	struct worker_noise w[3] = {
		{.cpu = 0, .cpu_end = 0, .speed_before = 3.80, .speed_after = 3.82},
		{.cpu = 1, .cpu_end = 1, .speed_before = 3.81, .speed_after = 3.83},
		{.cpu = 2, .cpu_end = 2, .speed_before = 3.79, .speed_after = 3.81},
	};
	struct run_noise n = {.present = true, .nworkers = 3, .w = w,
			      .cs_actual = NAN, .ncs_actual = NAN};
	struct noise_opts o;
	double b, a;

	(void)state;
	noise_opts_default(&o);
	assert_true(fabs(o.speed_tolerance - 0.02) < 1e-12);
	noise_core_speed(&n, &b, &a);
	assert_true(fabs(b - 3.80) < 1e-12 && fabs(a - 3.82) < 1e-12);
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);        /* +0.5% */
	w[0].speed_after = w[1].speed_after = 3.70;                 /* median -2.6% */
	assert_int_equal(noise_run_flags(&n, NULL, &o), NOISE_CORE_SPEED);
	assert_true(NOISE_NOISY & NOISE_CORE_SPEED);
	w[0].speed_after = w[1].speed_after = 3.90;                 /* +2.6% */
	assert_int_equal(noise_run_flags(&n, NULL, &o), NOISE_CORE_SPEED);
	for (unsigned i = 0; i < 3; i++)
		w[i].speed_before = 0;                               /* unknown */
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
}

/* The window's issue probes: a run's rate is the median of its workers'
 * that made a probe (one that made none does not vote), 0 when none
 * did; it is reported, and flags nothing. */
static void test_core_issue(void **state)
{
	struct worker_noise w[3] = {
		{.cpu = 0, .cpu_end = 0, .issue_rate = 8.8, .issue_n = 500},
		{.cpu = 1, .cpu_end = 1, .issue_rate = 8.7, .issue_n = 480},
		{.cpu = 2, .cpu_end = 2, .issue_rate = 1.0, .issue_n = 0},
	};
	struct run_noise n = {.present = true, .nworkers = 3, .w = w,
			      .cs_actual = NAN, .ncs_actual = NAN};
	struct noise_opts o;

	(void)state;
	noise_opts_default(&o);
	assert_true(fabs(noise_core_issue(&n) - 8.75) < 1e-12);
	w[2].issue_n = 7;
	assert_true(fabs(noise_core_issue(&n) - 8.7) < 1e-12);
	w[1].issue_rate = 2.0;
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
	w[0].issue_n = w[1].issue_n = w[2].issue_n = 0;
	assert_true(noise_core_issue(&n) == 0);
}

/* A 1-thread run's issue rate off its point's: beyond issue_tolerance
 * (3.5%) once weighted by the share of the operation the core runs
 * (not the deadline delays), either way; unknown values flag nothing. */
static void test_issue_moved(void **state)
{
	struct noise_opts o;

	(void)state;
	noise_opts_default(&o);
	assert_true(fabs(o.issue_tolerance - 0.035) < 1e-12);
	assert_false(noise_issue_moved(8.5, 8.7, 1, &o));   /* -2.3% */
	assert_true(noise_issue_moved(8.3, 8.7, 1, &o));    /* -4.6% */
	assert_true(noise_issue_moved(9.1, 8.7, 1, &o));    /* +4.6% */
	assert_false(noise_issue_moved(7.6, 8.7, 0.1, &o)); /* -12.6% x 0.1 */
	assert_true(noise_issue_moved(6.0, 8.7, 0.5, &o));  /* -31% x 0.5 */
	assert_false(noise_issue_moved(6.0, 8.7, 2, &o) != noise_issue_moved(6.0, 8.7, 1, &o));
	assert_false(noise_issue_moved(0, 8.7, 1, &o));
	assert_false(noise_issue_moved(6.0, 0, 1, &o));
	assert_false(noise_issue_moved(6.0, 8.7, 0, &o));
	o.issue_tolerance = 0;
	assert_false(noise_issue_moved(1.0, 8.7, 1, &o));
}

/* A 1-thread run's clock off its point's: beyond speed_tolerance (2%)
 * once weighted like the issue rate; the run's clock is the mean of
 * its two readings, unknown when either is. */
/* A window far longer than asked (the process stopped): flagged. */
static void test_window_stretched(void **state)
{
	struct noise_opts o;
	struct run_noise n = {.present = true, .window_req_s = 0.3, .window_s = 3.3};

	(void)state;
	noise_opts_default(&o);
	assert_true(noise_window_stretched(0.3, 3.3));
	assert_true(noise_window_stretched(0.5, 0.61));
	assert_false(noise_window_stretched(0.5, 0.59));
	assert_false(noise_window_stretched(0, 3.3));	/* unknown */
	assert_false(noise_window_stretched(0.5, 0));
	assert_int_equal(noise_run_flags(&n, NULL, &o), NOISE_STRETCHED);
	assert_true(NOISE_NOISY & NOISE_STRETCHED);
	assert_string_equal(noise_flag_name(5), "window_stretched");
	n.window_s = 0.31;
	assert_int_equal(noise_run_flags(&n, NULL, &o), 0);
}

static void test_speed_off(void **state)
{
	struct worker_noise w = {.speed_before = 3.3, .speed_after = 3.5};
	struct run_noise n = {.present = true, .nworkers = 1, .w = &w};
	struct noise_opts o;

	(void)state;
	noise_opts_default(&o);
	assert_true(fabs(noise_run_speed(&n) - 3.4) < 1e-12);
	w.speed_after = 0;
	assert_true(noise_run_speed(&n) == 0);
	assert_false(noise_speed_off(3.45, 3.4, 1, &o));  /* +1.5% */
	assert_true(noise_speed_off(3.48, 3.4, 1, &o));   /* +2.4% */
	assert_true(noise_speed_off(3.3, 3.4, 1, &o));    /* -2.9% */
	assert_false(noise_speed_off(3.3, 3.4, 0.5, &o)); /* -2.9% x 0.5 */
	assert_false(noise_speed_off(0, 3.4, 1, &o));
	assert_false(noise_speed_off(3.0, 0, 1, &o));
	o.speed_tolerance = 0;
	assert_false(noise_speed_off(1.0, 3.4, 1, &o));
}

/* Two locks x one row, three runs each, with the given probe/steal. */
static void build(struct results *r, bool exclude)
{
	const double rate[2][3] = {{1000, 1010, 400}, {2000, 2020, 1990}};
	const double after[2][3] = {{60, 62, 480}, {61, 60, 59}};

	assert_int_equal(results_init(r, 2, 1), 0);
	r->variant_heading = strdup("Lock");
	r->row_heading = strdup("threads");
	r->rows[0] = 2;
	r->variants[0].name = strdup("ticket");
	r->variants[1].name = strdup("mcs");
	r->noise.opts.exclude_flagged = exclude;
	for (unsigned v = 0; v < 2; v++) {
		for (unsigned k = 0; k < 3; k++) {
			struct run_sample s = {.ops_per_sec = rate[v][k], .window_s = 1};

			s.noise = quiet_run(60, after[v][k]);
			if (v == 1 && k == 1)
				s.noise.steal_s = 0.5;  /* 25% of 2 CPU-seconds */
			assert_int_equal(results_add_run(r, v, 0, &s), 0);
		}
		r->points[v].status = POINT_OK;
	}
	results_finalize(r);
}

static void test_summary_line(void **state)
{
	struct results r;
	char *t;

	(void)state;
	build(&r, false);
	assert_int_equal(r.points[0].runs[2].noise.flags, NOISE_PLACEMENT);
	assert_int_equal(r.points[1].runs[1].noise.flags, NOISE_STEAL);
	assert_int_equal(r.points[0].noise.flagged, 1);
	assert_true(fabs(r.points[0].noise.typical[0] - 60) < 1e-9);
	assert_int_equal(r.points[0].sum.n, 3);
	t = tl_render_table(&r, true);
	assert_non_null(strstr(t, "0.80!"));   /* ticket's mean 803.33 ops/s */
	assert_non_null(strstr(t, "2.00!"));   /* mcs' mean 2003.33 ops/s */
	/* One note naming the points and the remedies, wrapped at 72. */
	assert_non_null(strstr(t, "!  noisy: 2 of 6 runs flagged (placement changed 1, "
			       "steal 1) (threads:\n   ticket 2; mcs 2); --exclude-flagged "
			       "leaves them out of the\n   statistics, -r auto adds rounds\n"));
	assert_null(strstr(t, "excluded"));
	free(t);
	t = tl_render_table(&r, false);
	assert_null(strstr(t, "!"));
	free(t);
	results_free(&r);
}

static void test_exclude_flagged(void **state)
{
	struct results r;
	char *t;

	(void)state;
	build(&r, true);
	assert_int_equal(r.points[0].sum.n, 2);
	assert_true(fabs(r.points[0].sum.mean - 1005) < 1e-9);
	assert_true(r.points[0].runs[2].noise.excluded);
	assert_false(r.points[0].runs[0].noise.excluded);
	assert_int_equal(r.noise.excluded, 2);
	t = tl_render_table(&r, true);
	assert_non_null(strstr(t, "(threads:\n   ticket 2; mcs 2); excluded from the "
			       "statistics (--exclude-flagged)\n"));
	free(t);
	results_free(&r);
}

/* A point whose every run is flagged keeps them all. */
static void test_exclude_never_empties(void **state)
{
	struct results r;

	(void)state;
	assert_int_equal(results_init(&r, 1, 1), 0);
	r.noise.opts.exclude_flagged = true;
	for (unsigned k = 0; k < 2; k++) {
		struct run_sample s = {.ops_per_sec = 100 + k};

		s.noise = quiet_run(60, 480);
		assert_int_equal(results_add_run(&r, 0, 0, &s), 0);
	}
	r.points[0].status = POINT_OK;
	results_finalize(&r);
	assert_int_equal(r.points[0].noise.flagged, 2);
	assert_int_equal(r.points[0].noise.excluded, 0);
	assert_int_equal(r.points[0].sum.n, 2);
	results_free(&r);
}

/* One point of five runs at `threads`, 10 ns an operation, the last
 * run's issue rate 8% below the others' (8.7), with a parallel section
 * sampled at `ncs_ns` (0: none); the flags of its runs in f[]. */
static void issue_point(unsigned threads, double ncs_ns, unsigned f[5])
{
	const double rate[5] = {8.7, 8.8, 8.6, 8.7, 8.0};
	struct results r;

	assert_int_equal(results_init(&r, 1, 1), 0);
	r.rows[0] = threads;
	for (unsigned k = 0; k < 5; k++) {
		struct worker_noise w = {.cpu = 0, .cpu_end = 0, .issue_rate = rate[k],
					 .issue_n = 100};
		struct run_sample s = {.ops_per_sec = 1e8, .window_s = 1, .nthreads = threads};

		s.noise = (struct run_noise){.present = true, .nworkers = 1, .w = &w,
			.cs_actual = NAN, .ncs_requested = ncs_ns, .ncs_actual = ncs_ns ? ncs_ns : NAN};
		assert_int_equal(results_add_run(&r, 0, 0, &s), 0);
	}
	r.points[0].status = POINT_OK;
	results_finalize(&r);
	assert_true(fabs(r.points[0].noise.issue_typical - 8.7) < 1e-12);
	for (unsigned k = 0; k < 5; k++)
		f[k] = r.points[0].runs[k].noise.flags;
	results_free(&r);
}

/* The results pass flags the 1-thread run whose share of the core was
 * not its point's, weighted by what its delays leave to the core: with
 * empty sections the 8% run is flagged as the core speed moving (and
 * counts as noisy); when 9.5 of its 10 ns are a delay, or at 2
 * threads, nothing is. */
static void test_issue_flag_point(void **state)
{
	unsigned f[5];

	(void)state;
	issue_point(1, 0, f);
	assert_int_equal(f[4], NOISE_CORE_SPEED);
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(f[k], 0);
	issue_point(1, 9.5, f);
	for (unsigned k = 0; k < 5; k++)
		assert_int_equal(f[k], 0);
	issue_point(2, 0, f);
	for (unsigned k = 0; k < 5; k++)
		assert_int_equal(f[k], 0);
}

/* ---- a 1-thread point read through its own fit ------------------- */

/* Ten runs whose probes move independently (fixed pseudo-random steps
 * of up to 2.4% x k for the speed, 6.6% x k for the issue rate); ns/op
 * follows speed^bs x issue^bi exactly. */
static const double fit_ds[10] = {0, 1.2, -0.8, 2.1, -1.9, 0.4, -0.3, 1.7, -2.4, 0.9};
static const double fit_di[10] = {0.5, -2.2, 1.4, 0.2, -0.9, 3.1, -3.3, -0.4, 1.9, 0.8};

static void fit_runs(double bs, double bi, double k, double *ns, double *speed,
		     double *issue)
{
	for (unsigned i = 0; i < 10; i++) {
		speed[i] = 3.4 * (1 + 0.01 * k * fit_ds[i]);
		issue[i] = 10 * (1 + 0.02 * k * fit_di[i]);
		ns[i] = 6 * pow(speed[i], bs) * pow(issue[i], bi);
	}
}

/* The fit recovers the slopes and puts each run where its probes say,
 * against the median run; a run its probes cannot explain is left out
 * of the fit (it would tilt the slopes) but still read through it. */
static void test_core_fit(void **state)
{
	double ns[10], speed[10], issue[10], off[10], pred[10], m;
	struct core_fit f;

	(void)state;
	fit_runs(-0.8, -0.4, 1, ns, speed, issue);
	assert_true(noise_core_fit(ns, speed, issue, 10, &f, off));
	assert_true(f.used);
	assert_int_equal(f.runs, 10);
	assert_true(fabs(f.b_speed + 0.8) < 1e-9 && fabs(f.b_issue + 0.4) < 1e-9);
	assert_true(f.r2 > 0.999999);
	for (unsigned i = 0; i < 10; i++)
		pred[i] = log(ns[i]);
	m = exp(noise_median(pred, 10)); /* the median in logs: of 10, two averaged */
	for (unsigned i = 0; i < 10; i++)
		assert_true(fabs(off[i] - (ns[i] / m - 1)) < 1e-9);

	ns[3] *= 1.3;           /* a round the probes did not see */
	assert_true(noise_core_fit(ns, speed, issue, 10, &f, off));
	assert_int_equal(f.runs, 9);
	assert_true(fabs(f.b_speed + 0.8) < 1e-9 && fabs(f.b_issue + 0.4) < 1e-9);
	assert_true(fabs(off[3] - (ns[3] / 1.3 / m - 1)) < 1e-9);

	issue[5] = 0;           /* a run without its issue probe */
	assert_true(noise_core_fit(ns, speed, issue, 10, &f, off));
	assert_int_equal(f.runs, 8);
	assert_true(isnan(off[5]));

	/* Four runs are too few: nothing is read through a fit. */
	fit_runs(-0.8, -0.4, 1, ns, speed, issue);
	assert_false(noise_core_fit(ns, speed, issue, 4, &f, off));
	assert_false(f.used);
	for (unsigned i = 0; i < 4; i++)
		assert_true(isnan(off[i]));

	/* Results the probes do not explain: the fit is not used. */
	for (unsigned i = 0; i < 10; i++)
		ns[i] = 6 * (1 + 0.02 * fit_di[(i + 3) % 10]);
	assert_false(noise_core_fit(ns, speed, issue, 10, &f, off));
	assert_true(f.p >= NOISE_FIT_P);
	assert_true(isnan(off[0]));

	/* The same probes everywhere: singular, no fit. */
	for (unsigned i = 0; i < 10; i++)
		speed[i] = 3.4, issue[i] = 10;
	assert_false(noise_core_fit(ns, speed, issue, 10, &f, off));
}

/*
 * A 1-thread point of ten runs at issue-rate slope `bi` (speed slope
 * -0.5) whose probes move by under 0.7%, run 9's issue rate moved by
 * `last` (a fraction); the flags of its runs in f[].
 */
static void fit_point(double bi, double last, unsigned f[10])
{
	double ns[10], speed[10], issue[10];
	struct worker_noise w[10];
	struct results r;

	fit_runs(-0.5, bi, 0.1, ns, speed, issue);
	issue[9] = 10 * (1 + last);
	ns[9] = 6 * pow(speed[9], -0.5) * pow(issue[9], bi);
	assert_int_equal(results_init(&r, 1, 1), 0);
	r.rows[0] = 1;
	for (unsigned k = 0; k < 10; k++) {
		struct run_sample s = {.ops_per_sec = 1e9 / ns[k], .window_s = 1, .nthreads = 1};
		/* Run 0's clock read 3% high before and 3% low after: its
		 * mean is what the fit holds. */
		double x = k ? 0 : 0.03;


		w[k] = (struct worker_noise){.cpu = 0, .cpu_end = 0,
					     .speed_before = speed[k] * (1 + x),
					     .speed_after = speed[k] * (1 - x),
					     .issue_rate = issue[k], .issue_n = 100};
		s.noise = (struct run_noise){.present = true, .nworkers = 1, .w = &w[k],
					     .cs_actual = NAN, .ncs_actual = NAN};
		assert_int_equal(results_add_run(&r, 0, 0, &s), 0);
	}
	r.points[0].status = POINT_OK;
	results_finalize(&r);
	assert_true(r.points[0].noise.fit.used);
	for (unsigned k = 0; k < 10; k++)
		f[k] = r.points[0].runs[k].noise.flags;
	results_free(&r);
}

/* Each point by its own sensitivity: where ns/op moves one for one with
 * the issue rate, a run 3% off (under the fixed 3.5%) is flagged; where
 * it moves a fifth as much, a run 4.5% off (over it) is not.  The
 * other runs move by under fit_tolerance (1%) and are not flagged, run
 * 0 included, whose clock moved by 6% between its two readings (the
 * fit, not that rule, decides where there is one). */
static void test_fit_flag_point(void **state)
{
	unsigned f[10];

	(void)state;
	fit_point(-1.0, -0.03, f);
	assert_int_equal(f[9], NOISE_CORE_SPEED);
	fit_point(-0.2, -0.045, f);
	assert_int_equal(f[9], 0);
	for (unsigned k = 0; k < 9; k++)
		assert_int_equal(f[k], 0);
}

/* ---- the -r auto stopping rule -------------------------------------- */

/* Deterministic noise: approximately N(0, 1) from 12 uniforms. */
static double gauss(uint64_t *s)
{
	double sum = 0;

	for (unsigned i = 0; i < 12; i++) {
		*s = *s * 6364136223846793005ull + 1442695040888963407ull;
		sum += (double)(*s >> 11) / 9007199254740992.0;
	}
	return sum - 6;
}

enum stream { CONSTANT, NOISY, QUIET, DRIFT };

static double next_value(enum stream kind, unsigned k, uint64_t *s)
{
	switch (kind) {
	case CONSTANT: return 1000;
	case NOISY: return 1000 * (1 + 0.10 * gauss(s));  /* CV 10% */
	case QUIET: return 1000 * (1 + 0.01 * gauss(s));  /* CV 1% */
	case DRIFT: return 1000 + 50.0 * k;               /* +5% per round */
	}
	return 0;
}

/* Feed two variants one round at a time until the rule stops. */
static enum adapt_stop simulate(const struct noise_opts *o, enum stream a,
				enum stream b, double round_s, double budget,
				unsigned *rounds)
{
	static double x[2][200];
	const double *px[2] = {x[0], x[1]};
	unsigned n[2] = {0, 0};
	uint64_t s = 42;
	enum adapt_stop st = ADAPT_MORE;

	for (*rounds = 0; st == ADAPT_MORE && *rounds < 200;) {
		x[0][n[0]++] = next_value(a, *rounds, &s);
		x[1][n[1]++] = next_value(b, *rounds, &s);
		++*rounds;
		st = adapt_decide(o, px, n, 2, *rounds, *rounds * round_s, round_s, budget);
	}
	return st;
}

static void test_adaptive_streams(void **state)
{
	struct noise_opts o = opts();
	unsigned rounds;

	(void)state;
	o.adaptive = true;
	/* Constant: met as soon as the minimum runs are in. */
	assert_int_equal(simulate(&o, CONSTANT, CONSTANT, 1, 0, &rounds), ADAPT_MET);
	assert_int_equal(rounds, 3);
	/* CV 1% against a 1% target: met after a handful of rounds
	 * (t * 0.01 / sqrt(n) <= 0.01 needs n around 7). */
	assert_int_equal(simulate(&o, QUIET, CONSTANT, 1, 0, &rounds), ADAPT_MET);
	assert_true(rounds >= 4 && rounds <= 12);
	/* CV 10% would need ~400 runs: the limit of 30 stops it. */
	assert_int_equal(simulate(&o, CONSTANT, NOISY, 1, 0, &rounds), ADAPT_MAX_RUNS);
	assert_int_equal(rounds, 30);
	/* A drifting stream never settles: the limit stops it too. */
	assert_int_equal(simulate(&o, DRIFT, CONSTANT, 1, 0, &rounds), ADAPT_MAX_RUNS);
	assert_int_equal(rounds, 30);
	/* A 10% target is within reach of the noisy stream. */
	o.ci_target = 0.10;
	assert_int_equal(simulate(&o, CONSTANT, NOISY, 1, 0, &rounds), ADAPT_MET);
	assert_true(rounds < 30);
	/* Time budget: 2 s rounds in 9 s: the fifth round would end at 10 s. */
	o.ci_target = 0.01;
	assert_int_equal(simulate(&o, NOISY, NOISY, 2, 9, &rounds), ADAPT_BUDGET);
	assert_int_equal(rounds, 4);
	/* The minimum runs are run even past the budget. */
	assert_int_equal(simulate(&o, NOISY, NOISY, 5, 1, &rounds), ADAPT_BUDGET);
	assert_int_equal(rounds, 3);
	/* max_runs below min_runs wins. */
	o.max_runs = 2;
	assert_int_equal(simulate(&o, NOISY, NOISY, 1, 0, &rounds), ADAPT_MAX_RUNS);
	assert_int_equal(rounds, 2);
}

/* A variant that stopped running (failed lock) is ignored; one sample
 * per variant can never meet the target. */
static void test_adaptive_edges(void **state)
{
	struct noise_opts o = opts();
	double a[3] = {5, 5, 5}, one[1] = {5};
	const double *x[2] = {a, NULL}, *y[1] = {one};
	unsigned n[2] = {3, 0}, n1[1] = {1};

	(void)state;
	assert_int_equal(adapt_decide(&o, x, n, 2, 3, 3, 1, 0), ADAPT_MET);
	o.min_runs = 1;
	assert_int_equal(adapt_decide(&o, y, n1, 1, 1, 1, 1, 0), ADAPT_MORE);
	assert_string_equal(adapt_stop_name(ADAPT_BUDGET), "time_budget");
}

/* The rule's verdicts reach the JSON-facing model: reached per point. */
static void test_adaptive_reached(void **state)
{
	struct results r;

	(void)state;
	build(&r, false);
	r.noise.opts.adaptive = true;
	r.noise.opts.ci_target = 0.05;
	results_finalize(&r);
	/* ticket: 1000, 1010, 400 is far from 5%; mcs: within. */
	assert_false(r.points[0].noise.reached);
	assert_true(r.points[1].noise.reached);
	assert_int_equal(r.noise.not_reached, 1);
	{
		char *t = tl_render_table(&r, true);

		assert_non_null(strstr(t, "95% CI within 5% of the mean not reached, "
				       "stopped early (threads:\n   ticket 2)\n"));
		free(t);
	}
	results_free(&r);
}

/* ---- steal from /proc/stat ------------------------------------------ */

static void test_steal_parse(void **state)
{
	const char *stat =
		"cpu  10 0 10 100 0 0 0 30 0 0\n"
		"cpu0 5 0 5 50 0 0 0 12 0 0\n"
		"cpu1 5 0 5 50 0 0 0 18 0 0\n"
		"cpu10 1 0 1 1 0 0 0 1000 0 0\n"
		"intr 1 2 3\n";
	uint64_t t = 0;

	(void)state;
	assert_int_equal(steal_parse(stat, (int[]){0, 1}, 2, &t), 0);
	assert_int_equal(t, 30);
	assert_int_equal(steal_parse(stat, (int[]){1}, 1, &t), 0);
	assert_int_equal(t, 18);
	assert_int_equal(steal_parse(stat, (int[]){10}, 1, &t), 0);
	assert_int_equal(t, 1000);
	assert_int_equal(steal_parse(stat, (int[]){2}, 1, &t), -ENOENT);
	/* A kernel without the steal column. */
	assert_int_equal(steal_parse("cpu0 1 2 3 4\n", (int[]){0}, 1, &t), -ENOENT);
}

static void test_steal_fake_proc(void **state)
{
	struct fake f;
	struct fake_opts fo = {.flavour = FAKE_NOFREQ, .ncpus = 2};
	uint64_t t = 0;

	(void)state;
	assert_int_equal(fake_create(&f, &fo), 0);
	assert_int_equal(sysfs_set_root(f.root), 0);
	assert_int_equal(fake_put(&f, "/proc/stat",
				  "cpu  1 0 1 1 0 0 0 7 0 0\n"
				  "cpu0 1 0 1 1 0 0 0 3 0 0\n"
				  "cpu1 1 0 1 1 0 0 0 4 0 0"), 0);
	assert_int_equal(steal_read((int[]){0, 1}, 2, &t), 0);
	assert_int_equal(t, 7);
	assert_int_equal(fake_put(&f, "/proc/stat", "cpu0 1 0 1 1 0 0 0 250 0 0"), 0);
	assert_int_equal(steal_read((int[]){0}, 1, &t), 0);
	assert_int_equal(t, 250);
	assert_int_equal(steal_read((int[]){1}, 1, &t), -ENOENT);
	sysfs_set_root(NULL);
	fake_destroy(&f);
	assert_true(steal_tick_s() > 0 && steal_tick_s() <= 0.01);
}

/* ---- the probe -------------------------------------------------------- */

static void test_probe_pairs(void **state)
{
	int cpus[8] = {4, 5, 6, 7, 8, 9, 10, 11}, p[64];

	(void)state;
	assert_int_equal(probe_npairs(1), 0);
	assert_int_equal(probe_npairs(3), 3);
	assert_int_equal(probe_pairs(cpus, 3, p), 3);
	assert_memory_equal(p, ((int[]){4, 5, 4, 6, 5, 6}), 6 * sizeof(int));
	/* Large sets: thread 0's CPU against each other one. */
	assert_int_equal(probe_npairs(8), 7);
	assert_int_equal(probe_pairs(cpus, 8, p), 7);
	for (unsigned i = 0; i < 7; i++) {
		assert_int_equal(p[2 * i], 4);
		assert_int_equal(p[2 * i + 1], 5 + (int)i);
	}
}

/* On this machine: two allowed CPUs give a plausible round trip. */
static void test_probe_real(void **state)
{
	cpu_set_t set, after;
	int cpus[2], n = 0, pairs[2];
	struct probe_cfg cfg = {5, 32};
	double ns = 0;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(set), &set), 0);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &set))
			cpus[n++] = c;
	if (n < 2)
		skip();
	probe_pairs(cpus, 2, pairs);
	/* Other work on the machine can starve the helper for a while:
	 * the best of a few tries is the machine's round trip. */
	for (unsigned i = 0; i < 20; i++) {
		double x;

		assert_int_equal(probe_run(pairs, 1, &cfg, &x), 0);
		if (i == 0 || x < ns)
			ns = x;
	}
	assert_true(ns > 5 && ns < 100000);
	/* The caller's affinity is given back. */
	assert_int_equal(sched_getaffinity(0, sizeof(after), &after), 0);
	assert_true(CPU_EQUAL(&set, &after));
	/* A CPU that does not exist: NAN, no hang. */
	pairs[1] = CPU_SETSIZE - 1;
	assert_int_equal(probe_run(pairs, 1, &cfg, &ns), 0);
	assert_true(isnan(ns));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flags_probe),
		cmocka_unit_test(test_flags_steal_migration_cs),
		cmocka_unit_test(test_flag_core_speed),
		cmocka_unit_test(test_core_issue),
		cmocka_unit_test(test_issue_moved),
		cmocka_unit_test(test_issue_flag_point),
		cmocka_unit_test(test_speed_off),
		cmocka_unit_test(test_window_stretched),
		cmocka_unit_test(test_core_fit),
		cmocka_unit_test(test_fit_flag_point),
		cmocka_unit_test(test_summary_line),
		cmocka_unit_test(test_exclude_flagged),
		cmocka_unit_test(test_exclude_never_empties),
		cmocka_unit_test(test_adaptive_streams),
		cmocka_unit_test(test_adaptive_edges),
		cmocka_unit_test(test_adaptive_reached),
		cmocka_unit_test(test_steal_parse),
		cmocka_unit_test(test_steal_fake_proc),
		cmocka_unit_test(test_probe_pairs),
		cmocka_unit_test(test_probe_real),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
