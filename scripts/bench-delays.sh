#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Do --cs-ns and --ncs-ns hold?  Two measures side by side, 1 thread,
# the null lock (no lock cost), one interleaved sweep per kind of delay:
#   sampled  the section lengths the runner samples (JSON
#            cs_ns_actual_median / ncs_ns_actual_median: one operation in
#            256 read the clock around its delays);
#   outside  what asking for the delay added to an operation, from
#            throughput alone: ns/op at the request less ns/op at 0 (no
#            clock read involved, so nothing to fool).
# Both should match the request: within 5% from 100 ns, 10% at 50 ns.
#   scripts/bench-delays.sh [./lockbench] [extra lockbench options]
#   REQ (50,100,400,1000)  RUNS (5)  DURATION (0.5)
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
REQ=${REQ:-50,100,400,1000}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
common=(-l null -t 1 -r "${RUNS:-5}" --warmup 0.2 -d "${DURATION:-0.5}" --cs-lines 1
	--no-tune -q -f json)
"$BIN" "${common[@]}" --cs-ns "0,$REQ" --ncs-ns 0 -o "$W/cs.json" "$@"
"$BIN" "${common[@]}" --ncs-ns "0,$REQ" --ncs-dist fixed -o "$W/fixed.json" "$@"
"$BIN" "${common[@]}" --ncs-ns "0,$REQ" -o "$W/exp.json" "$@"
python3 - "$W" <<'PY'
import json, statistics, sys
W = sys.argv[1]
print("null lock, 1 thread; ns per delay, median (min-max) over the runs: sampled (the"
      " runner's samples) and outside (ns/op less ns/op at 0)")
print("%-16s %8s %20s %20s" % ("delay", "request", "sampled", "outside"))
for kind, key in (("cs", "cs"), ("fixed", "ncs"), ("exp", "ncs")):
    d = json.load(open("%s/%s.json" % (W, kind)))
    name = {"cs": "--cs-ns", "fixed": "--ncs-ns fixed", "exp": "--ncs-ns exp"}[kind]
    byreq = {}
    for p in d["points"]:
        req = p["runs"][0][key + "_ns_requested"]
        byreq[req] = p
    base = statistics.median(1e9 / r["ops_per_sec"] for r in byreq[0]["runs"])
    for req in sorted(byreq):
        if not req:
            continue
        runs = byreq[req]["runs"]
        samp = [r[key + "_ns_actual_median"] for r in runs if r[key + "_ns_actual_median"]]
        out = [1e9 / r["ops_per_sec"] - base for r in runs]
        f = lambda x: "%5.0f (%4.0f-%4.0f)" % (statistics.median(x), min(x), max(x))
        print("%-16s %8.0f %20s %20s" % (name, req, f(samp), f(out)))
PY
