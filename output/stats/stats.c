// SPDX-License-Identifier: MIT
/*
 * output/stats/stats.c - summaries, Student t, Welch, Mann-Whitney and
 * trimmed paired t tests, Holm's adjustment, fairness and the latency
 * histogram.  See stats.h for the contracts.
 *
 * Numerical methods:
 * - Regularized incomplete beta I_x(a,b) by its continued fraction
 *   (DLMF 8.17.22), evaluated with the modified Lentz algorithm
 *   (Lentz 1976; Thompson & Barnett, J. Comput. Phys. 64, 1986), using
 *   I_x(a,b) = 1 - I_{1-x}(b,a) to stay in the fast-converging region.
 * - Student t CDF: P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2) (DLMF 8.17.5
 *   / Abramowitz & Stegun 26.5.27, 26.7.1).
 * - Quantile: safeguarded Newton iteration inside a doubling bracket.
 * - Mann-Whitney exact null distribution: the counts of U are the
 *   coefficients of the Gaussian binomial [m+n choose m]_q
 *   (Mann & Whitney, Ann. Math. Stat. 18, 1947; Andrews, "The Theory of
 *   Partitions", 3.3), built as prod_k (1 - q^(n+k)) / (1 - q^k).
 */
#include "stats.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- small helpers ------------------------------------------------ */

/* qsort comparator for doubles, ascending (inputs are not NaN). */
static int cmp_double(const void *pa, const void *pb)
{
	double a = *(const double *)pa, b = *(const double *)pb;

	return (a > b) - (a < b);
}

