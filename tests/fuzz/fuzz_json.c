// SPDX-License-Identifier: MIT
/*
 * fuzz_json.c - libFuzzer target for the JSON results reader.
 *
 * `make fuzz` builds it with clang -fsanitize=fuzzer,address and runs it
 * for FUZZ_SECONDS (60) on a corpus seeded with the golden inputs;
 * crashing inputs land in tests/fuzz/crashes-json/, which test_json_read
 * replays on every `make unit`.
 *
 * Besides memory safety it checks what callers rely on: on success the
 * model is complete (names set, baseline in range) and survives
 * finalize, every text renderer and a JSON round trip; on failure the
 * model is empty and the message is one line.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_read.h"
#include "render.h"

static void check_model(const struct results *r)
{
	if (!r->nvariants || !r->nrows || r->baseline >= r->nvariants ||
	    !r->variant_heading || !r->row_heading)
		abort();
	for (unsigned v = 0; v < r->nvariants; v++)
		if (!r->variants[v].name)
			abort();
}

/* Every format into /dev/null-like memory; none may crash. */
static void render_all(const struct results *r)
{
	struct render_opts o = {.unit = UNIT_KOPS, .marks = true};
	char err[256];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	for (unsigned i = 0; formats[i].name; i++)
		if (!format_check(&formats[i], r, err, sizeof(err)))
			formats[i].render(r, &o, f);
	fclose(f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct results r;
	char err[512];
	int rc = results_from_json_buf((const char *)data, size, "fuzz", &r, err,
				       sizeof(err));

	if (rc) {
		if (rc != -EINVAL && rc != -ENOMEM)
			abort();
		if (r.nvariants || r.points || strchr(err, '\n') || !err[0])
			abort();
		return 0;
	}
	check_model(&r);
	results_finalize(&r);
	render_all(&r);
	results_free(&r);
	return 0;
}
