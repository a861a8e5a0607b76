#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench-plugin-loop.sh [-n INVOCATIONS] [-r ROUNDS] [-d SECONDS] [BINARY]
#
# The same test-and-set as a plugin with LOCKBENCH_PLUGIN_LOOPS()
# (tas_inline), as a plugin without it (tas_generic), and the built-in
# `tas`, side by side in one run (lockbench interleaves the variants'
# runs in each round), at 1 and 2 threads with empty sections
# (--cs-lines 0 --ncs-ns 0), where the loop matters most
# (docs/locks.md, "Locks from outside the tree").  Prints each
# invocation's ratio of the plugins' means to tas's, then the median
# over the invocations.  Builds the plugin (tests/plugins/tas_loops.c)
# with make first.
set -eu
N=3 R=5 D=0.5
while getopts n:r:d: o; do
	case $o in
	n) N=$OPTARG ;;
	r) R=$OPTARG ;;
	d) D=$OPTARG ;;
	*) echo "usage: $0 [-n N] [-r ROUNDS] [-d SECONDS] [BINARY]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/lockbench}
make -C "$ROOT" --no-print-directory -s build/tests/plugins/tas_loops.so
SO=$ROOT/build/tests/plugins/tas_loops.so
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for i in $(seq 1 "$N"); do
	"$BIN" --plugin "$SO" -l tas,tas_inline,tas_generic -t 1,2 -r "$R" -d "$D" \
		--warmup 0.1 --cs-lines 0 --ncs-ns 0 -q -f json -o "$OUT/$i.json" 2>/dev/null
done
python3 - "$OUT" "$N" <<'PY'
import json, os, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
ratios = {}
for i in range(1, n + 1):
    d = json.load(open(os.path.join(out, f"{i}.json")))
    mean = {}
    for p in d["points"]:
        tp = [r["ops_per_sec"] for r in p["runs"] if r.get("ops_per_sec")]
        if p["status"] == "ok" and tp:
            mean[(p["variant"], p["threads"])] = statistics.mean(tp)
    line = []
    for t in (1, 2):
        for v in ("tas_inline", "tas_generic"):
            if (v, t) in mean and ("tas", t) in mean:
                r = mean[(v, t)] / mean[("tas", t)]
                ratios.setdefault((v, t), []).append(r)
                line.append(f"{v}/tas t={t}: {r:.3f}")
    print(f"invocation {i}: " + ", ".join(line))
print("median over invocations:")
for (v, t), rs in sorted(ratios.items(), key=lambda k: (k[0][1], k[0][0])):
    print(f"  {v}/tas at {t} thread{'s' if t > 1 else ''}: {statistics.median(rs):.3f} "
          f"({(statistics.median(rs) - 1) * 100:+.1f}%)")
PY
