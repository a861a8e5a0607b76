/* SPDX-License-Identifier: MIT */
/*
 * The notes under the text tables (docs/formats.md, "Notes"): what each
 * mark means, what went wrong, what to read the numbers with.  What a
 * table's notes need is worked out once into one notes object
 * (notes_build()) that every note writer reads.  One table of kinds
 * (kinds[], most important first) orders them all: every note in full
 * with -v and in the --no-marks layouts; by default one brief note per
 * kind, each whole and wrapped at RENDER_WRAP, in at most
 * RENDER_NOTE_LINES lines, the last naming the kinds cut; the notes
 * kinds[] keeps (a failed lock, the marks shown, ...) are never cut and
 * may take more.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"

/* The kinds of note, in the order of kinds[]. */
enum note_kind_id {
	K_FAILED, K_OVER, K_SIG, K_ENV, K_NOISE, K_CS_OFF, K_CV, K_UNFAIR, K_MISSING,
	K_CI, K_CNA, K_LOOPS, K_KERNEL, K_GEO, K_LT, K_METRICS, K_COUNTERS, K_MACHINE,
	NKINDS
};

/*
 * The notes of one table: what its points and columns call for, worked
 * out once (notes_build()) and read by every note writer.  The mark
 * flags are those of the marks the table shows: none with marks off,
 * and no `?`, `#`, `~` or `_` in a unit of handovers (they judge the
 * throughput: docs/formats.md "Rules common to the text formats", Unit).
 */
struct notes {
	const struct results *r;
	const struct render_opts *o;
	bool has[NKINDS];          /* the kinds of note this table has */
	bool cv, ns, sig, over, missing, unfair, floor;
	/* `_` by cause (results.h, enum unjudged_why): too few runs (need:
	 * the largest -r a point names), one invocation a side, runs left
	 * out for a busy machine, too few invocations, a test that could not
	 * see the threshold (power_mde: the largest smallest detectable
	 * change of those). */
	bool few, one_inv, left, invs, power;
	unsigned need;
	double power_mde;
	unsigned failed;           /* points FAILED, HUNG or ERROR */
	unsigned methods;          /* the tests behind the `~` marks */
	unsigned noff, npts;       /* points with section lengths off, of npts */
	char at[96];               /* the last row, of the metrics: "at 4 threads" */
	char geo_rows[96];         /* what the geometric means cover */
};

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

/* What differs between the compared files' environments that changes
 * the numbers, one line each (compare fills results.env_diffs). */
