#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Expand an lkp-tests job file into the jobs `lkp split-job` would make
and print, for each, the lockbench command line that
programs/lockbench/run builds (run with LOCKBENCH_DRY_RUN=1).

usage: lkp_job_expand.py JOB.yaml RUN_SCRIPT NR_CPU

Reads the subset of YAML lkp job files use here: top-level `key: value`
and `key:` followed by `- item` lines, and one nested map (the testcase's
own parameters) of the same.  A list is a dimension: the jobs are every
combination, in file order (lkp-tests doc/add-testcase.md, "Job File").
"""
import itertools
import os
import subprocess
import sys


def parse(path):
    """Parameters in file order: a string, or a list of strings.  A map
    header (`lockbench:`) is an empty list, left out by main()."""
    params, key = {}, None
    for raw in open(path):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        if text.startswith("- "):
            params[key].append(text[2:].strip())
            continue
        key, _, v = (t.strip() for t in text.partition(":"))
        params[key] = v if v else []
    return params


def main(argv):
    if len(argv) != 4:
        print("usage: lkp_job_expand.py JOB.yaml RUN_SCRIPT NR_CPU", file=sys.stderr)
        return 2
    params = parse(argv[1])
    names = [k for k in params if k not in ("suite", "testcase", "category")
             and params[k] != []]
    values = [v if isinstance(v, list) else [v] for v in (params[k] for k in names)]
    for combo in itertools.product(*values):
        env = dict(os.environ, LOCKBENCH_DRY_RUN="1", LOCKBENCH="lockbench",
                   LOCKBENCH_LABEL="KERNEL", nr_cpu=argv[3])
        env.update(zip(names, combo))
        out = subprocess.run([argv[2]], env=env, capture_output=True, text=True)
        if out.returncode:
            sys.stderr.write(out.stderr)
            return 1
        job = " ".join(f"{k}={v}" for k, v in zip(names, combo))
        print(f"# {job}\n{out.stdout.strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
