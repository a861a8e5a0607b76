// SPDX-License-Identifier: MIT
/*
 * tests/test_stats.c - cmocka tests of output/stats/stats.c.
 *
 * Reference values are not produced by stats.c: they are published
 * figures (t tables, R's t.test output, ClickHouse's welchTTest docs,
 * the NAG g08ahf/g08ajf Mann-Whitney examples, scipy's mannwhitneyu
 * docs) or come from tests/data/stats_vectors.py (mpmath, 40 digits,
 * by independent methods: quadrature of the t density, bisection,
 * mid-ranks, brute-force enumeration).  Its output is kept in
 * tests/data/stats_vectors.out; the tables below are pasted from it.
 *
 * Build: gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Ioutput/results \
 *	tests/test_stats.c output/stats/stats.c -lcmocka -lm -o /tmp/test_stats
 */
#include <float.h>
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../output/stats/stats.h"
#include "results.h"
#include "envdiff.h"

/* |got - want| <= rel * |want| (+ a tiny absolute floor for want == 0). */
#define assert_close(got, want, rel)					\
	do {								\
		double g_ = (got), w_ = (want);				\
		double tol_ = (rel) * fabs(w_) + 1e-300;		\
		if (!(fabs(g_ - w_) <= tol_))				\
			fail_msg("%s = %.17g, want %.17g (rel %.3g)",	\
				 #got, g_, w_, (double)(rel));		\
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* xorshift64* (Vigna 2016): deterministic test data. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1Dull;
}

/* ---- summary ------------------------------------------------------ */

/* The rtmutex baseline at 1 writer: mean 899.91, std 24.95 over 5 runs,
 * realised as m-s, m-s, m, m+s, m+s (sum of squares 4 s^2, / (5-1)). */
/* The one median (median.h): odd and even counts, sorted in place, and
 * none of nothing. */
static void test_median(void **state)
{
	double odd[] = {5, 1, 4, 2, 3}, even[] = {10, 2, 8, 4}, one[] = {7};
	const double sorted[] = {2, 4, 8, 10};

	(void)state;
	assert_float_equal(stats_median(odd, 5), 3, 0);
	assert_float_equal(stats_median(even, 4), 6, 0);
	assert_memory_equal(even, sorted, sizeof(sorted));
	assert_float_equal(stats_median_sorted(sorted, 3), 4, 0);
	assert_float_equal(stats_median(one, 1), 7, 0);
	assert_true(isnan(stats_median(one, 0)));
	assert_true(isnan(stats_median_sorted(sorted, 0)));
}

static void test_summary_five(void **state)
{
	const double m = 899.91, s = 24.95;
	double x[] = { m - s, m + s, m, m - s, m + s };
	double copy[5];
	struct summary sm;

	(void)state;
	memcpy(copy, x, sizeof(x));
	stats_summarize(x, 5, &sm);
	assert_memory_equal(x, copy, sizeof(x));
	assert_int_equal(sm.n, 5);
	assert_close(sm.mean, m, 1e-14);
	assert_close(sm.std, s, 1e-12);
	assert_close(sm.median, m, 0);
	assert_close(sm.min, m - s, 0);
	assert_close(sm.max, m + s, 0);
	assert_close(sm.cv, s / m, 1e-12);
	/* t_{0.975,4} * 24.95 / sqrt(5), mpmath */
	assert_close(sm.ci95_half, 30.979516755183926, 1e-10);
	assert_close(sm.ci95_lo, m - 30.979516755183926, 1e-12);
	assert_close(sm.ci95_hi, m + 30.979516755183926, 1e-12);
}

static void test_summary_empty(void **state)
{
	struct summary sm;

	(void)state;
	memset(&sm, 0x5a, sizeof(sm));
	stats_summarize(NULL, 0, &sm);
	assert_int_equal(sm.n, 0);
	assert_true(sm.mean == 0 && sm.median == 0);
	assert_true(isnan(sm.std) && isnan(sm.cv));
	assert_true(sm.min == 0 && sm.max == 0);
	assert_true(isnan(sm.ci95_half));
	assert_true(isnan(sm.ci95_lo));
	assert_true(isnan(sm.ci95_hi));
}

static void test_summary_one(void **state)
{
	double x[] = { 42.5 };
	struct summary sm;

	(void)state;
	stats_summarize(x, 1, &sm);
	assert_int_equal(sm.n, 1);
	assert_true(sm.mean == 42.5 && sm.median == 42.5);
	assert_true(sm.min == 42.5 && sm.max == 42.5);
	/* One sample has no spread: undefined, not 0. */
	assert_true(isnan(sm.std) && isnan(sm.cv));
	assert_true(isnan(sm.ci95_half) && isnan(sm.ci95_lo) && isnan(sm.ci95_hi));
}

/* n = 2: std = |a - b| / sqrt(2), half = t_{0.975,1} * std / sqrt(2). */
static void test_summary_two(void **state)
{
	double x[] = { 3, 1 };
	struct summary sm;

	(void)state;
	stats_summarize(x, 2, &sm);
	assert_close(sm.mean, 2, 0);
	assert_close(sm.median, 2, 0);
	assert_close(sm.std, M_SQRT2, 1e-15);
	assert_close(sm.cv, M_SQRT2 / 2, 1e-15);
	/* t_{0.975,1} = tan(0.475 pi) = 12.70620474 (any t table) */
	assert_close(sm.ci95_half, 12.706204736174705, 1e-10);
	assert_close(sm.ci95_lo, 2 - 12.706204736174705, 1e-10);
	assert_close(sm.ci95_hi, 2 + 12.706204736174705, 1e-10);
}

static void test_summary_zero_variance(void **state)
{
	double x[] = { 5, 5, 5, 5 };
	struct summary sm;

	(void)state;
	stats_summarize(x, 4, &sm);
	assert_true(sm.mean == 5 && sm.median == 5 && sm.std == 0);
	assert_true(sm.cv == 0 && sm.ci95_half == 0);
	assert_true(sm.ci95_lo == 5 && sm.ci95_hi == 5);
}

/* Even n: median is the mean of the two middle values. */
static void test_summary_even_median(void **state)
{
	double x[] = { 3.5, 1.25, 9, 4, 2.75, 8 };
	struct summary sm;

	(void)state;
	stats_summarize(x, 6, &sm);
	assert_close(sm.median, 3.75, 0);
	assert_close(sm.mean, 4.75, 1e-15);
	assert_close(sm.std, 3.0659419433511783, 1e-13);
	assert_close(sm.ci95_half, 3.2175087452046828, 1e-10);
	assert_true(sm.min == 1.25 && sm.max == 9);
}

/* Odd n beyond a handful, shuffled; and a zero mean leaves cv undefined (NAN). */
static void test_summary_odd_median_and_zero_mean(void **state)
{
	double x[101], z[] = { -1, 1 };
	struct summary sm;
	unsigned i;

	(void)state;
	for (i = 0; i < 101; i++)
		x[i] = (double)((i * 37) % 101);	/* permutation of 0..100 */
	stats_summarize(x, 101, &sm);
	assert_close(sm.median, 50, 0);
	assert_close(sm.mean, 50, 1e-15);
	assert_true(sm.min == 0 && sm.max == 100);

	stats_summarize(z, 2, &sm);
	assert_true(sm.mean == 0 && isnan(sm.cv));
	assert_close(sm.std, M_SQRT2, 1e-15);
}

/* Small spread on a large mean: no cancellation in the variance. */
static void test_summary_no_cancellation(void **state)
{
	double x[] = { 1e9 + 1, 1e9 + 2, 1e9 + 3 };
	struct summary sm;

	(void)state;
	stats_summarize(x, 3, &sm);
	assert_close(sm.std, 1, 1e-12);
	assert_close(sm.median, 1e9 + 2, 0);
}

/* ---- Student t ---------------------------------------------------- */

/* tests/data/stats_vectors.out: {t, df, P(T <= t)} */
static const double cdf_rows[][3] = {
	{ -50, 0.5, 0.045352606402966379 },
	{ -5, 0.5, 0.1429957015794294 },
	{ -2, 0.5, 0.22275744509156562 },
	{ -0.3, 0.5, 0.42242957606524541 },
	{ 0, 0.5, 0.5 },
	{ 0.1, 0.5, 0.5268341894356968 },
	{ 1, 0.5, 0.69887838915867792 },
	{ 2.5, 0.5, 0.79951473547335341 },
	{ 10, 0.5, 0.89866132361433443 },
	{ -50, 1, 0.0063653491009727967 },
	{ -5, 1, 0.062832958189001184 },
	{ -2, 1, 0.14758361765043327 },
	{ -0.3, 1, 0.40722642092225766 },
	{ 0, 1, 0.5 },
	{ 0.1, 1, 0.53172551743055357 },
	{ 1, 1, 0.75 },
	{ 2.5, 1, 0.8788810584091566 },
	{ 10, 1, 0.96827448256944643 },
	{ -50, 2.5, 4.0652475424793604e-5 },
	{ -5, 2.5, 0.011725594985430924 },
	{ -2, 2.5, 0.078695747878982993 },
	{ -0.3, 2.5, 0.3936711857475986 },
	{ 0, 2.5, 0.5 },
	{ 0.1, 2.5, 0.53609672796875521 },
	{ 1, 2.5, 0.79796948636086327 },
	{ 2.5, 2.5, 0.94771501846092231 },
	{ 10, 2.5, 0.99777925211634629 },
	{ -50, 4, 4.7872268284848492e-7 },
	{ -5, 4, 0.0037452169406372623 },
	{ -2, 4, 0.058058261758407797 },
	{ -0.3, 4, 0.38956071413872985 },
	{ 0, 4, 0.5 },
	{ 0.1, 4, 0.53742207953027336 },
	{ 1, 4, 0.81304951684997056 },
	{ 2.5, 4, 0.96661672759400593 },
	{ 10, 4, 0.999718998188642 },
	{ -50, 9, 1.2844764554373991e-12 },
	{ -5, 9, 0.00036948395490162135 },
	{ -2, 9, 0.038276411885350521 },
	{ -0.3, 9, 0.38549535187076244 },
	{ 0, 9, 0.5 },
	{ 0.1, 9, 0.5387317760216594 },
	{ 1, 9, 0.82828180193104324 },
	{ 2.5, 9, 0.98306908615850713 },
	{ 10, 9, 0.99999821088128404 },
	{ -50, 30, 9.3577088296113563e-31 },
	{ -5, 30, 1.1648342733503898e-5 },
	{ -2, 30, 0.027312522481491552 },
	{ -0.3, 30, 0.3831230526421764 },
	{ 0, 30, 0.5 },
	{ 0.1, 30, 0.53949519410486442 },
	{ 1, 30, 0.83734569228698505 },
	{ 2.5, 30, 0.99094217546596665 },
	{ 10, 30, 0.99999999997712374 },
	{ -50, 1000, 1.3793362061625825e-274 },
	{ -5, 1000, 3.3836281823243152e-7 },
	{ -2, 1000, 0.02288517324662582 },
	{ -0.3, 1000, 0.38211975208362202 },
	{ 0, 1000, 0.5 },
	{ 0.1, 1000, 0.53981781548819793 },
	{ 1, 1000, 0.84122379095766385 },
	{ 2.5, 1000, 0.9937107160994546 },
	{ 10, 1000, 1.0 },
	{ -50, 1000000, 0 },	/* 5.148e-545: below the double range */
	{ -5, 1000000, 2.8669989354453708e-7 },
	{ -2, 1000000, 0.022750266925659604 },
	{ -0.3, 1000000, 0.3820886089894971 },
	{ 0, 1000000, 0.5 },
	{ 0.1, 1000000, 0.53982782725397842 },
	{ 1, 1000000, 0.84134462508321094 },
	{ 2.5, 1000000, 0.99379025524891838 },
	{ 10, 1000000, 1.0 },
};

/* Worst relative error seen in the tables, reported once. */
static void test_t_cdf_table(void **state)
{
	double worst = 0, got, want, err;
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(cdf_rows); i++) {
		got = stats_t_cdf(cdf_rows[i][0], cdf_rows[i][1]);
		want = cdf_rows[i][2];
		if (want == 0) {
			assert_true(got >= 0 && got < 1e-300);
			continue;
		}
		err = fabs(got - want) / want;
		if (err > worst)
			worst = err;
		if (err > 1e-10)
			fail_msg("t_cdf(%g, %g) = %.17g, want %.17g",
				 cdf_rows[i][0], cdf_rows[i][1], got, want);
		/* symmetry: P(T <= -t) + P(T <= t) = 1 */
		assert_true(fabs(got + stats_t_cdf(-cdf_rows[i][0],
						   cdf_rows[i][1]) - 1) < 4e-16);
	}
	print_message("t_cdf: worst relative error %.2g over %zu points\n",
		      worst, ARRAY_SIZE(cdf_rows));
}

