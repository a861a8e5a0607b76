/* SPDX-License-Identifier: MIT */
/*
 * JSON (-f json): the document of results_to_json() (results/json_write.c,
 * docs/json.md), indented, in the model's member order.  Whatever --unit
 * says, throughputs stay in ops/s.
 */
#include "../results/json_write.h"
#include "render.h"

int render_json(const struct results *r, const struct render_opts *o, FILE *f)
{
	json_t *doc = results_to_json(r);
	int rc;

	(void)o;
	if (!doc)
		return -1;
	rc = json_dumpf(doc, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(doc);
	return rc || ferror(f) ? -1 : 0;
}
