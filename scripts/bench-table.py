#!/usr/bin/env python3
"""Print a lockbench JSON as a side-by-side benchmark table.

Usage: bench-table.py RESULT.json [ns|kops]
  ns   - ns per lock+unlock pair (wall clock / completed operations, all
         threads together), from the median run: the uncontended cost at
         1 thread.
  kops - throughput in kops/s, median run.
Columns are the thread counts; the last column is the cost relative to
the `null` lock (the harness loop) when it was measured.
"""
import json
import sys


def main():
    d = json.load(open(sys.argv[1]))
    mode = sys.argv[2] if len(sys.argv) > 2 else "ns"
    rows = d["rows"]
    pts = {(p["variant"], p["threads"]): p for p in d["points"]}
    unit = "ns per lock+unlock" if mode == "ns" else "kops/s"
    print("%s (median of %d runs); %s, %d CPUs, kernel %s"
          % (unit, d["config"]["runs"], d["machine"]["cpu_model"], d["ncpus"],
             d["machine"]["kernel"]))
    head = "%-32s" % "lock" + "".join("%12s" % ("%d thr" % r) for r in rows)
    print(head)
    for v in d["variants"]:
        cells = []
        for r in rows:
            p = pts[(v["name"], r)]
            med = p["summary"]["median"]
            if p["status"] != "ok" or not med:
                cells.append("%12s" % p["status"])
            elif mode == "ns":
                cells.append("%12.1f" % (1e9 / med))
            else:
                cells.append("%12.1f" % (med / 1e3))
        print("%-32s" % v["name"] + "".join(cells))


if __name__ == "__main__":
    main()