static void test_t_cdf_edges(void **state)
{
	(void)state;
	assert_true(isnan(stats_t_cdf(NAN, 3)));
	assert_true(isnan(stats_t_cdf(1, 0)));
	assert_true(isnan(stats_t_cdf(1, -2)));
	assert_true(isnan(stats_t_cdf(1, NAN)));
	assert_true(stats_t_cdf(INFINITY, 3) == 1);
	assert_true(stats_t_cdf(-INFINITY, 3) == 0);
	assert_true(stats_t_cdf(0, 0.01) == 0.5);
	assert_true(stats_t_cdf(1e-300, 5) == 0.5);
	assert_true(stats_t_cdf(1e200, 5) == 1);
	/* df = 1 is Cauchy: P(T <= t) = 1/2 + atan(t) / pi */
	assert_close(stats_t_cdf(-3, 1), 0.5 + atan(-3) / M_PI, 1e-13);
	assert_close(stats_t_cdf(-1e6, 1), 0.5 + atan(-1e6) / M_PI, 1e-9);
	/* df = 2: P(T <= t) = 1/2 + t / (2 sqrt(2 + t^2)) */
	assert_close(stats_t_cdf(0.7, 2), 0.5 + 0.7 / (2 * sqrt(2.49)), 1e-14);
	/* df = infinity is the standard normal: Phi(1.959963984540054) */
	assert_close(stats_t_cdf(1.959963984540054, INFINITY), 0.975, 1e-15);
}

/* tests/data/stats_vectors.out, large df: {t, df, P(T <= t)} */
static const double big_df_rows[][3] = {
	{ -0.5, 1e5, 0.30853808882720902 },
	{ -2, 1e5, 0.022751481728753232 },
	{ -5, 1e5, 2.8713508393208364e-7 },
	{ -10, 1e5, 7.816507650103639e-24 },
	{ -12, 1e5, 1.8722529059781755e-33 },
	{ -15, 1e5, 4.1701382767342548e-51 },
	{ -20, 1e5, 4.1117469553271811e-89 },
	{ -25, 1e5, 8.1088827760353203e-138 },
	{ -35, 1e5, 4.6758331697995309e-267 },
	{ -0.5, 1e6, 0.30853759373618569 },
	{ -2, 1e6, 0.022750266925659604 },
	{ -5, 1e6, 2.8669989354453708e-7 },
	{ -10, 1e6, 7.6393053840891248e-24 },
	{ -12, 1e6, 1.7858425623825449e-33 },
	{ -15, 1e6, 3.7181323836051928e-51 },
	{ -20, 1e6, 2.8665435236951859e-89 },
	{ -25, 1e6, 3.3711790837718372e-138 },
	{ -35, 1e6, 1.637491816337565e-268 },
	{ -0.5, 1e7, 0.30853754422700754 },
	{ -2, 1e7, 0.022750145445921477 },
	{ -5, 1e7, 2.8665640375042695e-7 },
	{ -10, 1e7, 7.6217961451368782e-24 },
	{ -12, 1e7, 1.7774160254673177e-33 },
	{ -15, 1e7, 3.6756563991626547e-51 },
	{ -20, 1e7, 2.7647156034788507e-89 },
	{ -25, 1e7, 3.0867886159464588e-138 },
	{ -35, 1e7, 1.1679819650419667e-268 },
	{ -0.5, 3e7, 0.30853754055966046 },
	{ -2, 3e7, 0.022750136447426488 },
	{ -5, 3e7, 2.866531824956471e-7 },
	{ -10, 3e7, 7.6205006789684072e-24 },
	{ -12, 3e7, 1.7767933639903535e-33 },
	{ -15, 3e7, 3.6725289495067963e-51 },
	{ -20, 3e7, 2.7573163929049408e-89 },
	{ -25, 3e7, 3.066694883883796e-138 },
	{ -35, 3e7, 1.1390891324144944e-268 },
	{ -0.5, 1e8, 0.30853753927608897 },
	{ -2, 1e8, 0.022750133297953376 },
	{ -5, 1e8, 2.866520550633643e-7 },
	{ -10, 1e8, 7.6200473151239207e-24 },
	{ -12, 1e8, 1.7765754821344811e-33 },
	{ -15, 1e8, 3.6714349561714935e-51 },
	{ -20, 1e8, 2.7547312883288967e-89 },
	{ -25, 1e8, 3.0596927612737393e-138 },
	{ -35, 1e8, 1.1291456838795503e-268 },
	{ -0.5, 1e9, 0.3085375387809971 },
	{ -2, 1e9, 0.022750132083156624 },
	{ -5, 1e9, 2.8665162019758142e-7 },
	{ -10, 1e9, 7.619872453045539e-24 },
	{ -12, 1e9, 1.7764914488705718e-33 },
	{ -15, 1e9, 3.6710130723684191e-51 },
	{ -20, 1e9, 2.7537348158163977e-89 },
	{ -25, 1e9, 3.0569961809281134e-138 },
	{ -35, 1e9, 1.125333491567588e-268 },
	{ -0.5, 1e12, 0.30853753872604191 },
	{ -2, 1e12, 0.022750131948314185 },
	{ -5, 1e12, 2.866515719275123e-7 },
	{ -10, 1e12, 7.6198530435893876e-24 },
	{ -12, 1e12, 1.7764821214144483e-33 },
	{ -15, 1e12, 3.6709662461855146e-51 },
	{ -20, 1e12, 2.7536242293012506e-89 },
	{ -25, 1e12, 3.0566970058425764e-138 },
	{ -35, 1e12, 1.1249111291784959e-268 },
	{ -0.5, 1e15, 0.30853753872598695 },
	{ -2, 1e15, 0.022750131948179342 },
	{ -5, 1e15, 2.8665157187924223e-7 },
	{ -10, 1e15, 7.6198530241799549e-24 },
	{ -12, 1e15, 1.7764821120870158e-33 },
	{ -15, 1e15, 3.6709661993596236e-51 },
	{ -20, 1e15, 2.7536241187169287e-89 },
	{ -25, 1e15, 3.0566967066820209e-138 },
	{ -35, 1e15, 1.1249107068951123e-268 },
};

