/* SPDX-License-Identifier: MIT */
/*
 * output/stats/stats.h - the statistics layer: summaries of runs, significance
 * tests against the baseline, fairness indices and the log-bucket latency
 * histogram.  Pure functions: no printing, no I/O, no global state.
 *
 * Inputs are finite doubles; NaN or infinite samples give unspecified
 * (but memory-safe) results.  docs/method.md "Statistics" is the specification.
 */
#ifndef LOCKBENCH_STATS_H
#define LOCKBENCH_STATS_H

#include <stdbool.h>

#include "median.h"

struct summary {
	unsigned n;
	double mean;
	double hmean;    /* harmonic mean n / sum(1/x): the mean of rates
			  * (mmtests' Hmean); NAN unless every x > 0 */
	double std;      /* sample std (n-1); NAN (undefined) when n < 2 */
	double median;
	double min, max;
	double cv;       /* std / mean; NAN when n < 2 or mean == 0 */
	double ci95_half;/* Student-t 95% half-width t_{0.975,n-1}*std/sqrt(n); NAN when n < 2 */
	double ci95_lo, ci95_hi; /* mean -/+ ci95_half; NAN when n < 2 */
};

/*
 * Summarise x[0..n-1].  n == 0 gives mean, median, min and max 0; std,
 * cv and the ci95 fields are NAN whenever they are undefined (n < 2; cv
 * also when the mean is 0), so that no renderer prints an undefined
 * spread as 0.  x is not modified.  The median needs a sorted copy: if
 * that allocation fails, median is NAN and everything else is still set.
 * std uses two passes (mean, then squared deviations), so it does not
 * lose digits to cancellation when the std is small against the mean.
 */
void stats_summarize(const double *x, unsigned n, struct summary *out);

/*
 * The relative 95% CI half-width, ci95_half / |mean|: NAN with fewer
 * than two samples, 0 or infinity when the mean is 0.
 */
double stats_ci_rel(const struct summary *s);

/* stats_median(), stats_median_sorted(): median.h, the one median of
 * the tree (the host measurement, topology/host/, uses it too). */

struct sigtest {
	bool valid;      /* false when the test cannot be computed (too few samples) */
	double stat;     /* t, or U */
	double df;       /* Welch-Satterthwaite df; 0 for Mann-Whitney */
	double p;        /* two-sided p-value */
};

/*
 * Welch's unequal-variance t-test, two-sided (Welch, Biometrika 34, 1947).
 * t = (mean_a - mean_b) / sqrt(va/na + vb/nb), df by Welch-Satterthwaite.
 * Needs na >= 2 and nb >= 2, else valid = false and stat/df/p are NAN.
 * Both variances 0 (the test is undefined): p = 1 and t = 0 when the
 * means are equal, else p = 0 and t = +/-INFINITY; df = na + nb - 2.
 */
void stats_welch(const double *a, unsigned na, const double *b, unsigned nb,
		 struct sigtest *out);

/*
 * Mann-Whitney U, two-sided.  stat = U of sample a = #(a_i > b_j) +
 * #(a_i == b_j) / 2 (= R_a - na(na+1)/2).
 * - na, nb <= 20 and no ties: exact null distribution of U (generating
 *   function = Gaussian binomial [na+nb choose na]_q), p = min(1, 2 *
 *   min(P(U <= u), P(U >= u))).
 * - otherwise (larger samples, or any tie): normal approximation with the
 *   tie-corrected variance and a 0.5 continuity correction; p = 1 when
 *   every value is tied (zero variance).
 * Needs na >= 1 and nb >= 1, else valid = false and stat/p are NAN.
 * valid is also false if the sorted copies cannot be allocated.
 */
void stats_mann_whitney(const double *a, unsigned na, const double *b,
			unsigned nb, struct sigtest *out);

/*
 * Two levels of repetition (Kalibera & Jones, "Rigorous benchmarking in
 * reasonable time", ISMM 2013): x holds k invocations' runs one after
 * the other, sizes[i] runs for invocation i (each >= 1; a 0 leaves
 * everything NAN).  With m_i the invocations' means:
 *	var_within  = pooled sample variance of the runs around their
 *	              invocation's mean (sum of (r_i - 1) s_i^2 over
 *	              sum of (r_i - 1)); NAN when every r_i is 1;
 *	var_means   = S_b^2, the sample variance of the m_i (k >= 2);
 *	runs        = r, the harmonic mean of the r_i;
 *	var_between = max(0, S_b^2 - var_within / r), the invocation
 *	              component of the variance (K&J's T_1^2 - T_2^2 / r);
 *	var_mean    = max(S_b^2, var_within / r) / k, the variance of the
 *	              mean of the m_i: between-invocation variance plus the
 *	              runs' share, never below what the runs alone make.
 * mean is the mean of the m_i; fields undefined are NAN.
 */