/* Malloc'ed ascending copy of x[0..n-1], or NULL (n == 0 or no memory). */
static double *sorted_copy(const double *x, unsigned n)
{
	double *s;

	if (!n)
		return NULL;
	s = malloc((size_t)n * sizeof(*s));
	if (!s)
		return NULL;
	memcpy(s, x, (size_t)n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return s;
}

/* Arithmetic mean of x[0..n-1], n >= 1. */
static double mean_of(const double *x, unsigned n)
{
	double sum = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		sum += x[i];
	return sum / n;
}

/*
 * Sample variance (n - 1) of x[0..n-1] around its mean m, n >= 2.
 * Corrected two-pass algorithm (Chan, Golub & LeVeque, Am. Stat. 37,
 * 1983): the second term removes the rounding error left in m.
 */
static double sample_var(const double *x, unsigned n, double m)
{
	double ss = 0, c = 0, d;
	unsigned i;

	for (i = 0; i < n; i++) {
		d = x[i] - m;
		ss += d * d;
		c += d;
	}
	ss -= c * c / n;
	return ss > 0 ? ss / (n - 1) : 0;
}

/* ---- summary ------------------------------------------------------ */

void stats_summarize(const double *x, unsigned n, struct summary *out)
{
	double *s;
	unsigned i;

	memset(out, 0, sizeof(*out));
	out->n = n;
	/* Undefined until shown otherwise: NAN renders as "-" / null. */
	out->std = out->cv = NAN;
	out->ci95_half = out->ci95_lo = out->ci95_hi = NAN;
	if (!n)
		return;

	out->min = out->max = x[0];
	for (i = 1; i < n; i++) {
		if (x[i] < out->min)
			out->min = x[i];
		if (x[i] > out->max)
			out->max = x[i];
	}
	out->mean = mean_of(x, n);
	out->hmean = NAN;
	if (out->min > 0) {
		double inv = 0;

		for (i = 0; i < n; i++)
			inv += 1 / x[i];
		out->hmean = n / inv;
	}

	s = sorted_copy(x, n);
	out->median = s ? stats_median_sorted(s, n) : NAN;
	free(s);

	if (n < 2)
		return;
	out->std = sqrt(sample_var(x, n, out->mean));
	out->cv = out->mean != 0 ? out->std / out->mean : NAN;
	out->ci95_half = stats_t_quantile(0.975, n - 1) * out->std / sqrt(n);
	out->ci95_lo = out->mean - out->ci95_half;
	out->ci95_hi = out->mean + out->ci95_half;
}

/* ---- incomplete beta and Student t -------------------------------- */

#define CF_EPS 1e-15
#define CF_TINY 1e-300
#define CF_MAX_ITER 100000

/*
 * One step of the modified Lentz algorithm with partial numerator @num:
 * updates the running C_j (*@c) and 1/D_j (*@d), each kept away from 0,
 * and returns the factor C_j D_j that multiplies the convergent.
 */
static double lentz_step(double num, double *c, double *d)
{
	*d = 1 + num * *d;
	*c = 1 + num / *c;
	if (fabs(*d) < CF_TINY)
		*d = CF_TINY;
	if (fabs(*c) < CF_TINY)
		*c = CF_TINY;
	*d = 1 / *d;
	return *d * *c;
}

/*
 * Continued fraction of I_x(a,b) (DLMF 8.17.22) by modified Lentz:
 * returns h with I_x(a,b) = x^a (1-x)^b / (a B(a,b)) * h.  Converges
 * quickly for x < (a+1)/(a+b+2).
 */
static double ibeta_cf(double a, double b, double x)
{
	double c = 1, d, h, num, del;
	unsigned m;

	d = 1 - (a + b) * x / (a + 1);
	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1 / d;
	h = d;
	for (m = 1; m <= CF_MAX_ITER; m++) {
		/* even term d_{2m} */
		num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
		h *= lentz_step(num, &c, &d);
		/* odd term d_{2m+1} */
		num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
		del = lentz_step(num, &c, &d);
		h *= del;
		if (fabs(del - 1) < CF_EPS)
			break;
	}
	return h;
}

/*
 * Stirling remainder lgamma(x) - ((x - 1/2) log x - x + log(2 pi) / 2),
 * x >= 100 (asymptotic series, DLMF 5.11.1; next term < 1e-17).
 */
static double stirling_rem(double x)
{
	double r = 1 / (x * x);

	return (1.0 / 12 - r * (1.0 / 360 - r / 1260)) / x;
}

/*
 * log B(a, b).  With one argument >= 100, lgamma(big) - lgamma(big +
 * small) is taken from Stirling's series instead of subtracting two
 * large lgamma values, which would cost ~log10(lgamma) digits.
 */
static double lbeta(double a, double b)
{
	double big = a > b ? a : b, small = a > b ? b : a;

	if (big < 100)
		return lgamma(a) + lgamma(b) - lgamma(a + b);
	return lgamma(small) - (big - 0.5) * log1p(small / big) -
	       small * log(big + small) + small +
	       stirling_rem(big) - stirling_rem(big + small);
}

/*
 * Regularized incomplete beta I_x(a,b), a, b > 0, from x, xc = 1 - x and
 * their logs lx, lxc, all supplied so that neither tail loses digits
 * and x may underflow while lx stays finite.
 */
static double ibeta_log(double a, double b, double x, double xc,
			double lx, double lxc)
{
	double front;

	if (lx == -INFINITY)
		return 0;
	if (lxc == -INFINITY)
		return 1;
	if (x < (a + 1) / (a + b + 2)) {
		front = exp(a * lx + b * lxc - lbeta(a, b));
		return front * ibeta_cf(a, b, x) / a;
	}
	front = exp(b * lxc + a * lx - lbeta(b, a));
	return 1 - front * ibeta_cf(b, a, xc) / b;
}

/* I_x(a,b) for x in [0, 1] with xc = 1 - x given separately. */
static double ibeta(double a, double b, double x, double xc)
{
	double lx = x <= 0 ? -INFINITY : x < 0.5 ? log(x) : log1p(-xc);
	double lxc = xc <= 0 ? -INFINITY : xc < 0.5 ? log(xc) : log1p(-x);

	return ibeta_log(a, b, x, xc, lx, lxc);
}

/*
 * Which method for P(T > t) at large df.  The continued fraction, fed
 * x = df / (df + t^2) rounded to a double, has a relative error of about
 * 2e-17 df (measured: 2e-11 at df = 1e6, 2e-8 at 1e9, 4e-5 at 1e12).
 * Fisher's expansion (next function) errs by about 2e-3 (t^4 / df)^3.
 * Use Fisher where that is the smaller: t^4 < 5e-6 df^(4/3), df >= 1e5
 * (coefficient tuned on a grid against mpmath: worst 2.6e-11, at the
 * switch near df = 3e7, t = 25).
 */
static bool t_use_fisher(double t, double df)
{
	double t2 = t * t;

	return isinf(df) || (df >= 1e5 && t2 * t2 < 5e-6 * df * cbrt(df));
}

/*
 * P(T > t), t >= 0, for large df by Fisher's asymptotic expansion
 * (Fisher, Metron 5, 1925; Johnson, Kotz & Balakrishnan, Continuous
 * Univariate Distributions 2, ch. 28): Q(t) + phi(t) [(t^3 + t) / (4 df)
 * + (3t^7 - 7t^5 - 5t^3 - 3t) / (96 df^2)], Q the normal upper tail.
 * df = INFINITY gives the normal itself.
 */
static double t_upper_tail_large_df(double t, double df)
{
	double t2 = t * t, phi = exp(-t2 / 2) / sqrt(2 * M_PI);
	double c1 = (t2 + 1) / (4 * df);
	double c2 = (((3 * t2 - 7) * t2 - 5) * t2 - 3) / (96 * df * df);

	return 0.5 * erfc(t / M_SQRT2) + phi * t * (c1 + c2);
}

/*
 * P(T > t) for t >= 0: I_x(df/2, 1/2) / 2 with x = df / (df + t^2).
 * For t >= sqrt(df), x = r / (1 + r) with r = df / t^2 and log x is
 * formed from logs, so t^2 never overflows and huge t (the quantiles of
 * df < 1 in the far tail) keep a finite log x.
 */
static double t_upper_tail(double t, double df)
{
	double t2, r;

	if (isinf(t))
		return 0;
	if (t_use_fisher(t, df))
		return t_upper_tail_large_df(t, df);
	if (t < sqrt(df)) {
		t2 = t * t;
		return 0.5 * ibeta(df / 2, 0.5, df / (df + t2), t2 / (df + t2));
	}
	r = df / t / t;
	return 0.5 * ibeta_log(df / 2, 0.5, r / (1 + r), 1 / (1 + r),
			       log(df) - 2 * log(t) - log1p(r), -log1p(r));
}

double stats_t_cdf(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (t < 0)
		return t_upper_tail(-t, df);
	return 1 - t_upper_tail(t, df);
}

/*
 * Student t density (A&S 26.7.1) written with B(df/2, 1/2) =
 * sqrt(pi) G(df/2) / G((df+1)/2), so lbeta() keeps the constant accurate
 * for huge df; df = INFINITY is the normal.
 */
static double t_pdf(double t, double df)
{
	if (isinf(df))
		return exp(-t * t / 2) / sqrt(2 * M_PI);
	return exp(-lbeta(df / 2, 0.5) - 0.5 * log(df) -
		   (df + 1) / 2 * log1p(t * t / df));
}

#define TQ_MAX_ITER 300

/*
 * t >= 0 with P(T > t) = q, 0 < q < 1/2.  The tail is convex and
 * decreasing on t > 0, so Newton from the left end of the bracket moves
 * monotonically towards the root; a step leaving the bracket bisects.
 */
static double t_upper_quantile(double q, double df)
{
	double lo = 0, hi = 1, t, g, step;
	unsigned i;

	while (t_upper_tail(hi, df) > q) {
		lo = hi;
		hi *= 2;
		if (isinf(hi))
			return INFINITY;
	}
	t = lo;
	for (i = 0; i < TQ_MAX_ITER; i++) {
		g = t_upper_tail(t, df) - q;
		if (g == 0)
			return t;
		if (g > 0)
			lo = t;
		else
			hi = t;
		step = g / t_pdf(t, df);
		if (!(t + step > lo && t + step < hi))
			step = (lo + hi) / 2 - t;
		t += step;
		if (fabs(step) <= 4 * DBL_EPSILON * t || hi - lo <= DBL_EPSILON * hi)
			break;
	}
	return t;
}

double stats_t_quantile(double p, double df)
{
	double t;

	if (isnan(p) || isnan(df) || df <= 0 || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p == 0.5)
		return 0;
	t = t_upper_quantile(p < 0.5 ? p : 1 - p, df);
	return p < 0.5 ? -t : t;
}

/* ---- Welch -------------------------------------------------------- */

void stats_welch(const double *a, unsigned na, const double *b, unsigned nb,
		 struct sigtest *out)
{
	double ma, mb, sa, sb, se2;

	out->valid = false;
	out->stat = out->df = out->p = NAN;
	if (na < 2 || nb < 2)
		return;
	ma = mean_of(a, na);
	mb = mean_of(b, nb);
	sa = sample_var(a, na, ma) / na;	/* squared standard errors */
	sb = sample_var(b, nb, mb) / nb;
	se2 = sa + sb;
	out->valid = true;
	if (se2 == 0) {
		out->df = (double)na + nb - 2;
		out->stat = ma == mb ? 0 : copysign(INFINITY, ma - mb);
		out->p = ma == mb ? 1 : 0;
		return;
	}
	out->stat = (ma - mb) / sqrt(se2);
	out->df = se2 * se2 / (sa * sa / (na - 1) + sb * sb / (nb - 1));
	out->p = 2 * t_upper_tail(fabs(out->stat), out->df);
}

/* ---- two levels: runs within invocations (Kalibera & Jones) ------ */

void stats_two_level(const double *x, const unsigned *sizes, unsigned k,
		     struct two_level *out)
{
	double *m = malloc((k + 1) * sizeof(*m)), ssw = 0, mb;
	unsigned n = 0, off = 0, dfw = 0;
	double inv_r = 0;

	*out = (struct two_level){.k = k, .var_within = NAN, .var_means = NAN,
				  .var_between = NAN, .var_mean = NAN, .mean = NAN};
	if (!m)
		return;
	for (unsigned i = 0; i < k; i++) {
		unsigned r = sizes[i];

		if (!r) {
			free(m);
			return;
		}
		m[i] = mean_of(x + off, r);
		if (r > 1)
			ssw += sample_var(x + off, r, m[i]) * (r - 1);
		dfw += r - 1;
		inv_r += 1.0 / r;
		off += r;
		n += r;
	}
	out->n = n;
	if (k)
		out->mean = mean_of(m, k);
	/* The harmonic mean of the runs per invocation: the r of a
	 * balanced design with the same variance of the mean. */
	out->runs = k ? k / inv_r : 0;
	out->var_within = dfw ? ssw / dfw : NAN;
	if (k >= 2) {
		mb = sample_var(m, k, out->mean);
		out->var_means = mb;
		/* An invocation mean varies at least as much as its runs
		 * alone make it: S_b^2 below S_w^2 / r is sampling error. */
		if (!isnan(out->var_within)) {
			double floor = out->var_within / out->runs;

			out->var_between = mb > floor ? mb - floor : 0;
			mb = mb > floor ? mb : floor;
		}
		out->var_mean = mb / k;
	}
	free(m);
}

double stats_mde(double se, double df, double alpha, double power)
{
	if (!(se >= 0) || !(df > 0) || !(alpha > 0 && alpha < 1) ||
	    !(power > 0 && power < 1))
		return NAN;
	return (stats_t_quantile(1 - alpha / 2, df) + stats_t_quantile(power, df)) * se;
}

double stats_mde_two_level(const struct two_level *a, const struct two_level *b,
			   double alpha, double power)
{
	double va = a->var_mean, vb = b->var_mean, df;

	if (a->k < 2 || b->k < 2 || isnan(va) || isnan(vb))
		return NAN;
	if (va + vb == 0)
		return 0;
	/* Welch-Satterthwaite on the invocation means. */
	df = (va + vb) * (va + vb) / (va * va / (a->k - 1) + vb * vb / (b->k - 1));
	return stats_mde(sqrt(va + vb), df, alpha, power);
}

/* ---- trimmed paired t (Tukey-McLaughlin, Yuen's error) ----------- */

void stats_trimmed_t1(const double *d, unsigned n, double trim,
		      struct sigtest *out, double *tmean)
{
	unsigned g, h, i;
	double *s, mt = 0, mw = 0, ss = 0, lo, hi, se2;

	out->valid = false;
	out->stat = out->df = out->p = NAN;
	if (tmean)
		*tmean = NAN;
	if (!(trim >= 0 && trim < 0.5))
		return;
	g = (unsigned)floor(trim * n);
	h = n - 2 * g;
	if (n < 2 || h < 2 || !(s = sorted_copy(d, n)))
		return;
	lo = s[g];
	hi = s[n - 1 - g];
	for (i = g; i < n - g; i++)
		mt += s[i];
	mt /= h;
	/* Winsorized mean, then the squared deviations around it. */
	mw = (g * lo + g * hi + mt * h) / n;
	for (i = 0; i < n; i++) {
		double w = i < g ? lo : i >= n - g ? hi : s[i];

		ss += (w - mw) * (w - mw);
	}
	free(s);
	se2 = ss / ((double)h * (h - 1));	/* (n-1) sw2 / (h (h-1)) */
	out->valid = true;
	out->df = h - 1;
	if (tmean)
		*tmean = mt;
	if (se2 == 0) {
		out->stat = mt == 0 ? 0 : copysign(INFINITY, mt);
		out->p = mt == 0 ? 1 : 0;
		return;
	}
	out->stat = mt / sqrt(se2);
	out->p = 2 * t_upper_tail(fabs(out->stat), out->df);
	if (out->p > 1)
		out->p = 1;
}

/* ---- Holm --------------------------------------------------------- */

struct p_idx {
	double p;
	unsigned i;
};

static int cmp_p_idx(const void *pa, const void *pb)
{
	const struct p_idx *a = pa, *b = pb;

	if (a->p != b->p)
		return (a->p > b->p) - (a->p < b->p);
	return (a->i > b->i) - (a->i < b->i);
}

int stats_holm(const double *p, unsigned n, double *adj)
{
	struct p_idx *v = malloc((n ? n : 1) * sizeof(*v));
	unsigned m = 0, j;
	double run = 0;

	if (!v)
		return -1;
	for (j = 0; j < n; j++)
		if (!isnan(p[j]))
			v[m++] = (struct p_idx){p[j], j};
	qsort(v, m, sizeof(*v), cmp_p_idx);
	for (j = 0; j < n; j++)
		if (isnan(p[j]))
			adj[j] = NAN;
	for (j = 0; j < m; j++) {
		double a = (double)(m - j) * v[j].p;

		if (a > 1)
			a = 1;
		if (a > run)
			run = a;
		adj[v[j].i] = run;
	}
	free(v);
	return (int)m;
}

/* ---- Mann-Whitney ------------------------------------------------- */

#define MW_EXACT_MAX 20
#define MW_POLY_LEN (MW_EXACT_MAX * MW_EXACT_MAX + 2 * MW_EXACT_MAX + 1)

/*
 * c[u] = number of orderings of m a's and n b's (m, n <= MW_EXACT_MAX)
 * with U = u, for u = 0..m*n: the coefficients of [m+n choose m]_q.
 * All intermediate values are integers below C(40,20) < 2^53, so the
 * double arithmetic is exact.
 */
static void mw_exact_counts(unsigned m, unsigned n, double c[MW_POLY_LEN])
{
	unsigned k, u, deg = 0;

	memset(c, 0, MW_POLY_LEN * sizeof(*c));
	c[0] = 1;
	for (k = 1; k <= m; k++) {
		/* times (1 - q^(n+k)) */
		for (u = deg + n + k; u >= n + k; u--)
			c[u] -= c[u - n - k];
		/* divided by (1 - q^k): exact, the quotient has degree deg + n */
		for (u = k; u <= deg + n + k; u++)
			c[u] += c[u - k];
		deg += n;
	}
}

/* Two-sided exact p of U = u (an integer) for sizes m, n <= 20. */
static double mw_exact_p(double u, unsigned m, unsigned n)
{
	double c[MW_POLY_LEN], tail = 0, total = 0, p;
	unsigned i, lim;

	mw_exact_counts(m, n, c);
	/* U is symmetric about mn/2: P(U >= u) = P(U <= mn - u). */
	lim = (unsigned)fmin(u, (double)m * n - u);
	for (i = 0; i <= m * n; i++) {
		total += c[i];
		if (i <= lim)
			tail += c[i];
	}
	p = 2 * tail / total;
	return p < 1 ? p : 1;
}

/*
 * Walk the sorted samples sa[0..na-1], sb[0..nb-1] once: U of a and the
 * tie term sum(t^3 - t) over groups of equal values.
 */
static void mw_rank_sums(const double *sa, unsigned na, const double *sb,
			 unsigned nb, double *u, double *ties)
{
	unsigned i = 0, j = 0, ca, cb;
	double v, t;

	*u = 0;
	*ties = 0;
	while (i < na || j < nb) {
		if (j >= nb || (i < na && sa[i] < sb[j]))
			v = sa[i];
		else
			v = sb[j];
		for (ca = 0; i < na && sa[i] == v; i++)
			ca++;
		/* j b's are strictly below v */
		*u += (double)ca * j;
		for (cb = 0; j < nb && sb[j] == v; j++)
			cb++;
		*u += 0.5 * ca * cb;
		t = (double)ca + cb;
		*ties += t * t * t - t;
	}
}

/*
 * Normal approximation: z = (|U - mn/2| - 1/2) / sigma with
 * sigma^2 = mn/12 * (N + 1 - ties / (N (N - 1))), p = 2 (1 - Phi(z)).
 */
static double mw_normal_p(double u, unsigned m, unsigned n, double ties)
{
	double N = (double)m + n, mn = (double)m * n;
	double var = mn / 12 * (N + 1 - ties / (N * (N - 1)));
	double z, p;

	if (!(var > 0))
		return 1;	/* every value tied */
	z = (fabs(u - mn / 2) - 0.5) / sqrt(var);
	p = erfc(z / M_SQRT2);
	return p < 1 ? p : 1;
}

void stats_mann_whitney(const double *a, unsigned na, const double *b,
			unsigned nb, struct sigtest *out)
{
	double *sa, *sb, u, ties;

	out->valid = false;
	out->stat = out->p = NAN;
	out->df = 0;
	if (!na || !nb)
		return;
	sa = sorted_copy(a, na);
	sb = sorted_copy(b, nb);
	if (sa && sb) {
		mw_rank_sums(sa, na, sb, nb, &u, &ties);
		out->valid = true;
		out->stat = u;
		if (na <= MW_EXACT_MAX && nb <= MW_EXACT_MAX && ties == 0)
			out->p = mw_exact_p(u, na, nb);
		else
			out->p = mw_normal_p(u, na, nb, ties);
	}
	free(sa);
	free(sb);
}

/* ---- relative change and fairness --------------------------------- */

double stats_rel_pct(double mean, double base)
{
	if (base == 0)
		return NAN;
	return (mean / base - 1) * 100;
}

double stats_jain(const double *x, unsigned n)
{
	double sum = 0, sq = 0;
	unsigned i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	if (!n || sq == 0)
		return 1;
	return sum * sum / (n * sq);
}

bool stats_lt_unfair(double min, double max)
{
	return max / 2 > min;
}

/* ---- histogram ---------------------------------------------------- */

bool stats_trend(const double *x, unsigned n, double thresh, double *change_pct)
{
	unsigned k = n / 3;
	double m, d, a, b, c;

	*change_pct = 0;
	if (n < 2)
		return false;
	m = mean_of(x, n);
	if (m == 0)
		return false;
	d = (x[n - 1] - x[0]) / m;
	*change_pct = d * 100;
	if (n < 4)
		return false;
	a = mean_of(x, k);
	b = mean_of(x + k, n - 2 * k);
	c = mean_of(x + n - k, k);
	return fabs(d) > thresh && fabs(c - a) / m > thresh &&
	       (b - a) * d > 0 && (c - b) * d > 0;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned b;

	for (b = 0; b < HIST_BUCKETS; b++)
		dst->count[b] += src->count[b];
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->max > dst->max)
		dst->max = src->max;
}