/* Both methods at huge df and around the switch between them. */
static void test_t_cdf_large_df(void **state)
{
	double worst = 0, got, err;
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(big_df_rows); i++) {
		got = stats_t_cdf(big_df_rows[i][0], big_df_rows[i][1]);
		err = fabs(got - big_df_rows[i][2]) / big_df_rows[i][2];
		if (err > worst)
			worst = err;
		if (err > 1e-10)
			fail_msg("t_cdf(%g, %g) = %.17g, want %.17g",
				 big_df_rows[i][0], big_df_rows[i][1], got,
				 big_df_rows[i][2]);
	}
	print_message("t_cdf, df >= 1e5: worst relative error %.2g over %zu points\n",
		      worst, ARRAY_SIZE(big_df_rows));
	/* the quantile follows, and tends to the normal's */
	assert_close(stats_t_quantile(0.975, 1e15), 1.959963984540054, 1e-12);
	assert_close(stats_t_quantile(0.975, 1e300), 1.959963984540054, 1e-12);
}

/* tests/data/stats_vectors.out: {p, df, t_p} */
static const double q_rows[][3] = {
	{ 0.975, 1, 12.706204736174705 },
	{ 0.995, 1, 63.656741162871581 },
	{ 0.9995, 1, 636.61924876871962 },
	{ 0.6, 1, 0.32491969623290633 },
	{ 0.025, 1, -12.706204736174705 },
	{ 1e-6, 1, -318309.88618274347 },
	{ 0.975, 2, 4.3026527297494639 },
	{ 0.995, 2, 9.9248432009182931 },
	{ 0.9995, 2, 31.599054576443621 },
	{ 0.6, 2, 0.28867513459481288 },
	{ 0.025, 2, -4.3026527297494639 },
	{ 1e-6, 2, -707.1057205259338 },
	{ 0.975, 4, 2.7764451051977944 },
	{ 0.995, 4, 4.6040948713499932 },
	{ 0.9995, 4, 8.6103015813792751 },
	{ 0.6, 4, 0.27072229470759742 },
	{ 0.025, 4, -2.7764451051977944 },
	{ 1e-6, 4, -41.577854150450975 },
	{ 0.975, 9, 2.2621571627982055 },
	{ 0.995, 9, 3.2498355415921263 },
	{ 0.9995, 9, 4.7809125859311391 },
	{ 0.6, 9, 0.26095533647391101 },
	{ 0.025, 9, -2.2621571627982055 },
	{ 1e-6, 9, -10.7201604099095 },
	{ 0.975, 29.5, 2.0437249667721233 },
	{ 0.995, 29.5, 2.7531332702563249 },
	{ 0.9995, 29.5, 3.6525572675586929 },
	{ 0.6, 29.5, 0.25564383324415662 },
	{ 0.025, 29.5, -2.0437249667721233 },
	{ 1e-6, 29.5, -5.8936513014980999 },
	{ 0.975, 100, 1.9839715185235523 },
	{ 0.995, 100, 2.6258905214380179 },
	{ 0.9995, 100, 3.3904913111642299 },
	{ 0.6, 100, 0.25402218245822782 },
	{ 0.025, 100, -1.9839715185235523 },
	{ 1e-6, 100, -5.0488308772283458 },
	{ 0.975, 1000000, 1.959966356814107 },
	{ 0.995, 1000000, 2.5758342201053342 },
	{ 0.9995, 1000000, 3.2905364612486911 },
	{ 0.6, 1000000, 0.25334717053784168 },
	{ 0.025, 1000000, -1.959966356814107 },
	{ 1e-6, 1000000, -4.7534523482796808 },
};

static void test_t_quantile_table(void **state)
{
	double worst = 0, got, err;
	unsigned i;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(q_rows); i++) {
		got = stats_t_quantile(q_rows[i][0], q_rows[i][1]);
		err = fabs(got - q_rows[i][2]) / fabs(q_rows[i][2]);
		if (err > worst)
			worst = err;
		if (err > 1e-10)
			fail_msg("t_quantile(%g, %g) = %.17g, want %.17g",
				 q_rows[i][0], q_rows[i][1], got, q_rows[i][2]);
	}
	print_message("t_quantile: worst relative error %.2g over %zu points\n",
		      worst, ARRAY_SIZE(q_rows));
}

/* Printed t tables (two-sided 95%), to the 10 digits they give. */
static void test_t_quantile_published(void **state)
{
	(void)state;
	assert_close(stats_t_quantile(0.975, 1), 12.70620474, 1e-9);
	assert_close(stats_t_quantile(0.975, 4), 2.776445105, 1e-9);
	assert_close(stats_t_quantile(0.975, 9), 2.262157163, 1e-9);
	assert_close(stats_t_quantile(0.975, 30), 2.042272456, 1e-9);
	assert_close(stats_t_quantile(0.975, INFINITY), 1.959963985, 1e-9);
	/* df = 2 closed form: t_p = (2p - 1) sqrt(2 / (4p(1-p))) */
	assert_close(stats_t_quantile(0.9, 2), 0.8 * sqrt(2 / (4 * 0.9 * 0.1)), 1e-12);
}

static void test_t_roundtrip(void **state)
{
	const double dfs[] = { 0.3, 1, 1.5, 3, 7.25, 24, 250, 1e5 };
	const double ps[] = { 1e-12, 1e-4, 0.01, 0.2, 0.49, 0.5, 0.51, 0.9,
			      0.975, 0.999999 };
	const double ts[] = { -40, -3, -0.5, 0.01, 1, 2.5, 8 };
	unsigned i, j;
	double p, q, t;

	(void)state;
	for (i = 0; i < ARRAY_SIZE(dfs); i++) {
		for (j = 0; j < ARRAY_SIZE(ps); j++) {
			q = stats_t_quantile(ps[j], dfs[i]);
			/* compare the smaller tail, where the digits are */
			if (ps[j] <= 0.5)
				assert_close(stats_t_cdf(q, dfs[i]), ps[j], 1e-11);
			else
				assert_close(1 - stats_t_cdf(q, dfs[i]),
					     1 - ps[j], 1e-9);
		}
		for (j = 0; j < ARRAY_SIZE(ts); j++) {
			/* lower tail only: P(T <= t) near 1 has lost
			 * the digits, and below DBL_MIN it is 0 */
			p = stats_t_cdf(ts[j], dfs[i]);
			if (ts[j] >= 0 || p < DBL_MIN)
				continue;
			t = stats_t_quantile(p, dfs[i]);
			assert_close(t, ts[j], 1e-10);
		}
	}
}

static void test_t_quantile_edges(void **state)
{
	(void)state;
	assert_true(stats_t_quantile(0, 3) == -INFINITY);
	assert_true(stats_t_quantile(1, 3) == INFINITY);
	assert_true(stats_t_quantile(0.5, 3) == 0);
	assert_true(isnan(stats_t_quantile(-0.1, 3)));
	assert_true(isnan(stats_t_quantile(1.1, 3)));
	assert_true(isnan(stats_t_quantile(NAN, 3)));
	assert_true(isnan(stats_t_quantile(0.9, 0)));
	assert_true(isnan(stats_t_quantile(0.9, NAN)));
	/* heavy tail: Cauchy quantile tan(pi (p - 1/2)) = -1 / tan(pi p) */
	assert_close(stats_t_quantile(1e-10, 1), -1 / tan(M_PI * 1e-10), 1e-10);
	/* df < 1: far quantiles (mpmath), and one beyond DBL_MAX */
	assert_close(stats_t_quantile(1e-10, 0.05), -1.0876044676001954e193, 1e-11);
	assert_true(stats_t_quantile(1e-10, 0.01) == -INFINITY);	/* 4e968 */
}

/* ---- Welch -------------------------------------------------------- */

/* R's t.test(ts1, ts2): "t = -1.8325, df = 17.9, p-value = 0.08356". */
static void test_welch_r_example(void **state)
{
	double a[] = { 11, 9, 10, 11, 10, 12, 9, 11, 12, 9 };
	double b[] = { 11, 13, 10, 13, 12, 9, 11, 12, 12, 11 };
	struct sigtest st;

	(void)state;
	stats_welch(a, 10, b, 10, &st);
	assert_true(st.valid);
	assert_close(st.stat, -1.8325, 0.00005 / 1.8325);
	assert_close(st.df, 17.9, 0.05 / 17.9);
	assert_close(st.p, 0.08356, 0.000005 / 0.08356);
	/* mpmath */
	assert_close(st.stat, -1.8325416653445784, 1e-12);
	assert_close(st.df, 17.900310146211786, 1e-12);
	assert_close(st.p, 0.083559791619223301, 1e-10);
}

/* ClickHouse welchTTest docs: (2.7988719532211235, 0.051807360348581945);
 * mpmath on the exact decimals gives t 2.79887195322085, p 0.0518073603486. */
static void test_welch_clickhouse_example(void **state)
{
	double a[] = { 20.3, 22.1, 21.9 };
	double b[] = { 18.9, 20.3, 19 };
	struct sigtest st;

	(void)state;
	stats_welch(a, 3, b, 3, &st);
	assert_true(st.valid);
	assert_close(st.stat, 2.7988719532211235, 1e-12);
	assert_close(st.p, 0.051807360348581945, 1e-10);
	assert_close(st.df, 3.7999040024252019, 1e-12);
}

/* Unequal sizes (7 vs 4 runs of kops/s); swapping the samples negates t. */
static void test_welch_uneven(void **state)
{
	double a[] = { 880.10, 871.57, 888.65, 898.63, 889.83, 901.2, 877.4 };
	double b[] = { 899.91, 874.96, 924.86, 912.4 };
	struct sigtest st, sw;

	(void)state;
	stats_welch(a, 7, b, 4, &st);
	assert_true(st.valid);
	assert_close(st.stat, -1.4222628146101133, 1e-12);
	assert_close(st.df, 3.9365280514664692, 1e-12);
	assert_close(st.p, 0.22911356716778122, 1e-10);
	stats_welch(b, 4, a, 7, &sw);
	assert_close(sw.stat, -st.stat, 1e-15);
	assert_close(sw.df, st.df, 1e-15);
	assert_close(sw.p, st.p, 1e-15);
}

