/* SPDX-License-Identifier: MIT */
/*
 * The notes under the text tables (docs/formats.md, "Notes"): what each
 * mark means, what went wrong, what to read the numbers with.  One
 * table of kinds (kinds[], most important first) orders them all: in
 * full with -v and in the --no-marks layouts; by default one line per
 * kind, at most RENDER_NOTE_LINES lines.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
/* Append to a bounded line buffer. */
static void __attribute__((format(printf, 3, 4)))
line_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t n = strlen(buf);
	va_list ap;

	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + n, len - n, fmt, ap);
	va_end(ap);
}

/* Why -r auto stopped at the first thread count that missed the target. */
static const char *first_stop(const struct results *r)
{
	for (unsigned row = 0; r->noise.row_stop && row < r->nrows; row++)
		for (unsigned v = 0; v < r->nvariants; v++) {
			const struct point *p = results_point(r, v, row);

			if (p->status == POINT_OK && !p->noise.reached)
				return r->noise.row_stop[row] == ADAPT_BUDGET ?
				       "the time budget ran out" :
				       r->noise.row_stop[row] == ADAPT_MAX_RUNS ?
				       "max runs reached" : "stopped early";
		}
	return "stopped early";
}

/* Append "(threads: ticket 1, 2; mcs 1)" for the points with want(p). */
static void list_points(const struct results *r, char *line, size_t len,
			bool (*want)(const struct point *))
{
	const char *vsep = "";
	char row[64];

	line_add(line, len, " (%s:", r->row_heading ? r->row_heading : "rows");
	for (unsigned v = 0; v < r->nvariants; v++) {
		const char *rsep = " ";
		bool any = false;

		for (unsigned k = 0; k < r->nrows; k++) {
			const struct point *p = results_point(r, v, k);

			if (p->status != POINT_OK || !want(p))
				continue;
			if (!any)
				line_add(line, len, "%s %s", vsep, r->variants[v].name);
			/* \001: a space render_wrapped() never breaks at. */
			line_add(line, len, "%s%s", any ? rsep : "\001",
				 results_row_name(r, k, row, sizeof(row)));
			any = true;
			rsep = ", ";
			vsep = ";";
		}
	}
	line_add(line, len, ")");
}

static bool pt_flagged(const struct point *p)
{
	return p->noise.flagged > 0;
}

static bool pt_cs_off(const struct point *p)
{
	return p->noise.cs_off > 0;
}

static bool pt_not_reached(const struct point *p)
{
	return !p->noise.reached;
}

/* Do the compared files differ in a calibration (results.env_diffs)? */
static bool calibration_differs(const struct results *r)
{
	size_t i;
	json_t *d;

	json_array_foreach(r->env_diffs, i, d)
		if (!strcmp(json_string_value(json_object_get(d, "kind")) ?
			    json_string_value(json_object_get(d, "kind")) : "", "calibration"))
			return true;
	return false;
}

/*
 * What differs between the compared files' environments that changes
 * the numbers, one line each (compare fills results.env_diffs); f NULL:
 * only say whether there is any.
 */
static bool env_notes(const struct results *r, const struct render_opts *o, FILE *f)
{
	size_t i;
	json_t *d;

	if (!o->marks || !json_array_size(r->env_diffs))
		return false;
	json_array_foreach(r->env_diffs, i, d)
		if (f && json_is_string(json_object_get(d, "line")))
			render_wrapped(f, json_string_value(json_object_get(d, "line")), 3);
	return true;
}

/* The flagged run that lost the most of its window (noise_lost_share()),
 * or NULL; its point's index into *at. */
static const struct run_sample *worst_run(const struct results *r, unsigned *at)
{
	const struct run_sample *w = NULL;
	double most = -1;

	for (unsigned i = 0; i < r->nvariants * r->nrows; i++)
		for (unsigned j = 0; j < r->points[i].nruns; j++) {
			const struct run_sample *s = &r->points[i].runs[j];
			double lost = noise_lost_share(&s->noise);

			if ((s->noise.flags & NOISE_NOISY) && lost > most) {
				most = lost;
				w = s;
				*at = i;
			}
		}
	return w;
}

/* "!  noisy: 2 of 6 runs flagged (shared its CPU 1, stopped 1)". */
static void noise_counts(const struct results *r, char *line, size_t len)
{
	static const char *const what[NOISE_NFLAGS] = {"shared its CPU", "stopped", NULL};
	const struct results_noise *rn = &r->noise;
	const char *sep = "";

	snprintf(line, len, "!  noisy: %u of %u run%s flagged (", rn->flagged,
		 rn->runs, rn->runs == 1 ? "" : "s");
	for (unsigned i = 0; i < NOISE_NFLAGS; i++)
		if (what[i] && rn->by_flag[i])
			line_add(line, len, "%s%s %u", sep, what[i], rn->by_flag[i]), sep = ", ";
	line_add(line, len, ")");
}

/* The rule that leaves runs out, stated wherever runs are flagged (one
 * rule for every point, docs/method.md "Noise"), and how many it took. */
static void noise_excluded(const struct results *r, char *line, size_t len)
{
	if (r->noise.excluded)
		line_add(line, len, "; %u left out of the statistics: a worker lost a "
			 "quarter of the window or more (the rule at every point)",
			 r->noise.excluded);
	else
		line_add(line, len, "; none left out (a run is when a worker loses a "
			 "quarter of the window)");
}

/* The `!` note: how many runs were flagged for noise, for what, at
 * which points, and the worst run's reason. */
static void noise_flag_note(const struct results *r, FILE *f)
{
	unsigned at = 0;
	const struct run_sample *w = worst_run(r, &at);
	char line[2048], why[128], row[64];

	noise_counts(r, line, sizeof(line));
	list_points(r, line, sizeof(line), pt_flagged);
	noise_excluded(r, line, sizeof(line));
	if (w && w->noise.present)
		line_add(line, sizeof(line), "; the most: %s at %s %s, %s (each run's "
			 "reason: runs[].reason in the JSON)",
			 r->variants[at / r->nrows].name, r->row_heading,
			 results_row_name(r, at % r->nrows, row, sizeof(row)),
			 noise_reason(&w->noise, why, sizeof(why)));
	render_wrapped(f, line, 3);
}

