#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# bench-plugin-loop.sh [-n INVOCATIONS] [-r ROUNDS] [-d SECONDS] [BINARY]
#
# Plugins on the built-ins' loop against the built-in lock of the same
# algorithm, side by side in one run (lockbench interleaves the
# variants' runs in each round), at 1 and 2 threads with empty sections
# (--cs-lines 0 --ncs-ns 0), where the loop matters most (docs/locks.md,
# "Locks from outside the tree"):
#   tas_inline, tas_generic / tas: the same test-and-set as a plugin
#     with LOCKBENCH_PLUGIN_LOOPS() and without it
#     (tests/plugins/tas_loops.c);
#   clh_inline, clh_plain / clh: a CLH queue lock as a plugin with
#     LOCKBENCH_PLUGIN_LOOPS_PRIVATE() (its context in a local, as the
#     built-in clh's loop keeps it) and with LOCKBENCH_PLUGIN_LOOPS()
#     (on the worker's context) (tests/plugins/clh_loops.c).
#   tas_inline_b / tas_inline: the A/A control, the same plugin built
#     again with its code at other addresses (-DTAS_LOOPS_COPY): how far
#     the same code measures from itself when only its place in memory
#     changes.  At 2 threads a test-and-set's throughput rests on how
#     often a thread takes the lock again before the other sees it free,
#     which the loop's layout moves: read the plugin-to-built-in ratio
#     against this one.
# Prints each invocation's ratio of the plugins' means to the built-in's,
# then the median over the invocations.  Builds the plugins with make
# first.
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
PL=$ROOT/build/tests/plugins
make -C "$ROOT" --no-print-directory -s build/tests/plugins/tas_loops.so build/tests/plugins/clh_loops.so
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# the A/A copy, built as the Makefile builds a plugin
"${CC:-cc}" -std=gnu11 -O2 -g -shared -fPIC -I"$ROOT/locks" -I"$ROOT/build/include" \
	-Wl,--no-undefined -DTAS_LOOPS_COPY "$ROOT/tests/plugins/tas_loops.c" -o "$OUT/tas_loops_b.so"

for i in $(seq 1 "$N"); do
	"$BIN" --plugin "$PL/tas_loops.so" --plugin "$OUT/tas_loops_b.so" \
		--plugin "$PL/clh_loops.so" \
		-l tas,tas_inline,tas_generic,tas_inline_b,clh,clh_inline,clh_plain \
		-t 1,2 -r "$R" -d "$D" \
		--warmup 0.1 --cs-lines 0 --ncs-ns 0 -q -f json -o "$OUT/$i.json" 2>/dev/null
done
python3 - "$OUT" "$N" <<'PY'
import json, os, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
ratios = {}
# each built-in and its plugin twins
PAIRS = (("tas", ("tas_inline", "tas_generic")), ("tas_inline", ("tas_inline_b",)),
         ("clh", ("clh_inline", "clh_plain")))
for i in range(1, n + 1):
    d = json.load(open(os.path.join(out, f"{i}.json")))
    mean = {}
    for p in d["points"]:
        tp = [r["ops_per_sec"] for r in p["runs"] if r.get("ops_per_sec")]
        if p["status"] == "ok" and tp:
            mean[(p["variant"], p["threads"])] = statistics.mean(tp)
    print(f"invocation {i}:")
    for base, plugins in PAIRS:
        line = []
        for t in (1, 2):
            for v in plugins:
                if (v, t) in mean and (base, t) in mean:
                    r = mean[(v, t)] / mean[(base, t)]
                    ratios.setdefault((base, v, t), []).append(r)
                    line.append(f"{v}/{base} t={t}: {r:.3f}")
        print("  " + ", ".join(line))
print("median over invocations:")
for base, plugins in PAIRS:
    for t in (1, 2):
        for v in plugins:
            rs = ratios.get((base, v, t))
            if rs:
                m = statistics.median(rs)
                print(f"  {v + '/' + base:<16} at {t} thread{'s' if t > 1 else ' '}: "
                      f"{m:.3f} ({(m - 1) * 100:+.1f}%)")
PY