static void test_welch_degenerate(void **state)
{
	double one[] = { 1 }, c5[] = { 5, 5, 5 }, c5b[] = { 5, 5 };
	double c7[] = { 7, 7 }, v[] = { 4, 6, 5 };
	struct sigtest st;

	(void)state;
	stats_welch(one, 1, v, 3, &st);
	assert_false(st.valid);
	assert_true(isnan(st.stat) && isnan(st.df) && isnan(st.p));
	stats_welch(v, 3, NULL, 0, &st);
	assert_false(st.valid);

	/* both variances 0: documented p = 1 (equal means) or 0 */
	stats_welch(c5, 3, c5b, 2, &st);
	assert_true(st.valid && st.p == 1 && st.stat == 0 && st.df == 3);
	stats_welch(c7, 2, c5, 3, &st);
	assert_true(st.valid && st.p == 0 && st.stat == INFINITY);
	stats_welch(c5, 3, c7, 2, &st);
	assert_true(st.valid && st.p == 0 && st.stat == -INFINITY);

	/* one variance 0 is an ordinary case: t = (5 - 5) / ... = 0, p = 1 */
	stats_welch(c5, 3, v, 3, &st);
	assert_true(st.valid);
	assert_close(st.stat, 0, 0);
	assert_close(st.df, 2, 1e-15);
	assert_close(st.p, 1, 1e-15);
}

/* ---- Mann-Whitney ------------------------------------------------- */

static void test_mw_exact_small(void **state)
{
	double a[] = { 1, 2, 3 }, b[] = { 4, 5, 6 };
	double m[] = { 19, 22, 16, 29, 24 }, f[] = { 20, 11, 17, 12 };
	struct sigtest st;

	(void)state;
	/* all 20 placements equally likely; U = 0 is 1 of them, x2 */
	stats_mann_whitney(a, 3, b, 3, &st);
	assert_true(st.valid && st.df == 0);
	assert_close(st.stat, 0, 0);
	assert_close(st.p, 0.1, 1e-14);
	stats_mann_whitney(b, 3, a, 3, &st);
	assert_close(st.stat, 9, 0);
	assert_close(st.p, 0.1, 1e-14);
	/* scipy.stats.mannwhitneyu docs: U1 = 17, exact p = 0.1111... */
	stats_mann_whitney(m, 5, f, 4, &st);
	assert_close(st.stat, 17, 0);
	assert_close(st.p, 1.0 / 9, 1e-14);
	/* one against one: p = 1 */
	stats_mann_whitney(a, 1, b, 1, &st);
	assert_true(st.valid && st.stat == 0 && st.p == 1);
}

/* Larger exact cases: brute-force enumeration (7 x 12) and the
 * Mann-Whitney recursion in Python integers (20 x 20). */
static void test_mw_exact_larger(void **state)
{
	double a[] = { 3, 8, 15, 21, 30, 33, 41 };
	double b[] = { 1, 4, 5, 9, 12, 13, 17, 19, 22, 25, 26, 28 };
	double a20[20], b20[20];
	struct sigtest st;
	unsigned i;

	(void)state;
	stats_mann_whitney(a, 7, b, 12, &st);
	assert_close(st.stat, 54, 0);
	assert_close(st.p, 0.34023973962054457, 1e-13);

	for (i = 0; i < 20; i++) {
		a20[i] = 2 * i + (i >= 12 ? 4 : 0);	/* even: no ties */
		b20[i] = 2 * i + 9;
	}
	stats_mann_whitney(a20, 20, b20, 20, &st);
	assert_close(st.stat, 136, 0);
	assert_close(st.p, 0.085914019985693826, 1e-13);
	/* U = mn/2 at the centre: 2 P(U <= 2) = 8/6, capped at 1 */
	a[0] = 1, a[1] = 4, b[0] = 2, b[1] = 3;
	stats_mann_whitney(a, 2, b, 2, &st);
	assert_close(st.stat, 2, 0);
	assert_true(st.p == 1);
}

/* NAG g08ahf example (ties): U = 86, z = -2.8039, one-tailed 0.0025. */
static void test_mw_ties_normal(void **state)
{
	double g1[] = { 13, 6, 12, 7, 12, 7, 10, 7, 10, 7, 16, 7, 10, 8, 9, 8 };
	double g2[] = { 17, 6, 10, 8, 15, 8, 15, 10, 15, 10, 14, 10, 14, 11,
			14, 11, 13, 12, 13, 12, 13, 12, 12 };
	double a[] = { 1, 2, 2, 3 }, b[] = { 2, 3, 4, 5 };
	struct sigtest st;

	(void)state;
	stats_mann_whitney(g1, 16, g2, 23, &st);
	assert_true(st.valid);
	assert_close(st.stat, 86, 0);
	assert_close(st.p / 2, 0.0025, 0.00005 / 0.0025);
	assert_close(st.p, 0.0050488458137747435, 1e-12);
	/* small samples with ties also use the normal approximation */
	stats_mann_whitney(a, 4, b, 4, &st);
	assert_close(st.stat, 2.5, 0);
	assert_close(st.p, 0.13665824773814751, 1e-12);
}

/* NAG g08ajf example (no ties, 16 x 23 > 20): z = -2.7838, tail 0.0027. */
static void test_mw_large_normal(void **state)
{
	double g1[] = { 13.0, 5.8, 11.7, 6.5, 12.3, 6.7, 9.2, 6.9, 10.0, 7.3,
			16.0, 7.0, 10.5, 8.5, 9.0, 7.5 };
	double g2[] = { 17.0, 6.2, 10.1, 8.0, 15.3, 8.2, 15.0, 9.6, 14.9,
			10.4, 14.2, 9.8, 13.8, 11.0, 14.0, 11.1, 12.9, 11.6,
			12.8, 12.0, 13.1, 12.4, 11.9 };
	struct sigtest st, sw;

	(void)state;
	stats_mann_whitney(g1, 16, g2, 23, &st);
	assert_true(st.valid);
	assert_close(st.stat, 86, 0);
	assert_close(st.p / 2, 0.0027, 0.00005 / 0.0027);
	assert_close(st.p, 0.0053722644717772816, 1e-12);
	/* swapped: U' = na nb - U, same p */
	stats_mann_whitney(g2, 23, g1, 16, &st);
	stats_mann_whitney(g1, 16, g2, 23, &sw);
	assert_close(st.stat, 16 * 23 - 86, 0);
	assert_close(st.p, sw.p, 1e-15);
}

static void test_mw_degenerate(void **state)
{
	double c[] = { 7, 7, 7 }, x[] = { 1 };
	struct sigtest st;

	(void)state;
	/* every value tied: zero variance, U = mn/2, p = 1 */
	stats_mann_whitney(c, 3, c, 2, &st);
	assert_true(st.valid && st.stat == 3 && st.p == 1);
	stats_mann_whitney(x, 1, c, 0, &st);
	assert_false(st.valid);
	assert_true(isnan(st.stat) && isnan(st.p));
	stats_mann_whitney(NULL, 0, x, 1, &st);
	assert_false(st.valid);
}

/* ---- the invocation floor and the bimodality detector ------------- */

static void test_chi2_quantile(void **state)
{
	(void)state;
	/* chi-square tables (lower 5% and 95% points) */
	assert_float_equal(stats_chi2_quantile(0.05, 1), 0.0039321400, 1e-9);
	assert_float_equal(stats_chi2_quantile(0.05, 5), 1.1454762260, 1e-8);
	assert_float_equal(stats_chi2_quantile(0.05, 11), 4.5748130790, 1e-8);
	assert_float_equal(stats_chi2_quantile(0.05, 19), 10.117013060, 1e-7);
	assert_float_equal(stats_chi2_quantile(0.95, 1), 3.8414588207, 1e-8);
	assert_float_equal(stats_chi2_quantile(0.95, 10), 18.307038053, 1e-7);
	assert_float_equal(stats_chi2_quantile(0.5, 2), 2 * log(2.0), 1e-9);
	assert_float_equal(stats_chi2_quantile(0, 4), 0, 0);
	assert_true(isnan(stats_chi2_quantile(1, 4)));
	assert_true(isnan(stats_chi2_quantile(-0.1, 4)));
	assert_true(isnan(stats_chi2_quantile(0.5, 0)));
	assert_true(isnan(stats_chi2_quantile(NAN, 4)));
}

static void test_invocation_floor_values(void **state)
{
	(void)state;
	/* z_{0.975} sqrt(2) sqrt((n-1) / chi2_{0.05,n-1}), from chi-square
	 * tables: 12 invocations, sd 1% */
	assert_float_equal(stats_invocation_floor(1.0, 12), 4.2980628, 1e-6);
	/* 6 invocations, sd 0.5% */
	assert_float_equal(stats_invocation_floor(0.5, 6), 0.5 * 5.7910198, 1e-6);
	/* 2 invocations, sd 0.1% */
	assert_float_equal(stats_invocation_floor(0.1, 2), 4.4202680, 1e-6);
	assert_float_equal(stats_invocation_floor(0.0, 6), 0.0, 0);
	/* more invocations, a tighter floor for the same sd */
	assert_true(stats_invocation_floor(1.0, 20) < stats_invocation_floor(1.0, 12));
	assert_true(isnan(stats_invocation_floor(1.0, 1)));
	assert_true(isnan(stats_invocation_floor(1.0, 0)));
	assert_true(isnan(stats_invocation_floor(-1.0, 6)));
	assert_true(isnan(stats_invocation_floor(NAN, 6)));
	assert_true(isnan(stats_invocation_floor(INFINITY, 6)));
}