/* How many measured points there are (*npts) and how many of them had
 * section lengths off from the request (returned). */
static unsigned cs_off_count(const struct results *r, unsigned *npts)
{
	unsigned noff = 0;

	*npts = 0;
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		*npts += r->points[i].status == POINT_OK;
		noff += r->points[i].status == POINT_OK && r->points[i].noise.cs_off;
	}
	return noff;
}

/* Section lengths off from --cs-ns/--ncs-ns: where, and why it may be. */
static void cs_off_note(const struct results *r, FILE *f)
{
	unsigned npts, noff = cs_off_count(r, &npts);
	char line[2048];

	snprintf(line, sizeof(line), "section lengths off by more than %.0f%% "
		 "from --cs-ns/--ncs-ns in %u of %u point%s", r->noise.opts.cs_tolerance * 100,
		 noff, npts, npts == 1 ? "" : "s");
	list_points(r, line, sizeof(line), pt_cs_off);
	line_add(line, sizeof(line), ": the delays did not hold (%spreempted "
		 "workers, a loaded machine?); the lengths measured are in the "
		 "JSON (runs[].cs_ns_actual_median, ncs_ns_actual_median)",
		 calibration_differs(r) ? "the files' calibrations differ, see above; "
		 "else " : "");
	render_wrapped(f, line, 3);
}

/* -r auto: the points whose confidence interval missed the target. */
static void ci_note(const struct results *r, FILE *f)
{
	char line[2048];

	snprintf(line, sizeof(line), "95%% CI within %g%% of the mean not reached, "
		 "%s", r->noise.opts.ci_target * 100, first_stop(r));
	list_points(r, line, sizeof(line), pt_not_reached);
	render_wrapped(f, line, 3);
}

/*
 * Headline workload metrics under a text format (with marks on), for
 * the last row: p99 acquisition latency per variant, the share of
 * handovers staying on the node when they did not all (more than one
 * node), and what an rw throughput counts.  Nothing without them.
 */
/* Do the throughputs count reads and writes together (a point has both
 * rates)?  Then a note says so: JSON has them apart. */
static bool counts_reads(const struct results *r)
{
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++)
		if (r->points[i].status == POINT_OK && !isnan(r->points[i].read_rate))
			return true;
	return false;
}

/* Is there a headline metric for render_metrics() to print? */
static bool render_has_metrics(const struct results *r)
{
	for (unsigned v = 0; v < r->nvariants && r->nrows; v++) {
		const struct point *p = results_point(r, v, r->nrows - 1);

		if (p->status == POINT_OK && ((p->lat && p->lat->n) ||
					      (!isnan(p->hand_node) && p->hand_node < 1)))
			return true;
	}
	return counts_reads(r);
}

/* --counters: each event per operation (mean over the runs) at `row`,
 * one line per variant. */
static void render_perf(const struct results *r, unsigned row, const char *at,
			FILE *f)
{
	char line[2048];

	for (unsigned v = 0; r->nperf && r->perf_named && v < r->nvariants; v++) {
		const struct point *p = results_point(r, v, row);

		if (p->status != POINT_OK || !p->perf_sum)
			continue;
		snprintf(line, sizeof(line), "per operation %s, %s:", at, r->variants[v].name);
		for (unsigned e = 0; e < r->nperf; e++) {
			double m = p->perf_sum[e].mean;

			/* Three significant digits, without exponents for counts. */
			line_add(line, sizeof(line), fabs(m) >= 100 ? "%s %s %.0f" : "%s %s %.3g",
				 e ? "," : "", r->perf_names[e], m);
		}
		render_wrapped(f, line, 3);
	}
}

static void render_metrics(const struct results *r, FILE *f)
{
	unsigned row = r->nrows - 1, nlat = 0, nhand = 0;
	bool rw = counts_reads(r);
	const char *sep;
	char at[96], line[2048], t[32];

	for (unsigned v = 0; v < r->nvariants; v++) {
		const struct point *p = results_point(r, v, row);

		nlat += p->status == POINT_OK && p->lat && p->lat->n;
		nhand += p->status == POINT_OK && !isnan(p->hand_node) && p->hand_node < 1;
	}
	render_at_row(r, row, at, sizeof(at));
	if (nlat) {
		sep = "";
		snprintf(line, sizeof(line), "p99 acquisition latency %s (sampled):", at);
		for (unsigned v = 0; v < r->nvariants; v++) {
			const struct point *p = results_point(r, v, row);

			if (p->status == POINT_OK && p->lat && p->lat->n)
				line_add(line, sizeof(line), "%s %s %s", sep, r->variants[v].name,
					 render_ns((double)p->lat_p99, t, sizeof(t))), sep = ",";
		}
		render_wrapped(f, line, 3);
	}
	if (nhand) {
		sep = "";
		snprintf(line, sizeof(line), "handovers staying on the NUMA node %s:", at);
		for (unsigned v = 0; v < r->nvariants; v++) {
			const struct point *p = results_point(r, v, row);

			if (p->status == POINT_OK && !isnan(p->hand_node))
				line_add(line, sizeof(line), "%s %s %.0f%%", sep,
					 r->variants[v].name, p->hand_node * 100), sep = ",";
		}
		render_wrapped(f, line, 3);
	}
	if (rw)
		fprintf(f, "rw: throughput counts reads + writes (JSON has them apart)\n");
}

/* Kernel locktorture columns next to userspace ones (compare marks them). */
static bool kernel_mixed(const struct results *r)
{
	bool k = false, u = false;

	for (unsigned v = 0; v < r->nvariants; v++) {
		k |= r->variants[v].kernel;
		u |= !r->variants[v].kernel;
	}
	return k && u;
}