/* 1-based nearest rank ceil(q * n), clamped to [1, n]; n >= 1. */
static unsigned long long hist_rank(double q, unsigned long long n)
{
	double x, r;

	if (!(q > 0))
		return 1;	/* also NaN */
	if (q > 1)
		q = 1;
	x = q * (double)n;
	r = ceil(x - x * 1e-12);
	if (r < 1)
		return 1;
	if (r >= (double)n)
		return n;
	return (unsigned long long)r;
}

unsigned long long hist_quantile(const struct hist *h, double q)
{
	unsigned long long rank, cum = 0, hi;
	unsigned b;

	if (!h->n)
		return 0;
	rank = hist_rank(q, h->n);
	for (b = 0; b < HIST_BUCKETS - 1; b++) {
		cum += h->count[b];
		if (cum >= rank)
			break;
	}
	hi = hist_bucket_hi(b);
	return hi < h->max ? hi : h->max;
}

unsigned hist_bucket(unsigned long long v)
{
	return hist_bucket_inline(v);
}

unsigned long long hist_bucket_lo(unsigned b)
{
	unsigned e;

	if (b >= HIST_BUCKETS)
		b = HIST_BUCKETS - 1;
	if (b < 16)
		return b;
	e = b / 8 + 2;
	return (8ull + b % 8) << (e - 3);
}

