/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "render.h"

void render_cellf(char *cell, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cell, RENDER_CELL, fmt, ap);
	va_end(ap);
}

const struct format_info formats[] = {
	{"table", "Lock: mcs ... / 1  1234.56  12.34  2345.67  23.45  +90%",
	 render_table, NULL},
	{"box", "| fserver JPM     | 245598 | 274457 | / | % change from 1 |     0% | +11.8% |",
	 render_box, NULL},
	{"lkp", "kernel  kops/s(higher is better) / mcs  2755.61±10.26%",
	 render_lkp, NULL},
	{"speedup", "#thr  stock  patched  speedup (patched/stock) / 8  5.309  6.894  1.299",
	 render_speedup, speedup_check},
	{"csv", "variant,lock,label,row,threads,status,run,seq,window_s,ops,ops_per_sec,value,unit",
	 render_csv, NULL},
	{"json", "{\"schema\": \"lockbench-results\", \"schema_version\": \"1.1\", ...}",
	 render_json, NULL},
	{NULL, NULL, NULL, NULL},
};

int format_check(const struct format_info *f, const struct results *r,
		 char *err, size_t len)
{
	return f->check ? f->check(r, err, len) : 0;
}

const struct format_info *format_find(const char *name)
{
	for (unsigned i = 0; formats[i].name; i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

static const struct {
	const char *name;
	double scale;
} units[] = {
	[UNIT_OPS] = {"ops/s", 1},
	[UNIT_KOPS] = {"kops/s", 1e-3},
	[UNIT_MOPS] = {"Mops/s", 1e-6},
	[UNIT_JPM] = {"jpm", 60},
};

const char *unit_title(enum unit u)
{
	return u == UNIT_JPM ? "JPM" : units[u].name;
}

bool render_oversubscribed(const struct results *r, unsigned row)
{
	return r->ncpus && r->rows[row] > r->ncpus;
}

const char *unit_name(enum unit u)
{
	return units[u].name;
}

double unit_scale(enum unit u)
{
	return units[u].scale;
}

int unit_parse(const char *s, enum unit *u)
{
	for (unsigned i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].name, s) ||
		    (i == UNIT_JPM && !strcmp(s, "JPM"))) {
			*u = (enum unit)i;
			return 0;
		}
	return -EINVAL;
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

/*
 * The noise notes: `!` runs flagged for noise, and with -r auto
 * the points whose CI missed the target.  f NULL: only say (true/false)
 * whether there is anything to print.
 */
bool render_noise_notes(const struct results *r, const struct render_opts *o,
			FILE *f)
{
	const struct results_noise *rn = &r->noise;
	bool flag = o->marks && rn->flagged, ad = rn->opts.adaptive && rn->not_reached;
	char row[64];
	unsigned k = 0;

	if (!f || !(flag || ad))
		return flag || ad;
	if (flag)
		fprintf(f, "!  noisy runs: %u of %u flagged (placement changed %u, "
			"steal %u, migrated %u, core speed moved %u)%s\n", rn->flagged,
			rn->runs, rn->by_flag[0], rn->by_flag[1], rn->by_flag[2],
			rn->by_flag[4],
			rn->excluded ? "; excluded from the statistics" : "");
	if (!ad)
		return true;
	fprintf(f, "95%% CI within %g%% of the mean not reached (%s):",
		rn->opts.ci_target * 100, first_stop(r));
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		const struct point *p = &r->points[i];

		if (p->status != POINT_OK || p->noise.reached)
			continue;
		fprintf(f, "%s %s %s", k++ ? "," : "", r->variants[i / r->nrows].name,
			results_row_name(r, i % r->nrows, row, sizeof(row)));
	}
	fputc('\n', f);
	return true;
}

/*
 * Headline workload metrics under a text format (with marks on), for
 * the last row: p99 acquisition latency per variant, the share of
 * handovers staying on the node when they did not all (more than one
 * node), and what an rw throughput counts.  Nothing without them.
 */
/* Is there a headline metric for render_metrics() to print? */
static bool render_has_metrics(const struct results *r)
{
	for (unsigned v = 0; v < r->nvariants && r->nrows; v++) {
		const struct point *p = results_point(r, v, r->nrows - 1);

		if (p->status == POINT_OK && ((p->lat && p->lat->n) ||
					      (!isnan(p->hand_node) && p->hand_node < 1)))
			return true;
	}
	return r->workload && !strcmp(r->workload, "rw");
}

