/* SPDX-License-Identifier: MIT */
/* The invocation floor from an option's argument (floor.h). */
#include "floor.h"

#include <errno.h>
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

/* The `floor` of a system-check file; exits 2 when it has none. */
static json_t *floor_from_file(const char *opt, const char *path)
{
	json_error_t je = {.line = -1};
	json_t *doc = NULL, *f, *out;
	const json_t *pct;
	const char *schema;
	char what[64];
	int fd;

	snprintf(what, sizeof(what), "--%s", opt);
	fd = infile_open(what, path);
	if (fd >= 0) {
		doc = json_loadfd(fd, 0, &je);
		close(fd);
	}
	if (!doc)
		cli_die("--%s (%s): %s", opt, path, fd < 0 && errno == ENOENT ?
			"no such file, and not a percentage" : fd < 0 ? strerror(errno) :
			"not JSON");
	schema = json_string_value(json_object_get(doc, "schema"));
	if (!schema || strcmp(schema, FLOOR_CHECK_SCHEMA)) {
		json_decref(doc);
		cli_die("--%s (%s): not a `lockbench system check` file (schema %s "
			"expected); give that file or a percentage", opt, path,
			FLOOR_CHECK_SCHEMA);
	}
	f = json_object_get(doc, "floor");
	pct = json_object_get(f, "rel_pct");
	if (!json_is_object(f) || !json_is_number(pct) || !isfinite(json_number_value(pct)) ||
	    json_number_value(pct) < 0) {
		json_decref(doc);
		cli_die("--%s (%s): the system check recorded no floor (floor.rel_pct); "
			"run `lockbench system check -o FILE.json` again", opt, path);
	}
	out = json_deep_copy(f);
	json_decref(doc);
	if (!json_is_string(json_object_get(out, "source")))
		json_object_set_new(out, "source", json_string("system check"));
	json_object_set_new(out, "file", json_string(path));
	return out;
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
