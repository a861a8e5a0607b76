#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
Reference values for tests/test_stats.c, computed independently of
output/stats/stats.c: mpmath at 40 digits, by other methods than the C code.

- Student t CDF: numeric integration of the t density (mpmath.quad),
  cross-checked against mpmath.betainc (hypergeometric series).
- Student t quantile: mpmath.findroot on the betainc CDF.
- Welch: textbook formulas in mpmath, p from the integrated density.
- Mann-Whitney U: from mid-ranks (R_a - na(na+1)/2), not pair counting;
  exact p by brute-force enumeration of all placements (small sizes) or
  by the Mann-Whitney recursion N(u;m,n) = N(u-n;m-1,n) + N(u;m,n-1)
  in Python integers (20 x 20), not by the q-binomial product.

Run: python3 tests/data/stats_vectors.py  (prints C initialisers that
were pasted into tests/test_stats.c).  Needs only mpmath.
"""
import itertools
from functools import lru_cache

import mpmath as mp

mp.mp.dps = 40


def t_pdf(x, df):
    df = mp.mpf(df)
    return (mp.gamma((df + 1) / 2) / (mp.sqrt(df * mp.pi) * mp.gamma(df / 2))
            * (1 + x * x / df) ** (-(df + 1) / 2))


def tail_quad(t, df):
    """P(T > t), t >= 0: quad of the density, split at multiples of the
    local decay length (df + t^2) / ((df + 1) t) so far tails of
    concentrated densities (df = 1e6, t = 50) are resolved too."""
    df = mp.mpf(df)
    L = (df + t * t) / ((df + 1) * t) if t > 0 else mp.mpf(1)
    pts = [t + k * L for k in [0, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128,
                                256, 1024, 4096]]
    return mp.quad(lambda x: t_pdf(x, df), pts + [mp.inf])


def t_cdf_quad(t, df):
    t = mp.mpf(t)
    if t <= 0:
        return tail_quad(-t, df)
    return 1 - tail_quad(t, df)


def t_cdf_beta(t, df):
    t, df = mp.mpf(t), mp.mpf(df)
    tail = mp.betainc(df / 2, mp.mpf(1) / 2, 0, df / (df + t * t),
                      regularized=True) / 2
    return tail if t < 0 else 1 - tail


def t_quantile(p, df):
    """Plain bisection on log t of the betainc upper tail (monotone,
    cannot miss), 200 steps: far below double precision."""
    p = mp.mpf(p)
    q = min(p, 1 - p)
    lo, hi = mp.mpf(-60), mp.mpf(60)     # log t
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - t_cdf_beta(mp.exp(mid), df) > q:
            lo = mid
        else:
            hi = mid
    t = mp.exp((lo + hi) / 2)
    return t if p > 0.5 else -t


def fmt(x):
    return mp.nstr(mp.mpf(x), 17)


def cdf_table():
    dfs = ['0.5', '1', '2.5', '4', '9', '30', '1000', '1000000']
    ts = ['-50', '-5', '-2', '-0.3', '0', '0.1', '1', '2.5', '10']
    print('/* {t, df, P(T <= t)}: quad of the density, == betainc */')
    for df in dfs:
        for t in ts:
            a = t_cdf_quad(t, mp.mpf(df))
            b = t_cdf_beta(t, mp.mpf(df))
            # quad agrees to < 1e-15 down to ~1e-30; in the far tails of
            # concentrated densities (t = -50, df >= 1000) it only
            # manages ~1e-11, so there betainc alone is the reference.
            tol = mp.mpf(10) ** (-15 if b > 1e-30 else -10)
            assert abs(a - b) <= tol * b, (t, df, a, b)
            print('\t{ %s, %s, %s },' % (t, df, fmt(b)))


def large_df_table():
    """Lower tail at huge df, where stats.c switches between its two
    methods: mpmath.betainc alone at 60 digits (quad cannot resolve
    these densities); values below the double range are left out."""
    print('/* {t, df, P(T <= t)}: large df, betainc */')
    with mp.workdps(60):
        for df in ['1e5', '1e6', '1e7', '3e7', '1e8', '1e9', '1e12', '1e15']:
            for t in ['-0.5', '-2', '-5', '-10', '-12', '-15', '-20', '-25',
                      '-35']:
                v = t_cdf_beta(mp.mpf(t), mp.mpf(df))
                if v > 1e-300:
                    print('\t{ %s, %s, %s },' % (t, df, fmt(v)))


def quantile_table():
    dfs = ['1', '2', '4', '9', '29.5', '100', '1000000']
    ps = ['0.975', '0.995', '0.9995', '0.6', '0.025', '1e-6']
    print('/* {p, df, t_p} */')
    for df in dfs:
        for p in ps:
            q = t_quantile(mp.mpf(p), mp.mpf(df))
            assert abs(t_cdf_quad(q, mp.mpf(df)) - mp.mpf(p)) < mp.mpf(10) ** -20
            print('\t{ %s, %s, %s },' % (p, df, fmt(q)))


def far_quantile_table():
    """Quantiles of df < 1 beyond e^60: bisection on log t up to e^5000."""
    for df in ['0.05', '0.01']:
        lo, hi = mp.mpf(0), mp.mpf(5000)
        for _ in range(300):
            mid = (lo + hi) / 2
            if 1 - t_cdf_beta(mp.exp(mid), mp.mpf(df)) > mp.mpf('1e-10'):
                lo = mid
            else:
                hi = mid
        print('/* far quantile p 1e-10 df %s */ t %s' % (df, fmt(-mp.exp(lo))))


def mean(x):
    return mp.fsum(x) / len(x)


def var(x):
    m = mean(x)
    return mp.fsum((v - m) ** 2 for v in x) / (len(x) - 1)


def welch(a, b):
    a = [mp.mpf(v) for v in a]
    b = [mp.mpf(v) for v in b]
    sa, sb = var(a) / len(a), var(b) / len(b)
    t = (mean(a) - mean(b)) / mp.sqrt(sa + sb)
    df = (sa + sb) ** 2 / (sa ** 2 / (len(a) - 1) + sb ** 2 / (len(b) - 1))
    p = 2 * t_cdf_quad(-abs(t), df)
    return t, df, p


def welch_table():
    cases = {
        'r_ts': ([11, 9, 10, 11, 10, 12, 9, 11, 12, 9],
                 [11, 13, 10, 13, 12, 9, 11, 12, 12, 11]),
        'clickhouse': (['20.3', '22.1', '21.9'], ['18.9', '20.3', '19']),
        'uneven': (['880.10', '871.57', '888.65', '898.63', '889.83',
                    '901.2', '877.4'],
                   ['899.91', '874.96', '924.86', '912.4']),
    }
    for name, (a, b) in cases.items():
        t, df, p = welch(a, b)
        print('/* welch %s */ t %s df %s p %s' % (name, fmt(t), fmt(df), fmt(p)))


def midrank_u(a, b):
    allv = sorted([(v, 0) for v in a] + [(v, 1) for v in b])
    vals = [v for v, _ in allv]
    ranks = {}
    i = 0
    while i < len(vals):
        j = i
        while j < len(vals) and vals[j] == vals[i]:
            j += 1
        ranks[vals[i]] = mp.mpf(i + 1 + j) / 2   # mean of ranks i+1..j
        i = j
    ra = mp.fsum(ranks[v] for v in a)
    n = len(a)
    counts = {}
    for v in vals:
        counts[v] = counts.get(v, 0) + 1
    ties = sum(c ** 3 - c for c in counts.values())
    return ra - mp.mpf(n * (n + 1)) / 2, ties


def exact_p_enum(a, b):
    """Two-sided exact p by enumerating every placement of a's ranks."""
    assert len(set(a) | set(b)) == len(a) + len(b), 'exact needs no ties'
    m, n = len(a), len(b)
    u0, _ = midrank_u(a, b)
    N = m + n
    le = ge = tot = 0
    for pos in itertools.combinations(range(N), m):
        # U = sum over a of (# b below it) = sum(rank) - m(m+1)/2
        u = sum(pos) + m - m * (m + 1) // 2
        tot += 1
        le += u <= u0
        ge += u >= u0
    return min(mp.mpf(1), 2 * mp.mpf(min(le, ge)) / tot)


