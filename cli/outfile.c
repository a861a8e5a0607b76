/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "outfile.h"
#include "suggest.h"

static const struct format_info *format_or_die(const char *name)
{
	const char *names[32];
	unsigned n = 0;

	if (format_find(name))
		return format_find(name);
	for (; formats[n].name && n < 32; n++)
		names[n] = formats[n].name;
	cli_die_unknown("format", name, names, n, NULL);
}

void outputs_parse(struct outputs *o, const char *formats, const char *unit,
		   const char *path, bool marks)
{
	char *list = cli_strdup(formats), *save = NULL;

	memset(o, 0, sizeof(*o));
	for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		const struct format_info *f = format_or_die(t);

		if (o->n == 8)
			cli_die("--format (%s): too many formats", formats);
		o->fmt[o->n++] = f;
	}
	free(list);
	if (!o->n)
		cli_die("--format: empty list");
	if (unit_parse(unit, &o->ropts.unit))
		cli_die("--unit (%s): valid: ops/s, kops/s, Mops/s, jpm", unit);
	o->ropts.marks = marks;
	o->path = path;
	o->to_file = path ? 0 : -1;
	for (unsigned i = 0; path && i < o->n; i++)
		if (!strcmp(o->fmt[i]->name, "json"))
			o->to_file = (int)i;
}

void outputs_check(const struct outputs *o, const struct results *shape)
{
	char err[256];

	for (unsigned i = 0; i < o->n; i++)
		if (format_check(o->fmt[i], shape, err, sizeof(err)))
			cli_die_msg(err);
}

void outputs_open(struct outputs *o)
{
	int fd;

	if (!o->path || o->file)
		return;
	snprintf(o->tmp, sizeof(o->tmp), "%s.tmp.XXXXXX", o->path);
	fd = mkstemp(o->tmp);
	if (fd < 0 || !(o->file = fdopen(fd, "w")))
		cli_die("cannot write output (%s): %s", o->path, strerror(errno));
}

static void outputs_discard(struct outputs *o)
{
	if (o->file) {
		fclose(o->file);
		unlink(o->tmp);
		o->file = NULL;
	}
}

/* Flush, sync and close the twin, then move it to -o; 0 or 2. */
static int outputs_commit(struct outputs *o)
{
	bool bad = fflush(o->file) != 0;

	bad |= fsync(fileno(o->file)) != 0;
	bad |= fclose(o->file) != 0;
	o->file = NULL;
	if (bad || rename(o->tmp, o->path)) {
		cli_warn("cannot write output (%s): %s", o->path, strerror(errno));
		unlink(o->tmp);
		return 2;
	}
	return 0;
}

int outputs_write(struct outputs *o, const struct results *r)
{
	outputs_open(o);
	for (unsigned i = 0; i < o->n; i++) {
		FILE *f = (int)i == o->to_file ? o->file : stdout;

		if (i && f == stdout)
			fputc('\n', stdout);
		if (o->fmt[i]->render(r, &o->ropts, f)) {
			cli_warn("writing %s output failed", o->fmt[i]->name);
			outputs_discard(o);
			return 2;
		}
	}
	fflush(stdout);
	return o->file ? outputs_commit(o) : 0;
}