/*
 * Columns that ran different worker loops (variants[].loop): a lock
 * inlined into its loop against one called through the ops table (a
 * plugin without LOCKBENCH_PLUGIN_LOOPS(), docs/locks.md).  With short
 * sections the call is much of an operation.  Writes the note once to f
 * (NULL: only says whether there is one); names the generic columns.
 */
static bool loop_note(const struct results *r, FILE *f)
{
	char line[1024];
	size_t k = 0;
	bool in = false, gen = false;

	for (unsigned v = 0; v < r->nvariants; v++) {
		const char *l = r->variants[v].loop;

		in |= l && !strcmp(l, "inline");
		gen |= l && !strcmp(l, "generic");
	}
	if (!in || !gen || !f)
		return in && gen;
	k = (size_t)snprintf(line, sizeof(line), "loops differ: ");
	for (unsigned v = 0; v < r->nvariants && k < sizeof(line); v++)
		if (r->variants[v].loop && !strcmp(r->variants[v].loop, "generic"))
			k += (size_t)snprintf(line + k, sizeof(line) - k, "%s, ",
					      r->variants[v].name);
	if (k < sizeof(line))
		snprintf(line + k - 2, sizeof(line) - k + 2, " ran the generic worker "
			 "loop (lock and unlock called through the ops table), the "
			 "others the inline one; with short sections that alone "
			 "costs throughput (a plugin gets the inline loop with "
			 "LOCKBENCH_PLUGIN_LOOPS())");
	render_wrapped(f, line, 3);
	return true;
}

/* What the tests behind the `~` marks were, for the note. */
static const char *sig_method_text(unsigned methods)
{
	if (methods == 1u << SIG_ROUNDS)
		return "paired t on per-round ratios";
	if (methods == 1u << SIG_INVOC_PAIRED)
		return "trimmed t on per-invocation ratios";
	if (methods == 1u << SIG_INVOC)
		return "Welch t on invocation means";
	if (methods == 1u << SIG_FLOOR)
		return "Welch t on the runs, then the invocation floor";
	return "paired t on rounds, or on invocations";
}

/* Does some variant have a geometric mean over 2 or more rows? */
static bool has_geomean(const struct results *r)
{
	for (unsigned v = 0; v < r->nvariants; v++)
		if (r->variants[v].geo_n >= 2)
			return true;
	return false;
}

/* What the summary covers: "the 2 rows (1 oversubscribed left out)". */
static void geo_rows(const struct results *r, char *buf, size_t len)
{
	unsigned n = 0, over = 0;

	for (unsigned v = 0; v < r->nvariants; v++)
		if (r->variants[v].geo_n >= 2) {
			n = n > r->variants[v].geo_n ? n : r->variants[v].geo_n;
			over = over > r->variants[v].geo_over ? over : r->variants[v].geo_over;
		}
	snprintf(buf, len, "the %u rows", n);
	if (over)
		line_add(buf, len, " (%u oversubscribed left out)", over);
}

/* "geometric mean of the ratios over the 2 rows, against BASE: a
 * +1.2%, b -0.4%". */
static void geomean_note(const struct results *r, FILE *f)
{
	char line[2048], rows[96];
	const char *sep = "";

	geo_rows(r, rows, sizeof(rows));
	if (r->base_of && r->variants[r->baseline].label)
		snprintf(line, sizeof(line), "geometric mean of the ratios over %s, "
			 "against the same lock under %s:", rows,
			 r->variants[r->baseline].label);
	else
		snprintf(line, sizeof(line), "geometric mean of the ratios over %s, "
			 "against %s:", rows, r->variants[r->baseline].name);
	for (unsigned v = 0; v < r->nvariants; v++)
		if (r->variants[v].geo_n >= 2)
			line_add(line, sizeof(line), "%s %s\001%+.1f%%", sep,
				 r->variants[v].name, r->variants[v].geo_rel), sep = ",";
	render_wrapped(f, line, 3);
}

/* One note line, wrapped at RENDER_WRAP with later lines indented. */
static void __attribute__((format(printf, 3, 4)))
note(FILE *f, unsigned indent, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	render_wrapped(f, line, indent);
}

/* What the notes under a table have to say, from its points. */
struct note_marks {
	bool cv, ns, sig, over, missing, few, one_inv, unfair, floor;
	unsigned failed, methods;
	unsigned need;	/* the largest -r an unjudged point names */
	/* `_` by cause (results.h, enum unjudged_why): runs left out for a
	 * busy machine, too few invocations, a test that could not see the
	 * threshold (and the largest such smallest detectable change). */
	bool left, invs, power;
	double power_mde;
};

/* The `#` legend: a difference from the baseline that is significant
 * (the test of the `~` note, Holm-adjusted). */
static void sig_legend(const struct results *r, char *line, size_t len)
{
	const struct variant *bv = &r->variants[r->baseline];

	if (r->base_of && bv->label)
		snprintf(line, len, "#  significant difference from the same lock under %s",
			 bv->label);
	else
		snprintf(line, len, "#  significant difference from %s", bv->name);
	line_add(line, len, " (p < %.2f", r->alpha);
	if (r->min_effect > 0)
		line_add(line, len, ", at least %g%%", r->min_effect);
	line_add(line, len, ")");
}

/*
 * The `_` causes, one clause each, joined by "; " into buf: what left
 * the points unjudged and what would judge them (brief: the short
 * form).  Empty when no point is unjudged.
 */
