/* SPDX-License-Identifier: MIT */
/*
 * The noise members of the JSON document (docs/json.md, schema 1.2):
 * per run, per point and at the top level.  Called by render_json.c;
 * only reads the model.
 */
#include <math.h>
#include <string.h>

#include "noise_json.h"

static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

static json_t *probe_json(const struct run_noise *n)
{
	json_t *pairs = json_array(), *before = json_array(), *after = json_array();

	for (unsigned i = 0; i < n->npairs; i++) {
		json_array_append_new(pairs, json_pack("[i, i]", n->pair_cpu[2 * i],
						       n->pair_cpu[2 * i + 1]));
		json_array_append_new(before, num(n->probe_before[i]));
		json_array_append_new(after, num(n->probe_after[i]));
	}
	return json_pack("{s:o, s:o, s:o}", "pairs", pairs, "before_ns", before,
			 "after_ns", after);
}

static json_t *workers_json(const struct run_noise *n)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < n->nworkers; i++) {
		const struct worker_noise *w = &n->w[i];

		json_array_append_new(a, json_pack("{s:i, s:i, s:I, s:I, s:o, s:b, s:o, s:o, s:o, s:i}",
			"cpu", w->cpu, "cpu_end", w->cpu_end,
			"nvcsw", (json_int_t)w->nvcsw, "nivcsw", (json_int_t)w->nivcsw,
			"cpu_share", w->cpu_share > 0 ? json_real(w->cpu_share) : json_null(),
			"migrated", w->cpu >= 0 && w->cpu_end >= 0 && w->cpu != w->cpu_end,
			"core_ghz_before", w->speed_before > 0 ? json_real(w->speed_before) : json_null(),
			"core_ghz_after", w->speed_after > 0 ? json_real(w->speed_after) : json_null(),
			"core_issue_rate", w->issue_n ? json_real(w->issue_rate) : json_null(),
			"core_issue_probes", w->issue_n));
	}
	return a;
}

static json_t *flags_json(unsigned flags)
{
	json_t *a = json_array();

	for (unsigned b = 0; b < NOISE_NFLAGS; b++)
		if (flags & (1u << b))
			json_array_append_new(a, json_string(noise_flag_name(b)));
	return a;
}

/* core_speed: the clock before and after and the window's issue rate,
 * each against the point's (`pn`'s typical values, 0 unknown). */
static json_t *core_speed_json(const struct run_noise *n, const struct point_noise *pn)
{
	double b, a, iss = noise_core_issue(n), sp = noise_run_speed(n);
	json_t *o;

	noise_core_speed(n, &b, &a);
	if (!(b > 0 && a > 0) && !(iss > 0))
		return json_null();
	o = json_object();
	json_object_set_new(o, "before_ghz", b > 0 ? json_real(b) : json_null());
	json_object_set_new(o, "after_ghz", a > 0 ? json_real(a) : json_null());
	json_object_set_new(o, "change", b > 0 && a > 0 ? json_real(a / b - 1) : json_null());
	json_object_set_new(o, "vs_point", sp > 0 && pn->speed_typical > 0 ?
			    json_real(sp / pn->speed_typical - 1) : json_null());
	json_object_set_new(o, "window_issue_rate", iss > 0 ? json_real(iss) : json_null());
	json_object_set_new(o, "window_issue_vs_point", iss > 0 && pn->issue_typical > 0 ?
			    json_real(iss / pn->issue_typical - 1) : json_null());
	json_object_set_new(o, "fit_vs_point", num(n->fit_off));
	return o;
}

void noise_run_add_json(json_t *o, const struct run_noise *n, const struct point_noise *pn)
{
	if (!o || !n->present)
		return;
	json_object_set_new(o, "probe", n->npairs ? probe_json(n) : json_null());
	json_object_set_new(o, "steal", !n->steal_known ? json_null() :
		json_pack("{s:o, s:o, s:i, s:o}", "steal_s", num(n->steal_s),
			  "window_s", num(n->steal_window_s), "cpus", n->steal_ncpus,
			  "fraction", num(noise_steal_frac(n))));
	json_object_set_new(o, "workers", workers_json(n));
	json_object_set_new(o, "core_speed", core_speed_json(n, pn));
	json_object_set_new(o, "cs_ns_requested", num(n->cs_requested));
	json_object_set_new(o, "cs_ns_actual_median", num(n->cs_actual));
	json_object_set_new(o, "cs_samples", json_integer(n->cs_samples));
	json_object_set_new(o, "ncs_ns_requested", num(n->ncs_requested));
	json_object_set_new(o, "ncs_ns_actual_median", num(n->ncs_actual));
	json_object_set_new(o, "ncs_samples", json_integer(n->ncs_samples));
	json_object_set_new(o, "window_requested_s", num(n->window_req_s > 0 ? n->window_req_s : NAN));
	json_object_set_new(o, "flags", flags_json(n->flags));
	json_object_set_new(o, "excluded", json_boolean(n->excluded));
}

