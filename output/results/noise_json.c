/* SPDX-License-Identifier: MIT */
/*
 * The noise members of the JSON document (docs/json.md, "Noise"):
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

static json_t *workers_json(const struct run_noise *n)
{
	json_t *a = json_array();

	for (unsigned i = 0; i < n->nworkers; i++) {
		const struct worker_noise *w = &n->w[i];

		json_array_append_new(a, json_pack("{s:i, s:I, s:I, s:o, s:o}",
			"cpu", w->cpu,
			"nvcsw", (json_int_t)w->nvcsw, "nivcsw", (json_int_t)w->nivcsw,
			"cpu_share", num(w->cpu_share), "wait_share", num(w->wait_share)));
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

void noise_run_add_json(json_t *o, const struct run_noise *n)
{
	char reason[128];

	if (!o || !n->present)
		return;
	json_object_set_new(o, "workers", workers_json(n));
	json_object_set_new(o, "cs_ns_requested", num(n->cs_requested));
	json_object_set_new(o, "cs_ns_actual_median", num(n->cs_actual));
	json_object_set_new(o, "cs_samples", json_integer(n->cs_samples));
	json_object_set_new(o, "ncs_ns_requested", num(n->ncs_requested));
	json_object_set_new(o, "ncs_ns_actual_median", num(n->ncs_actual));
	json_object_set_new(o, "ncs_samples", json_integer(n->ncs_samples));
	json_object_set_new(o, "window_requested_s", num(n->window_req_s > 0 ? n->window_req_s : NAN));
	json_object_set_new(o, "monitor_late_s", num(n->late_s));
	json_object_set_new(o, "stopped_s", json_real(noise_stopped_s(n)));
	json_object_set_new(o, "flags", flags_json(n->flags));
	json_object_set_new(o, "reason", n->flags & NOISE_NOISY ?
			    json_string(noise_reason(n, reason, sizeof(reason))) : json_null());
	json_object_set_new(o, "excluded", json_boolean(n->excluded));
}

void noise_point_add_json(json_t *o, const struct results *r, const struct point *p)
{
	json_t *ad = json_null();

	if (!o)
		return;
	json_object_set_new(o, "noise", json_pack("{s:i, s:i, s:i}",
		"flagged_runs", p->noise.flagged, "excluded_runs", p->noise.excluded,
		"cs_length_off_runs", p->noise.cs_off));
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
	return json_pack("{s:b, s:f, s:I, s:f, s:f, s:o, s:i, s:i, s:i, s:o}",
		"measured", rn->measured, "cs_tolerance", o->cs_tolerance,
		"cs_min_ns", (json_int_t)o->cs_min_ns,
		"lost_min", NOISE_LOST_MIN, "exclude_lost", NOISE_EXCLUDE_LOST,
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
