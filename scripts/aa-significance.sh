#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# How often does lockbench call a difference significant when there is
# none (A/A), and how often does it see a real one (power)?  Uses the
# test plugin tests/plugins/padded.so loaded twice: the same lock under
# two names, one copy optionally slowed by a calibrated amount of extra
# work per acquisition.
#
# Measured, each REPS times (default 20), at 1 thread, default length
# (-r 10, -d 0.5, --warmup 0.25) unless LB_OPTS says otherwise:
#   within  A/A:  one run, padded_a vs padded_b, nothing slowed, at each
#                 -r of RS (default "3 5 10")
#   within  2x:   the same with padded_b twice as slow, at each -r of RS
#   within  10%:  one run at the default -r, padded_b 10% slower (and 5%,
#                 2%); each within line also counts the points marked `_`
#                 (too few runs to judge)
#   designs:      from the within runs at -r 10: how often each candidate
#                 test finds the difference at 3, 5 and 10 rounds (the
#                 first r rounds of each run): the paired t on per-round
#                 log ratios (lockbench's, trimmed from 10 rounds), the
#                 same trimmed from 5 (one of five cut), Welch's t on the
#                 runs' log rates, Mann-Whitney (exact; its least p at 3
#                 and 3 is 0.1); needs python3's mpmath
#   across  A/A:  INV invocations labelled A vs INV labelled A2, compared
#   across  5%:   INV invocations labelled A vs INV labelled B (5% slower)
#   across  one:  one invocation a side, no floor (must say "not assessed")
#   one     A/A:  one invocation labelled A vs one labelled A2, separate
#                 processes, compared with the invocation floor (-f/-m)
#   one     10%:  one invocation labelled A vs one labelled B, 10% slower
#   loaded  gate: one invocation a side, the baseline's made beside a busy
#                 loop on its worker's CPU (taskset -c 0 for both: the
#                 loop takes about half of the worker's CPU), the other
#                 quiet and 2x slower (and, for A/A, not slower), then
#                 compare --fail-if-regressed 3% with the floor (-f/-m,
#                 else --floor 3%): the exit statuses counted; a 2x
#                 slower copy must never pass (exit 0): found (4) or
#                 cannot assess (5)
# A comparison counts as significant when its vs_baseline.significant
# is true (the `~` mark absent); power counts only detections in the
# right direction (rel < 0).  The across 5% line also gives the median
# of the smallest difference each comparison could have detected
# (significance.mde_pct, 80% power); the one-invocation lines the floor.
#
# usage: scripts/aa-significance.sh [-n REPS] [-i INV] [-o DIR]
#                                   [-f FLOOR.json|PCT] [-m PCT] [./lockbench]
#   -f        the invocation floor for the one-invocation mode: the JSON
#             of `lockbench system check -o FILE` (compare --floor), or PCT
#   -m        or a --min-effect PCT as the floor
#   LB_OPTS   extra options for every run (e.g. "-t 2" or "-d 0.1"; not -r)
#   RS        the -r of the within A/A and 2x lines (default "3 5 10")
#   SKIP      space-separated parts to skip: within across power2 one designs
#             loaded
#   PAD       cycles (default): the slower copy does extra loop turns,
#             whose cost moves with the core clock; time: it spins on
#             the CPU's counter instead (padded's tpad), a slowdown that
#             holds when the host moves the clock
set -euo pipefail

REPS=20
INV=3
OUT=
FLOOR=()
while getopts "n:i:o:f:m:h" o; do
	case $o in
	n) REPS=$OPTARG ;;
	i) INV=$OPTARG ;;
	o) OUT=$OPTARG ;;
	f) FLOOR=(--floor "$(realpath -q "$OPTARG" || echo "$OPTARG")") ;;
	m) FLOOR=(--min-effect "$OPTARG") ;;
	*) sed -n '3,50p' "$0"; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
LB=$(realpath "${1:-./lockbench}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PLUGIN=$ROOT/build/tests/plugins/padded.so
SKIP=${SKIP:-}
RS=${RS:-3 5 10}
for r in $RS; do
	case $r in '' | *[!0-9]* | 0 | 1) echo "aa-significance: RS ($RS): -r values of 2 or more" >&2; exit 2 ;; esac
done
case ${PAD:-cycles} in
cycles) KNOB=pad P=400 ;;
time) KNOB=tpad P=100 ;;
*) echo "aa-significance: PAD is cycles or time" >&2; exit 2 ;;
esac
read -r -a EXTRA <<<"${LB_OPTS:-}"

[ -x "$LB" ] || { echo "aa-significance: no binary $LB" >&2; exit 2; }
[ -f "$PLUGIN" ] || make -s -C "$ROOT" build/tests/plugins/padded.so >&2
if [ -n "$OUT" ]; then mkdir -p "$OUT"; W=$OUT; else
	W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi

# run OUT.json [lockbench options...]: one quiet invocation, JSON out.
run() {
	local out=$1
	shift
	"$LB" -q -t 1 "${EXTRA[@]}" --plugin "a=$PLUGIN" --plugin "b=$PLUGIN" "$@" \
		-f json -o "$out" 2>>"$W/stderr.log"
}

# verdict FILE: "sig rel p method mde floor too_few" of the second
# column at the first row.
verdict() {
	python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = [p for p in d["points"] if p["variant_index"] == 1][0]
vb = p["vs_baseline"] or {}
t = vb.get("test") or {}
f = d.get("invocation_floor") or {}
print(int(bool(vb.get("significant"))), vb.get("rel_pct"), t.get("p"), t.get("method"),
      t.get("mde_pct"), f.get("rel_pct"), int(bool(t.get("too_few_runs"))))
EOF
}

# The rate of variant V in FILE at the first row: the mean over its
# runs, every run counted (on a busy machine the statistics may leave
# them all out; the calibration still needs a figure).
rate() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = [p for p in d["points"] if p["variant"] == sys.argv[2]][0]
print(sum(r["ops_per_sec"] for r in p["runs"]) / len(p["runs"]))
EOF
}

# Calibration: how much slower is padded_b at a given pad?  The cost
# of a pad turn is far from linear in the turns (a few overlap with the
# lock's own work, many do not), so each slowdown s is searched for: the
# time excess r0/r1 - 1 that s means, 1/(1-s) - 1, is interpolated
# piecewise-linearly between the pads measured so far (and 0 at 0),
# that pad measured, and so on, a few times for each target; the pads
# printed are the interpolations at the end.
# cal_ratio PAD: r0/r1 - 1 of one -r 5 run with padded_b at PAD.
cal_ratio() {
	local r0 r1 saved=("${EXTRA[@]}")
	# Its own -r 5 (an option given twice is refused): without LB_OPTS.
	EXTRA=()
	run "$W/cal.json" -l padded_a,padded_b -r 5 --lock-opt "padded_b.$KNOB=$1"
	EXTRA=("${saved[@]}")
	r0=$(rate "$W/cal.json" padded_a)
	r1=$(rate "$W/cal.json" padded_b)
	python3 -c "print($r0 / $r1 - 1)"
}
# pad_for S: the pad interpolated for slowdown S from $W/cal-points.
pad_for() {
	python3 - "$W/cal-points" "$1" <<'PY'
import sys
pts = {0: 0.0}
for line in open(sys.argv[1]):
    a, b = line.split()
    pts[int(a)] = float(b)
pts = sorted(pts.items())
e = 1 / (1 - float(sys.argv[2])) - 1
# the first segment whose end reaches e, else the last one
k = next((i for i in range(1, len(pts)) if pts[i][1] >= e), len(pts) - 1)
(p0, x0), (p1, x1) = pts[k - 1], pts[k]
pad = p1 if x1 <= x0 else p0 + (e - x0) * (p1 - p0) / (x1 - x0)
print(max(1, min(1 << 20, round(pad))))
PY
}
calibrate() {
	local pad
	echo "$P $(cal_ratio "$P")" >"$W/cal-points"
	for s in 0.10 0.05 0.02; do
		for _ in 1 2 3; do
			pad=$(pad_for "$s")
			grep -q "^$pad " "$W/cal-points" && break
			echo "$pad $(cal_ratio "$pad")" >>"$W/cal-points"
		done
	done
	echo "$(pad_for 0.05) $(pad_for 0.02) $(pad_for 0.10) $(pad_for 0.50)"
}

# tally NAME FILE: count of significant lines, out of all, and the rel%s.
tally() {
	python3 - "$1" "$2" "$REPS" <<'EOF'
import statistics, sys
name, path = sys.argv[1], sys.argv[2]
rows = [l.split() for l in open(path) if l.strip()]
sig = sum(int(r[0]) for r in rows)
neg = sum(1 for r in rows if int(r[0]) and r[1] != "None" and float(r[1]) < 0)
rel = [float(r[1]) for r in rows if r[1] != "None"]
meth = sorted(set(r[3] for r in rows))
med = statistics.median(rel) if rel else float("nan")
mde = [float(r[4]) for r in rows if len(r) > 4 and r[4] != "None"]
few = sum(int(r[6]) for r in rows if len(r) > 6)
flo = sorted(set(f"{float(r[5]):.2f}" for r in rows if len(r) > 5 and r[5] != "None"))
extra = f"  median detectable {statistics.median(mde):.2f}%" if mde else ""
extra += f"  floor {','.join(flo)}%" if flo else ""
extra += f"  too few to judge (_) {few}/{len(rows)}" if few else ""
print(f"{name:<32} significant {sig:>2}/{len(rows):<2} ({100 * sig / max(1, len(rows)):3.0f}%)"
      f"  slower & significant {neg:>2}/{len(rows):<2}  median rel {med:+.2f}%  test {','.join(meth)}{extra}")
EOF
}

