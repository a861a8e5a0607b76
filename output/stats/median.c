// SPDX-License-Identifier: MIT
/* output/stats/median.c - the one median of the tree (median.h). */
#include "median.h"

#include <math.h>
#include <stdlib.h>

/* qsort comparator for doubles, ascending (inputs are not NaN). */
static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

double stats_median_sorted(const double *s, unsigned n)
{
	if (!n)
		return NAN;
	if (n & 1)
		return s[n / 2];
	return s[n / 2 - 1] / 2 + s[n / 2] / 2;
}

double stats_median(double *x, unsigned n)
{
	if (!n)
		return NAN;
	qsort(x, n, sizeof(*x), cmp_double);
	return stats_median_sorted(x, n);
}