unsigned long long hist_bucket_hi(unsigned b)
{
	unsigned e;

	if (b >= HIST_BUCKETS - 1)
		return ULLONG_MAX;
	if (b < 16)
		return b;
	e = b / 8 + 2;
	return ((9ull + b % 8) << (e - 3)) - 1;
}

double stats_ci_rel(const struct summary *s)
{
	if (s->n < 2 || !isfinite(s->ci95_half))
		return NAN;
	if (s->mean == 0)
		return s->ci95_half == 0 ? 0 : INFINITY;
	return s->ci95_half / fabs(s->mean);
}

/*
 * The regularized lower incomplete gamma P(a, x) by its power series,
 * x^a e^-x / Gamma(a + 1) * sum_k x^k / ((a + 1)...(a + k)) (Abramowitz
 * & Stegun 6.5.29); the terms fall once k > x, so for the small a and x
 * of a chi-square quantile it converges in a few dozen terms.
 */
static double gamma_p(double a, double x)
{
	double term = 1, sum = 1;

	if (!(x > 0))
		return 0;
	for (unsigned k = 1; k < 100000; k++) {
		term *= x / (a + k);
		sum += term;
		if (term < sum * DBL_EPSILON)
			break;
	}
	return exp(a * log(x) - x - lgamma(a + 1) + log(sum));
}