echo "aa-significance: $(date -u +%FT%TZ) $(uname -r) $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "options: -t 1 ${LB_OPTS:-} (defaults otherwise), $REPS repetitions, $INV invocations per label, slower copy: ${PAD:-cycles}"
read -r PAD5 PAD2 PAD10 PADX2 < <(calibrate)
echo "calibrated: $KNOB $PAD5 for 5%, $KNOB $PAD2 for 2%, $KNOB $PAD10 for 10%, $KNOB $PADX2 for 2x"
echo "measured: $(sort -n "$W/cal-points" | awk '{printf "%s%s %s %.1f%% slower", (NR > 1 ? ", " : ""), K, $1, 100 * (1 - 1 / (1 + $2))}' K="$KNOB")"

if [[ " $SKIP " != *" within "* ]]; then
	for r in $RS; do
		: >"$W/w-aa-$r" ; : >"$W/w-x2-$r"
		for i in $(seq "$REPS"); do
			run "$W/w-aa-$r-$i.json" -l padded_a,padded_b -r "$r" &&
				verdict "$W/w-aa-$r-$i.json" >>"$W/w-aa-$r"
			run "$W/w-x2-$r-$i.json" -l padded_a,padded_b -r "$r" \
				--lock-opt "padded_b.$KNOB=$PADX2" && verdict "$W/w-x2-$r-$i.json" >>"$W/w-x2-$r"
		done
		tally "within a run, -r $r, A/A" "$W/w-aa-$r"
		tally "within a run, -r $r, 2x slower" "$W/w-x2-$r"
	done
	: >"$W/w-10" ; : >"$W/w-5" ; : >"$W/w-2"
	for i in $(seq "$REPS"); do
		run "$W/w-10-$i.json" -l padded_a,padded_b --lock-opt "padded_b.$KNOB=$PAD10" &&
			verdict "$W/w-10-$i.json" >>"$W/w-10"
		if [[ " $SKIP " != *" power2 "* ]]; then
			run "$W/w-5-$i.json" -l padded_a,padded_b --lock-opt "padded_b.$KNOB=$PAD5" &&
				verdict "$W/w-5-$i.json" >>"$W/w-5"
			run "$W/w-2-$i.json" -l padded_a,padded_b --lock-opt "padded_b.$KNOB=$PAD2" &&
				verdict "$W/w-2-$i.json" >>"$W/w-2"
		fi
	done
	tally "within a run, 10% slower" "$W/w-10"
	if [[ " $SKIP " != *" power2 "* ]]; then
		tally "within a run, 5% slower" "$W/w-5"
		tally "within a run, 2% slower" "$W/w-2"
	fi
fi

# designs: the candidate tests on the first r rounds of the -r 10 runs.
if [[ " $SKIP " != *" designs "* && " $SKIP " != *" within "* && " $RS " == *" 10 "* ]]; then
	if python3 -c "import mpmath" 2>/dev/null; then
		python3 "$ROOT/scripts/sig_designs.py" "$W" "$REPS"
	else
		echo "designs: skipped (python3's mpmath is not installed)"
	fi
fi

if [[ " $SKIP " != *" across "* ]]; then
	: >"$W/x-aa" ; : >"$W/x-5" ; : >"$W/x-1"
	for i in $(seq "$REPS"); do
		A=() A2=() B=()
		for k in $(seq "$INV"); do
			run "$W/x-$i-A-$k.json" -l padded_a --label A && A+=("$W/x-$i-A-$k.json")
			run "$W/x-$i-A2-$k.json" -l padded_a --label A2 && A2+=("$W/x-$i-A2-$k.json")
			run "$W/x-$i-B-$k.json" -l padded_a --label B \
				--lock-opt "padded_a.$KNOB=$PAD5" && B+=("$W/x-$i-B-$k.json")
		done
		"$LB" compare -f json -o "$W/x-aa-$i.json" "${A[@]}" "${A2[@]}" &&
			verdict "$W/x-aa-$i.json" >>"$W/x-aa"
		"$LB" compare -f json -o "$W/x-5-$i.json" "${A[@]}" "${B[@]}" &&
			verdict "$W/x-5-$i.json" >>"$W/x-5"
		"$LB" compare -f json -o "$W/x-1-$i.json" "${A[0]}" "${A2[0]}" &&
			verdict "$W/x-1-$i.json" >>"$W/x-1"
	done
	tally "across invocations, A/A" "$W/x-aa"
	tally "across invocations, 5% slower" "$W/x-5"
	tally "one invocation a side, A/A" "$W/x-1"
