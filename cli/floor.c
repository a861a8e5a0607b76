/* SPDX-License-Identifier: MIT */
/* The invocation floor from an option's argument (floor.h). */
#include "floor.h"

#include <errno.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "infile.h"

/* ARG as a percentage in [0, 100] ("4", "4%"), or -1 when it is not one. */
static double as_percent(const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end == arg || errno)
		return -1;
	if (*end == '%')
		end++;
	return *end ? -1 : v;
}

/* A number member of o in [lo, hi], else NAN. */
static double num_in(const json_t *o, const char *key, double lo, double hi)
{
	const json_t *v = json_object_get(o, key);
	double x = json_number_value(v);

	return json_is_number(v) && isfinite(x) && x >= lo && x <= hi ? x : NAN;
}

/* The figures of a system check's floor: a version this build reads, a
 * floor it did not refuse, and each figure in its range; else one line,
 * exit 2. */
static void floor_validate(const char *opt, const char *path, json_t *doc, const json_t *f)
{
	const json_t *ver = json_object_get(doc, "schema_version");
	const json_t *ninv = json_object_get(f, "invocations");
	const char *why = NULL, *refused = json_string_value(json_object_get(f, "refused"));

	if (ver && (!json_is_string(ver) || strncmp(json_string_value(ver), "1.", 2)))
		why = "its schema_version is not 1.x, the one this lockbench reads";
	else if (refused)
		why = refused;
	else if (!json_is_object(f) || isnan(num_in(f, "rel_pct", 0, 1000)))
		why = "floor.rel_pct is not a percentage in [0, 1000]";
	else if (!json_is_integer(ninv) || json_integer_value(ninv) < 2 ||
		 json_integer_value(ninv) > 1000000)
		why = "floor.invocations is not a count of 2 or more";
	else if (isnan(num_in(f, "sd_between_pct", 0, 1e6)))
		why = "floor.sd_between_pct is not a percentage of 0 or more";
	char line[512];

	if (!why)
		return;
	snprintf(line, sizeof(line), "%s%s", refused && why == refused ?
		 "the system check refused its floor: " : "", why);
	json_decref(doc);
	cli_die("--%s (%s): %s", opt, path, line);
}

/* The system-check file at path, parsed; one line and exit 2 when it
 * cannot be read, is above the input limit or is not JSON. */
static json_t *floor_doc(const char *opt, const char *path)
{
	json_error_t je = {.line = -1};
	json_t *doc = NULL;
	char what[64], *buf;
	size_t len;
	int rc;

	snprintf(what, sizeof(what), "--%s", opt);
	rc = infile_read(what, path, FLOOR_MAX_BYTES, &buf, &len);
	if (rc == -EFBIG)
		cli_die("--%s (%s): larger than the input limit of %zu bytes for a system "
			"check file (LOCKBENCH_MAX_INPUT raises it)", opt, path, len);
	if (!rc) {
		doc = json_loadb(buf, len, 0, &je);
		free(buf);
	}
	if (!doc)
		cli_die("--%s (%s): %s", opt, path, rc == -ENOENT ?
			"no such file, and not a percentage" : rc ? strerror(-rc) :
			"not JSON");
	return doc;
}

/* Each of the host's hostname and arch a string and pus a count, where
 * given (null: not known); else one line, exit 2. */
static void host_validate(const char *opt, const char *path, json_t *out)
{
	const json_t *h = json_object_get(out, "host");
	const json_t *name = json_object_get(h, "hostname"), *arch = json_object_get(h, "arch");
	const json_t *pus = json_object_get(h, "pus");

	if (!h || json_is_null(h) ||
	    (json_is_object(h) && (!name || json_is_null(name) || json_is_string(name)) &&
	     (!arch || json_is_null(arch) || json_is_string(arch)) &&
	     (!pus || json_is_null(pus) ||
	      (json_is_integer(pus) && json_integer_value(pus) > 0))))
		return;
	json_decref(out);
	cli_die("--%s (%s): floor.host is not {hostname, arch: strings, pus: a count}",
		opt, path);
}

