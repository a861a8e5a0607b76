#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Do the calibrations come out the same every invocation?  Runs
#   lockbench -l ticket -t 1 -r 1 -d 0.2 -f json
# N times (20) and prints, for every number in the run JSON's
# `calibration` object and the run's throughput and sampled parallel
# section, the median, min and max over the invocations and the largest
# distance from the median in percent; a calibration figure further than
# TOL percent (5) from its median in any invocation is a FAIL (exit 1).
# The core-speed probe's figure (runs[].core_speed.before_ghz) is shown
# beside them: costs counted in core cycles (a pause, the spin loop's
# turn) move with it when the host runs a vCPU on a slower core.
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
cal, other = {}, {}
for i in range(1, N + 1):
    d = json.load(open("%s/%d.json" % (W, i)))
    for k, v in d["calibration"].items():
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            cal.setdefault(k, []).append(v)
    r = d["points"][0]["runs"][0]
    other.setdefault("ops_per_sec (not a calibration)", []).append(r["ops_per_sec"])
    sp = (r.get("core_speed") or {}).get("before_ghz")
    if sp:
        other.setdefault("core_speed_ghz (not a calibration)", []).append(sp)
    if r.get("ncs_ns_actual_median"):
        other.setdefault("ncs_ns_actual_median (not a calibration)", []).append(
            r["ncs_ns_actual_median"])
bad = 0
print("%d invocations of -l ticket -t 1 -r 1 -d 0.2" % N)
print("%-42s %12s %12s %12s %8s" % ("figure", "median", "min", "max", "max off"))
for group, check in ((cal, True), (other, False)):
    for k, x in group.items():
        m = statistics.median(x)
        off = max(abs(v - m) for v in x) / m * 100 if m else 0
        verdict = ""
        if check:
            ok = off <= tol
            bad += not ok
            verdict = "PASS" if ok else "FAIL"
        print("%-42s %12.4g %12.4g %12.4g %7.1f%% %s" % (k, m, min(x), max(x), off, verdict))
print("every calibration within %g%% of its median: %s" % (tol, "no" if bad else "yes"))
sys.exit(1 if bad else 0)
PY