struct two_level {
	unsigned k, n;       /* invocations, runs */
	double runs;         /* runs per invocation (harmonic mean) */
	double mean;
	double var_within, var_means, var_between, var_mean;
};
void stats_two_level(const double *x, const unsigned *sizes, unsigned k,
		     struct two_level *out);

/*
 * Minimum detectable effect of a two-sided t test at level alpha with
 * the given power, for an estimate with standard error se on df degrees
 * of freedom: (t_{1-alpha/2,df} + t_{power,df}) * se (the usual
 * normal-approximation power formula with Student quantiles, e.g.
 * Cohen, "Statistical Power Analysis", 1988, ch. 2).  At df = infinity,
 * alpha 0.05 and power 0.8 that is 2.8016 se.  NAN for se < 0, df <= 0
 * or alpha, power outside (0, 1).
 */
double stats_mde(double se, double df, double alpha, double power);

/*
 * The minimum detectable difference of the means of two two-level
 * samples (stats_two_level), tested with Welch's t on the invocation
 * means: se^2 = a.var_mean + b.var_mean, df by Welch-Satterthwaite
 * with k - 1 per side.  NAN unless both sides have 2 or more
 * invocations; 0 when both variances are 0.
 */
double stats_mde_two_level(const struct two_level *a, const struct two_level *b,
			   double alpha, double power);

/*
 * One-sample trimmed t-test of "the trimmed mean of d is 0", two-sided:
 * the paired test on per-round differences (Tukey & McLaughlin, Sankhya
 * A 25, 1963), with Yuen's standard error (Biometrika 61, 1974).
 * g = floor(trim * n) values are cut from each end (trim in [0, 0.5));
 * with h = n - 2g, the trimmed mean mt of the h middle values and the
 * winsorized sample variance sw2 (each cut value replaced by the
 * nearest kept one, n - 1 denominator):
 *	stat = mt / sqrt((n - 1) * sw2 / (h * (h - 1))),  df = h - 1.
 * trim = 0 is the ordinary paired t-test; the results model cuts one
 * value from each end from n = 5 (results.h, sig_trim()).  Needs h >= 2, else valid = false and
 * stat/df/p are NAN.  sw2 == 0: p = 1 and stat = 0 when mt == 0, else
 * p = 0 and stat = +/-INFINITY.  *tmean (may be NULL) gets mt (NAN when
 * invalid).  valid is also false if the sorted copy cannot be made.
 */
void stats_trimmed_t1(const double *d, unsigned n, double trim,
		      struct sigtest *out, double *tmean);

/*
 * Holm's step-down adjustment for n tests (Holm, Scand. J. Statist. 6,
 * 1979): with the valid p-values sorted p_(1) <= ... <= p_(m) (m = how
 * many of p[] are not NAN),
 *	adj_(i) = max over j <= i of min(1, (m - j + 1) * p_(j)).
 * Rejecting where adj < alpha keeps the familywise error rate at alpha
 * under any dependence between the tests.  NAN entries stay NAN in adj
 * and do not count in m.  adj may be p.  Returns m, or -1 (nothing
 * written) when memory runs out.
 */
int stats_holm(const double *p, unsigned n, double *adj);

/*
 * Student t CDF P(T <= t) for df > 0 (real df allowed; df = INFINITY is
 * the standard normal).  From the regularized incomplete beta by the
 * modified Lentz continued fraction; for df >= 1e5 and moderate |t| by
 * Fisher's expansion around the normal.  Relative error against mpmath,
 * also in the far lower tail: < 1e-13 for df <= 100, < 1e-12 up to
 * df = 1e5, < 5e-11 for any df (worst near df = 3e7, |t| = 25).
 * NAN for NAN input or df <= 0.
 */
double stats_t_cdf(double t, double df);

/*
 * Student t quantile: t with P(T <= t) = p, for df > 0.  Safeguarded
 * Newton on stats_t_cdf (bisection fallback inside a bracket).
 * -INFINITY for p == 0, +INFINITY for p == 1, NAN outside [0, 1].
 */
double stats_t_quantile(double p, double df);

/*
 * Chi-square quantile: x with P(X <= x) = p for df degrees of freedom
 * (df > 0, 0 <= p < 1), by bisection on the regularized incomplete
 * gamma P(df/2, x/2).  NAN outside that domain.
 */
double stats_chi2_quantile(double p, double df);

/*
 * The invocation floor (docs/method.md, "The invocation floor"): the
 * difference, in percent, that the means of two single invocations of
 * the same thing exceed in at most 5% of A/A pairs, with 95% confidence
 * over the n invocations it was measured from (a tolerance bound: one
 * floor serves many comparisons, so it must hold for them, not only on
 * average over floors).  From the between-invocation standard deviation
 * `sd_between_pct` (percent of the mean) of n invocation means s:
 *	floor = z_{0.975} * sqrt(2) * s * sqrt((n - 1) / chi2_{0.05, n-1}),
 * the last factor taking s to the one-sided 95% upper confidence bound
 * of sigma_b.  NAN when n < 2 or the sd is negative or not finite.
 */
