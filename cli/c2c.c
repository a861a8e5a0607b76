/* SPDX-License-Identifier: MIT */
/*
 * `lockbench topo --c2c`: the core-to-core round-trip matrix as text.
 */
#include <math.h>

#include "cmds.h"

void print_c2c(const int *cpus, unsigned n, const double *m, unsigned reps,
	       FILE *f)
{
	fprintf(f, "\ncore-to-core round trip (ns, one cache line, median of %u probes):\n",
		reps);
	fprintf(f, "%6s", "cpu");
	for (unsigned j = 0; j < n; j++)
		fprintf(f, " %6d", cpus[j]);
	fputc('\n', f);
	for (unsigned i = 0; i < n; i++) {
		fprintf(f, "%6d", cpus[i]);
		for (unsigned j = 0; j < n; j++) {
			double x = m[i * n + j];

			if (i == j)
				fprintf(f, " %6s", "-");
			else if (isfinite(x))
				fprintf(f, " %6.0f", x);
			else
				fprintf(f, " %6s", "?");
		}
		fputc('\n', f);
	}
}
