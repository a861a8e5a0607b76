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
#   outside/host  outside * (1 - f), f the fraction of a CPU the host
#            takes away without reporting steal (host_takes.fraction of
#            `lockbench system check`, run before and after the delays,
#            the mean of the two).  The guest counts those takes as the
#            worker's running time, so ns/op grows by 1 / (1 - f) with
#            nothing to do with the delays: a request R reads R / (1 - f)
#            from outside, and no delay can hold time it was not given
#            the CPU for (docs/method.md, "Host takes").  The raw outside
#            column stays beside it.  (ns/op here is wall-clock, from
#            ops_per_sec: on a busy machine the guest's other work adds
#            to it too; scripts/bench-delays-hosts.sh takes it per
#            CPU-second.)
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
# host takes: a system check's JSON into $W/check-$1.json (exit 1, a
# measure it could not take, still writes it; one that fails leaves f
# unknown, and the report says so); its short runs at -d 0.02, since only
# host_takes is read here and -d does not shorten that
check() { "$BIN" system check -q -d 0.02 -f json -o "$W/check-$1.json" || true; }
check before
"$BIN" "${common[@]}" --cs-ns "0,$REQ" --ncs-ns 0 -o "$W/cs.json" "$@"
"$BIN" "${common[@]}" --ncs-ns "0,$REQ" --ncs-dist fixed -o "$W/fixed.json" "$@"
"$BIN" "${common[@]}" --ncs-ns "0,$REQ" -o "$W/exp.json" "$@"
LOCKS2=${LOCKS2-pthread_mutex,ticket,mcs,qspinlock}
if [ -n "$LOCKS2" ]; then
	"$BIN" -l "$LOCKS2" -t "${THREADS2:-2}" -r "${RUNS:-5}" --warmup 0.2 \
		-d "${DURATION:-0.5}" --cs-ns 100,400 --ncs-ns 100 --no-tune -q -f json \
		-o "$W/two.json" "$@"
fi
check after
PYTHONPATH="$(dirname "$0")" python3 - "$W" <<'PY'
import json, statistics, sys
from host_takes import host_takes
W = sys.argv[1]

take, known, said = host_takes(W)
if not known:
    print("host takes unknown (system check failed before and after): outside/host = outside")
else:
    print("host takes: f = %.2f%% of each CPU (system check %s); outside/host = outside"
          " * (1 - f)" % (100 * take, said))
print("null lock, 1 thread; ns per delay, median (min-max) over the runs: sampled (the"
      " runner's samples) and outside (ns/op less ns/op at 0)")
print("%-16s %8s %20s %20s %20s" % ("delay", "request", "sampled", "outside", "outside/host"))
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
        fmt = lambda x: "%5.0f (%4.0f-%4.0f)" % (statistics.median(x), min(x), max(x))
        print("%-16s %8.0f %20s %20s %20s" % (name, req, fmt(samp), fmt(out),
                                              fmt([x * (1 - take) for x in out])))
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