/* A 1-thread point's fit of ns/op on its probes; null when none ran. */
static json_t *core_fit_json(const struct core_fit *f)
{
	if (!f->runs)
		return json_null();
	return json_pack("{s:b, s:i, s:o, s:o, s:o, s:o}", "used", f->used, "runs", f->runs,
			 "speed_slope", num(isfinite(f->r2) ? f->b_speed : NAN),
			 "issue_slope", num(isfinite(f->r2) ? f->b_issue : NAN),
			 "r2", num(f->r2), "p", num(f->p));
}

void noise_point_add_json(json_t *o, const struct results *r, const struct point *p)
{
	json_t *typ = json_array(), *ad = json_null();

	if (!o)
		return;
	for (unsigned i = 0; i < p->noise.npairs; i++)
		json_array_append_new(typ, num(p->noise.typical[i]));
	json_object_set_new(o, "noise", json_pack("{s:i, s:i, s:i, s:o, s:o, s:o, s:o}",
		"flagged_runs", p->noise.flagged, "excluded_runs", p->noise.excluded,
		"cs_length_off_runs", p->noise.cs_off, "probe_typical_ns", typ,
		"issue_typical", p->noise.issue_typical > 0 ?
			json_real(p->noise.issue_typical) : json_null(),
		"speed_typical_ghz", p->noise.speed_typical > 0 ?
			json_real(p->noise.speed_typical) : json_null(),
		"core_fit", core_fit_json(&p->noise.fit)));
	if (p->noise.adaptive) {
		unsigned row = (unsigned)(p - r->points) % r->nrows;
		enum adapt_stop st = r->noise.row_stop ? r->noise.row_stop[row] : ADAPT_MORE;

		ad = json_pack("{s:b, s:o, s:s}", "reached", p->noise.reached,
			       "ci_rel", num(p->noise.ci_rel), "stopped", adapt_stop_name(st));
	}
	json_object_set_new(o, "adaptive", ad);
}

json_t *noise_results_json(const struct results *r)
{
	const struct results_noise *rn = &r->noise;
	const struct noise_opts *o = &rn->opts;
	json_t *by = json_object();

	for (unsigned b = 0; b < NOISE_NFLAGS; b++)
		json_object_set_new(by, noise_flag_name(b), json_integer(rn->by_flag[b]));
	return json_pack("{s:b, s:b, s:f, s:f, s:f, s:f, s:f, s:f, s:I, s:b, s:o, s:i, s:i, s:i, s:o}",
		"measured", rn->measured, "probe", o->probe,
		"probe_factor", o->probe_factor, "steal_max", o->steal_max,
		"cs_tolerance", o->cs_tolerance, "speed_tolerance", o->speed_tolerance,
		"issue_tolerance", o->issue_tolerance, "fit_tolerance", o->fit_tolerance,
		"cs_min_ns", (json_int_t)o->cs_min_ns,
		"exclude_flagged", o->exclude_flagged,
		"adaptive", !o->adaptive ? json_null() :
			json_pack("{s:f, s:i, s:i, s:o, s:i}", "ci_target", o->ci_target,
				  "min_runs", o->min_runs, "max_runs", o->max_runs,
				  "time_budget_s", o->time_budget_s > 0 ?
					json_real(o->time_budget_s) : json_null(),
				  "points_not_reached", rn->not_reached),
		"runs", rn->runs, "flagged_runs", rn->flagged,
		"excluded_runs", rn->excluded, "by_flag", by);
}

/* Index of the variant called `name`, or -1. */
static int variant_index(const struct results *r, const char *name)
{
	for (unsigned v = 0; name && v < r->nvariants; v++)
		if (!strcmp(r->variants[v].name, name))
			return (int)v;
	return -1;
}

void noise_prune_run_order(struct results *r)
{
	size_t i = 0;

	while (json_is_array(r->run_order) && i < json_array_size(r->run_order)) {
		json_t *e = json_array_get(r->run_order, i);
		int v = variant_index(r, json_string_value(json_object_get(e, "variant")));
		json_int_t thr = json_integer_value(json_object_get(e, "threads"));
		json_int_t run = json_integer_value(json_object_get(e, "run"));
		bool keep = false;

		for (unsigned row = 0; v >= 0 && row < r->nrows; row++)
			if (r->rows[row] == thr)
				keep |= run <= results_point(r, (unsigned)v, row)->nruns;
		if (keep)
			i++;
		else
			json_array_remove(r->run_order, i);
	}
}