static void render_metrics(const struct results *r, FILE *f)
{
	unsigned row = r->nrows - 1, nlat = 0, nhand = 0;
	bool rw = r->workload && !strcmp(r->workload, "rw");
	const char *sep;
	char name[64];

	for (unsigned v = 0; v < r->nvariants; v++) {
		const struct point *p = results_point(r, v, row);

		nlat += p->status == POINT_OK && p->lat && p->lat->n;
		nhand += p->status == POINT_OK && !isnan(p->hand_node) && p->hand_node < 1;
	}
	results_row_name(r, row, name, sizeof(name));
	if (nlat) {
		sep = "";
		fprintf(f, "p99 acquisition latency at %s %s (sampled):", name, r->row_heading);
		for (unsigned v = 0; v < r->nvariants; v++) {
			const struct point *p = results_point(r, v, row);

			if (p->status == POINT_OK && p->lat && p->lat->n)
				fprintf(f, "%s %s %llu ns", sep, r->variants[v].name,
					p->lat_p99), sep = ",";
		}
		fputc('\n', f);
	}
	if (nhand) {
		sep = "";
		fprintf(f, "handovers staying on the NUMA node at %s %s:", name, r->row_heading);
		for (unsigned v = 0; v < r->nvariants; v++) {
			const struct point *p = results_point(r, v, row);

			if (p->status == POINT_OK && !isnan(p->hand_node))
				fprintf(f, "%s %s %.0f%%", sep, r->variants[v].name,
					p->hand_node * 100), sep = ",";
		}
		fputc('\n', f);
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
 * The notes explaining the marks, printed once under a text format after
 * a blank line (nothing when there is nothing to explain): ? high CV,
 * ~ not significant, * oversubscribed, ^ unfair (max/2 > min), - not
 * measured, and one line per failed point.  Marks and their notes are off with --no-marks.
 */
void render_notes(const struct results *r, const struct render_opts *o, FILE *f)
{
	bool cv = false, ns = false, over = false, missing = false, few = false;
	bool unfair = false;
	unsigned failed = 0;
	char row[64];

	for (unsigned i = 0; i < r->nvariants * r->nrows; i++) {
		const struct point *p = &r->points[i];

		cv |= p->status == POINT_OK && p->high_cv;
		unfair |= p->status == POINT_OK && p->lt_unfair;
		ns |= p->status == POINT_OK && p->has_rel && !p->significant;
		few |= p->status == POINT_OK && p->has_rel && !p->welch.valid;
		missing |= p->status == POINT_MISSING;
		failed += p->status == POINT_FAILED || p->status == POINT_HUNG ||
			  p->status == POINT_ERROR;
	}
	for (unsigned k = 0; k < r->nrows; k++)
		over |= render_oversubscribed(r, k);
	if (!o->marks)
		cv = ns = over = missing = unfair = false;
	if (cv || ns || over || missing || unfair || failed || r->incomplete || kernel_mixed(r) ||
	    (o->marks && render_has_metrics(r)) || render_noise_notes(r, o, NULL))
		fputc('\n', f);
	render_noise_notes(r, o, f);
	if (cv)
		fprintf(f, "?  std above %.0f%% of the mean: too spread to trust\n",
			r->cv_flag * 100);
	if (ns)
		fprintf(f, "~  difference from %s not significant (Welch t-test, p >= %.2f%s)\n",
			r->variants[r->baseline].name, r->alpha,
			few ? "; a test needs 2 or more runs per point" : "");
	if (over)
		fprintf(f, "*  more threads than CPUs (%u): oversubscribed\n", r->ncpus);
	if (unfair)
		fprintf(f, "^  unfair: in a run the busiest thread made more than twice the "
			"operations of the least busy (locktorture's \?\?\?)\n");
	for (unsigned i = 0; i < r->nvariants * r->nrows; i++)
		if (r->points[i].status >= POINT_FAILED && r->points[i].error)
			fprintf(f, "%s %s: %s\n", r->variants[i / r->nrows].name,
				results_row_name(r, i % r->nrows, row, sizeof(row)),
				r->points[i].error);
	if (missing && !r->incomplete)
		fprintf(f, "-  not measured in that run\n");
	if (r->incomplete)
		fprintf(f, "incomplete: the sweep stopped early; missing points show -\n");
	if (kernel_mixed(r))
		fprintf(f, "[k] the kernel's locktorture (kthreads on a kernel lock, with its own "
			"delays), next to lockbench's\n    userspace torture workload: two "
			"different measurements side by side, not one\n");
	if (o->marks && r->nrows && r->nvariants)
		render_metrics(r, f);
}
