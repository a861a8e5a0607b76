/* SPDX-License-Identifier: MIT */
/*
 * output/stats/median.h - the one median of the tree: the statistics'
 * (stats.c) and the host measurement's (topology/host/: clock
 * calibration, probes, host takes).  Thread safe: no global state.
 */
#ifndef LOCKBENCH_MEDIAN_H
#define LOCKBENCH_MEDIAN_H

/* The median of x[0..n-1], which it sorts ascending; NAN when n == 0.
 * With n even, the mean of the two middle values. */
double stats_median(double *x, unsigned n);

/* The median of s[0..n-1], already ascending; NAN when n == 0. */
double stats_median_sorted(const double *s, unsigned n);

#endif
