#!/usr/bin/env bash
# Two builds of lockbench side by side (e.g. before and after a change to
# the harness): RUNS (5) rounds, each running every lock once with build
# A, then once with build B, at 1 thread with empty sections; prints ns
# per lock+unlock pair (median) for each build and B/A.
#   scripts/bench-ab.sh OLD_BINARY NEW_BINARY [extra lockbench options]
set -euo pipefail
A=$1 B=$2
shift 2
LOCKS=${LOCKS:-null,tas,ticket,mcs,pthread_mutex}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
for k in $(seq 1 "${RUNS:-5}"); do
	echo "bench-ab: round $k" >&2
	for side in A B; do
		bin=$A
		[ $side = B ] && bin=$B
		"$bin" -l "$LOCKS" -t 1 -r 1 --warmup 0.3 -d "${DURATION:-1}" --ncs-ns 0 \
			--cs-lines 0 --no-tune --no-probe -q -f json -o "$W/$side.$k.json" "$@"
	done
done
python3 - "$W" "${RUNS:-5}" "$A" "$B" <<'PY'
import glob, json, statistics, sys
w, runs, a, b = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
ns = {}
for side in "AB":
    for f in glob.glob("%s/%s.*.json" % (w, side)):
        for p in json.load(open(f))["points"]:
            for r in p["runs"]:
                ns.setdefault((side, p["variant"]), []).append(1e9 / r["ops_per_sec"])
print("ns per lock+unlock at 1 thread, empty sections, median of %d alternating runs" % runs)
print("A: %s\nB: %s" % (a, b))
print("%-16s %10s %10s %8s" % ("lock", "A", "B", "B/A"))
for v in dict.fromkeys(k[1] for k in ns):
    ma, mb = statistics.median(ns[("A", v)]), statistics.median(ns[("B", v)])
    print("%-16s %10.2f %10.2f %8.2f" % (v, ma, mb, mb / ma))
PY