@lru_cache(maxsize=None)
def mw_count(u, m, n):
    if u < 0:
        return 0
    if m == 0 or n == 0:
        return 1 if u == 0 else 0
    return mw_count(u - n, m - 1, n) + mw_count(u, m, n - 1)


def exact_p_recursion(a, b):
    assert len(set(a) | set(b)) == len(a) + len(b), 'exact needs no ties'
    m, n = len(a), len(b)
    u0, _ = midrank_u(a, b)
    u0 = int(u0)
    lim = min(u0, m * n - u0)
    tail = sum(mw_count(u, m, n) for u in range(lim + 1))
    tot = sum(mw_count(u, m, n) for u in range(m * n + 1))
    return min(mp.mpf(1), 2 * mp.mpf(tail) / tot)


def normal_p(a, b):
    m, n = len(a), len(b)
    u, ties = midrank_u(a, b)
    N = mp.mpf(m + n)
    sig = mp.sqrt(mp.mpf(m * n) / 12 * ((N + 1) - ties / (N * (N - 1))))
    z = (abs(u - mp.mpf(m * n) / 2) - mp.mpf(1) / 2) / sig
    zs = (u - mp.mpf(m * n) / 2 + (mp.mpf(1) / 2 if u < m * n / 2 else -mp.mpf(1) / 2)) / sig
    return u, zs, min(mp.mpf(1), mp.erfc(z / mp.sqrt(2)))


