#!/usr/bin/env bash
# Run-to-run noise at 1 thread: RUNS (10) interleaved runs of tas and
# ticket at 1 thread, empty sections; per lock the CV of ns per
# operation, the runs flagged for noise (docs/method.md, "Noise"), and
# the runs more than 2% off the lock's median ("moved") with how many of
# those were flagged.  KEEP=FILE keeps the JSON.
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
print("%-14s %10s %8s %8s %14s" % ("lock", "ns/op", "CV", "flagged", "off>2% flagged"))
for p in d["points"]:
    ns = [1e9 / r["ops_per_sec"] for r in p["runs"]]
    flag = [bool({"shared_cpu", "stopped"} & set(r.get("flags", []))) for r in p["runs"]]
    cv = statistics.stdev(ns) / statistics.mean(ns) * 100 if len(ns) > 1 else float("nan")
    med = statistics.median(ns)
    off = [i for i, n in enumerate(ns) if abs(n / med - 1) > 0.02]
    print("%-14s %10.2f %7.2f%% %5d/%d %8d/%d" % (p["variant"], statistics.mean(ns), cv,
          sum(flag), len(ns), sum(flag[i] for i in off), len(off)))
PY
