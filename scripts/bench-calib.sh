#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Do the calibrations come out the same every invocation?  Runs
#   lockbench -l ticket -t 1 -r 1 -d 0.2 -f json
# N times (20) and prints, for every number in the run JSON's
# `calibration` object and the run's throughput and sampled parallel
# section, the median, min and max over the invocations and the largest
# distance from the median in percent; a calibration figure further than
# TOL percent (5) from its median in any invocation is a FAIL (exit 1),
# except the empty loop's turn (empty_loop_ns): the loop itself runs at
# one, one and a half or two turns a cycle from one invocation to the
# next, and the figure reports that mode (docs/method.md, "Calibration").
# Each ns figure's largest distance is shown once more counted in
# cycles of the core's clock as the calibration's rounds found it
# (calibration.core_speed_ghz; ns x GHz): costs the core counts in
# cycles (a read, a pause, the spin loop's turn) move with its speed when
# the host runs the vCPU on a slower core, and then move together, in ns
# only; a second verdict line says whether they hold in cycles (all but
# the counter's step, which is time, not cycles).
#   scripts/bench-calib.sh [./lockbench] [extra lockbench options]
#   N (20)  TOL (5)
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
N=${N:-20}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for i in $(seq "$N"); do
	"$BIN" -l ticket -t 1 -r 1 -d 0.2 --no-tune -q -f json -o "$W/$i.json" "$@"
done
python3 - "$W" "$N" "${TOL:-5}" <<'PY'
import json, statistics, sys
W, N, tol = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
cal, other, ghz = {}, {}, []
for i in range(1, N + 1):
    d = json.load(open("%s/%d.json" % (W, i)))
    for k, v in d["calibration"].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            cal.setdefault(k, []).append(v)
    r = d["points"][0]["runs"][0]
    other.setdefault("ops_per_sec (not a calibration)", []).append(r["ops_per_sec"])
    # the core's clock the calibration's rounds ran at
    ghz.append(d["calibration"].get("core_speed_ghz"))
    if r.get("ncs_ns_actual_median"):
        other.setdefault("ncs_ns_actual_median (not a calibration)", []).append(
            r["ncs_ns_actual_median"])
bad = badc = 0
print("%d invocations of -l ticket -t 1 -r 1 -d 0.2" % N)
def maxoff(x):
    m = statistics.median(x)
    return max(abs(v - m) for v in x) / m * 100 if m else 0
print("%-42s %12s %12s %12s %8s %10s" % ("figure", "median", "min", "max", "max off",
                                         "in cycles"))
for group, check in ((cal, True), (other, False)):
    for k, x in group.items():
        off, verdict, cyc = maxoff(x), "", ""
        if check and k == "empty_loop_ns":
            verdict = "(the loop's mode: not checked)"
        elif check and k == "core_speed_ghz":
            verdict = "(the host's: not checked)"
        elif check:
            ok = off <= tol
            bad += not ok
            verdict = "PASS" if ok else "FAIL"
            if k.endswith("_ns") and k != "ticks_per_ns" and len(x) == N and all(ghz):
                c = maxoff([v * g for v, g in zip(x, ghz)])
                # the counter's step is time, not cycles: shown, not judged
                badc += c > tol and k != "clock_step_ns"
                cyc = "%9.1f%%" % c
        print("%-42s %12.4g %12.4g %12.4g %7.1f%% %10s %s" % (
            k, statistics.median(x), min(x), max(x), off, cyc, verdict))
print("every calibration within %g%% of its median: %s" % (tol, "no" if bad else "yes"))
if all(ghz):
    print("... counted in cycles of the core's clock at calibration: %s"
          % ("no" if badc else "yes"))
sys.exit(1 if bad else 0)
PY