static void unjudged_causes(const struct results *r, const struct note_marks *m,
			    bool brief, char *buf, size_t len)
{
	const char *sep = "";

	*buf = 0;
	if (m->one_inv)
		line_add(buf, len, "%s", brief ? "one invocation per label (give --floor)" :
			 "one invocation per label (compare 2 or more files per --label, "
			 "or give an invocation floor: --floor, from `lockbench system "
			 "check`)"), sep = "; ";
	if (m->left)
		line_add(buf, len, "%sruns left out as noisy (%s)", sep, brief ?
			 "a quieter machine would" : "a worker lost a quarter of the window "
			 "or more: measure on a quieter machine"), sep = "; ";
	if (m->need)
		line_add(buf, len, "%s%s%u%s", sep, brief ? "-r " : "a test needs 2 or "
			 "more runs a side (-r ", m->need, brief ? " would" : ")"), sep = "; ";
	if (m->invs)
		line_add(buf, len, "%s%s", sep, brief ? "2 or more invocations a side would" :
			 "a test needs 2 or more invocations a side"), sep = "; ";
	if (m->power)
		line_add(buf, len, "%scould not see a change of %g%%: smallest detectable "
			 "%.1f%% (%s)", sep, r->gate_pct, m->power_mde, brief ?
			 "more invocations or runs, a quieter machine" : "more invocations "
			 "a side or more runs, or a quieter machine, would bring it down");
}

/* The `_` note: "_  too few runs to judge: ..." and its causes. */
static void unjudged_line(const struct results *r, const struct note_marks *m,
			  bool brief, FILE *f)
{
	char causes[1024], line[1100];

	unjudged_causes(r, m, brief, causes, sizeof(causes));
	if (!*causes)
		return;
	snprintf(line, sizeof(line), "_  %s: %s", m->power && !m->one_inv && !m->left &&
		 !m->need && !m->invs ? "not judged" : "too few runs to judge", causes);
	render_wrapped(f, line, 3);
}

/* The `#` and `~` notes: what was tested, corrected how; `_`: what was
 * too few to judge. */
static void sig_note(const struct results *r, FILE *f, const struct note_marks *m)
{
	const struct variant *bv = &r->variants[r->baseline];
	unsigned methods = m->methods;
	char eff[64] = "";

	char line[1024];

	if (m->sig) {
		sig_legend(r, line, sizeof(line));
		render_wrapped(f, line, 3);
	}
	if (m->ns && methods) {
		if (r->min_effect > 0)
			snprintf(eff, sizeof(eff), " or below %g%%", r->min_effect);
		if (r->base_of && bv->label) {
			note(f, 3, "~  difference from the same lock under %s not "
			     "significant", bv->label);
			note(f, 3, "   (p >= %.2f%s):", r->alpha, eff);
		} else {
			note(f, 3, "~  difference from %s not significant (p >= %.2f%s):",
			     bv->name, r->alpha, eff);
		}
		note(f, 3, "   %s, Holm-adjusted over %u test%s",
		     sig_method_text(methods), r->ntests, r->ntests == 1 ? "" : "s");
	}
	unjudged_line(r, m, false, f);
}

/*
 * Imported locktorture columns: what each row's rate rests on, one line
 * per column ("stock: 4: 1 run, 3 intervals; 8: 1 run, final totals
 * over 30 s").  Returns whether there is anything to say.
 */
static bool lt_basis_line(const struct results *r, unsigned v, char *line, size_t len)
{
	char row[64];
	size_t n = 0;

	for (unsigned k = 0; r->variants[v].kernel && k < r->nrows; k++) {
		unsigned runs, iv, tot;
		double secs;

		if (!results_lt_basis(results_point(r, v, k), &runs, &iv, &tot, &secs))
			continue;
		if (!n)
			n = (size_t)snprintf(line, len, "%s: ", r->variants[v].name);
		n = n < len ? n : len - 1;
		n += (size_t)snprintf(line + n, len - n, "%s%s: %u run%s, ",
				      n > strlen(r->variants[v].name) + 2 ? "; " : "",
				      results_row_name(r, k, row, sizeof(row)), runs,
				      runs == 1 ? "" : "s");
		n = n < len ? n : len - 1;
		n += (size_t)(tot ? snprintf(line + n, len - n, "final totals over %.0f s", secs) :
				    snprintf(line + n, len - n, "%u interval%s", iv,
					     iv == 1 ? "" : "s"));
	}
	return n;
}

static bool lt_basis_notes(const struct results *r, FILE *f)
{
	char line[1024];
	bool any = false;

	for (unsigned v = 0; v < r->nvariants; v++) {
		if (!lt_basis_line(r, v, line, sizeof(line)))
			continue;
		if (f && !any)
			fprintf(f, "locktorture rates, per %s: from statistics intervals or "
				"final totals\n", r->row_heading ? r->row_heading : "row");
		if (f)
			render_wrapped(f, line, 3);
		any = true;
	}
	return any;
}

/* The invocation floor used, and where it came from. */
/* ", measured on HOST at DATE" of a floor that says (system check). */
static void floor_where(const json_t *fl, char *line, size_t len)
{
	const char *host = json_string_value(json_object_get(json_object_get(fl, "host"),
							     "hostname"));
	const char *at = json_string_value(json_object_get(fl, "measured_at"));

	if (host)
		line_add(line, len, ", measured on %s", host);
	if (at)
		line_add(line, len, "%s %s", host ? " at" : ", measured at", at);
}

static void floor_note(const struct results *r, FILE *f)
{
	const json_t *fl = r->inv_floor;
	const char *src = json_string_value(json_object_get(fl, "source"));
	const char *file = json_string_value(json_object_get(fl, "file"));
	const char *from = json_string_value(json_object_get(fl, "from"));
	const json_t *ninv = json_object_get(fl, "invocations");
	char line[2048];

	snprintf(line, sizeof(line), "invocation floor %.3g%% (%s", r->floor_pct,
		 src ? src : "given");
	if (json_is_integer(ninv))
		line_add(line, sizeof(line), ", %lld invocations",
			 (long long)json_integer_value(ninv));
	if (file)
		line_add(line, sizeof(line), ", %s", file);
	floor_where(fl, line, sizeof(line));
	if (from)
		line_add(line, sizeof(line), ", recorded in %s", from);
	line_add(line, sizeof(line), "): with one invocation a side a difference is "
		 "significant only if the runs' test says so and it exceeds the floor");
	render_wrapped(f, line, 3);
}