static void env_full(const struct notes *n, FILE *f)
{
	size_t i;
	json_t *d;

	json_array_foreach(n->r->env_diffs, i, d)
		if (json_is_string(json_object_get(d, "line")))
			render_wrapped(f, json_string_value(json_object_get(d, "line")), 3);
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

/* "!  noisy: 2 of 6 runs flagged (shared its CPU 1, stopped 1)", and
 * the rule that leaves runs out, stated wherever runs are flagged (one
 * rule for every point, docs/method.md "Noise"), with how many it took;
 * where: the flagged points between the two. */
static void noise_line(const struct results *r, bool where, char *line, size_t len)
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
	if (where)
		list_points(r, line, len, pt_flagged);
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
static void noise_full(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	unsigned at = 0;
	const struct run_sample *w = worst_run(r, &at);
	char line[2048], why[128], row[64];

	noise_line(r, true, line, sizeof(line));
	if (w && w->noise.present)
		line_add(line, sizeof(line), "; the most: %s at %s %s, %s (each run's "
			 "reason: runs[].reason in the JSON)",
			 r->variants[at / r->nrows].name, r->row_heading,
			 results_row_name(r, at % r->nrows, row, sizeof(row)),
			 noise_reason(&w->noise, why, sizeof(why)));
	render_wrapped(f, line, 3);
}

/* `!`: how many runs, flagged for what (-v: where, and the remedies). */
static void noise_brief(const struct notes *n, FILE *f)
{
	char line[1024];

	noise_line(n->r, false, line, sizeof(line));
	render_wrapped(f, line, 3);
}

/* Section lengths off from --cs-ns/--ncs-ns: where, and why it may be. */
static void cs_off_full(const struct notes *n, FILE *f)
{
	char line[2048];

	snprintf(line, sizeof(line), "section lengths off by more than %.0f%% "
		 "from --cs-ns/--ncs-ns in %u of %u point%s",
		 n->r->noise.opts.cs_tolerance * 100, n->noff, n->npts, n->npts == 1 ? "" : "s");
	list_points(n->r, line, sizeof(line), pt_cs_off);
	line_add(line, sizeof(line), ": the delays did not hold (%spreempted "
		 "workers, a loaded machine?); the lengths measured are in the "
		 "JSON (runs[].cs_ns_actual_median, ncs_ns_actual_median)",
		 calibration_differs(n->r) ? "the files' calibrations differ, see above; "
		 "else " : "");
	render_wrapped(f, line, 3);
}

/* Section lengths: in how many points (-v: which, and why). */
static void cs_off_brief(const struct notes *n, FILE *f)
{
	note(f, 3, "section lengths off by >%.0f%% from --cs-ns/--ncs-ns in %u of %u "
	     "point%s", n->r->noise.opts.cs_tolerance * 100, n->noff, n->npts,
	     n->npts == 1 ? "" : "s");
}

/* -r auto: the points whose confidence interval missed the target. */
static void ci_full(const struct notes *n, FILE *f)
{
	char line[2048];

	snprintf(line, sizeof(line), "95%% CI within %g%% of the mean not reached, "
		 "%s", n->r->noise.opts.ci_target * 100, first_stop(n->r));
	list_points(n->r, line, sizeof(line), pt_not_reached);
	render_wrapped(f, line, 3);
}

/* Do the throughputs count reads and writes together (a point has both
 * rates)?  Then a note says so: JSON has them apart. */
static bool counts_reads(const struct results *r)
{
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++)
		if (r->points[i].status == POINT_OK && !isnan(r->points[i].read_rate))
			return true;
	return false;
}

/* --counters: each event per operation (mean over the runs) at the last
 * row, one line per variant. */
static void counters_full(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	char line[2048];

	for (unsigned v = 0; v < r->nvariants; v++) {
		const struct point *p = results_point(r, v, r->nrows - 1);

		if (p->status != POINT_OK || !p->perf_sum)
			continue;
		snprintf(line, sizeof(line), "per operation %s, %s:", n->at, r->variants[v].name);
		for (unsigned e = 0; e < r->nperf; e++) {
			double m = p->perf_sum[e].mean;

			/* Three significant digits, without exponents for counts. */
			line_add(line, sizeof(line), fabs(m) >= 100 ? "%s %s %.0f" : "%s %s %.3g",
				 e ? "," : "", r->perf_names[e], m);
		}
		render_wrapped(f, line, 3);
	}
}

/*
 * Headline workload metrics, for the last row: p99 acquisition latency
 * per variant, the share of handovers staying on the node when they did
 * not all (more than one node), and what an rw throughput counts.
 */
static void metrics_full(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	const char *ls = "", *hs = "";
	char lat[2048], hand[2048], t[32];
	bool moved = false;

	snprintf(lat, sizeof(lat), "p99 acquisition latency %s (sampled):", n->at);
	snprintf(hand, sizeof(hand), "handovers staying on the NUMA node %s:", n->at);
	for (unsigned v = 0; v < r->nvariants; v++) {
		const struct point *p = results_point(r, v, r->nrows - 1);

		if (p->status != POINT_OK)
			continue;
		if (p->lat && p->lat->n)
			line_add(lat, sizeof(lat), "%s %s %s", ls, r->variants[v].name,
				 render_ns((double)p->lat_p99, t, sizeof(t))), ls = ",";
		if (!isnan(p->hand_node))
			line_add(hand, sizeof(hand), "%s %s %.0f%%", hs, r->variants[v].name,
				 p->hand_node * 100), hs = ",";
		moved |= !isnan(p->hand_node) && p->hand_node < 1;
	}
	if (*ls)
		render_wrapped(f, lat, 3);
	if (moved)
		render_wrapped(f, hand, 3);
	if (counts_reads(r))
		fprintf(f, "rw: throughput counts reads + writes (JSON has them apart)\n");
}

