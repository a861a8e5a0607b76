/* SPDX-License-Identifier: MIT */
/*
 * `lockbench system check`: what the measures say.  The JSON document
 * (docs/json.md, "lockbench system check -f json"), the verdict lines, one a finding, and
 * the text report (docs/method.md, "What this machine can measure").
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../output/stats/stats.h"
#include "provenance.h"
#include "syscheck.h"

/* One class of the core-to-core samples, summarised. */
struct class_stats {
	unsigned n;
	double median, min, max;
	bool bimodal;
	double lo, hi;          /* the clusters' medians when bimodal */
};

static void class_stats(const struct syscheck *s, unsigned k, struct class_stats *cs)
{
	double v[HC_C2C_MAX] = {0};
	struct summary sm;
	unsigned n = 0;

	for (unsigned i = 0; i < s->c2c.n; i++)
		if (isfinite(s->c2c.v[k][i]) && s->c2c.v[k][i] > 0)
			v[n++] = s->c2c.v[k][i];
	stats_summarize(v, n, &sm);
	*cs = (struct class_stats){n, n ? sm.median : NAN, n ? sm.min : NAN,
				   n ? sm.max : NAN, false, NAN, NAN};
	cs->bimodal = stats_bimodal(v, n, SC_BIMODAL_FACTOR, SC_BIMODAL_MIN, &cs->lo,
				    &cs->hi);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *c2c_class_json(const struct syscheck *s, unsigned k)
{
	struct class_stats cs;
	json_t *v = json_array();

	class_stats(s, k, &cs);
	for (unsigned i = 0; i < s->c2c.n; i++)
		json_array_append_new(v, num(s->c2c.v[k][i]));
	return json_pack("{s:i, s:o, s:o, s:o, s:o, s:b, s:o}", "cpu", s->c2c.cpu[k],
			 "median_ns", num(cs.median), "min_ns", num(cs.min),
			 "max_ns", num(cs.max), "samples_ns", v, "bimodal", cs.bimodal,
			 "clusters_ns", cs.bimodal ? json_pack("[f, f]", cs.lo, cs.hi)
						   : json_null());
}

/* {cpu0, probes, classes: {same_l3: {...}, ...}, bimodal, typical_ns}:
 * typical_ns is the median round trip of the nearest class. */
static json_t *c2c_json(const struct syscheck *s)
{
	json_t *cl = json_object(), *typical = json_null();
	bool bimodal = false;

	for (unsigned k = 0; k < HC_NCLASS; k++) {
		json_t *o;

		if (s->c2c.cpu[k] < 0)
			continue;
		o = c2c_class_json(s, k);
		bimodal |= json_is_true(json_object_get(o, "bimodal"));
		if (json_is_null(typical))
			typical = json_deep_copy(json_object_get(o, "median_ns"));
		json_object_set_new(cl, hc_class_name(k), o);
	}
	return json_pack("{s:i, s:i, s:o, s:b, s:o}", "cpu0", s->c2c.cpu0, "probes",
			 s->c2c.n, "classes", cl, "bimodal", bimodal, "typical_ns", typical);
}

static json_t *delays_json(const struct syscheck *s)
{
	json_t *d[2] = {json_array(), json_array()};

	for (unsigned k = 0; k < 2; k++)
		for (unsigned i = 0; s->delays_measured && i < SC_NDELAY; i++) {
			const struct sc_delay *x = &s->delay[k][i];

			json_array_append_new(d[k], json_pack("{s:i, s:o, s:o, s:b}",
				"request_ns", x->ns, "sampled_ns", num(x->sampled),
				"outside_ns", num(x->outside), "holds", x->holds));
		}
	return json_pack("{s:f, s:o, s:o}", "tolerance_pct", 100 * SC_DELAY_TOL,
			 "fixed", d[0], "exp", d[1]);
}

/* Where, when and beside what load the floor was measured. */
static void floor_provenance(json_t *f, const struct syscheck *s)
{
	char at[32] = "";
	time_t t = (time_t)s->floor_at;
	struct tm tm;

	if (t && gmtime_r(&t, &tm))
		strftime(at, sizeof(at), "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(f, "measured_at", *at ? json_string(at) : json_null());
	json_object_set_new(f, "duration_s", num(s->floor_s));
	json_object_set_new(f, "host", json_pack("{s:O?, s:O?, s:O?}",
		"hostname", json_object_get(s->machine, "hostname"),
		"arch", json_object_get(s->machine, "arch"),
		"pus", json_object_get(s->machine, "pus")));
	json_object_set_new(f, "load", json_pack("{s:o, s:o, s:o, s:f}",
		"loadavg_start", num(s->floor_load0), "loadavg_end", num(s->floor_load1),
		"others_cpus", num(s->floor_others), "others_max_cpus", SC_FLOOR_BUSY_CPUS));
	json_object_set_new(f, "refused", s->floor_refused ? json_string(s->floor_err)
							   : json_null());
}

static json_t *floor_json(const struct syscheck *s)
{
	json_t *m = json_array(), *f;

	for (unsigned i = 0; i < s->ninv; i++)
		json_array_append_new(m, json_real(s->inv_median[i]));
	f = json_pack("{s:o, s:i, s:o, s:s, s:i, s:s, s:s, s:i, s:f, s:o}",
		      "rel_pct", num(s->floor_pct), "invocations", s->ninv,
		      "sd_between_pct", num(s->sd_between_pct), "lock", "tas",
		      "threads", 1, "workload", "cs", "source", "system check",
		      "runs_each", SC_INV_RUNS, "window_s", s->window_s,
		      "medians_ops_per_sec", m);
	if (f)
		floor_provenance(f, s);
	return f;
}

static json_t *clock_json(const struct syscheck *s)
{
	json_t *inv = json_array();

	for (unsigned i = 0; i < s->nchild_read; i++)
		json_array_append_new(inv, json_real(s->child_read_ns[i]));
	return json_pack("{s:s, s:o, s:o, s:o}", "source", s->clock.name,
			 "read_ns", num(s->clock.read_ns), "tick_ns", num(s->clock.tick_ns),
			 "read_ns_invocations", inv);
}

/* Histogram counts [0..HT_NHIST-1] as a JSON array. */
static json_t *hist_json(const uint64_t *h)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < HT_NHIST; i++)
		json_array_append_new(a, json_integer((json_int_t)h[i]));
	return a;
}

