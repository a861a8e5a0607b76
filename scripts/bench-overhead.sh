#!/usr/bin/env bash
# Harness overhead and uncontended cost, side by side in one interleaved
# run: ns per lock+unlock pair of null (the harness loop itself), tas,
# ticket, mcs and pthread_mutex at 1 thread and at all CPUs.
#   scripts/bench-overhead.sh [./lockbench] [extra lockbench options]
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
LOCKS=${LOCKS:-null,tas,ticket,mcs,pthread_mutex}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$BIN" -l "$LOCKS" -t 1,max -r "${RUNS:-5}" --warmup 0.3 -d "${DURATION:-1}" \
	--ncs-ns 0 --cs-lines 0 -q -f json -o "$json" "$@"
python3 - "$json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d["rows"]
print("ns per lock+unlock (median of %d runs; lower is better); machine: %s, %d CPUs"
      % (d["config"]["runs"], d["machine"]["cpu_model"], d["ncpus"]))
print("%-16s" % "lock" + "".join("%14s" % ("%d thread%s" % (r, "s" if r > 1 else "")) for r in rows))
for v in d["variants"]:
    cells = []
    for r in rows:
        p = [p for p in d["points"] if p["variant"] == v["name"] and p["threads"] == r][0]
        med = p["summary"]["median"]
        cells.append("%14.1f" % (1e9 / med) if p["status"] == "ok" and med else "%14s" % p["status"])
    print("%-16s" % v["name"] + "".join(cells))
print("(at N threads: wall-clock ns per completed operation, all threads together)")
PY