/* A standard normal from a fixed-seed xorshift64 (Box-Muller). */
static double floor_gauss(uint64_t *s)
{
	double u[2];

	for (int i = 0; i < 2; i++) {
		*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
		u[i] = ((double)(*s >> 11) + 0.5) / 9007199254740992.0;
	}
	return sqrt(-2 * log(u[0])) * cos(2 * M_PI * u[1]);
}

/* What the floor promises: measured once from 12 invocations (normal
 * invocation means, sigma 1), it lets through more than 5% of A/A pairs
 * (two further single invocations, their difference sd sqrt(2)) in 5%
 * of measurements; 40000 measurements, binomial sd 0.11%.  A floor that
 * held only on average (the t prediction interval, t_{0.975,11} sqrt(2)
 * s) would fail that in about a third of them. */
static void test_invocation_floor_aa_rate(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned bad = 0, trials = 40000;
	double rate = 0;

	(void)state;
	for (unsigned t = 0; t < trials; t++) {
		double m[12], mean = 0, ss = 0, f, over;

		for (int i = 0; i < 12; i++)
			mean += (m[i] = 100 + floor_gauss(&seed)) / 12;
		for (int i = 0; i < 12; i++)
			ss += (m[i] - mean) * (m[i] - mean);
		f = stats_invocation_floor(sqrt(ss / 11), 12);
		/* P(|a - b| > f) for a - b ~ N(0, 2) */
		over = erfc(f / 2);
		bad += over > 0.05;
		rate += over / trials;
	}
	assert_true(bad > trials * 0.045 && bad < trials * 0.055);
	/* on average far fewer than 5% of A/A pairs pass */
	assert_true(rate < 0.02);
}

static void test_bimodal(void **state)
{
	/* round trips of a VM whose vCPUs sit on one core or two sockets */
	const double two[] = {74, 320, 76, 75, 318, 330, 73, 77};
	/* one placement, one preempted probe */
	const double outlier[] = {74, 76, 75, 400, 73, 77, 74, 75};
	/* a continuous spread from 50 to 150: max/min 3, no clusters */
	const double spread[] = {50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150};
	/* two clusters close together: medians 1.5x apart */
	const double close[] = {100, 101, 99, 150, 151, 149};
	/* noisy clusters: 70-90 and 150-200 */
	const double noisy[] = {70, 80, 90, 150, 175, 200, 85, 160};
	/* a wide spread with one step a little wider (73 -> 95): the medians
	 * are 2x apart, but the step is narrower than the spread each side */
	const double wide[] = {50, 55, 60, 66, 73, 95, 105, 115, 127, 140, 154};
	const double bad[] = {74, 320, 0, 75, 318, 330};
	double lo = 0, hi = 0;

	(void)state;
	assert_true(stats_bimodal(two, 8, 2, 2, &lo, &hi));
	assert_float_equal(lo, 75, 1e-9);
	assert_float_equal(hi, 320, 1e-9);
	assert_false(stats_bimodal(outlier, 8, 2, 2, NULL, NULL));
	/* with single values allowed, the outlier is a cluster of one */
	assert_true(stats_bimodal(outlier, 8, 2, 1, &lo, &hi));
	assert_float_equal(hi, 400, 1e-9);
	assert_false(stats_bimodal(spread, 11, 2, 2, NULL, NULL));
	assert_false(stats_bimodal(close, 6, 2, 2, NULL, NULL));
	assert_true(stats_bimodal(close, 6, 1.4, 2, NULL, NULL));
	assert_true(stats_bimodal(noisy, 8, 2, 2, &lo, &hi));
	assert_float_equal(lo, 82.5, 1e-9);
	assert_float_equal(hi, 167.5, 1e-9);
	assert_false(stats_bimodal(wide, 11, 2, 2, NULL, NULL));
	assert_false(stats_bimodal(bad, 6, 2, 2, NULL, NULL));
	assert_false(stats_bimodal(two, 3, 2, 2, NULL, NULL));
	assert_false(stats_bimodal(two, 0, 2, 2, NULL, NULL));
}

/* ---- rel%, fairness ----------------------------------------------- */

static void test_rel_pct(void **state)
{
	char buf[16];

	(void)state;
	/* published rtmutex table: k4 at 1 writer, 898.63 vs 899.91, prints "-0" */
	assert_true(stats_rel_pct(898.63, 899.91) < 0);
	snprintf(buf, sizeof(buf), "%+.0f", stats_rel_pct(898.63, 899.91));
	assert_string_equal(buf, "-0");
	snprintf(buf, sizeof(buf), "%+.0f", stats_rel_pct(416.83, 359.30));
	assert_string_equal(buf, "+16");
	snprintf(buf, sizeof(buf), "%+.0f", stats_rel_pct(880.10, 899.91));
	assert_string_equal(buf, "-2");
	snprintf(buf, sizeof(buf), "%+.0f", stats_rel_pct(360.65, 359.30));
	assert_string_equal(buf, "+0");
	snprintf(buf, sizeof(buf), "%+.0f", stats_rel_pct(126.44, 174.35));
	assert_string_equal(buf, "-27");
	assert_true(stats_rel_pct(5, 5) == 0);
	assert_true(isnan(stats_rel_pct(5, 0)));
	assert_close(stats_rel_pct(150, 100), 50, 1e-15);
}

static void test_jain(void **state)
{
	double even[] = { 1, 1, 1, 1 }, one[] = { 1, 0, 0, 0 };
	double zero[] = { 0, 0, 0 }, ramp[] = { 1, 2, 3, 4 };

	(void)state;
	assert_close(stats_jain(even, 4), 1, 1e-15);
	assert_close(stats_jain(one, 4), 0.25, 1e-15);
	assert_true(stats_jain(NULL, 0) == 1);
	assert_true(stats_jain(zero, 3) == 1);
	/* 10^2 / (4 * 30) */
	assert_close(stats_jain(ramp, 4), 100.0 / 120, 1e-15);
}

static void test_lt_unfair(void **state)
{
	(void)state;
	assert_false(stats_lt_unfair(10, 20));	/* max/2 == min: fair */
	assert_true(stats_lt_unfair(9.99, 20));
	assert_false(stats_lt_unfair(10, 10));
	assert_true(stats_lt_unfair(0, 1));
	assert_false(stats_lt_unfair(0, 0));
}

/* ---- histogram ---------------------------------------------------- */

static void test_hist_bounds(void **state)
{
	unsigned b;

	(void)state;
	assert_true(hist_bucket_lo(0) == 0);
	for (b = 0; b < 16; b++)
		assert_true(hist_bucket_lo(b) == b && hist_bucket_hi(b) == b);
	for (b = 1; b < HIST_BUCKETS; b++) {
		/* contiguous and increasing */
		assert_true(hist_bucket_lo(b) == hist_bucket_hi(b - 1) + 1);
		assert_true(hist_bucket_lo(b) <= hist_bucket_hi(b));
		/* width < lo / 8: the documented 12.5% bound */
		if (b >= 16 && b < HIST_BUCKETS - 1)
			assert_true(hist_bucket_hi(b) - hist_bucket_lo(b) <
				    hist_bucket_lo(b) / 8);
	}
	assert_true(hist_bucket_lo(16) == 16 && hist_bucket_hi(16) == 17);
	assert_true(hist_bucket_lo(24) == 32 && hist_bucket_hi(24) == 35);
	assert_true(hist_bucket_lo(255) == 15ull << 30);
	assert_true(hist_bucket_hi(254) == (15ull << 30) - 1);
	assert_true(hist_bucket_hi(255) == ULLONG_MAX);
	assert_true(hist_bucket_lo(1000) == hist_bucket_lo(255));
}

/* Is v inside the bounds of its bucket? */
static void check_lands(unsigned long long v)
{
	unsigned b = hist_bucket(v);

	assert_true(b < HIST_BUCKETS);
	if (v < hist_bucket_lo(b) || v > hist_bucket_hi(b))
		fail_msg("%llu in bucket %u [%llu, %llu]", v, b,
			 hist_bucket_lo(b), hist_bucket_hi(b));
}

static void test_hist_every_value_lands(void **state)
{
	uint64_t s = 0x9e3779b97f4a7c15ull;
	unsigned long long v;
	unsigned b, e;

	(void)state;
	for (v = 0; v < 200000; v++)
		check_lands(v);
	for (e = 0; e < 64; e++) {
		check_lands(1ull << e);
		check_lands((1ull << e) - 1);
		check_lands((1ull << e) + 1);
	}
	check_lands(ULLONG_MAX);
	for (b = 0; b < 1000000; b++)
		check_lands(rng_next(&s) >> (b % 64));
	for (b = 0; b < HIST_BUCKETS - 1; b++) {
		assert_int_equal(hist_bucket(hist_bucket_lo(b)), b);
		assert_int_equal(hist_bucket(hist_bucket_hi(b)), b);
	}
	assert_int_equal(hist_bucket(1ull << 34), HIST_BUCKETS - 1);
}