/* The smallest difference the invocation-level tests could detect. */
static void mde_note(const struct results *r, FILE *f)
{
	char line[512], range[64];

	if (r->mde_n > 1 && r->mde_max - r->mde_min >= 0.05)
		snprintf(range, sizeof(range), "%.1f%% to %.1f%% over %u points",
			 r->mde_min, r->mde_max, r->mde_n);
	else
		snprintf(range, sizeof(range), "%.1f%%", r->mde_max);
	snprintf(line, sizeof(line), "smallest difference this comparison could detect: "
		 "%s (%.0f%% power, two-sided %g, from the spread the test saw: "
		 "the per-round or per-invocation ratios, the invocations and their "
		 "runs, or the runs and the invocation floor)", range,
		 RESULTS_MDE_POWER * 100, r->alpha);
	render_wrapped(f, line, 3);
}

static void note_marks(const struct results *r, const struct render_opts *o,
		       struct note_marks *m)
{
	*m = (struct note_marks){0};
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		const struct point *p = &r->points[i];
		bool cmp = p->status == POINT_OK && p->has_rel && !p->significant;

		m->cv |= p->status == POINT_OK && p->high_cv;
		m->unfair |= p->status == POINT_OK && p->lt_unfair;
		m->ns |= cmp && !p->unjudged;
		m->sig |= p->status == POINT_OK && p->has_rel && p->significant;
		if (cmp && p->test.valid && !p->unjudged)
			m->methods |= 1u << p->method;
		if (cmp && p->unjudged && p->runs_needed > m->need)
			m->need = p->runs_needed;
		m->one_inv |= cmp && p->method == SIG_ONE_INVOC;
		m->floor |= p->status == POINT_OK && p->has_rel && p->method == SIG_FLOOR;
		m->few |= cmp && p->unjudged && p->why != UNJ_ONE_INVOC;
		m->left |= cmp && p->unjudged && p->why == UNJ_LEFT_OUT;
		m->invs |= cmp && p->unjudged && p->why == UNJ_INVOCATIONS;
		if (cmp && p->unjudged && p->why == UNJ_POWER && !(p->mde_pct <= m->power_mde))
			m->power_mde = p->mde_pct;
		m->power |= cmp && p->unjudged && p->why == UNJ_POWER;
		m->missing |= p->status == POINT_MISSING;
		m->failed += p->status == POINT_FAILED || p->status == POINT_HUNG ||
			     p->status == POINT_ERROR;
	}
	for (unsigned k = 0; k < r->nrows; k++)
		m->over |= render_oversubscribed(r, k);
	if (!o->marks)
		m->cv = m->ns = m->sig = m->over = m->missing = m->unfair = m->floor =
			m->few = m->one_inv = m->left = m->invs = m->power = false;
}

/* One line per point that failed, with its error. */
static void failed_notes(const struct results *r, FILE *f)
{
	char row[64], line[1024];

	for (unsigned i = 0; i < r->nvariants * r->nrows; i++)
		if (r->points[i].status >= POINT_FAILED && r->points[i].error) {
			snprintf(line, sizeof(line), "%s %s: %s", r->variants[i / r->nrows].name,
				 results_row_name(r, i % r->nrows, row, sizeof(row)),
				 r->points[i].error);
			render_wrapped(f, line, 3);
		}
}

/* The notes of one table, and what its points call for. */
struct notes {
	const struct results *r;
	const struct render_opts *o;
	struct note_marks m;
};

static void cv_note(const struct notes *n, FILE *f)
{
	fprintf(f, "?  std above %.0f%% of the mean: too spread to trust\n",
		n->r->cv_flag * 100);
}

static void over_note(const struct notes *n, FILE *f)
{
	fprintf(f, "*  more threads than CPUs (%u): oversubscribed\n", n->r->ncpus);
}

static void unfair_note(const struct notes *n, FILE *f)
{
	(void)n;
	render_wrapped(f, "^  unfair: in a run the busiest thread made more than twice "
		       "the operations of the least busy (locktorture's \?\?\?)", 3);
}

/* `^` in one line of RENDER_WRAP (-v: the whole note). */
static void unfair_brief(const struct notes *n, FILE *f)
{
	(void)n;
	fprintf(f, "^  unfair: the busiest thread did over 2x the least busy's operations\n");
}

static void missing_note(const struct notes *n, FILE *f)
{
	if (n->m.missing && !n->r->incomplete)
		fprintf(f, "-  not measured in that run\n");
	if (n->r->incomplete)
		fprintf(f, "incomplete: the sweep stopped early; missing points show -\n");
}

static void kernel_note(const struct notes *n, FILE *f)
{
	(void)n;
	render_wrapped(f, "[k] the kernel's locktorture (kthreads on a kernel lock, with "
		       "its own delays), next to lockbench's userspace torture "
		       "workload: two different measurements side by side, not one", 4);
}

/* [k] in one line of RENDER_WRAP (-v: the whole note). */
static void kernel_brief(const struct notes *n, FILE *f)
{
	(void)n;
	fprintf(f, "[k] the kernel's locktorture (kthreads): a different measurement\n");
}

/* `#`, `~`, the invocation floor and the smallest detectable change. */
static void sig_notes(const struct notes *n, FILE *f)
{
	if (n->m.ns || n->m.sig || n->m.few || n->m.one_inv)
		sig_note(n->r, f, &n->m);
	if (n->m.floor)
		floor_note(n->r, f);
	if (n->o->marks && n->r->mde_n)
		mde_note(n->r, f);
}

/* A brief note: whole, wrapped at RENDER_WRAP (never cut). */
static void one_line(const char *text, FILE *f)
{
	render_wrapped(f, text, 3);
}

/* The first note full() prints, whole: its first line and the indented
 * lines that continue it. */
static void brief_of(const struct notes *n, void (*full)(const struct notes *, FILE *),
		     FILE *f)
{
	char *buf = NULL;
	size_t len = 0, k = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		/* Out of memory: the note in full rather than none. */
		full(n, f);
		return;
	}
	full(n, m);
	if (fclose(m) || !buf) {
		free(buf);
		full(n, f);
		return;
	}
	while (k < len && (k == 0 || buf[k] == ' '))
		k += strcspn(buf + k, "\n") + (buf[k + strcspn(buf + k, "\n")] == '\n');
	fwrite(buf, 1, k, f);
	free(buf);
}