/*
 * Columns that ran different worker loops (variants[].loop): a lock
 * inlined into its loop against one called through the ops table (a
 * plugin without LOCKBENCH_PLUGIN_LOOPS(), docs/locks.md).  With short
 * sections the call is much of an operation.  Names the generic columns.
 */
static void loops_full(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	char line[1024];
	size_t k = (size_t)snprintf(line, sizeof(line), "loops differ: ");

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
}

/* "geometric mean of the ratios over the 2 rows, against BASE: a
 * +1.2%, b -0.4%". */
static void geo_full(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	char line[2048];
	const char *sep = "";

	if (r->base_of && r->variants[r->baseline].label)
		snprintf(line, sizeof(line), "geometric mean of the ratios over %s, "
			 "against the same lock under %s:", n->geo_rows,
			 r->variants[r->baseline].label);
	else
		snprintf(line, sizeof(line), "geometric mean of the ratios over %s, "
			 "against %s:", n->geo_rows, r->variants[r->baseline].name);
	for (unsigned v = 0; v < r->nvariants; v++)
		if (r->variants[v].geo_n >= 2)
			line_add(line, sizeof(line), "%s %s\001%+.1f%%", sep,
				 r->variants[v].name, r->variants[v].geo_rel), sep = ",";
	render_wrapped(f, line, 3);
}

