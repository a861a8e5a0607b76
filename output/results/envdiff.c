// SPDX-License-Identifier: MIT
/*
 * output/results/envdiff.c - what differs between saved results'
 * environments that changes the numbers (calibration, the core-to-core
 * round trip, CPU model, kernel), and JSON values compared by value.
 * See envdiff.h; docs/method.md "Comparing files" explains the rules.
 */
#include "envdiff.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- JSON by value ------------------------------------------------ */

/* Numbers of any spelling (1, 1.0, 1e0) are equal when their values
 * are, to a relative 1e-9 (what a writer's rounding can change). */
static bool same_number(double x, double y)
{
	double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);

	return x == y || fabs(x - y) <= 1e-9 * m;
}

/* Is every element of a matched by a distinct equal element of b? */
static bool same_multiset(const json_t *a, const json_t *b)
{
	size_t n = json_array_size(a);
	bool *used = calloc(n + 1, sizeof(*used)), ok = true;

	if (!used)
		return false;
	for (size_t i = 0; ok && i < n; i++) {
		size_t j = 0;

		while (j < n && (used[j] || !results_json_same(json_array_get(a, i),
								json_array_get(b, j), true)))
			j++;
		ok = j < n;
		if (ok)
			used[j] = true;
	}
	free(used);
	return ok;
}

static bool same_object(const json_t *a, const json_t *b, bool sets)
{
	const char *k;
	json_t *v;

	if (json_object_size(a) != json_object_size(b))
		return false;
	json_object_foreach((json_t *)a, k, v)
		if (!results_json_same(v, json_object_get(b, k), sets))
			return false;
	return true;
}

bool results_json_same(const json_t *a, const json_t *b, bool sets)
{
	if (!a || !b)
		return !a && !b;
	if (json_is_number(a) && json_is_number(b))
		return same_number(json_number_value(a), json_number_value(b));
	if (json_is_array(a) && json_is_array(b)) {
		if (json_array_size(a) != json_array_size(b))
			return false;
		if (sets)
			return same_multiset(a, b);
		for (size_t i = 0; i < json_array_size(a); i++)
			if (!results_json_same(json_array_get(a, i), json_array_get(b, i), false))
				return false;
		return true;
	}
	if (json_is_object(a) && json_is_object(b))
		return same_object(a, b, sets);
	return json_equal((json_t *)a, (json_t *)b);
}

/* ---- the environment's differences --------------------------------- */

/* One item that differs: its line and each file's value. */
static void add_item(json_t *out, const char *item, const char *kind, const char *head,
		     const char *const *names, json_t *const *vals, const char *const *txt,
		     unsigned n, const char *tail)
{
	char line[1024];
	size_t used = (size_t)snprintf(line, sizeof(line), "%s:", head);
	json_t *values = json_object();
	const char *sep = "";

	for (unsigned i = 0; i < n && used < sizeof(line); i++) {
		if (!vals[i])
			continue;
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s %s %s", sep,
					 names[i], txt[i]);
		json_object_set(values, names[i], vals[i]);
		sep = ",";
	}
	if (tail && used < sizeof(line))
		snprintf(line + used, sizeof(line) - used, " %s", tail);
	json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:o}", "item", item,
					     "kind", kind, "line", line, "values", values));
}

/* A calibration figure: a number, or an object's "median"/"value". */
static bool calib_value(const json_t *c, double *x)
{
	const json_t *v = json_is_object(c) ? json_object_get(c, "median") : c;

	if (json_is_object(c) && !v)
		v = json_object_get(c, "value");
	*x = json_number_value(v);
	return json_is_number(v);
}

/* Its recorded spread in the figure's unit, NAN when none: a sibling
 * KEY_spread (or KEY_spread_pct), or the object's spread (spread_pct). */
static double calib_spread(const json_t *cal, const char *key, double x)
{
	const json_t *o = json_object_get(cal, key), *s, *sp;
	char k[256];

	snprintf(k, sizeof(k), "%s_spread", key);
	s = json_is_object(o) ? json_object_get(o, "spread") : json_object_get(cal, k);
	snprintf(k, sizeof(k), "%s_spread_pct", key);
	sp = json_is_object(o) ? json_object_get(o, "spread_pct") : json_object_get(cal, k);
	if (json_is_number(s))
		return fabs(json_number_value(s));
	if (json_is_number(sp))
		return fabs(json_number_value(sp) * x / 100);
	return NAN;
}

static bool ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && !strcmp(s + n - m, tail);
}

/*
 * Two figures differ when they are further apart than the larger of
 * their recorded spreads, or, when neither file recorded one, by more
 * than ENV_REL_DIFF of the smaller.
 */
static bool figures_differ(double a, double sa, double b, double sb)
{
	double s = isnan(sa) ? sb : isnan(sb) ? sa : sa > sb ? sa : sb;
	double lo = fabs(a) < fabs(b) ? fabs(a) : fabs(b);

	if (!isnan(s))
		return fabs(a - b) > s;
	return fabs(a - b) > ENV_REL_DIFF * lo;
}