/* FAILED (HUNG, ERROR): every point that did not run through, and the
 * first one's error. */
static void failed_brief(const struct notes *n, FILE *f)
{
	static const char *const word[] = {[POINT_FAILED] = "FAILED",
		[POINT_HUNG] = "HUNG", [POINT_ERROR] = "ERROR"};
	const struct results *r = n->r;
	const char *err = NULL, *what = NULL, *vsep = "";
	char pts[1024] = "", text[2048], row[64];

	for (unsigned v = 0; v < r->nvariants; v++) {
		const char *rsep = " ";

		for (unsigned k = 0; k < r->nrows; k++) {
			const struct point *p = results_point(r, v, k);

			if (p->status < POINT_FAILED)
				continue;
			what = what ? what : word[p->status];
			err = err ? err : p->error;
			if (*rsep == ' ')
				line_add(pts, sizeof(pts), "%s %s", vsep, r->variants[v].name);
			line_add(pts, sizeof(pts), "%s%s", rsep,
				 results_row_name(r, k, row, sizeof(row)));
			rsep = ", ";
			vsep = ";";
		}
	}
	snprintf(text, sizeof(text), "%s%s%s%s", what ? what : "FAILED", pts, err ? ": " : "",
		 err ? err : "");
	one_line(text, f);
}

/* "; smallest detectable change 2.1%" (or "1.2% to 5.3%") of the tests
 * behind the verdicts: what a `~` could have seen. */
static void mde_brief(const struct results *r, char *line, size_t len)
{
	if (!r->mde_n)
		return;
	if (r->mde_n > 1 && r->mde_max - r->mde_min >= 0.05)
		line_add(line, len, "; smallest detectable change %.1f%% to %.1f%%",
			 r->mde_min, r->mde_max);
	else
		line_add(line, len, "; smallest detectable change %.1f%%", r->mde_max);
}

/* `#` and `~` on one line: what they mean, against what, and the
 * smallest change the tests could detect; `_` on its own line, with
 * its causes; else the first significance note. */
static void sig_brief(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	const struct variant *bv = &r->variants[r->baseline];
	char line[1024], sig[64], ns[64], what[512];

	snprintf(sig, sizeof(sig), "p < %.2f", r->alpha);
	snprintf(ns, sizeof(ns), "p >= %.2f", r->alpha);
	if (r->min_effect > 0) {
		line_add(sig, sizeof(sig), ", at least %g%%", r->min_effect);
		line_add(ns, sizeof(ns), " or below %g%%", r->min_effect);
	}
	if (r->base_of && bv->label)
		snprintf(what, sizeof(what), "the same lock under %s", bv->label);
	else
		snprintf(what, sizeof(what), "%s", bv->name);
	*line = 0;
	if (n->m.sig && n->m.methods)
		snprintf(line, sizeof(line), "#  significant (%s), ~  not (%s), against %s",
			 sig, ns, what);
	else if (n->m.sig)
		snprintf(line, sizeof(line), "#  significant (%s) against %s", sig, what);
	else if (n->m.methods)
		snprintf(line, sizeof(line), "~  not significant (%s) against %s", ns, what);
	if (*line && n->o->marks)
		mde_brief(r, line, sizeof(line));
	if (*line)
		one_line(line, f);
	if (n->m.few || n->m.one_inv)
		unjudged_line(r, &n->m, true, f);
	else if (!*line)
		brief_of(n, sig_notes, f);
}

/* The geometric means themselves (-v: against what). */
static void geo_brief(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	char line[2048], rows[96];
	const char *sep = " ";

	geo_rows(r, rows, sizeof(rows));
	snprintf(line, sizeof(line), "geometric mean over %s%s:", rows,
		 n->o->unit == UNIT_NS || UNIT_IS_XFER(n->o->unit) ? " (throughput)" : "");
	for (unsigned v = 0; v < r->nvariants; v++)
		if (r->variants[v].geo_n >= 2)
			line_add(line, sizeof(line), "%s%s %+.1f%%", sep, r->variants[v].name,
				 r->variants[v].geo_rel), sep = ", ";
	one_line(line, f);
}

/* `!`: how many runs, flagged for what (-v: where, and the remedies). */
static void noise_brief(const struct notes *n, FILE *f)
{
	char line[1024];

	noise_counts(n->r, line, sizeof(line));
	noise_excluded(n->r, line, sizeof(line));
	one_line(line, f);
}

/* Section lengths: in how many points (-v: which, and why). */
static void cs_off_brief(const struct notes *n, FILE *f)
{
	unsigned npts, noff = cs_off_count(n->r, &npts);
	char line[256];

	snprintf(line, sizeof(line), "section lengths off by >%.0f%% from "
		 "--cs-ns/--ncs-ns in %u of %u point%s", n->r->noise.opts.cs_tolerance * 100,
		 noff, npts, npts == 1 ? "" : "s");
	one_line(line, f);
}

/* The first imported column's basis: "locktorture rates: stock: 4: 1
 * run, 3 intervals". */
static void lt_brief(const struct notes *n, FILE *f)
{
	char line[1024], text[1100];

	for (unsigned v = 0; v < n->r->nvariants; v++)
		if (lt_basis_line(n->r, v, line, sizeof(line))) {
			snprintf(text, sizeof(text), "locktorture rates: %s", line);
			one_line(text, f);
			return;
		}
}

static bool has_failed(const struct notes *n)
{
	return n->m.failed;
}

static bool has_over(const struct notes *n)
{
	return n->m.over;
}

static bool has_cv(const struct notes *n)
{
	return n->m.cv;
}

static bool has_unfair(const struct notes *n)
{
	return n->m.unfair;
}

static bool has_kernel(const struct notes *n)
{
	return kernel_mixed(n->r);
}

static bool has_env(const struct notes *n)
{
	return env_notes(n->r, n->o, NULL);
}