/* The geometric means themselves (-v: against what). */
static void geo_brief(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	char line[2048];
	const char *sep = " ";

	snprintf(line, sizeof(line), "geometric mean over %s%s:", n->geo_rows,
		 n->o->unit == UNIT_NS || UNIT_IS_XFER(n->o->unit) ? " (throughput)" : "");
	for (unsigned v = 0; v < r->nvariants; v++)
		if (r->variants[v].geo_n >= 2)
			line_add(line, sizeof(line), "%s%s %+.1f%%", sep, r->variants[v].name,
				 r->variants[v].geo_rel), sep = ", ";
	render_wrapped(f, line, 3);
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

static void lt_full(const struct notes *n, FILE *f)
{
	char line[1024];

	fprintf(f, "locktorture rates, per %s: from statistics intervals or final totals\n",
		n->r->row_heading ? n->r->row_heading : "row");
	for (unsigned v = 0; v < n->r->nvariants; v++)
		if (lt_basis_line(n->r, v, line, sizeof(line)))
			render_wrapped(f, line, 3);
}

/* The first imported column's basis: "locktorture rates: stock: 4: 1
 * run, 3 intervals". */
static void lt_brief(const struct notes *n, FILE *f)
{
	char line[1024];

	for (unsigned v = 0; v < n->r->nvariants; v++)
		if (lt_basis_line(n->r, v, line, sizeof(line))) {
			note(f, 3, "locktorture rates: %s", line);
			return;
		}
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

/* The words of the `#` and `~` notes: against what a change is judged
 * ("mcs", "the same lock under old"), and at which p (and effect) a
 * difference is significant, or not. */
struct sig_terms {
	char what[512], sig[64], ns[64];
};

static void sig_terms(const struct results *r, struct sig_terms *t)
{
	const struct variant *bv = &r->variants[r->baseline];

	if (r->base_of && bv->label)
		snprintf(t->what, sizeof(t->what), "the same lock under %s", bv->label);
	else
		snprintf(t->what, sizeof(t->what), "%s", bv->name);
	snprintf(t->sig, sizeof(t->sig), "p < %.2f", r->alpha);
	snprintf(t->ns, sizeof(t->ns), "p >= %.2f", r->alpha);
	if (r->min_effect > 0) {
		line_add(t->sig, sizeof(t->sig), ", at least %g%%", r->min_effect);
		line_add(t->ns, sizeof(t->ns), " or below %g%%", r->min_effect);
	}
}

/*
 * The `_` causes, one clause each, joined by "; " into buf: what left
 * the points unjudged and what would judge them (brief: the short
 * form).  Empty when no point is unjudged.
 */
static void unjudged_causes(const struct notes *n, bool brief, char *buf, size_t len)
{
	const char *sep = "";

	*buf = 0;
	if (n->one_inv)
		line_add(buf, len, "%s", brief ? "one invocation per label (give --floor)" :
			 "one invocation per label (compare 2 or more files per --label, "
			 "or give an invocation floor: --floor, from `lockbench system "
			 "check`)"), sep = "; ";
	if (n->left)
		line_add(buf, len, "%sruns left out as noisy (%s)", sep, brief ?
			 "a quieter machine would" : "a worker lost a quarter of the window "
			 "or more: measure on a quieter machine"), sep = "; ";
	if (n->need)
		line_add(buf, len, "%s%s%u%s", sep, brief ? "-r " : "a test needs 2 or "
			 "more runs a side (-r ", n->need, brief ? " would" : ")"), sep = "; ";
	if (n->invs)
		line_add(buf, len, "%s%s", sep, brief ? "2 or more invocations a side would" :
			 "a test needs 2 or more invocations a side"), sep = "; ";
	if (n->power)
		line_add(buf, len, "%scould not see a change of %g%%: smallest detectable "
			 "%.1f%% (%s)", sep, n->r->gate_pct, n->power_mde, brief ?
			 "more invocations or runs, a quieter machine" : "more invocations "
			 "a side or more runs, or a quieter machine, would bring it down");
}

/* The `_` note: "_  too few runs to judge: ..." and its causes. */
static void unjudged_line(const struct notes *n, bool brief, FILE *f)
{
	char causes[1024];

	unjudged_causes(n, brief, causes, sizeof(causes));
	if (*causes)
		note(f, 3, "_  %s: %s", n->power && !n->one_inv && !n->left && !n->need &&
		     !n->invs ? "not judged" : "too few runs to judge", causes);
}

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

/* The invocation floor used, and where it came from. */
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
	char range[64];

	if (r->mde_n > 1 && r->mde_max - r->mde_min >= 0.05)
		snprintf(range, sizeof(range), "%.1f%% to %.1f%% over %u points",
			 r->mde_min, r->mde_max, r->mde_n);
	else
		snprintf(range, sizeof(range), "%.1f%%", r->mde_max);
	note(f, 3, "smallest difference this comparison could detect: %s (%.0f%% power, "
	     "two-sided %g, from the spread the test saw: the per-round or "
	     "per-invocation ratios, the invocations and their runs, or the runs "
	     "and the invocation floor)", range, RESULTS_MDE_POWER * 100, r->alpha);
}

/* `#`, `~` (what was tested, corrected how), `_` (what was too few to
 * judge), the invocation floor and the smallest detectable change. */
static void sig_full(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	struct sig_terms t;

	sig_terms(r, &t);
	if (n->sig)
		note(f, 3, "#  significant difference from %s (%s)", t.what, t.sig);
	if (n->ns && n->methods) {
		/* A label's name is long: the p on a line of its own. */
		if (r->base_of && r->variants[r->baseline].label) {
			note(f, 3, "~  difference from %s not significant", t.what);
			note(f, 3, "   (%s):", t.ns);
		} else {
			note(f, 3, "~  difference from %s not significant (%s):", t.what, t.ns);
		}
		note(f, 3, "   %s, Holm-adjusted over %u test%s",
		     sig_method_text(n->methods), r->ntests, r->ntests == 1 ? "" : "s");
	}
	if (n->ns || n->sig || n->few || n->one_inv)
		unjudged_line(n, false, f);
	if (n->floor)
		floor_note(r, f);
	if (r->mde_n)
		mde_note(r, f);
}

/* A CNA tree measured with every worker on one node (docs/kernel-tree.md,
 * "The CNA series"): did every worker of one run run on one NUMA node?
 * Not with --fake-nodes 2+ or --map-topology; else the placement's
 * nodes, else a machine of one node. */
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

/* The marks the table shows, and what its points call for. */
static void notes_points(struct notes *n)
{
	const struct results *r = n->r;

	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		const struct point *p = &r->points[i];
		bool ok = p->status == POINT_OK, cmp = ok && p->has_rel && !p->significant;
		bool unj = cmp && p->unjudged;

		n->cv |= ok && p->high_cv;
		n->unfair |= ok && p->lt_unfair;
		n->ns |= cmp && !p->unjudged;
		n->sig |= ok && p->has_rel && p->significant;
		if (cmp && p->test.valid && !p->unjudged)
			n->methods |= 1u << p->method;
		if (unj && p->runs_needed > n->need)
			n->need = p->runs_needed;
		n->one_inv |= cmp && p->method == SIG_ONE_INVOC;
		n->floor |= ok && p->has_rel && p->method == SIG_FLOOR;
		n->few |= unj && p->why != UNJ_ONE_INVOC;
		n->left |= unj && p->why == UNJ_LEFT_OUT;
		n->invs |= unj && p->why == UNJ_INVOCATIONS;
		if (unj && p->why == UNJ_POWER && !(p->mde_pct <= n->power_mde))
			n->power_mde = p->mde_pct;
		n->power |= unj && p->why == UNJ_POWER;
		n->missing |= p->status == POINT_MISSING;
		n->failed += p->status == POINT_FAILED || p->status == POINT_HUNG ||
			     p->status == POINT_ERROR;
		n->npts += ok;
		n->noff += ok && p->noise.cs_off;
	}
	for (unsigned k = 0; k < r->nrows; k++)
		n->over |= render_oversubscribed(r, k);
	if (!n->o->marks)
		n->over = n->missing = n->unfair = false;
	if (!n->o->marks || UNIT_IS_XFER(n->o->unit))
		n->cv = n->ns = n->sig = n->floor = n->few = n->one_inv = n->left =
			n->invs = n->power = false;
}