static void test_hist_add_merge(void **state)
{
	static struct hist h1, h2, h3;
	unsigned long long v, sum = 0;
	unsigned b;

	(void)state;
	memset(&h1, 0, sizeof(h1));
	memset(&h2, 0, sizeof(h2));
	for (v = 0; v < 1000; v++) {
		hist_add(v & 1 ? &h1 : &h2, v * v);
		sum += v * v;
	}
	hist_add(&h2, 5000000);
	sum += 5000000;
	h3 = h1;
	hist_merge(&h3, &h2);
	assert_true(h3.n == 1001 && h1.n == 500 && h2.n == 501);
	assert_true(h3.sum == sum);
	assert_true(h3.max == 5000000 && h1.max == 999ull * 999);
	for (b = 0; b < HIST_BUCKETS; b++)
		assert_true(h3.count[b] == h1.count[b] + h2.count[b]);
	/* merging into an empty histogram copies */
	memset(&h1, 0, sizeof(h1));
	hist_merge(&h1, &h3);
	assert_memory_equal(&h1, &h3, sizeof(h1));
}

static int cmp_ull(const void *pa, const void *pb)
{
	unsigned long long a = *(const unsigned long long *)pa;
	unsigned long long b = *(const unsigned long long *)pb;

	return (a > b) - (a < b);
}

static void test_hist_quantile(void **state)
{
	static struct hist h;
	static unsigned long long s[10000];
	/* nearest ranks ceil(q n), at least 1 */
	const unsigned ranks[] = { 1, 100, 5000, 9000, 9900, 9990, 10000 };
	const double qs[] = { 0, 0.01, 0.5, 0.9, 0.99, 0.999, 1 };
	uint64_t r = 12345;
	unsigned long long got, want;
	unsigned i;

	(void)state;
	memset(&h, 0, sizeof(h));
	assert_true(hist_quantile(&h, 0.5) == 0);
	/* log-uniform latencies from 1 ns to ~1 s */
	for (i = 0; i < 10000; i++) {
		unsigned shift = 34 + rng_next(&r) % 30;

		s[i] = 1 + (rng_next(&r) >> shift);
		hist_add(&h, s[i]);
	}
	qsort(s, 10000, sizeof(s[0]), cmp_ull);
	for (i = 0; i < ARRAY_SIZE(qs); i++) {
		got = hist_quantile(&h, qs[i]);
		want = s[ranks[i] - 1];
		/* never below the true value, less than 12.5% above it */
		if (got < want || (want >= 16 && got - want >= want / 8) ||
		    (want < 16 && got != want))
			fail_msg("q %g: got %llu, exact %llu", qs[i], got, want);
	}
	assert_true(hist_quantile(&h, 1) == s[9999]);	/* clamped to max */
	assert_true(hist_quantile(&h, 2) == s[9999]);
	assert_true(hist_quantile(&h, -1) == hist_quantile(&h, 0));
}

/* Values 1..100 once each: nearest rank is exact below 16, and
 * q * n = 7.000000000000001 for q = 0.07 is still rank 7. */
static void test_hist_quantile_ranks(void **state)
{
	static struct hist h;
	unsigned long long v;

	(void)state;
	memset(&h, 0, sizeof(h));
	for (v = 1; v <= 100; v++)
		hist_add(&h, v);
	assert_true(hist_quantile(&h, 0) == 1);
	assert_true(hist_quantile(&h, 0.07) == 7);
	assert_true(hist_quantile(&h, 0.071) == 8);
	assert_true(hist_quantile(&h, 0.15) == 15);
	/* rank 50 is 50, in bucket [48, 51] */
	assert_true(hist_quantile(&h, 0.5) == 51);
	assert_true(hist_quantile(&h, 0.99) == 100);	/* [96, 103] clamped */
	assert_true(hist_quantile(&h, 1) == 100);
}

/* Harmonic mean by hand: 3 / (1 + 1/2 + 1/4) = 12/7; a zero rate has
 * none. */
static void test_summary_hmean(void **state)
{
	const double x[] = {1, 2, 4}, z[] = {3, 0};
	struct summary s;

	(void)state;
	stats_summarize(x, 3, &s);
	assert_close(s.hmean, 12.0 / 7.0, 1e-15);
	stats_summarize(z, 2, &s);
	assert_true(isnan(s.hmean));
}

/* ---- trimmed paired t and Holm ------------------------------------ */

/* tests/data/stats_vectors.out: trimmed t (winsorized list, p by
 * quadrature of the t density). */
static void test_trimmed_table(void **state)
{
	static const double outlier5[] = {0.031, -0.012, 0.047, 0.020, 0.650};
	static const double eight[] = {1.5, 2.25, -0.5, 3.0, 0.75, 1.0, 9.0, 2.0};
	static const double paired3[] = {0.3, -0.1, 0.4};
	static const double ten[] = {-0.02, 0.01, 0.035, -0.004, 0.018, 0.5, -0.3,
				     0.027, 0.009, 0.014};
	static const struct {
		const double *d;
		unsigned n;
		double trim, mt, t, df, p;
	} c[] = {
		{outlier5, 5, 0.2, 0.032666666666666667, 2.9534689959266698, 2,
		 0.09806615053404929},
		{eight, 8, 0.2, 1.75, 3.8954067243854135, 5, 0.011462240971693424},
		{paired3, 3, 0, 0.2, 1.3093073414159543, 2, 0.32063377951324255},
		{ten, 10, 0.2, 0.012333333333333333, 1.7465269841141474, 5,
		 0.14115266844507528},
	};
	(void)state;
	for (unsigned i = 0; i < ARRAY_SIZE(c); i++) {
		struct sigtest t;
		double mt;

		stats_trimmed_t1(c[i].d, c[i].n, c[i].trim, &t, &mt);
		assert_true(t.valid);
		assert_close(mt, c[i].mt, 1e-13);
		assert_close(t.stat, c[i].t, 1e-12);
		assert_close(t.df, c[i].df, 0);
		assert_close(t.p, c[i].p, 1e-11);
	}
}

/* One wild round out of five changes nothing once it is cut; the plain
 * paired t (trim 0) is dragged by it. */
static void test_trimmed_resists_one_outlier(void **state)
{
	double d[] = {0.031, -0.012, 0.047, 0.020, 0.650};
	struct sigtest a, b, plain;

	(void)state;
	stats_trimmed_t1(d, 5, 0.2, &a, NULL);
	d[4] = 65.0;
	stats_trimmed_t1(d, 5, 0.2, &b, NULL);
	assert_close(b.stat, a.stat, 1e-15);
	assert_close(b.p, a.p, 1e-15);
	/* Low end: -0.5 or -65, the same value is cut. */
	d[4] = -0.5;
	stats_trimmed_t1(d, 5, 0.2, &a, NULL);
	d[4] = -65.0;
	stats_trimmed_t1(d, 5, 0.2, &b, NULL);
	assert_close(b.p, a.p, 1e-15);
	stats_trimmed_t1(d, 5, 0, &plain, NULL);
	assert_true(plain.p > 0.3);
}

/* The results model's trim: nothing cut below ten rounds (five keep 4
 * degrees of freedom), then one in ten (the default ten rounds: 7).
 * Ten rounds with one wild one: the test is the same whatever the wild
 * value. */
static void test_sig_trim_rounds(void **state)
{
	double d[10] = {0.02, 0.01, 0.03, 0.025, 0.015, 0.02, 0.035, 0.01, 0.03, 0.5};
	struct sigtest a, b, t;
	static const unsigned cut[][2] = {{3, 0}, {4, 0}, {5, 0}, {9, 0}, {10, 1},
					  {19, 1}, {20, 2}, {30, 3}};

	(void)state;
	for (unsigned i = 0; i < sizeof(cut) / sizeof(cut[0]); i++) {
		unsigned n = cut[i][0];

		assert_int_equal((unsigned)floor(sig_trim(n) * n), cut[i][1]);
	}
	stats_trimmed_t1(d, 10, sig_trim(10), &a, NULL);
	assert_close(a.df, 7, 0);
	d[9] = 50;
	stats_trimmed_t1(d, 10, sig_trim(10), &b, NULL);
	assert_close(b.p, a.p, 1e-15);
	assert_true(a.p < 0.001);
	stats_trimmed_t1(d, 10, 0, &t, NULL);
	assert_true(t.p > 0.3);
}

static void test_trimmed_degenerate(void **state)
{
	const double one[] = {0.5}, same[] = {0.25, 0.25, 0.25}, zero[] = {0, 0, 0, 0};
	const double four[] = {1, 2, 3, 4};
	struct sigtest t;
	double mt;

	(void)state;
	stats_trimmed_t1(one, 1, 0, &t, &mt);
	assert_false(t.valid);
	assert_true(isnan(t.p) && isnan(mt));
	/* trim 0.45 of 4 cuts 1 a side: h = 2 is still enough. */
	stats_trimmed_t1(four, 4, 0.45, &t, &mt);
	assert_true(t.valid);
	assert_close(mt, 2.5, 1e-15);
	assert_close(t.df, 1, 0);
	stats_trimmed_t1(four, 4, 0.5, &t, NULL);
	assert_false(t.valid);
	stats_trimmed_t1(four, 4, -0.1, &t, NULL);
	assert_false(t.valid);
	stats_trimmed_t1(same, 3, 0.2, &t, &mt);
	assert_true(t.valid);
	assert_true(t.p == 0 && isinf(t.stat) && t.stat > 0);
	stats_trimmed_t1(zero, 4, 0.2, &t, &mt);
	assert_true(t.valid && t.p == 1 && t.stat == 0);
}

/* Holm by hand: sorted 0.005 0.01 0.03 0.04 (m = 4) -> 4*0.005 = 0.02,
 * 3*0.01 = 0.03, 2*0.03 = 0.06, max(0.06, 1*0.04) = 0.06. */
