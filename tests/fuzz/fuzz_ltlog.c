// SPDX-License-Identifier: MIT
/*
 * fuzz_ltlog.c - libFuzzer target for the locktorture log parser.
 *
 * Build and run (seed corpus: the fixtures):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Ioutput \
 *         tests/fuzz/fuzz_ltlog.c kernel/locktorture/ltlog.c \
 *         output/stats/median.c -lm -o fuzz_ltlog
 *   ./fuzz_ltlog -max_total_time=60 corpus/ tests/fixtures/locktorture/
 *
 * Besides memory safety it checks the invariants callers rely on.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../kernel/locktorture/ltlog.h"

/* Abort unless one run's rates are sane: 0 or -EINVAL, finite, >= 0. */
static void check_rates(const struct lt_run *run, bool reads)
{
	unsigned nsamples = reads ? run->nreads : run->nwrites;
	double *r;
	unsigned n, i;
	int ret = lt_run_rates(run, reads, &r, &n);

	if (ret != 0 && ret != -EINVAL && ret != -ENOMEM)
		abort();
	if (ret != 0 && (r || n))
		abort();
	if (n && nsamples < n + 1)
		abort();
	for (i = 0; i < n; i++)
		if (!isfinite(r[i]) || r[i] < 0)
			abort();
	free(r);
}

/* Abort unless the run's strings are terminated and its counts agree. */
static void check_run(const struct lt_run *run, unsigned nlines)
{
	if (!memchr(run->type, '\0', sizeof(run->type)) ||
	    !memchr(run->params, '\0', sizeof(run->params)) ||
	    !memchr(run->end_status, '\0', sizeof(run->end_status)))
		abort();
	if (run->first_line < 1 || run->first_line > nlines)
		abort();
	if ((run->nwrites && !run->writes) || (run->nreads && !run->reads))
		abort();
	check_rates(run, false);
	check_rates(run, true);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lt_log log;
	char err[128];
	unsigned i;
	int ret;

	ret = lt_parse((const char *)data, size, &log, err, sizeof(err));
	if (ret == 0) {
		if (log.nruns == 0 || log.ignored_lines > log.nlines)
			abort();
		for (i = 0; i < log.nruns; i++)
			check_run(&log.runs[i], log.nlines);
	} else if (ret != -EINVAL && ret != -ENOMEM) {
		abort();
	} else if (log.nruns || log.runs || !err[0]) {
		abort();
	}
	lt_log_free(&log);
	return 0;
}