NAG_G1_TIES = [13, 6, 12, 7, 12, 7, 10, 7, 10, 7, 16, 7, 10, 8, 9, 8]
NAG_G2_TIES = [17, 6, 10, 8, 15, 8, 15, 10, 15, 10, 14, 10, 14, 11, 14, 11,
               13, 12, 13, 12, 13, 12, 12]
NAG_G1 = ['13.0', '5.8', '11.7', '6.5', '12.3', '6.7', '9.2', '6.9', '10.0',
          '7.3', '16.0', '7.0', '10.5', '8.5', '9.0', '7.5']
NAG_G2 = ['17.0', '6.2', '10.1', '8.0', '15.3', '8.2', '15.0', '9.6', '14.9',
          '10.4', '14.2', '9.8', '13.8', '11.0', '14.0', '11.1', '12.9',
          '11.6', '12.8', '12.0', '13.1', '12.4', '11.9']
# 20 x 20 tie-free, interleaved so that p is about 0.09
MW20_A = [2 * i + (4 if i >= 12 else 0) for i in range(20)]   # even
MW20_B = [2 * i + 9 for i in range(20)]                        # odd


def mw_table():
    for name, a, b in [('123_456', [1, 2, 3], [4, 5, 6]),
                       ('scipy_doc', [19, 22, 16, 29, 24], [20, 11, 17, 12]),
                       ('7x12', [3, 8, 15, 21, 30, 33, 41],
                        [1, 4, 5, 9, 12, 13, 17, 19, 22, 25, 26, 28])]:
        u, _ = midrank_u(a, b)
        print('/* mw exact %s */ U %s p %s' % (name, fmt(u), fmt(exact_p_enum(a, b))))
    # the recursion against a published exact value: NAG g08ajf, one
    # tail of U = 86 for the tie-free 16 x 23 example is 0.0022
    g1 = [mp.mpf(v) for v in NAG_G1]
    g2 = [mp.mpf(v) for v in NAG_G2]
    assert mp.nstr(exact_p_recursion(g1, g2) / 2, 2) == '0.0022'
    u, _ = midrank_u(MW20_A, MW20_B)
    print('/* mw exact 20x20 */ U %s p %s' % (fmt(u), fmt(exact_p_recursion(MW20_A, MW20_B))))
    for name, a, b in [('nag_ties', NAG_G1_TIES, NAG_G2_TIES),
                       ('nag_noties', [mp.mpf(v) for v in NAG_G1],
                        [mp.mpf(v) for v in NAG_G2]),
                       ('small_ties', [1, 2, 2, 3], [2, 3, 4, 5])]:
        u, z, p = normal_p(a, b)
        print('/* mw normal %s */ U %s z %s p %s' % (name, fmt(u), fmt(z), fmt(p)))