static void test_holm(void **state)
{
	double p[] = {0.01, 0.04, 0.03, 0.005, NAN}, adj[5];
	double q[] = {0.2, 0.5, 0.01};

	(void)state;
	assert_int_equal(stats_holm(p, 5, adj), 4);
	assert_close(adj[0], 0.03, 1e-15);
	assert_close(adj[1], 0.06, 1e-15);
	assert_close(adj[2], 0.06, 1e-15);
	assert_close(adj[3], 0.02, 1e-15);
	assert_true(isnan(adj[4]));
	/* In place; 3*0.01, then 2*0.2 = 0.4, then min(1, 0.5) stays >= 0.4. */
	assert_int_equal(stats_holm(q, 3, q), 3);
	assert_close(q[2], 0.03, 1e-15);
	assert_close(q[0], 0.4, 1e-15);
	assert_close(q[1], 0.5, 1e-15);
	/* One test: unadjusted; none: nothing. */
	q[0] = 0.04;
	assert_int_equal(stats_holm(q, 1, adj), 1);
	assert_close(adj[0], 0.04, 1e-15);
	assert_int_equal(stats_holm(q, 0, adj), 0);
}

/* ---- minimum detectable effect, two levels, the invocation floor ---- */

/*
 * (t_{1-a/2,df} + t_{power,df}) * se.  Normal quantiles 1.959963984540054
 * (0.975) and 0.8416212335729143 (0.8); Student quantiles by mpmath (30
 * digits, root of the regularized incomplete beta): t_{0.975,10} =
 * 2.228138851986274, t_{0.8,10} = 0.8790578285505889, t_{0.975,4} =
 * 2.776445105197793, t_{0.8,4} = 0.9409645772351814.
 */
static void test_mde_known(void **state)
{
	struct two_level a = {.k = 3, .var_mean = 1.0 / 3}, b = a;

	(void)state;
	assert_close(stats_mde(1, INFINITY, 0.05, 0.8),
		     1.959963984540054 + 0.8416212335729143, 1e-9);
	assert_close(stats_mde(0.5, 10, 0.05, 0.8),
		     0.5 * (2.228138851986274 + 0.8790578285505889), 1e-9);
	/* Equal sides, 3 invocations each: Welch-Satterthwaite gives df 4. */
	assert_close(stats_mde_two_level(&a, &b, 0.05, 0.8),
		     sqrt(2.0 / 3) * (2.776445105197793 + 0.9409645772351814), 1e-9);
	b.k = 1;
	assert_true(isnan(stats_mde_two_level(&a, &b, 0.05, 0.8)));
	assert_true(isnan(stats_mde(-1, 4, 0.05, 0.8)));
	assert_true(isnan(stats_mde(1, 4, 0.05, 1)));
}

/* Variance components by hand: groups {1,2,3} and {4,5,6}: within 1,
 * means 2 and 5 (S_b^2 4.5), between 4.5 - 1/3.  Groups {0,10} and
 * {4,6}: means equal, so the mean's variance is the runs' share alone,
 * pooled within 26 over r = 2 runs, over k = 2. */
static void test_two_level_known(void **state)
{
	const double x[] = {1, 2, 3, 4, 5, 6}, y[] = {0, 10, 4, 6};
	const unsigned sx[] = {3, 3}, sy[] = {2, 2}, s0[] = {3, 0};
	struct two_level t;

	(void)state;
	stats_two_level(x, sx, 2, &t);
	assert_int_equal(t.k, 2);
	assert_int_equal(t.n, 6);
	assert_close(t.mean, 3.5, 1e-15);
	assert_close(t.var_within, 1, 1e-15);
	assert_close(t.var_means, 4.5, 1e-15);
	assert_close(t.var_between, 4.5 - 1.0 / 3, 1e-14);
	assert_close(t.var_mean, 2.25, 1e-15);
	stats_two_level(y, sy, 2, &t);
	assert_close(t.var_within, 26, 1e-15);
	assert_close(t.var_between, 0, 1e-15);
	assert_close(t.var_mean, 6.5, 1e-15);
	stats_two_level(x, s0, 2, &t);
	assert_true(isnan(t.var_mean));
}

/*
 * Two columns, `runs` runs each, the second `slower` percent slower,
 * made in invocations 1..k (first) and k+1..2k (second); the runs
 * spread by +-0.5%.
 */
static void floor_results(struct results *r, double slower, unsigned k, unsigned runs)
{
	assert_int_equal(results_init(r, 2, 1), 0);
	r->rows[0] = 1;
	r->alpha = 0.05;
	r->cv_flag = 0.1;
	for (unsigned v = 0; v < 2; v++) {
		r->variants[v].name = strdup(v ? "b" : "a");
		for (unsigned i = 0; i < runs; i++) {
			double x = 1e6 * (1 + 0.005 * ((double)(i % 3) - 1)) *
				   (v ? 1 - slower / 100 : 1) * (1 + 0.002 * (i % k));
			struct run_sample s = {.seq = i, .ops_per_sec = x,
					       .invocation = v * k + i % k + 1};

			assert_int_equal(results_add_run(r, v, 0, &s), 0);
		}
		r->points[v].status = POINT_OK;
	}
}

/* One invocation a side: not assessed without a floor; with one, the
 * runs' test and the floor both decide. */
static void test_floor_rule(void **state)
{
	struct results r;
	const struct point *p;

	(void)state;
	floor_results(&r, 10, 1, 6);
	results_finalize(&r);
	p = &r.points[1];
	assert_int_equal(p->method, SIG_ONE_INVOC);
	assert_false(p->test.valid);
	assert_false(p->significant);
	assert_true(isnan(r.floor_pct));
	/* A 5% floor: the runs' Welch test and 10% > 5%. */
	r.inv_floor = json_pack("{s:f, s:s}", "rel_pct", 5.0, "source", "test");
	results_finalize(&r);
	assert_int_equal(p->method, SIG_FLOOR);
	assert_true(p->test.valid && p->p_adj < 0.05);
	assert_true(p->significant);
	assert_close(r.floor_pct, 5, 1e-15);
	/* A 15% floor: the same test, but the change is below the floor. */
	json_object_set_new(r.inv_floor, "rel_pct", json_real(15));
	results_finalize(&r);
	assert_int_equal(p->method, SIG_FLOOR);
	assert_true(p->test.valid && p->p_adj < 0.05);
	assert_false(p->significant);
	results_free(&r);
}

/*
 * rows x 2 columns from one invocation, `runs` rounds each: the first
 * column's rates a[], the second's b[] (the same at every row).
 */
static void rounds_results(struct results *r, unsigned rows, const double *a,
			   const double *b, unsigned runs)
{
	assert_int_equal(results_init(r, 2, rows), 0);
	r->alpha = 0.05;
	r->cv_flag = 0.1;
	for (unsigned v = 0; v < 2; v++) {
		r->variants[v].name = strdup(v ? "patched" : "stock");
		for (unsigned row = 0; row < rows; row++) {
			r->rows[row] = row + 1;
			for (unsigned i = 0; i < runs; i++) {
				struct run_sample s = {.seq = i, .invocation = 1,
						       .ops_per_sec = (v ? b : a)[i]};

				assert_int_equal(results_add_run(r, v, row, &s), 0);
			}
			results_point(r, v, row)->status = POINT_OK;
		}
	}
}

/*
 * A stock and a patched tree, 5 rounds, stock 0.7-2.6 Mops/s and
 * patched 5.0-7.7 in every round, at 4 rows (Holm over 4 tests): `#`
 * at every row.  The paired t keeps all 5 rounds, df 4: t 8.1457536753,
 * p 0.00123596008883507 (tests/data/stats_vectors.py, rounds_table(),
 * mpmath); the former trim of one round a side
 * (df 2, p 0.024 each, 0.095 after Holm) printed `~` there.
 */
static void test_rounds_large_change(void **state)
{
	const double a[] = {0.7e6, 1.2e6, 2.6e6, 1.5e6, 2.0e6};
	const double b[] = {5.0e6, 6.0e6, 7.7e6, 6.5e6, 5.5e6};
	struct results r;

	(void)state;
	rounds_results(&r, 4, a, b, 5);
	results_finalize(&r);
	for (unsigned row = 0; row < 4; row++) {
		const struct point *p = results_point(&r, 1, row);

		assert_int_equal(p->method, SIG_ROUNDS);
		assert_close(p->test.df, 4, 0);
		assert_close(p->test.stat, 8.1457536753396145, 1e-12);
		assert_close(p->test.p, 0.0012359600888350665, 1e-12);
		assert_true(p->significant);
		assert_false(p->unjudged);
	}
	results_free(&r);
}

/* Too few runs to judge: one round a side has no test and names -r 2;
 * two rounds are tested (and a difference that is not there is `~`,
 * judged); one invocation a side without a floor names no -r. */
static void test_unjudged(void **state)
{
	const double a[] = {1e6, 1.01e6}, b[] = {1.005e6, 0.99e6};
	struct results r;
	const struct point *p;

	(void)state;
	rounds_results(&r, 1, a, b, 1);
	results_finalize(&r);
	p = results_point(&r, 1, 0);
	assert_int_equal(p->method, SIG_TOO_FEW);
	assert_true(p->unjudged);
	assert_int_equal(p->runs_needed, 2);
	assert_false(p->significant);
	results_free(&r);

	rounds_results(&r, 1, a, b, 2);
	results_finalize(&r);
	p = results_point(&r, 1, 0);
	assert_int_equal(p->method, SIG_ROUNDS);
	assert_true(p->test.valid);
	assert_false(p->unjudged);
	assert_false(p->significant);
	results_free(&r);

	floor_results(&r, 10, 1, 6);
	results_finalize(&r);
	p = &r.points[1];
	assert_int_equal(p->method, SIG_ONE_INVOC);
	assert_true(p->unjudged);
	assert_int_equal(p->runs_needed, 0);
	results_free(&r);
}

