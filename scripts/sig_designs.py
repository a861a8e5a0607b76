#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""
scripts/sig_designs.py DIR REPS: the candidate significance tests of
docs/method.md ("Statistics") on the within-run files of
scripts/aa-significance.sh (DIR/w-aa-10-N.json, w-10-N.json and
w-x2-10-N.json: padded_a against padded_b, nothing, 10% or 2x slower,
10 rounds), each on the first 3, 5 and 10 rounds: how often it finds a
difference at two-sided p < 0.05 (for a slower copy: in the right
direction).  The tests, all on log rates:
  paired-t     t on the per-round log ratios, one in ten cut from each
               end from 10 rounds (lockbench's; Tukey and McLaughlin,
               Sankhya A 25, 1963, with Yuen's standard error)
  paired-trim5 the same with one round cut from each end from 5 rounds
  welch        Welch's t on the runs (Welch, Biometrika 34, 1947)
  mann-whitney exact (Mann and Whitney, Ann. Math. Stat. 18, 1947): at 3
               runs a side its least p is 0.1, so it never finds one
p-values from mpmath's regularized incomplete beta.
"""
import glob
import itertools
import json
import math
import os
import sys

import mpmath as mp


def t_p(t, df):
    """Two-sided p of Student's t with df degrees of freedom."""
    if math.isinf(t):
        return 0.0
    return float(mp.betainc(df / 2, 0.5, 0, df / (df + t * t), regularized=True))


def trimmed_p(d, g):
    n = len(d)
    h = n - 2 * g
    s = sorted(d)
    mt = sum(s[g:n - g]) / h
    w = [s[g]] * g + s[g:n - g] + [s[n - 1 - g]] * g
    mw = sum(w) / n
    se2 = sum((x - mw) ** 2 for x in w) / (h * (h - 1))
    if se2 == 0:
        return 1.0 if mt == 0 else 0.0
    return t_p(abs(mt) / math.sqrt(se2), h - 1)


def welch_p(a, b):
    ma, mb = sum(a) / len(a), sum(b) / len(b)
    va = sum((x - ma) ** 2 for x in a) / (len(a) - 1) / len(a)
    vb = sum((x - mb) ** 2 for x in b) / (len(b) - 1) / len(b)
    if va + vb == 0:
        return 1.0 if ma == mb else 0.0
    df = (va + vb) ** 2 / (va * va / (len(a) - 1) + vb * vb / (len(b) - 1))
    return t_p(abs(ma - mb) / math.sqrt(va + vb), df)


def mw_p(a, b):
    """Exact two-sided p by enumerating the placements of a's ranks."""
    m, n = len(a), len(b)
    u = sum((x > y) + 0.5 * (x == y) for x in a for y in b)
    lo = hi = tot = 0
    for c in itertools.combinations(range(m + n), m):
        uu = sum(c) - m * (m - 1) / 2
        tot += 1
        lo += uu <= u
        hi += uu >= u
    return min(1.0, 2 * min(lo, hi) / tot)


TESTS = {
    "paired-t": lambda a, b, d: trimmed_p(d, len(d) // 10),
    "paired-trim5": lambda a, b, d: trimmed_p(d, max(1, len(d) // 10) if len(d) >= 5 else 0),
    "welch": lambda a, b, d: welch_p(b, a),
    "mann-whitney": lambda a, b, d: mw_p(b, a),
}


def rounds(path):
    """The log rates of padded_a and padded_b by round, both present."""
    d = json.load(open(path))
    by = [{r["seq"]: math.log(r["ops_per_sec"]) for r in p["runs"]
           if r["ops_per_sec"] > 0 and not r.get("excluded")} for p in d["points"][:2]]
    seqs = sorted(set(by[0]) & set(by[1]))
    return [by[0][s] for s in seqs], [by[1][s] for s in seqs]


def main():
    w, reps = sys.argv[1], int(sys.argv[2])
    print("designs: how often each test finds p < 0.05 on the first r rounds "
          "of the -r 10 runs (slower copies: in the right direction)")
    for kind, name in (("aa-10", "A/A"), ("10", "10% slower"), ("x2-10", "2x slower")):
        files = [os.path.join(w, "w-%s-%d.json" % (kind, i)) for i in range(1, reps + 1)]
        data = [rounds(f) for f in files if os.path.exists(f)]
        for r in (3, 5, 10):
            cells = []
            for test, fn in TESTS.items():
                hit = n = 0
                for a, b in data:
                    if len(a) < r:
                        continue
                    a_, b_ = a[:r], b[:r]
                    d = [y - x for x, y in zip(a_, b_)]
                    p = fn(a_, b_, d)
                    n += 1
                    hit += p < 0.05 and (name == "A/A" or sum(d) < 0)
                cells.append("%s %2d/%-2d" % (test, hit, n))
            print("  %-11s r=%-2d  %s" % (name, r, "  ".join(cells)))


if __name__ == "__main__":
    main()
