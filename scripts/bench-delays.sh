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
# Then the same delays beside a waiter: the FIFO locks at 2 threads
# (sampled only: from outside, the handover moves with the section),
# --cs-ns 100 and 400 with the default --ncs-ns 100.
#   scripts/bench-delays.sh [./lockbench] [extra lockbench options]
#   REQ (50,100,400,1000)  RUNS (5)  DURATION (0.5)
#   LOCKS2 (pthread_mutex,ticket,mcs,qspinlock; empty: skip)  THREADS2 (2)
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
LOCKS2=${LOCKS2-pthread_mutex,ticket,mcs,qspinlock}
if [ -n "$LOCKS2" ]; then
	"$BIN" -l "$LOCKS2" -t "${THREADS2:-2}" -r "${RUNS:-5}" --warmup 0.2 \
		-d "${DURATION:-0.5}" --cs-ns 100,400 --ncs-ns 100 --no-tune -q -f json \
		-o "$W/two.json" "$@"
fi
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
try:
    d = json.load(open("%s/two.json" % W))
except FileNotFoundError:
    sys.exit(0)
print()
print("beside a waiter: sampled ns per delay, median (min-max) over the runs")
print("%-14s %7s %6s %20s %20s" % ("lock", "threads", "cs-ns", "critical", "parallel (100)"))
for p in d["points"]:
    runs = p["runs"]
    f = lambda k: (lambda x: "%5.0f (%4.0f-%4.0f)" % (statistics.median(x), min(x), max(x)))(
        [r[k] for r in runs if r[k]])
    print("%-14s %7d %6.0f %20s %20s" % (p["variant"].split()[0], p["threads"], runs[0]["cs_ns_requested"],
                                          f("cs_ns_actual_median"), f("ncs_ns_actual_median")))
PY
