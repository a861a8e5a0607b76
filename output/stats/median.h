/* SPDX-License-Identifier: MIT */
/*
 * output/stats/median.h - the one median of the tree.  A leaf: it
 * includes nothing of the project, so the statistics (stats.c) and the
 * host measurement in topology/ (clock calibration, probes, host takes)
 * share it without either including the other (docs/architecture.md,
 * "Who may include whom").  Thread safe: no global state.
 */
#ifndef LOCKBENCH_MEDIAN_H
#define LOCKBENCH_MEDIAN_H

/* The median of x[0..n-1], which it sorts ascending; NAN when n == 0.
 * With n even, the mean of the two middle values. */
double stats_median(double *x, unsigned n);

/* The median of s[0..n-1], already ascending; NAN when n == 0. */
double stats_median_sorted(const double *s, unsigned n);

#endif