/*
 * What the columns call for: kernel locktorture columns next to
 * userspace ones (compare marks them), worker loops that differ,
 * geometric means over 2 or more rows (and what they cover), imported
 * locktorture rates, a CNA kernel tree (its build's flags name
 * CONFIG_NUMA_AWARE_SPINLOCKS, kernel/tree/ktree.c), and at the last row
 * latency, handover and counter figures.
 */
static void notes_columns(struct notes *n)
{
	const struct results *r = n->r;
	bool kern = false, user = false, in = false, gen = false;
	unsigned geo = 0, over = 0;
	char line[1024];

	for (unsigned v = 0; v < r->nvariants; v++) {
		const struct variant *c = &r->variants[v];
		const struct point *p = r->nrows ? results_point(r, v, r->nrows - 1) : NULL;
		const char *fl = json_string_value(json_object_get(c->source, "cflags"));
		bool ok = p && p->status == POINT_OK;

		kern |= c->kernel;
		user |= !c->kernel;
		in |= c->loop && !strcmp(c->loop, "inline");
		gen |= c->loop && !strcmp(c->loop, "generic");
		geo = c->geo_n >= 2 && c->geo_n > geo ? c->geo_n : geo;
		over = c->geo_n >= 2 && c->geo_over > over ? c->geo_over : over;
		n->has[K_LT] |= lt_basis_line(r, v, line, sizeof(line));
		n->has[K_CNA] |= fl && strstr(fl, "-DCONFIG_NUMA_AWARE_SPINLOCKS");
		n->has[K_METRICS] |= ok && ((p->lat && p->lat->n) ||
					    (!isnan(p->hand_node) && p->hand_node < 1));
		n->has[K_COUNTERS] |= ok && r->nperf && r->perf_named && p->perf_sum;
	}
	n->has[K_KERNEL] = kern && user;
	n->has[K_LOOPS] = in && gen;
	n->has[K_GEO] = geo;
	n->has[K_METRICS] |= counts_reads(r);
	n->has[K_CNA] &= one_node(r);
	snprintf(n->geo_rows, sizeof(n->geo_rows), "the %u rows", geo);
	if (over)
		line_add(n->geo_rows, sizeof(n->geo_rows), " (%u oversubscribed left out)", over);
	if (r->nrows)
		render_at_row(r, r->nrows - 1, n->at, sizeof(n->at));
}

