#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the JSON inputs of the golden tests from the published tables.

Each seed table in tests/golden/seed/ (copies of the published results)
is turned into lockbench result files, one per column (kernel, variant):
every point gets 5 runs m-s, m-s, m, m+s, m+s, whose mean is m and whose
sample standard deviation is exactly s.  `lockbench compare` on those
files must print the seed table again (tests/e2e_results.sh).

The stored summaries are deliberately wrong (mean -1): compare must
recompute every statistic from the runs.

usage: make_inputs.py [OUTDIR]      (default: tests/golden/)
"""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = os.path.join(HERE, "seed")


def runs(mean, std):
    """Five samples with mean `mean` and sample std `std`."""
    xs = [mean - std, mean - std, mean, mean + std, mean + std]
    return [{"seq": i, "window_s": 60.0, "ops": int(round(x * 60)),
             "ops_per_sec": x, "thread_ops": [],
             "exclusion": {"checked": True, "ok": True, "total_ops": 0,
                           "counter": 0, "violations": 0},
             "series": [], "counters": {}} for i, x in enumerate(xs)]


WRONG = {"n": 5, "mean": -1.0, "std": -1.0, "median": -1.0, "min": -1.0,
         "max": -1.0, "cv": 0.0, "ci95": [None, None], "ci95_half": None}


def doc(label, lock, workload, row_heading, rows, cells, row_desc=None,
        ncpus=0, cpu_model=None):
    """One results file: one variant `lock` labelled `label`; cells[i] is
    (mean, std) in ops/s for row i, or None (not measured)."""
    points = []
    for i, (row, cell) in enumerate(zip(rows, cells)):
        points.append({
            "variant": lock, "variant_index": 0, "threads": row,
            "row_index": i, "status": "ok" if cell else "missing",
            "error": None, "oversubscribed": False,
            "runs": runs(*cell) if cell else [], "summary": WRONG,
            "high_cv": False, "fairness": {"jain": None, "lt_unfair": False},
            "vs_baseline": None})
    return {
        "schema": "lockbench-results", "schema_version": "1.1",
        "tool": {"name": "make_inputs.py", "version": "1"},
        "label": label, "incomplete": False, "workload": workload,
        "variant_heading": "Kernel", "row_heading": row_heading,
        "unit": "ops/s", "std": "sample", "baseline": lock, "ncpus": ncpus,
        "cv_flag": 0.1, "alpha": 0.05,
        "machine": {"cpu_model": cpu_model} if cpu_model else None,
        "config": None, "calibration": None, "placement": None,
        "run_order": None,
        "variants": [{"name": lock, "lock": lock, "label": label,
                      "plugin": None, "plugin_sha256": None, "counters": []}],
        "rows": rows, "row_desc": row_desc, "points": points}


def write(outdir, name, d):
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, name), "w") as f:
        json.dump(d, f, indent=1)
        f.write("\n")


def seed_lines(name):
    with open(os.path.join(SEED, name), encoding="utf-8") as f:
        return f.read().splitlines()


def rtmutex(outdir):
    """docs/formats.md, table: kops/s, 6 kernels, rows nwriters_stress."""
    lines = seed_lines("rtmutex-locktorture-taishan200-96c.txt")
    labels = lines[0].split()[1:]
    rows, cells = [], [[] for _ in labels]
    for line in lines[3:]:
        tok = line.split()
        rows.append(int(tok[0]))
        k = 1
        for v in range(len(labels)):
            m, s = float(tok[k]), float(tok[k + 1])
            cells[v].append((m * 1000, s * 1000))
            k += 2 if v == 0 else 3
    for v, label in enumerate(labels):
        write(outdir, "k%d.json" % v,
              doc(label, "rtmutex_lock", "locktorture", "nwriters_stress",
                  rows, cells[v], ncpus=96))


def box(outdir):
    """docs/formats.md, box: jobs per minute, rows are workloads."""
    lines = seed_lines("qrwlock-aim7-box.txt")
    labels = [re.sub(r"^\d+\. ", "", l) for l in lines if re.match(r"^\d+\. ", l)]
    names, values = [], []
    for l in lines:
        cols = [c.strip() for c in l.strip("|").split("|")]
        if l.startswith("|") and cols[0].endswith(" JPM"):
            names.append(cols[0][:-len(" JPM")])
            values.append([float(c) for c in cols[1:]])
    desc = [{"label": n, "metric": None, "better": "higher"} for n in names]
    for v, label in enumerate(labels):
        cells = [(values[r][v] / 60, 0.0) for r in range(len(names))]
        write(outdir, "aim7-%d.json" % (v + 1),
              doc(label, "rwlock", "aim7", "workload", [0] * len(names),
                  cells, row_desc=desc))


def lkp(outdir):
    """docs/formats.md, lkp: mean±rstd% per (workload, kernel)."""
    lines = seed_lines("taskgroup-lkp-spr.txt")
    blocks, cur = [], None
    for l in lines[2:]:
        if not l.strip():
            cur = None
            continue
        if cur is None:
            cur = {"title": l, "rows": {}}
            blocks.append(cur)
        elif l.startswith("kernel"):
            m = re.match(r"kernel\s+(\S+)\((higher|less) is better\)", l)
            cur["metric"], cur["better"] = m.group(1), m.group(2)
        else:
            name, val = l.split()
            m = re.match(r"([\d.]+)±([\d.]+)%", val)
            cur["rows"][name] = (float(m.group(1)), float(m.group(2)))
    cpu = lines[0]
    variants = list(blocks[0]["rows"])
    desc = [{"label": b["title"], "metric": b["metric"],
             "better": "lower" if b["better"] == "less" else "higher"}
            for b in blocks]
    for v in variants:
        cells = [(b["rows"][v][0], b["rows"][v][0] * b["rows"][v][1] / 100)
                 for b in blocks]
        write(outdir, "lkp-%s.json" % v,
              doc(v, "task_group", "lkp", "workload", [0] * len(blocks),
                  cells, row_desc=desc, cpu_model=cpu))


def speedup(outdir):
    """docs/formats.md, speedup: two variants, ops x10^7."""
    lines = seed_lines("cna-locktorture-speedup.txt")
    cpu = lines[0].split(", locktorture")[0]
    head = lines[1].split()
    rows, cells = [], [[], []]
    for l in lines[2:]:
        tok = l.split()
        rows.append(int(tok[0]))
        for v in range(2):
            m = float(tok[1 + v]) * 1e7
            cells[v].append((m, m * 0.01))
    for v, label in enumerate(head[1:3]):
        write(outdir, "cna-%s.json" % label,
              doc(label, "qspinlock", "locktorture", "threads", rows, cells[v],
                  ncpus=144, cpu_model=cpu))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    rtmutex(os.path.join(out, "rtmutex"))
    box(os.path.join(out, "aim7"))
    lkp(os.path.join(out, "lkp"))
    speedup(os.path.join(out, "cna"))


if __name__ == "__main__":
    main()