static json_t *takes_cpu_json(const struct ht_cpu *x, double irqs)
{
	return json_pack("{s:i, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o}",
		"cpu", x->cpu, "fraction", num(x->fraction), "per_s", num(x->per_s),
		"longest_us", num(x->takes ? x->longest_ns / 1000 : 0),
		"takes", (json_int_t)x->takes, "read_ns", num(x->read_ns),
		"threshold_ns", num(x->threshold_ns), "run_ms", num(x->run_ns / 1e6),
		"guest_ms", num(x->guest_ns / 1e6), "guest_gaps", (json_int_t)x->guest_gaps,
		"hist", hist_json(x->hist), "irqs_per_s", num(irqs),
		"error", x->err ? json_string(strerror(x->err)) : json_null());
}

/* {fraction, per_s, longest_us, ms, level, hist_from_us, hist, per_cpu,
 * error}: the CPUs' mean fraction and rate, the longest take, each
 * CPU's window, the histogram summed over the CPUs. */
static json_t *takes_json(const struct syscheck *s)
{
	json_t *cpus = json_array(), *edges = json_array();
	uint64_t h[HT_NHIST] = {0};

	for (unsigned i = 0; i < s->ntakes; i++) {
		json_array_append_new(cpus, takes_cpu_json(&s->takes[i], s->takes_irqs[i]));
		for (unsigned k = 0; !s->takes[i].err && k < HT_NHIST; k++)
			h[k] += s->takes[i].hist[k];
	}
	for (unsigned k = 0; k < HT_NHIST; k++)
		json_array_append_new(edges, json_real(ht_hist_edge_us(k)));
	return json_pack("{s:o, s:o, s:o, s:o, s:f, s:f, s:o, s:o, s:o, s:o}",
		"fraction", num(s->takes_frac), "per_s", num(s->takes_per_s),
		"irqs_per_s", num(s->takes_irq_per_s),
		"longest_us", num(s->takes_longest_ns / 1000), "ms", 1000 * SC_TAKES_S,
		"level", HT_LEVEL, "hist_from_us", edges, "hist", hist_json(h),
		"per_cpu", cpus, "error", *s->takes_err ? json_string(s->takes_err) : json_null());
}