/* The notes object of a table (struct notes). */
static void notes_build(const struct results *r, const struct render_opts *o,
			struct notes *n)
{
	bool marks = o->marks, *has = n->has;

	*n = (struct notes){.r = r, .o = o};
	notes_points(n);
	notes_columns(n);
	has[K_FAILED] = n->failed;
	has[K_OVER] = n->over;
	has[K_SIG] = n->ns || n->sig || n->few || n->one_inv || n->floor ||
		     (marks && !UNIT_IS_XFER(o->unit) && r->mde_n);
	has[K_ENV] = marks && json_array_size(r->env_diffs);
	has[K_NOISE] = marks && r->noise.flagged;
	has[K_CS_OFF] = marks && n->noff;
	has[K_CV] = n->cv;
	has[K_UNFAIR] = n->unfair;
	has[K_MISSING] = n->missing || r->incomplete;
	has[K_CI] = r->noise.opts.adaptive && r->noise.not_reached;
	has[K_GEO] &= marks;
	has[K_LT] &= marks;
	has[K_METRICS] &= marks;
	has[K_COUNTERS] &= marks;
	has[K_MACHINE] = o->verbose &&
			 json_is_object(json_object_get(r->machine, "environment"));
}

/* One line per point that failed, with its error. */
static void failed_full(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	char row[64];

	for (unsigned i = 0; i < r->nvariants * r->nrows; i++)
		if (r->points[i].status >= POINT_FAILED && r->points[i].error)
			note(f, 3, "%s %s: %s", r->variants[i / r->nrows].name,
			     results_row_name(r, i % r->nrows, row, sizeof(row)),
			     r->points[i].error);
}

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
	if (n->missing && !n->r->incomplete)
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

static void cna_full(const struct notes *n, FILE *f)
{
	(void)n;
	render_wrapped(f, "CNA on one NUMA node: every waiter is of the lock's node, so "
		       "the CNA series never forms its secondary queue and its NUMA win "
		       "cannot show here; give the workers two nodes with --topology "
		       "\"numa:2 core:2 pu:1\" --map-topology (docs/kernel-tree.md)", 3);
}

/* -v: the machine the runs were made on. */
static void machine_full(const struct notes *n, FILE *f)
{
	render_machine_summary(n->r->machine, f);
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
	char pts[1024] = "", row[64];

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
	note(f, 3, "%s%s%s%s", what ? what : "FAILED", pts, err ? ": " : "", err ? err : "");
}

/* `#` and `~` on one line: what they mean, against what, and the
 * smallest change the tests could detect ("2.1%", "1.2% to 5.3%"); `_`
 * on its own line, with its causes; else the first significance note. */