/* One calibration key across the files; adds a line when it differs. */
static void calib_key(json_t *out, const struct results *const *in,
		      const char *const *names, unsigned n, const char *key)
{
	json_t *vals[ENV_MAX_FILES] = {0};
	char txt[ENV_MAX_FILES][64], item[300], head[300];
	const char *t[ENV_MAX_FILES];
	bool differ = false, spread = false;
	int first = -1;
	double x0 = 0, s0 = NAN;

	for (unsigned i = 0; i < n; i++) {
		const json_t *c = json_object_get(in[i]->calibration, key);
		double x, s;

		t[i] = txt[i];
		if (json_is_string(c)) {
			vals[i] = json_incref((json_t *)c);
			snprintf(txt[i], sizeof(txt[i]), "%s", json_string_value(c));
			differ |= first >= 0 && !json_equal(vals[first], vals[i]);
		} else if (calib_value(c, &x)) {
			s = calib_spread(in[i]->calibration, key, x);
			vals[i] = json_real(x);
			snprintf(txt[i], sizeof(txt[i]), "%.3g", x);
			spread |= !isnan(s);
			if (first >= 0 && json_is_number(vals[first]))
				differ |= figures_differ(x0, s0, x, s);
			else if (first < 0)
				x0 = x, s0 = s;
		}
		if (vals[i] && first < 0)
			first = (int)i;
	}
	snprintf(item, sizeof(item), "calibration.%s", key);
	snprintf(head, sizeof(head), "calibration differs, %s", key);
	if (differ)
		add_item(out, item, "calibration", head, names, vals, t, n,
			 json_is_number(vals[first]) ? spread ? "(by more than its spread)"
							      : "(by more than 10%)" : NULL);
	for (unsigned i = 0; i < n; i++)
		json_decref(vals[i]);
}

/*
 * Can a difference in this calibration figure move a result?  The
 * core's speed moves every operation; how a section's delay is made
 * (cs_delay, ncs_delay: on the clock or of turns) changes what is
 * measured; and where some file
 * made a delay of calibrated turns (below the delay floor) its length
 * rests on every figure of the delays.  A delay made on the clock's
 * deadline holds its length whatever the clock read, pause or empty
 * loop cost (docs/method.md, "The worker loop": delays that hold
 * whatever the host), and the window is timed, not
 * counted: a difference in those figures alone moves no result and
 * gets no line.
 */
static bool calib_moves(const struct results *const *in, unsigned n, const char *key)
{
	static const char *const delays[] = {"cs_delay", "ncs_delay"};

	if (!strcmp(key, "core_speed_ghz"))
		return true;
	/* "none" against a delay follows from --cs-ns/--ncs-ns 0 or not:
	 * a configuration, not an environment */
	if (!strcmp(key, "cs_delay") || !strcmp(key, "ncs_delay")) {
		for (unsigned i = 0; i < n; i++) {
			const char *how = json_string_value(json_object_get(in[i]->calibration,
									    key));

			if (how && !strcmp(how, "none"))
				return false;
		}
		return true;
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned d = 0; d < 2; d++) {
			const char *how = json_string_value(json_object_get(in[i]->calibration,
									    delays[d]));

			if (how && !strncmp(how, "turns", 5))
				return true;
		}
	return false;
}

/* Every calibration figure any file has that can move a result
 * (calib_moves), by name, in first-seen order. */
static void calib_diffs(json_t *out, const struct results *const *in,
			const char *const *names, unsigned n)
{
	json_t *seen = json_object();

	for (unsigned i = 0; i < n; i++) {
		const char *key;
		json_t *v;

		json_object_foreach(in[i]->calibration, key, v) {
			if (json_object_get(seen, key) || ends_with(key, "_spread") ||
			    ends_with(key, "_spread_pct"))
				continue;
			json_object_set_new(seen, key, json_true());
			if (calib_moves(in, n, key))
				calib_key(out, in, names, n, key);
		}
	}
	json_decref(seen);
}

/* A string of machine (cpu_model, kernel) that differs between files. */
static void machine_diff(json_t *out, const struct results *const *in,
			 const char *const *names, unsigned n, const char *key,
			 const char *head)
{
	json_t *vals[ENV_MAX_FILES] = {0};
	const char *t[ENV_MAX_FILES];
	bool differ = false;
	int first = -1;

	for (unsigned i = 0; i < n; i++) {
		json_t *v = json_object_get(in[i]->machine, key);

		t[i] = "";
		if (!json_is_string(v))
			continue;
		vals[i] = v;
		t[i] = json_string_value(v);
		differ |= first >= 0 && strcmp(t[first], t[i]);
		if (first < 0)
			first = (int)i;
	}
	if (differ)
		add_item(out, key, key, head, names, vals, t, n, NULL);
}

json_t *results_env_diff(const struct results *const *in, const char *const *names,
			 unsigned n)
{
	json_t *out = json_array();

	if (n > ENV_MAX_FILES)
		n = ENV_MAX_FILES;
	calib_diffs(out, in, names, n);
	machine_diff(out, in, names, n, "cpu_model", "CPU model differs");
	machine_diff(out, in, names, n, "kernel", "kernel differs");
	return out;
}
