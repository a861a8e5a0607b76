#!/usr/bin/env bash
# Run-to-run noise at 1 thread, and whether counting in core cycles
# cancels it: RUNS (10) interleaved runs of tas and ticket at 1 thread,
# empty sections; per lock the CV of ns per operation, the CV of core
# cycles per operation (ns x the run's core-speed probe, the mean of its
# before and after values), and the runs the probe flagged
# core_speed_moved; then the runs more than 2% off the lock's median
# ("moved") and how many of those the probe flagged: the 1-thread
# noise is either small (CV <= 1%) or seen; last, the correlation of a
# run's ns/op with its window issue rate (JSON core_speed.
# window_issue_rate: near -1 when an SMT sibling's work is what moved it)
# and the point's fit of ns/op on both probes (noise.core_fit: its r2,
# "-" when the flag did not use it).  KEEP=FILE keeps the JSON.
#   scripts/bench-cv.sh [./lockbench] [extra lockbench options]
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
if [ -n "${KEEP:-}" ]; then
	trap - EXIT
	json=$KEEP
fi
"$BIN" -l "${LOCKS:-tas,ticket}" -t 1 -r "${RUNS:-10}" --warmup 0.3 -d "${DURATION:-1}" \
	--ncs-ns 0 --cs-lines 0 --no-tune -q -f json -o "$json" "$@"
python3 - "$json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
print("1 thread, %d runs each, empty sections; %s" % (d["config"]["runs"],
      d["machine"]["cpu_model"]))
print("%-14s %10s %8s %12s %8s %8s %14s %9s %6s" % ("lock", "ns/op", "CV", "cycles/op", "CV",
      "flagged", "off>2% flagged", "r(issue)", "fit"))
for p in d["points"]:
    ns, cyc, moved, flag, iss = [], [], 0, [], []
    for r in p["runs"]:
        n = 1e9 / r["ops_per_sec"]
        cs = r.get("core_speed")
        ns.append(n)
        if cs:
            cyc.append(n * (cs["before_ghz"] + cs["after_ghz"]) / 2)
        moved += "core_speed_moved" in r.get("flags", [])
        if cs and cs.get("window_issue_rate"):
            iss.append((n, cs["window_issue_rate"]))
        flag.append(bool(r.get("flags")))
    cv = lambda x: statistics.stdev(x) / statistics.mean(x) * 100 if len(x) > 1 else float("nan")
    med = statistics.median(ns)
    off = [i for i, n in enumerate(ns) if abs(n / med - 1) > 0.02]
    try:
        corr = statistics.correlation([a for a, _ in iss], [b for _, b in iss])
    except (AttributeError, statistics.StatisticsError, ValueError):
        corr = float("nan")
    fit = (p.get("noise") or {}).get("core_fit") or {}
    print("%-14s %10.2f %7.2f%% %12.2f %7.2f%% %5d/%d %8d/%d %9.2f %6s" % (p["variant"],
          statistics.mean(ns), cv(ns), statistics.mean(cyc) if cyc else float("nan"),
          cv(cyc) if cyc else float("nan"), moved, len(p["runs"]), sum(flag[i] for i in off),
          len(off), corr, "%.2f" % fit["r2"] if fit.get("used") else "-"))
PY