fi
# One invocation a side, separate processes, with the invocation floor:
# what a stock-vs-patched pair of saved runs gets.
if [[ " $SKIP " != *" one "* ]]; then
	[ ${#FLOOR[@]} -gt 0 ] || echo "one invocation a side: no floor given (-f or -m): not assessed"
	: >"$W/o-aa" ; : >"$W/o-10"
	for i in $(seq "$REPS"); do
		run "$W/o-$i-A.json" -l padded_a --label A &&
		run "$W/o-$i-A2.json" -l padded_a --label A2 &&
		run "$W/o-$i-B.json" -l padded_a --label B --lock-opt "padded_a.$KNOB=$PAD10" || continue
		"$LB" compare ${FLOOR[@]+"${FLOOR[@]}"} -f json -o "$W/o-aa-$i.json" "$W/o-$i-A.json" \
			"$W/o-$i-A2.json" && verdict "$W/o-aa-$i.json" >>"$W/o-aa"
		"$LB" compare ${FLOOR[@]+"${FLOOR[@]}"} -f json -o "$W/o-10-$i.json" "$W/o-$i-A.json" \
			"$W/o-$i-B.json" && verdict "$W/o-10-$i.json" >>"$W/o-10"
	done
	tally "one a side, floor, A/A" "$W/o-aa"
	tally "one a side, floor, 10% slower" "$W/o-10"
fi
# The gate beside a half-CPU load on the baseline's side (one
# invocation a side): the exit statuses of compare --fail-if-regressed.
# gate_counts NAME FILE: "NAME: exit 0 N, exit 4 N, exit 5 N of M".
gate_counts() {
	printf '%-32s exit 0 (passed) %s, exit 4 (regression) %s, exit 5 (cannot assess) %s, of %s\n' \
		"$1" "$(grep -c '^0$' "$2")" "$(grep -c '^4$' "$2")" "$(grep -c '^5$' "$2")" \
		"$(grep -c . "$2")"
}
if [[ " $SKIP " != *" loaded "* ]] && command -v taskset >/dev/null; then
	GATE=("${FLOOR[@]}")
	[ ${#GATE[@]} -gt 0 ] || GATE=(--floor 3%)
	: >"$W/g-x2" ; : >"$W/g-aa"
	for i in $(seq "$REPS"); do
		taskset -c 0 sh -c 'while :; do :; done' &
		hog=$!
		taskset -c 0 "$LB" -q -t 1 "${EXTRA[@]}" --plugin "a=$PLUGIN" -l padded_a --label A \
			-f json -o "$W/g-$i-A.json" 2>>"$W/stderr.log"
		kill "$hog"; wait "$hog" 2>/dev/null || true
		taskset -c 0 "$LB" -q -t 1 "${EXTRA[@]}" --plugin "a=$PLUGIN" -l padded_a --label B \
			--lock-opt "padded_a.$KNOB=$PADX2" -f json -o "$W/g-$i-B.json" 2>>"$W/stderr.log"
		taskset -c 0 "$LB" -q -t 1 "${EXTRA[@]}" --plugin "a=$PLUGIN" -l padded_a --label A2 \
			-f json -o "$W/g-$i-A2.json" 2>>"$W/stderr.log"
		rc=0
		"$LB" compare "${GATE[@]}" --fail-if-regressed 3% "$W/g-$i-A.json" "$W/g-$i-B.json" \
			>/dev/null 2>>"$W/gate.log" || rc=$?
		echo $rc >>"$W/g-x2"
		rc=0
		"$LB" compare "${GATE[@]}" --fail-if-regressed 3% "$W/g-$i-A.json" "$W/g-$i-A2.json" \
			>/dev/null 2>>"$W/gate.log" || rc=$?
		echo $rc >>"$W/g-aa"
		# the slowdown the copy had: quiet B against quiet A2
		echo "$(rate "$W/g-$i-A2.json" padded_a) $(rate "$W/g-$i-B.json" padded_a)" >>"$W/g-ratio"
	done
	echo "gate beside a half-CPU load on the baseline (${GATE[*]}, --fail-if-regressed 3%):"
	gate_counts "  2x slower copy" "$W/g-x2"
	gate_counts "  A/A" "$W/g-aa"
	awk '{ printf "%s%.2f", (NR > 1 ? ", " : "  the copy'"'"'s slowdown (quiet A2 / quiet B): "), $1 / $2 }
	     END { print "" }' "$W/g-ratio"
	sed -n '1p' "$W/gate.log" | sed 's/^/  e.g. /'
fi
echo "done: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg)"