/* The hypervisor part of the machine description (a borrowed reference). */
static const json_t *hypervisor(const struct syscheck *s)
{
	return json_object_get(json_object_get(s->machine, "environment"), "hypervisor");
}

static json_t *verdicts_json(const struct syscheck *s);

json_t *syscheck_json(const struct syscheck *s, const struct cli *c)
{
	const json_t *hv = hypervisor(s);

	return json_pack("{s:s, s:s, s:o, s:O, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:i,"
			 " s:o, s:{s:o, s:f}, s:o, s:o, s:O, s:f, s:f, s:o, s:O}",
		"schema", "lockbench-system-check", "schema_version", "1.1",
		"lockbench", provenance_json(c->full_argc, c->full_argv, false, 0),
		"machine", s->machine, "clock", clock_json(s),
		"relax_ns", num(s->relax_ns), "empty_loop_ns", num(s->empty_ns),
		"delay_floor_ns", num(s->delay_floor_ns), "delays", delays_json(s),
		"c2c", c2c_json(s), "tas_cv_pct", num(s->tas_cv_pct),
		"tas_cv_runs", SC_CV_RUNS, "floor", floor_json(s),
		"steal", "fraction", num(s->steal_frac), "max", s->steal_max,
		"host_takes", takes_json(s),
		"loadavg_start", num(s->load_start),
		"hypervisor", hv ? (json_t *)hv : json_null(),
		"window_s", s->window_s, "elapsed_s", s->elapsed_s,
		"verdicts", verdicts_json(s), "errors", s->errors);
}

/* ---- verdicts ------------------------------------------------------- */