double stats_chi2_quantile(double p, double df)
{
	double lo = 0, hi = df + 10 * sqrt(2 * df) + 10;

	if (isnan(p) || isnan(df) || df <= 0 || p < 0 || p >= 1)
		return NAN;
	if (p == 0)
		return 0;
	while (gamma_p(df / 2, hi / 2) < p)
		hi *= 2;
	/* P(df/2, x/2) rises with x: bisection to the double's resolution */
	for (int i = 0; i < 200 && hi - lo > 4 * DBL_EPSILON * hi; i++) {
		double mid = (lo + hi) / 2;

		if (gamma_p(df / 2, mid / 2) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

double stats_invocation_floor(double sd_between_pct, unsigned n)
{
	/* z_{0.975}: the normal quantile of a two-sided 5% */
	const double z975 = 1.959963984540054;
	double up;

	if (n < 2 || !isfinite(sd_between_pct) || sd_between_pct < 0)
		return NAN;
	/* the one-sided 95% upper confidence bound of sigma_b */
	up = sd_between_pct * sqrt((n - 1) / stats_chi2_quantile(0.05, n - 1));
	return z975 * sqrt(2.0) * up;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The split of stats_bimodal() on the sorted v: the index k of the upper
 * side's first value, at the largest neighbour ratio (the first of equals). */
static unsigned widest_gap(const double *v, unsigned n)
{
	unsigned k = 1;

	for (unsigned i = 2; i < n; i++)
		if (v[i] / v[i - 1] > v[k] / v[k - 1])
			k = i;
	return k;
}

bool stats_bimodal(const double *x, unsigned n, double factor, unsigned min_each,
		   double *lo, double *hi)
{
	double *v, gap, mlo, mhi;
	unsigned k;
	bool two;

	if (min_each < 1)
		min_each = 1;
	if (n < 2 * min_each || !(v = malloc(n * sizeof(*v))))
		return false;
	for (unsigned i = 0; i < n; i++) {
		if (!isfinite(x[i]) || x[i] <= 0) {
			free(v);
			return false;
		}
		v[i] = x[i];
	}
	qsort(v, n, sizeof(*v), cmp_dbl);
	k = widest_gap(v, n);
	gap = v[k] / v[k - 1];
	mlo = stats_median_sorted(v, k);
	mhi = stats_median_sorted(v + k, n - k);
	two = k >= min_each && n - k >= min_each && gap > v[k - 1] / v[0] &&
	      gap > v[n - 1] / v[k] && mhi > factor * mlo;
	free(v);
	if (two && lo)
		*lo = mlo;
	if (two && hi)
		*hi = mhi;
	return two;
}