/* The `floor` of a system-check file; exits 2 when it has none. */
static json_t *floor_from_file(const char *opt, const char *path)
{
	json_t *doc = floor_doc(opt, path), *f, *out;
	const json_t *pct, *mach, *refused;
	const char *schema;

	schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema || strcmp(schema, FLOOR_CHECK_SCHEMA)) {
		json_decref(doc);
		cli_die("--%s (%s): not a `lockbench system check` file (schema %s "
			"expected); give that file or a percentage", opt, path,
			FLOOR_CHECK_SCHEMA);
	}
	f = json_object_get(doc, "floor");
	pct = json_object_get(f, "rel_pct");
	refused = json_object_get(f, "refused");
	if (refused && !json_is_null(refused) && !json_is_string(refused)) {
		json_decref(doc);
		cli_die("--%s (%s): floor.refused is not a string (the reason a system "
			"check gives for refusing its floor)", opt, path);
	}
	if (json_is_number(pct) || json_is_string(json_object_get(f, "refused")))
		floor_validate(opt, path, doc, f);
	if (!json_is_object(f) || !json_is_number(pct) || !isfinite(json_number_value(pct)) ||
	    json_number_value(pct) < 0) {
		json_decref(doc);
		cli_die("--%s (%s): the system check recorded no floor (floor.rel_pct); "
			"run `lockbench system check -o FILE.json` again", opt, path);
	}
	out = json_deep_copy(f);
	mach = json_object_get(doc, "machine");
	if (!json_object_get(out, "host") && json_is_object(mach))
		json_object_set_new(out, "host", json_pack("{s:O?, s:O?, s:O?}",
			"hostname", json_object_get(mach, "hostname"),
			"arch", json_object_get(mach, "arch"), "pus", json_object_get(mach, "pus")));
	json_decref(doc);
	host_validate(opt, path, out);
	if (!json_is_string(json_object_get(out, "source")))
		json_object_set_new(out, "source", json_string("system check"));
	json_object_set_new(out, "file", json_string(path));
	return out;
}

/* "vm (x86_64, 2 CPUs)" of a floor's host or a run's machine. */
static void host_text(const json_t *h, char *buf, size_t len)
{
	const char *name = json_string_value(json_object_get(h, "hostname"));
	const char *arch = json_string_value(json_object_get(h, "arch"));
	const json_t *pus = json_object_get(h, "pus");

	snprintf(buf, len, "%s (%s, %lld CPUs)", name ? name : "?", arch ? arch : "?",
		 json_is_integer(pus) ? (long long)json_integer_value(pus) : -1LL);
}

/* Do two of hostname, arch, pus both present differ? */
static bool host_differs(const json_t *a, const json_t *b)
{
	static const char *const keys[] = {"hostname", "arch", "pus"};

	for (unsigned i = 0; i < 3; i++) {
		const json_t *x = json_object_get(a, keys[i]), *y = json_object_get(b, keys[i]);

		if (x && y && !json_is_null(x) && !json_is_null(y) && !json_equal(x, y))
			return true;
	}
	return false;
}

void floor_check_host(const json_t *floor, const json_t *machine, const char *what)
{
	const json_t *h = json_object_get(floor, "host");
	const char *file = json_string_value(json_object_get(floor, "file"));
	char fh[256], mh[256];

	if (!json_is_object(h) || !json_is_object(machine) || !host_differs(h, machine))
		return;
	host_text(h, fh, sizeof(fh));
	host_text(machine, mh, sizeof(mh));
	cli_die("--floor (%s): measured on %s, but %s ran on %s: a floor holds on the "
		"machine it was measured on; run `lockbench system check -o check.json` there",
		file ? file : "?", fh, what, mh);
}

json_t *floor_from_arg(const char *opt, const char *arg)
{
	double v = as_percent(arg);
	char src[64];

	if (v < 0 && strspn(arg, "0123456789.%+-eE") == strlen(arg))
		cli_die("--%s (%s): must be a percentage in [0, 100] or a "
			"`lockbench system check` file", opt, arg);
	if (v < 0)
		return floor_from_file(opt, arg);
	if (!isfinite(v) || v > 100)
		cli_die("--%s (%s): must be a percentage in [0, 100] or a "
			"`lockbench system check` file", opt, arg);
	snprintf(src, sizeof(src), "--%s PCT", opt);
	return json_pack("{s:f, s:s}", "rel_pct", v, "source", src);
}