double stats_invocation_floor(double sd_between_pct, unsigned n);

/*
 * Do the positive values x[0..n-1] (repeated probes of one quantity,
 * e.g. a core-to-core round trip) fall into two clusters?  Sorted, they
 * are split where two neighbours differ by the largest ratio; the answer
 * is true when each side holds at least `min_each` values, that gap is
 * wider (as a ratio) than the spread inside either side, and the upper
 * side's median is more than `factor` times the lower side's.  A single
 * outlier (min_each >= 2) or a continuous spread is not two clusters.
 * On true, *lo and *hi (when not NULL) get the two medians.  x is not
 * modified; false when n < 2 * min_each, a value is not positive and
 * finite, or memory runs out.
 */
bool stats_bimodal(const double *x, unsigned n, double factor, unsigned min_each,
		   double *lo, double *hi);

/* rel% = (mean / base - 1) * 100; NAN when base == 0. */
double stats_rel_pct(double mean, double base);

/* Jain's fairness index (sum x)^2 / (n * sum x^2); 1 for n==0 or all zero. */
double stats_jain(const double *x, unsigned n);

/* locktorture's unfairness rule: max/2 > min. */
bool stats_lt_unfair(double min, double max);

/*
 * Is a per-interval series x[0..n-1] still trending (a warm-up too short
 * for the machine)?  With k = n / 3 and a, b, c the means of the first
 * k, the middle n - 2k and the last k values: true when n >= 4, the last
 * value differs from the first by more than `thresh` (a fraction, e.g.
 * 0.10) of the series mean, |c - a| does too, and a -> b -> c moves
 * the same way as first -> last (a monotone drift, not one outlying
 * interval).  *change_pct gets (last - first) / mean * 100 (0 when
 * n < 2 or the mean is 0).
 */
bool stats_trend(const double *x, unsigned n, double thresh, double *change_pct);

/*
 * Log-bucket latency histogram (sampled acquisition latency in ns).
 *
 * Buckets 0..15 hold the values 0..15 exactly.  Above, each power of two
 * [2^e, 2^(e+1)), e >= 4, is split into 8 equal sub-buckets of width
 * 2^(e-3):
 *	b  = 8 * (e - 2) + ((v >> (e - 3)) & 7)
 *	lo = (8 + s) << (e - 3),  hi = ((9 + s) << (e - 3)) - 1
 * with e = b / 8 + 2 and s = b % 8.  (The same formula with e = 3 gives
 * the exact buckets 8..15.)  Every v in bucket b satisfies
 * lo <= v <= hi and hi - v < v / 8: reporting hi overstates a value by
 * less than 12.5%.  Bucket 255 is the last regular one (e = 33,
 * [15 * 2^30, 2^34 - 1], about 16.1-17.2 s) and also takes every larger
 * value, so hist_bucket_hi(255) is ULLONG_MAX; quantiles are clamped to
 * the exact max, which keeps them finite.
 */
#define HIST_BUCKETS 256
struct hist {
	unsigned long long count[HIST_BUCKETS];
	unsigned long long n;
	unsigned long long max;   /* exact max seen */
	unsigned long long sum;
};

/* Bucket of v (see above): O(1), one clz, no loops, no libm. */
static inline unsigned hist_bucket_inline(unsigned long long v)
{
	unsigned e, b;

	if (v < 16)
		return (unsigned)v;
	e = 63 - (unsigned)__builtin_clzll(v);
	b = 8 * (e - 2) + (unsigned)((v >> (e - 3)) & 7);
	return b < HIST_BUCKETS ? b : HIST_BUCKETS - 1;
}

/* Count v in h.  Runs in the worker loop: no loops, no libm, no calls. */
static inline void hist_add(struct hist *h, unsigned long long v)
{
	h->count[hist_bucket_inline(v)]++;
	h->n++;
	h->sum += v;
	if (v > h->max)
		h->max = v;
}

/* dst += src: counts, n and sum added, max is the larger one. */
void hist_merge(struct hist *dst, const struct hist *src);

/*
 * Value at quantile q in [0,1] (q clamped into it): the upper bound of
 * the bucket holding rank ceil(q*n) (1-based, at least 1), clamped to
 * max; 0 when empty.  ceil() ignores a relative excess of 1e-12 in q*n,
 * so 0.07 * 100 is rank 7, not 8.
 */
unsigned long long hist_quantile(const struct hist *h, double q);

/* Bucket index <-> bounds (inclusive), for JSON export.  An index >=
 * HIST_BUCKETS is treated as the last bucket. */
unsigned hist_bucket(unsigned long long v);
unsigned long long hist_bucket_lo(unsigned b);
unsigned long long hist_bucket_hi(unsigned b);

#endif /* LOCKBENCH_STATS_H */