static void sig_brief(const struct notes *n, FILE *f)
{
	const struct results *r = n->r;
	char line[1024] = "";
	struct sig_terms t;

	sig_terms(r, &t);
	if (n->sig && n->methods)
		snprintf(line, sizeof(line), "#  significant (%s), ~  not (%s), against %s",
			 t.sig, t.ns, t.what);
	else if (n->sig)
		snprintf(line, sizeof(line), "#  significant (%s) against %s", t.sig, t.what);
	else if (n->methods)
		snprintf(line, sizeof(line), "~  not significant (%s) against %s", t.ns, t.what);
	if (*line && r->mde_n > 1 && r->mde_max - r->mde_min >= 0.05)
		line_add(line, sizeof(line), "; smallest detectable change %.1f%% to %.1f%%",
			 r->mde_min, r->mde_max);
	else if (*line && r->mde_n)
		line_add(line, sizeof(line), "; smallest detectable change %.1f%%", r->mde_max);
	if (*line)
		render_wrapped(f, line, 3);
	if (n->few || n->one_inv)
		unjudged_line(n, true, f);
	else if (!*line)
		brief_of(n, sig_full, f);
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
	void (*full)(const struct notes *n, FILE *f);
	void (*brief)(const struct notes *n, FILE *f); /* NULL: brief_of(full) */
	bool keep;               /* never cut (a mark shown, a failure) */
} kinds[NKINDS] = {
	[K_FAILED] = {"FAILED", failed_full, failed_brief, true},
	[K_OVER] = {"*", over_note, NULL, true},
	[K_SIG] = {"# ~ _", sig_full, sig_brief, true},
	[K_ENV] = {"environments", env_full, NULL, false},
	[K_NOISE] = {"!", noise_full, noise_brief, true},
	[K_CS_OFF] = {"section lengths", cs_off_full, cs_off_brief, false},
	[K_CV] = {"?", cv_note, NULL, true},
	[K_UNFAIR] = {"^", unfair_note, unfair_brief, true},
	[K_MISSING] = {"-", missing_note, NULL, true},
	[K_CI] = {"CI target", ci_full, NULL, true},
	[K_CNA] = {"CNA on one node", cna_full, NULL, true},
	[K_LOOPS] = {"loops", loops_full, NULL, false},
	[K_KERNEL] = {"[k]", kernel_note, kernel_brief, false},
	[K_GEO] = {"geometric mean", geo_full, geo_brief, false},
	[K_LT] = {"locktorture rates", lt_full, lt_brief, false},
	[K_METRICS] = {"workload metrics", metrics_full, NULL, false},
	[K_COUNTERS] = {"counters", counters_full, counters_full, false},
	[K_MACHINE] = {"machine", machine_full, NULL, false},
};

/* The kinds of note this table has (indexes into kinds[]), in order. */
static unsigned notes_have(const struct notes *n, unsigned *have)
{
	unsigned nh = 0;

	for (unsigned k = 0; k < NKINDS; k++)
		if (n->has[k])
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
static void more_text(const unsigned *have, const bool *show, unsigned nh, char *line,
		      size_t len)
{
	const char *sep = ": ";
	unsigned cut = 0;

	for (unsigned i = 0; i < nh; i++)
		cut += !show[i];
	snprintf(line, len, "%u more note%s (-v prints them all)", cut, cut == 1 ? "" : "s");
	for (unsigned i = 0; i < nh; i++)
		if (!show[i]) {
			line_add(line, len, "%s%s", sep, kinds[have[i]].name);
			sep = ", ";
		}
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
	char more[1024];

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
		more_text(have, show, nh, more, sizeof(more));
		reserve = wrapped_lines(more);
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
	char *text[NKINDS], more[1024];
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
	if (cut) {
		more_text(have, show, nh, more, sizeof(more));
		render_wrapped(f, more, 3);
	}
}

void render_notes(const struct results *r, const struct render_opts *o, FILE *f)
{
	struct notes n;

	notes_build(r, o, &n);
	if (!o->marks || o->verbose)
		notes_full(&n, f);
	else
		notes_brief(&n, f);
}