/*
 * The summary over the rows: at 1, 2 and 4 threads on 2 CPUs, +9%,
 * -45% and -100% (0.45 against 7,500 kops/s): the oversubscribed row is
 * left out, and the other two disagree in sign, so one row decides:
 * no summary.  -10% and -40%: both rows agree, the geometric mean
 * sqrt(0.9 * 0.6) - 1 = -26.5153%.  Three rows of which one outweighs
 * the others together (-50%, +1%, -1%): none.
 */
static void test_geomean_summary(void **state)
{
	const double base[] = {1000e3, 2000e3, 7500e3};
	const double readme[] = {1090e3, 1100e3, 0.45e3}, agree[] = {900e3, 1200e3, 7500e3};
	const double one[] = {500e3, 2020e3, 7425e3};
	struct results r;
	const struct variant *v;

	(void)state;
	rounds_results(&r, 3, base, base, 1);
	r.ncpus = 2;
	r.rows[2] = 4;
	v = &r.variants[1];
	for (unsigned row = 0; row < 3; row++) {
		results_point(&r, 0, row)->runs[0].ops_per_sec = base[row];
		results_point(&r, 1, row)->runs[0].ops_per_sec = readme[row];
	}
	results_finalize(&r);
	assert_int_equal(v->geo_over, 1);
	assert_true(v->geo_one_row);
	assert_int_equal(v->geo_n, 0);
	assert_true(isnan(v->geo_rel));
	for (unsigned row = 0; row < 3; row++)
		results_point(&r, 1, row)->runs[0].ops_per_sec = agree[row];
	results_finalize(&r);
	assert_false(v->geo_one_row);
	assert_int_equal(v->geo_n, 2);
	assert_close(v->geo_rel, (sqrt(0.9 * 0.6) - 1) * 100, 1e-9);
	r.ncpus = 0;		/* not known: every row counts */
	for (unsigned row = 0; row < 3; row++)
		results_point(&r, 1, row)->runs[0].ops_per_sec = one[row];
	results_finalize(&r);
	assert_int_equal(v->geo_over, 0);
	assert_true(v->geo_one_row);
	assert_true(isnan(v->geo_rel));
	results_free(&r);
}

/* Several invocations a side: the invocation-level test, whatever the
 * floor, and the smallest detectable difference from both levels. */
static void test_floor_ignored_with_invocations(void **state)
{
	struct results r;
	const struct point *p;

	(void)state;
	floor_results(&r, 10, 3, 9);
	r.inv_floor = json_pack("{s:f}", "rel_pct", 50.0);
	results_finalize(&r);
	p = &r.points[1];
	assert_int_equal(p->method, SIG_INVOC);
	assert_int_equal(p->test_n, 3);
	assert_true(p->significant);      /* 10%, below the floor: not used */
	assert_true(p->mde_pct > 0 && p->mde_pct < 10);
	assert_int_equal(r.mde_n, 1);
	assert_close(r.mde_min, p->mde_pct, 1e-15);
	results_free(&r);
}

/*
 * A verdict that knows its power: five paired rounds whose ratios
 * spread widely, not significant; the paired test's smallest detectable
 * change, (t_{0.975,4} + t_{0.8,4}) sd / sqrt(5) on the log ratios,
 * exceeds a 3% gate, so with it the point is unjudged (power), and
 * without one it is `~`, judged.
 */
static void test_power_gate(void **state)
{
	const double a[] = {1e6, 1e6, 1e6, 1e6, 1e6};
	const double b[] = {0.6e6, 1.3e6, 0.8e6, 1.2e6, 0.9e6};
	double d[5], m = 0, sd = 0, want;
	struct results r;
	const struct point *p;

	(void)state;
	for (unsigned i = 0; i < 5; i++)
		m += (d[i] = log(b[i] / a[i])) / 5;
	for (unsigned i = 0; i < 5; i++)
		sd += (d[i] - m) * (d[i] - m) / 4;
	want = (exp(stats_mde(sqrt(sd / 5), 4, 0.05, RESULTS_MDE_POWER)) - 1) * 100;
	rounds_results(&r, 1, a, b, 5);
	results_finalize(&r);
	p = results_point(&r, 1, 0);
	assert_int_equal(p->method, SIG_ROUNDS);
	assert_false(p->significant);
	assert_false(p->unjudged);
	assert_close(p->mde_pct, want, 1e-9);
	assert_true(p->mde_pct > 3);
	r.gate_pct = 3;
	results_finalize(&r);
	assert_true(p->unjudged);
	assert_int_equal(p->why, UNJ_POWER);
	/* A gate above what the test can see: judged, `~`. */
	r.gate_pct = p->mde_pct + 1;
	results_finalize(&r);
	assert_false(p->unjudged);
	results_free(&r);
}

/* `_` from its cause: three rounds asked, two of the patched point's
 * left out for a busy machine: unjudged for the runs left out, and no
 * -r named (more were asked for). */
static void test_unjudged_left_out(void **state)
{
	const double a[] = {1e6, 1.01e6, 0.99e6}, b[] = {1.1e6, 1.11e6, 1.09e6};
	struct results r;
	const struct point *p;

	(void)state;
	rounds_results(&r, 1, a, b, 3);
	for (unsigned i = 1; i < 3; i++)
		results_point(&r, 1, 0)->runs[i].noise = (struct run_noise){
			.recorded = NOISE_SHARED, .recorded_set = true, .recorded_excluded = true};
	results_finalize(&r);
	p = results_point(&r, 1, 0);
	assert_int_equal(p->method, SIG_TOO_FEW);
	assert_true(p->unjudged);
	assert_int_equal(p->why, UNJ_LEFT_OUT);
	assert_int_equal(p->runs_needed, 0);
	results_free(&r);
}

/* Configurations compared by value: spelling and order do not count. */
static void test_json_same_by_value(void **state)
{
	json_t *a = json_loads("{\"s\": 1.0, \"t\": [1, 2, 4], \"o\": {\"x\": 0.0}}", 0, NULL);
	json_t *b = json_loads("{\"o\": {\"x\": 0}, \"t\": [4, 1, 2.0], \"s\": 1}", 0, NULL);
	json_t *c = json_loads("{\"s\": 1, \"t\": [1, 2, 2], \"o\": {\"x\": 0}}", 0, NULL);
	json_t *one = json_integer(1), *str = json_string("1");

	(void)state;
	assert_true(results_json_same(a, b, true));
	assert_false(results_json_same(a, b, false));  /* order counts for lists */
	assert_false(results_json_same(a, c, true));   /* a multiset: 4 is not 2 */
	assert_false(results_json_same(one, str, true));
	assert_true(results_json_same(NULL, NULL, true));
	assert_false(results_json_same(one, NULL, true));
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(one);
	json_decref(str);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_summary_five),
		cmocka_unit_test(test_summary_empty),
		cmocka_unit_test(test_summary_one),
		cmocka_unit_test(test_summary_two),
		cmocka_unit_test(test_summary_zero_variance),
		cmocka_unit_test(test_summary_even_median),
		cmocka_unit_test(test_summary_odd_median_and_zero_mean),
		cmocka_unit_test(test_summary_no_cancellation),
		cmocka_unit_test(test_t_cdf_table),
		cmocka_unit_test(test_t_cdf_edges),
		cmocka_unit_test(test_t_cdf_large_df),
		cmocka_unit_test(test_t_quantile_table),
		cmocka_unit_test(test_t_quantile_published),
		cmocka_unit_test(test_t_roundtrip),
		cmocka_unit_test(test_t_quantile_edges),
		cmocka_unit_test(test_welch_r_example),
		cmocka_unit_test(test_welch_clickhouse_example),
		cmocka_unit_test(test_welch_uneven),
		cmocka_unit_test(test_welch_degenerate),
		cmocka_unit_test(test_mw_exact_small),
		cmocka_unit_test(test_mw_exact_larger),
		cmocka_unit_test(test_mw_ties_normal),
		cmocka_unit_test(test_mw_large_normal),
		cmocka_unit_test(test_mw_degenerate),
		cmocka_unit_test(test_summary_hmean),
		cmocka_unit_test(test_trimmed_table),
		cmocka_unit_test(test_trimmed_resists_one_outlier),
		cmocka_unit_test(test_trimmed_degenerate),
		cmocka_unit_test(test_sig_trim_rounds),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_chi2_quantile),
		cmocka_unit_test(test_invocation_floor_values),
		cmocka_unit_test(test_invocation_floor_aa_rate),
		cmocka_unit_test(test_bimodal),
		cmocka_unit_test(test_rel_pct),
		cmocka_unit_test(test_jain),
		cmocka_unit_test(test_lt_unfair),
		cmocka_unit_test(test_hist_bounds),
		cmocka_unit_test(test_hist_every_value_lands),
		cmocka_unit_test(test_hist_add_merge),
		cmocka_unit_test(test_hist_quantile),
		cmocka_unit_test(test_hist_quantile_ranks),
		cmocka_unit_test(test_mde_known),
		cmocka_unit_test(test_power_gate),
		cmocka_unit_test(test_unjudged_left_out),
		cmocka_unit_test(test_two_level_known),
		cmocka_unit_test(test_floor_rule),
		cmocka_unit_test(test_rounds_large_change),
		cmocka_unit_test(test_unjudged),
		cmocka_unit_test(test_geomean_summary),
		cmocka_unit_test(test_floor_ignored_with_invocations),
		cmocka_unit_test(test_json_same_by_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