static void say(json_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(json_t *a, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	json_array_append_new(a, json_string(line));
}

/* The delay at the longest request that did not hold, fixed first. */
static const struct sc_delay *worst_long(const struct syscheck *s, const char **dist)
{
	for (unsigned i = SC_NDELAY; i-- > 0;)
		for (unsigned k = 0; k < 2; k++)
			if (!s->delay[k][i].holds) {
				*dist = k ? "exponential" : "fixed";
				return &s->delay[k][i];
			}
	return NULL;
}

static void say_delays(json_t *a, const struct syscheck *s)
{
	const struct sc_delay *w;
	const char *dist = "";

	if (!s->delays_measured) {
		say(a, "delays not measured: %s", s->delay_err);
		return;
	}
	if (isfinite(s->delay_floor_ns)) {
		say(a, "delays from %.0f ns hold within %.0f%% (fixed and exponential, sampled "
		    "and timed from outside)", s->delay_floor_ns, 100 * SC_DELAY_TOL);
		return;
	}
	w = worst_long(s, &dist);
	say(a, "no delay up to %u ns holds within %.0f%% here: %u ns %s came out %.0f ns "
	    "sampled, %.0f ns from outside",
	    s->delay[0][SC_NDELAY - 1].ns, 100 * SC_DELAY_TOL, w->ns, dist, w->sampled,
	    w->outside);
}

static void say_floor(json_t *a, const struct syscheck *s)
{
	if (isfinite(s->floor_pct))
		say(a, "1-thread differences below %.1f%% are not resolvable here (the "
		    "invocation floor: %u separate invocations of tas, sd %.2f%% between them)",
		    s->floor_pct, s->ninv, s->sd_between_pct);
	else
		say(a, "invocation floor not measured: %s", s->floor_err);
	if (isfinite(s->tas_cv_pct))
		say(a, "1-thread run-to-run spread within one invocation: CV %.1f%% over %u "
		    "runs of tas", s->tas_cv_pct, SC_CV_RUNS);
	else
		say(a, "run-to-run spread not measured: %s", s->tas_err);
}

/* Was the machine busy when the check started (load average at half the
 * usable CPUs or more)? */
static bool busy(const struct syscheck *s)
{
	return isfinite(s->load_start) && s->load_start >= 0.5 * s->ncpus;
}

static void say_c2c(json_t *a, const struct syscheck *s)
{
	bool any = false;

	if (!s->c2c_classes) {
		say(a, "one usable CPU: no core-to-core figures, no multi-thread results here");
		return;
	}
	for (unsigned k = 0; k < HC_NCLASS; k++) {
		struct class_stats cs;

		if (s->c2c.cpu[k] < 0)
			continue;
		class_stats(s, k, &cs);
		if (cs.bimodal) {
			say(a, "2-thread results bimodal: the host moves vCPUs%s (core-to-core "
			    "round trip %s: %.0f ns or %.0f ns over %u probes)",
			    busy(s) ? ", or other work takes the CPUs" : "",
			    hc_class_name(k), cs.lo, cs.hi, cs.n);
			any = true;
		}
	}
	for (unsigned k = 0; !any && k < HC_NCLASS; k++) {
		struct class_stats cs;

		if (s->c2c.cpu[k] < 0)
			continue;
		class_stats(s, k, &cs);
		if (!cs.n)
			say(a, "core-to-core probe failed (%s: cpu %d and %d could not be "
			    "pinned)", hc_class_name(k), s->c2c.cpu0, s->c2c.cpu[k]);
		else
			say(a, "core-to-core round trip steady: %s %.0f ns (%.0f to %.0f over "
			    "%u probes)", hc_class_name(k), cs.median, cs.min, cs.max, cs.n);
	}
}

/* Host takes above HT_LEVEL of a CPU? */
static bool takes_seen(const struct syscheck *s)
{
	return isfinite(s->takes_frac) && s->takes_frac >= HT_LEVEL;
}

/* ... and steal does not show them (less than half as much reported)? */
static bool takes_unreported(const struct syscheck *s)
{
	return takes_seen(s) && !(isfinite(s->steal_frac) && s->steal_frac >= s->takes_frac / 2);
}

static void say_steal(json_t *a, const struct syscheck *s)
{
	if (!isfinite(s->steal_frac))
		say(a, "steal time unknown (no steal field in /proc/stat)");
	else if (s->steal_frac > s->steal_max)
		say(a, "steal present: the host took %.1f%% of the CPU time during the check "
		    "(above %.0f%%; runs are not flagged for it)", 100 * s->steal_frac,
		    100 * s->steal_max);
	else if (takes_unreported(s))
		say(a, "steal reads %.2f%% during the check, yet each CPU lost %.1f%% unseen "
		    "(host takes): steal does not show it here", 100 * s->steal_frac,
		    100 * s->takes_frac);
	else
		say(a, "no steal above %.0f%% (%.2f%% during the check)", 100 * s->steal_max,
		    100 * s->steal_frac);
}

/* What the reads of the counter saw (docs/method.md, "Host takes"): a
 * figure per operation is 1 / (1 - f) of what the CPU gave it.  Where
 * the CPUs served about as many interrupts as they saw takes, the
 * takes may be the guest's own interrupts (charged to the thread they
 * interrupted), and the verdict does not blame the host. */
static void say_takes(json_t *a, const struct syscheck *s)
{
	double f = s->takes_frac;

	if (!isfinite(f))
		say(a, "host takes not measured: %s", s->takes_err);
	else if (!takes_seen(s))
		say(a, "no host takes above %.1f%% (%.2f%% of each CPU, %.0f a second)",
		    100 * HT_LEVEL, 100 * f, s->takes_per_s);
	else if (takes_unreported(s) && isfinite(s->takes_irq_per_s) &&
		 s->takes_irq_per_s >= s->takes_per_s / 2)
		say(a, "%.1f%% of each CPU is taken unseen (%.0f times a second, up to %.0f us), "
		    "by the host or the guest's own %.0f interrupts a second; no steal "
		    "reported: figures read up to %.1f%% slow", 100 * f, s->takes_per_s,
		    s->takes_longest_ns / 1000, s->takes_irq_per_s, 100 * (1 / (1 - f) - 1));
	else if (takes_unreported(s))
		say(a, "the host takes %.1f%% of each CPU (%.0f times a second, up to %.0f us) "
		    "and reports no steal: figures read up to %.1f%% slow", 100 * f,
		    s->takes_per_s, s->takes_longest_ns / 1000, 100 * (1 / (1 - f) - 1));
	else
		say(a, "the host takes %.1f%% of each CPU (%.0f times a second, up to %.0f us), "
		    "reported as steal", 100 * f, s->takes_per_s, s->takes_longest_ns / 1000);
}

static void say_host(json_t *a, const struct syscheck *s)
{
	const json_t *hv = hypervisor(s);
	const char *type = json_string_value(json_object_get(hv, "type"));
	double lo = INFINITY, hi = 0;

	if (busy(s))
		say(a, "the machine is busy (load average %.1f on %u CPU%s when the check "
		    "started): every figure here includes other work; check again when it "
		    "is quiet", s->load_start, s->ncpus, s->ncpus == 1 ? "" : "s");
	say_steal(a, s);
	say_takes(a, s);
	if (json_is_true(json_object_get(hv, "detected")))
		say(a, "a virtual machine (hypervisor %s): the host can move vCPUs and take "
		    "time between runs", type ? type : "detected, type unknown");
	else
		say(a, "no hypervisor detected");
	for (unsigned i = 0; i < s->nchild_read; i++) {
		lo = s->child_read_ns[i] < lo ? s->child_read_ns[i] : lo;
		hi = s->child_read_ns[i] > hi ? s->child_read_ns[i] : hi;
	}
	if (s->nchild_read >= 2 && hi > 1.5 * lo)
		say(a, "the clock calibration differs between invocations (a read %.2f to "
		    "%.2f ns): compare files calibrated alike", lo, hi);
}

static json_t *verdicts_json(const struct syscheck *s)
{
	json_t *a = json_array();

	say_delays(a, s);
	say_floor(a, s);
	say_c2c(a, s);
	say_host(a, s);
	return a;
}

/* ---- text ----------------------------------------------------------- */

/* A figure, or "-" when not measured. */
static const char *fig(char *buf, size_t len, const char *fmt, double v)
{
	if (!isfinite(v))
		return "-";
	snprintf(buf, len, fmt, v);
	return buf;
}

static void print_delays(const struct syscheck *s, FILE *f)
{
	char b[4][32];

	if (!s->delays_measured) {
		fprintf(f, "%-16s not measured\n", "delays");
		return;
	}
	fprintf(f, "%-16s %8s  %9s %9s  %9s %9s   (ns; within %.0f%%: *)\n", "delays",
		"request", "fixed", "outside", "exp", "outside", 100 * SC_DELAY_TOL);
	for (unsigned i = 0; i < SC_NDELAY; i++) {
		const struct sc_delay *x = &s->delay[0][i], *y = &s->delay[1][i];

		fprintf(f, "%-16s %8u  %9s %9s  %9s %9s   %s\n", "", x->ns,
			fig(b[0], 32, "%.1f", x->sampled), fig(b[1], 32, "%.1f", x->outside),
			fig(b[2], 32, "%.1f", y->sampled), fig(b[3], 32, "%.1f", y->outside),
			x->holds && y->holds ? "*" : "");
	}
}

static void print_c2c(const struct syscheck *s, FILE *f)
{
	bool any = false;

	for (unsigned k = 0; k < HC_NCLASS; k++) {
		struct class_stats cs;

		if (s->c2c.cpu[k] < 0)
			continue;
		class_stats(s, k, &cs);
		fprintf(f, "%-16s %s (cpu %d and %d): median %.0f ns, %.0f to %.0f over %u "
			"probes\n", any ? "" : "core-to-core", hc_class_name(k), s->c2c.cpu0,
			s->c2c.cpu[k], cs.n ? cs.median : 0, cs.n ? cs.min : 0,
			cs.n ? cs.max : 0, cs.n);
		any = true;
	}
	if (!any)
		fprintf(f, "%-16s - (one usable CPU)\n", "core-to-core");
}

static void print_takes(const struct syscheck *s, FILE *f)
{
	char b[32];

	if (!isfinite(s->takes_frac)) {
		fprintf(f, "%-16s - (%s)\n", "host takes", s->takes_err);
		return;
	}
	fprintf(f, "%-16s %.2f%% of each CPU: %.0f a second, up to %.0f us (%.1f s, %u "
		"CPU%s at once; interrupts: %s a second)\n", "host takes", 100 * s->takes_frac,
		s->takes_per_s, isfinite(s->takes_longest_ns) ? s->takes_longest_ns / 1000 : 0,
		SC_TAKES_S, s->ntakes, s->ntakes == 1 ? "" : "s",
		fig(b, sizeof(b), "%.0f", s->takes_irq_per_s));
}

void syscheck_print(const struct syscheck *s, const json_t *doc, FILE *f)
{
	const json_t *v;
	char b[3][32];
	size_t i;

	fprintf(f, "lockbench system check: what this machine can measure (%.1f s; "
		"nothing on the machine changed)\n\n", s->elapsed_s);
	fprintf(f, "%-16s %s: a read %s ns, a tick %s ns\n", "clock", s->clock.name,
		fig(b[0], 32, "%.2f", s->clock.read_ns), fig(b[1], 32, "%.3f", s->clock.tick_ns));
	fprintf(f, "%-16s %s ns\n", "cpu_relax()", fig(b[0], 32, "%.1f", s->relax_ns));
	fprintf(f, "%-16s %s ns per operation (the null lock's loop, 1 thread)\n",
		"empty loop", fig(b[0], 32, "%.2f", s->empty_ns));
	print_delays(s, f);
	print_c2c(s, f);
	fprintf(f, "%-16s CV %s%% over %u runs of tas (1 thread, one invocation)\n",
		"run-to-run", fig(b[0], 32, "%.2f", s->tas_cv_pct), SC_CV_RUNS);
	fprintf(f, "%-16s floor %s%%: sd %s%% between the medians of %u invocations of tas\n",
		"invocations", fig(b[0], 32, "%.2f", s->floor_pct),
		fig(b[1], 32, "%.2f", s->sd_between_pct), s->ninv);
	print_takes(s, f);
	fprintf(f, "%-16s %s%% of the CPU time (a run is flagged above %.0f%%)\n", "steal",
		fig(b[2], 32, "%.2f", 100 * s->steal_frac), 100 * s->steal_max);
	fprintf(f, "\nWhat can be trusted here:\n");
	json_array_foreach(json_object_get(doc, "verdicts"), i, v)
		fprintf(f, "  %s\n", json_string_value(v));
	if (json_array_size(s->errors))
		fprintf(f, "\nRuns left out or failed:\n");
	json_array_foreach(s->errors, i, v)
		fprintf(f, "  %s\n", json_string_value(v));
}
