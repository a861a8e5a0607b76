/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <string.h>

#include "render.h"

const struct format_info formats[] = {
	{"table", "Lock: mcs ... / 1  1234.56  12.34  2345.67  23.45  +90%",
	 render_table},
	{"json", "{\"schema\": \"lockbench-results\", \"schema_version\": \"1.0\", ...}",
	 render_json},
	{NULL, NULL, NULL},
};

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