static bool has_loops(const struct notes *n)
{
	return loop_note(n->r, NULL);
}

static bool has_geo(const struct notes *n)
{
	return n->o->marks && has_geomean(n->r);
}

static bool has_lt(const struct notes *n)
{
	return n->o->marks && lt_basis_notes(n->r, NULL);
}

static bool has_sig(const struct notes *n)
{
	return n->m.ns || n->m.sig || n->m.few || n->m.one_inv || n->m.floor ||
	       (n->o->marks && n->r->mde_n);
}

static bool has_noise(const struct notes *n)
{
	return n->o->marks && n->r->noise.flagged;
}

static bool has_cs_off(const struct notes *n)
{
	unsigned npts;

	return n->o->marks && cs_off_count(n->r, &npts);
}

static bool has_missing(const struct notes *n)
{
	return n->m.missing || n->r->incomplete;
}

static bool has_ci(const struct notes *n)
{
	return n->r->noise.opts.adaptive && n->r->noise.not_reached;
}

static bool has_metrics(const struct notes *n)
{
	return n->o->marks && n->r->nrows && n->r->nvariants && render_has_metrics(n->r);
}

/* --counters named the events: their figures are always shown. */
static bool has_counters(const struct notes *n)
{
	const struct results *r = n->r;

	for (unsigned v = 0; n->o->marks && r->nperf && r->perf_named && r->nrows &&
			     v < r->nvariants; v++)
		if (results_point(r, v, r->nrows - 1)->status == POINT_OK &&
		    results_point(r, v, r->nrows - 1)->perf_sum)
			return true;
	return false;
}

static void counters_full(const struct notes *n, FILE *f)
{
	char at[96];

	render_at_row(n->r, n->r->nrows - 1, at, sizeof(at));
	render_perf(n->r, n->r->nrows - 1, at, f);
}

/* A column built from a kernel tree with the CNA series: its build's
 * flags name CONFIG_NUMA_AWARE_SPINLOCKS (kernel/ktree.c). */
static bool cna_column(const struct results *r)
{
	for (unsigned v = 0; v < r->nvariants; v++) {
		const char *fl = json_string_value(json_object_get(r->variants[v].source,
								   "cflags"));

		if (fl && strstr(fl, "-DCONFIG_NUMA_AWARE_SPINLOCKS"))
			return true;
	}
	return false;
}

/* Did every worker of one run run on one NUMA node: not with
 * --fake-nodes 2+ or --map-topology; else the placement's nodes, else a
 * machine of one node. */
static bool doc_one_node(const json_t *machine, const json_t *config,
			 const json_t *placement)
{
	const json_t *th = json_object_get(placement, "threads"), *t;
	const json_t *map = json_object_get(config, "map_topology");
	json_int_t first = -1;
	size_t i;

	if (json_integer_value(json_object_get(config, "fake_nodes")) >= 2 ||
	    json_is_true(map) || json_is_object(map))
		return false;
	if (json_array_size(th)) {
		json_array_foreach(th, i, t) {
			json_int_t nd = json_integer_value(json_object_get(t, "node"));

			if (first >= 0 && nd != first)
				return false;
			first = nd;
		}
		return true;
	}
	return json_integer_value(json_object_get(machine, "numa_nodes")) == 1;
}

/* ... of every file compared (config.files[]), or of the run. */
static bool one_node(const struct results *r)
{
	const json_t *files = json_object_get(r->config, "files"), *f;
	size_t i;

	if (!json_array_size(files))
		return doc_one_node(r->machine, r->config, r->placement);
	json_array_foreach(files, i, f)
		if (!doc_one_node(json_object_get(f, "machine"), json_object_get(f, "config"),
				  NULL))
			return false;
	return true;
}

/* A CNA tree measured with every worker on one node (docs/kernel-tree.md,
 * "The CNA series"): its NUMA win cannot show. */
static bool has_cna(const struct notes *n)
{
	return cna_column(n->r) && one_node(n->r);
}

static void cna_full(const struct notes *n, FILE *f)
{
	(void)n;
	render_wrapped(f, "CNA on one NUMA node: every waiter is of the lock's node, so "
		       "the CNA series never forms its secondary queue and its NUMA win "
		       "cannot show here; give the workers two nodes with --topology "
		       "\"numa:2 core:2 pu:1\" --map-topology (docs/kernel-tree.md)", 3);
}

/* -v: the machine the runs were made on. */
static bool has_machine(const struct notes *n)
{
	return n->o->verbose &&
	       json_is_object(json_object_get(n->r->machine, "environment"));
}

static void failed_full(const struct notes *n, FILE *f)
{
	failed_notes(n->r, f);
}

static void noise_full(const struct notes *n, FILE *f)
{
	noise_flag_note(n->r, f);
}

static void cs_off_full(const struct notes *n, FILE *f)
{
	cs_off_note(n->r, f);
}

static void env_full(const struct notes *n, FILE *f)
{
	env_notes(n->r, n->o, f);
}

static void ci_full(const struct notes *n, FILE *f)
{
	ci_note(n->r, f);
}

static void loops_full(const struct notes *n, FILE *f)
{
	loop_note(n->r, f);
}

static void geo_full(const struct notes *n, FILE *f)
{
	geomean_note(n->r, f);
}

static void lt_full(const struct notes *n, FILE *f)
{
	lt_basis_notes(n->r, f);
}

static void metrics_full(const struct notes *n, FILE *f)
{
	render_metrics(n->r, f);
}

static void machine_full(const struct notes *n, FILE *f)
{
	render_machine_summary(n->r->machine, f);
}

/*
 * The kinds of note, most important first (docs/formats.md, "Notes"):
 * the one order of the notes, in full (-v, --no-marks) and brief, and
 * the ones cut when there are more than fit.  Never cut: a failed lock,
 * the note of every mark the table shows (`*`, `#` `~` `_`, `!`, `?`,
 * `^`, `-`: a mark without its note cannot be read) and the -r auto
 * target missed; the other notes, the counters --counters asked for
 * among them, fill the lines left in this order, and are cut first.
 */