def summary_table():
    m, s = mp.mpf('899.91'), mp.mpf('24.95')
    x = [m - s, m - s, m, m + s, m + s]
    half = t_quantile(mp.mpf('0.975'), 4) * s / mp.sqrt(5)
    print('/* summary 5 */ std %s half %s' % (fmt(mp.sqrt(var(x))), fmt(half)))
    x = [mp.mpf(v) for v in ['3.5', '1.25', '9', '4', '2.75', '8']]
    half = t_quantile(mp.mpf('0.975'), 5) * mp.sqrt(var(x)) / mp.sqrt(6)
    print('/* summary 6 */ mean %s std %s half %s' % (fmt(mean(x)), fmt(mp.sqrt(var(x))), fmt(half)))


# Trimmed paired t (Tukey-McLaughlin with Yuen's standard error): the
# winsorized sample is built as a list, the p-value comes from the
# quadrature of the t density (the C code uses the incomplete beta).
TRIM_CASES = [
    ('outlier5', ['0.031', '-0.012', '0.047', '0.020', '0.650'], '0.2'),
    ('eight', ['1.5', '2.25', '-0.5', '3.0', '0.75', '1.0', '9.0', '2.0'], '0.2'),
    ('paired3', ['0.3', '-0.1', '0.4'], '0'),
    ('ten', ['-0.02', '0.01', '0.035', '-0.004', '0.018', '0.5', '-0.3',
             '0.027', '0.009', '0.014'], '0.2'),
]


def trimmed_t1(d, trim):
    n = len(d)
    g = int(mp.floor(mp.mpf(trim) * n))
    s = sorted(mp.mpf(v) for v in d)
    kept = s[g:n - g]
    h = len(kept)
    mt = sum(kept) / h
    w = [s[g]] * g + kept + [s[n - 1 - g]] * g
    sw2 = var(w)
    se = mp.sqrt((n - 1) * sw2 / (h * (h - 1)))
    t = mt / se
    return mt, t, h - 1, 2 * tail_quad(abs(t), h - 1)


def trimmed_table():
    for name, d, trim in TRIM_CASES:
        mt, t, df, p = trimmed_t1(d, trim)
        print('/* trimmed %s */ mt %s t %s df %d p %s' % (name, fmt(mt), fmt(t), df, fmt(p)))


# A stock and a patched tree, 5 rounds (Mops/s), tests/test_stats.c
# test_rounds_large_change: the paired t on the per-round log ratios,
# nothing cut below ten rounds (results.h sig_trim()).
ROUNDS_STOCK = [0.7, 1.2, 2.6, 1.5, 2.0]
ROUNDS_PATCHED = [5.0, 6.0, 7.7, 6.5, 5.5]


def rounds_table():
    d = [mp.log(mp.mpf(str(b)) / mp.mpf(str(a))) for a, b in zip(ROUNDS_STOCK, ROUNDS_PATCHED)]
    mt, t, df, p = trimmed_t1(d, 0)
    print('/* rounds 5, stock vs patched */ t %s df %d p %s' % (fmt(t), df, fmt(p)))


if __name__ == '__main__':
    summary_table()
    welch_table()
    mw_table()
    cdf_table()
    large_df_table()
    quantile_table()
    far_quantile_table()
    trimmed_table()
    rounds_table()
