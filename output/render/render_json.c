/* SPDX-License-Identifier: MIT */
/*
 * JSON (-f json): the document of results_write_json() (results/json_write.c,
 * docs/json.md), indented, in the model's member order.  Whatever --unit
 * says, throughputs stay in ops/s.
 */
#include "../results/json_write.h"
#include "render.h"

int render_json(const struct results *r, const struct render_opts *o, FILE *f)
{
	(void)o;
	return results_write_json(r, f);
}