static const struct note_kind {
	const char *name;        /* in the line that counts the notes cut */
	bool (*has)(const struct notes *n);
	void (*full)(const struct notes *n, FILE *f);
	void (*brief)(const struct notes *n, FILE *f); /* NULL: brief_of(full) */
	bool keep;               /* never cut (a mark shown, a failure) */
} kinds[] = {
	{"FAILED", has_failed, failed_full, failed_brief, true},
	{"*", has_over, over_note, NULL, true},
	{"# ~ _", has_sig, sig_notes, sig_brief, true},
	{"environments", has_env, env_full, NULL, false},
	{"!", has_noise, noise_full, noise_brief, true},
	{"section lengths", has_cs_off, cs_off_full, cs_off_brief, false},
	{"?", has_cv, cv_note, NULL, true},
	{"^", has_unfair, unfair_note, unfair_brief, true},
	{"-", has_missing, missing_note, NULL, true},
	{"CI target", has_ci, ci_full, NULL, true},
	{"CNA on one node", has_cna, cna_full, NULL, true},
	{"loops", has_loops, loops_full, NULL, false},
	{"[k]", has_kernel, kernel_note, kernel_brief, false},
	{"geometric mean", has_geo, geo_full, geo_brief, false},
	{"locktorture rates", has_lt, lt_full, lt_brief, false},
	{"workload metrics", has_metrics, metrics_full, NULL, false},
	{"counters", has_counters, counters_full, counters_full, false},
	{"machine", has_machine, machine_full, NULL, false},
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The kinds of note this table has (indexes into kinds[]), in order. */
static unsigned notes_have(const struct notes *n, unsigned *have)
{
	unsigned nh = 0;

	for (unsigned k = 0; k < NKINDS; k++)
		if (kinds[k].has(n))
			have[nh++] = k;
	return nh;
}

/* Every note in full (-v, and the --no-marks layouts). */
static void notes_full(const struct notes *n, FILE *f)
{
	unsigned have[NKINDS], nh = notes_have(n, have);

	if (nh)
		fputc('\n', f);
	for (unsigned i = 0; i < nh; i++)
		kinds[have[i]].full(n, f);
}

/* "N more notes (-v prints them all): ?, ^" for the kinds not shown. */
static char *more_text(const unsigned *have, const bool *show, unsigned nh)
{
	char *line = malloc(1024);
	const char *sep = ": ";
	unsigned cut = 0;

	if (!line)
		return NULL;
	for (unsigned i = 0; i < nh; i++)
		cut += !show[i];
	snprintf(line, 1024, "%u more note%s (-v prints them all)", cut, cut == 1 ? "" : "s");
	for (unsigned i = 0; i < nh; i++)
		if (!show[i]) {
			line_add(line, 1024, "%s%s", sep, kinds[have[i]].name);
			sep = ", ";
		}
	return line;
}

/* Render into a malloc'ed string (NULL: out of memory) and count its lines. */
static char *brief_text(const struct notes *n, const struct note_kind *k, unsigned *lines)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	*lines = 0;
	if (!m)
		return NULL;
	if (k->brief)
		k->brief(n, m);
	else
		brief_of(n, k->full, m);
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	for (size_t i = 0; i < len; i++)
		*lines += buf[i] == '\n';
	return buf;
}

/* The lines a text takes wrapped as a note. */
static unsigned wrapped_lines(const char *text)
{
	char *buf = NULL;
	size_t len = 0;
	unsigned lines = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return 1;
	render_wrapped(m, text, 3);
	if (!fclose(m))
		for (size_t i = 0; i < len; i++)
			lines += buf[i] == '\n';
	free(buf);
	return lines ? lines : 1;
}

/*
 * Which kinds fit in RENDER_NOTE_LINES lines with the line that counts
 * the rest: the kept ones always, the others in order while they fit.
 */
static void brief_choose(const unsigned *have, const unsigned *lines, unsigned nh,
			 bool *show)
{
	unsigned all = 0, kept = 0, reserve = 1, used;
	char *more;

	for (unsigned i = 0; i < nh; i++) {
		all += lines[i];
		kept += kinds[have[i]].keep ? lines[i] : 0;
		show[i] = true;
	}
	if (all <= RENDER_NOTE_LINES)
		return;
	for (int pass = 0; pass < 2; pass++) {
		used = kept + reserve;
		for (unsigned i = 0; i < nh; i++) {
			show[i] = kinds[have[i]].keep || used + lines[i] <= RENDER_NOTE_LINES;
			used += kinds[have[i]].keep || !show[i] ? 0 : lines[i];
		}
		more = more_text(have, show, nh);
		reserve = more ? wrapped_lines(more) : 1;
		free(more);
	}
}

/*
 * The notes by default: each kind's brief note whole (wrapped, never
 * cut), most important first, in at most RENDER_NOTE_LINES lines: when
 * not all fit, the last line counts the ones left out and names them.
 */
static void notes_brief(const struct notes *n, FILE *f)
{
	unsigned have[NKINDS], lines[NKINDS], nh = notes_have(n, have);
	char *text[NKINDS], *more;
	bool show[NKINDS], cut = false;

	if (!nh)
		return;
	fputc('\n', f);
	for (unsigned i = 0; i < nh; i++)
		text[i] = brief_text(n, &kinds[have[i]], &lines[i]);
	brief_choose(have, lines, nh, show);
	for (unsigned i = 0; i < nh; i++) {
		if (show[i] && text[i])
			fputs(text[i], f);
		cut |= !show[i];
		free(text[i]);
	}
	if (cut && (more = more_text(have, show, nh))) {
		render_wrapped(f, more, 3);
		free(more);
	}
}

void render_notes(const struct results *r, const struct render_opts *o, FILE *f)
{
	struct notes n = {.r = r, .o = o};

	note_marks(r, o, &n.m);
	if (!o->marks || o->verbose)
		notes_full(&n, f);
	else
		notes_brief(&n, f);
}
