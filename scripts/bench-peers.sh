#!/usr/bin/env bash
# lockbench side by side with its peers at 1 thread, empty critical and
# parallel sections, interleaved: run k of every contender, then run k+1.
# Prints ns per lock+unlock pair (median of the runs) and lockbench's
# throughput relative to the best peer's (peer ns / lockbench ns: 1.00
# is as fast, below 0.90 is a lockbench loop that costs more than the
# peer's).
#
#   scripts/bench-peers.sh [./lockbench]
#
# Peers, built from source folders you name (nothing is downloaded; no
# peer code is in this repository); any left unset is skipped:
#   LOCKHAMMER_DIR  ARM's synchronization-benchmarks checkout (the whole
#                   repository: lockhammer includes ../../ext)
#   CK_DIR          Concurrency Kit checkout (regressions/ck_spinlock)
#   LIBSLOCK_DIR    libslock checkout (bmarks/stress_one.c)
# or as arguments after the binary: lockhammer=DIR ck=DIR libslock=DIR.
# CPU: run every contender on that one CPU (lockbench -p cpus:CPU,
# lockhammer -o CPU, taskset for the others; default: lockbench's and
# lockhammer's first CPU, the scheduler's choice for ck and libslock).
# RUNS (default 5) runs of DURATION (default 1) seconds each; LB_ARGS:
# more lockbench options (e.g. LB_ARGS="--lat-sample 0": no latency
# sampling, whose two clock reads per 256 operations the default pays).
#
# The same section everywhere: lockbench --cs-lines 0 --ncs-ns 0 (the
# mutual-exclusion check stays on); lockhammer -c 0 -p 0 (not -c 0ns,
# which is a calibrated loop of 0-30 iterations, not an empty section);
# ck's LATENCY benchmarks (lock, unlock, nothing between); libslock's
# stress_one -n 1 -a 0 -p 0 -c 0.
set -euo pipefail
BIN=$(realpath "${1:-./lockbench}")
shift || true
. "$(dirname "$0")/peers-build.sh"
peers_args bench-peers "lockhammer ck libslock" "$@"
RUNS=${RUNS:-5}
DURATION=${DURATION:-1}
PIN=() LB_PIN=() LH_PIN=()
if [ -n "${CPU:-}" ]; then
	PIN=(taskset -c "$CPU") LB_PIN=(-p "cpus:$CPU") LH_PIN=(-o "$CPU")
fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
log() { echo "bench-peers: $*" >&2; }

# contender table: NAME LOCK COMMAND... (lines in $W/contenders)
: >"$W/contenders"
add() { echo "$*" >>"$W/contenders"; }

for l in null tas ttas ticket anderson mcs clh qspinlock pthread_mutex; do
	add "lockbench $l lb $l"
done

# ---- build the peers (in copies under $W) ----------------------------------
# STEPS x 4 pairs per ck run: about DURATION seconds at ~5 ns a pair.
steps=$(awk -v d="$DURATION" 'BEGIN {printf "%d", d * 5e7}')
if [ -n "${LOCKHAMMER_DIR:-}" ]; then
	log "building lockhammer from $LOCKHAMMER_DIR"
	peers_build_lockhammer "$LOCKHAMMER_DIR" >"$W/lh.list" ||
		log "lockhammer did not build (see its make output): skipped"
	while read -r lock bin; do add "lockhammer $lock lh $bin"; done <"$W/lh.list"
fi
if [ -n "${CK_DIR:-}" ]; then
	log "building Concurrency Kit's spinlock benchmarks from $CK_DIR"
	peers_build_ck "$CK_DIR" "$steps" >"$W/ck.list" || log "ck did not build: skipped"
	while read -r lock bin; do add "ck $lock ck $steps $bin"; done <"$W/ck.list"
fi
if [ -n "${LIBSLOCK_DIR:-}" ]; then
	log "building libslock's stress_one from $LIBSLOCK_DIR (one binary per lock)"
	peers_build_libslock "$LIBSLOCK_DIR" >"$W/sl.list"
	while read -r lock bin; do add "libslock $lock sl $bin"; done <"$W/sl.list"
fi

# ---- one run of one contender: ns per pair on stdout -------------------------
run_one() {
	local kind=$1
	shift
	case $kind in
	lb)
		"$BIN" -l "$1" -t 1 -r 1 --warmup 0.2 -d "$DURATION" --cs-lines 0 --ncs-ns 0 \
			--no-tune --no-probe -q -f json -o "$W/lb.json" "${LB_PIN[@]}" \
			${LB_ARGS:-} >/dev/null # split on purpose
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
r=d["points"][0]["runs"][0]
assert d["points"][0]["status"] == "ok", d["points"][0]["status"]
print("%.3f" % (1e9 / r["ops_per_sec"]))' "$W/lb.json"
		;;
	lh)
		"$1" -c 0 -p 0 -t 1 -D "$DURATION" "${LH_PIN[@]}" 2>&1 |
			awk '/locks\/wall_sec/ {h = 1; next} h && NF {v = $NF} END {if (v > 0) printf "%.3f\n", 1e9 / v}'
		;;
	ck)
		local steps=$1 t0 t1
		t0=$(date +%s%N)
		"${PIN[@]}" "$2" >/dev/null
		t1=$(date +%s%N)
		awk -v a="$t0" -v b="$t1" -v s="$steps" 'BEGIN {printf "%.3f\n", (b - a) / (4 * s)}'
		;;
	sl)
		"${PIN[@]}" "$1" -n 1 -a 0 -p 0 -c 0 -d "$(awk -v d="$DURATION" 'BEGIN {printf "%d", d * 1000}')" 2>&1 |
			awk -F'[( ]+' '/^#acquires/ {for (i = 1; i <= NF; i++) if ($i == "/") v = $(i - 1)} END {if (v > 0) printf "%.3f\n", 1e9 / v}'
		;;
	esac
}

# ---- interleaved runs ---------------------------------------------------------
for k in $(seq 1 "$RUNS"); do
	log "round $k of $RUNS"
	while read -r peer lock kind args; do
		# shellcheck disable=SC2086
		ns=$(run_one "$kind" $args) || ns=
		[ -n "$ns" ] && echo "$peer $lock $ns" >>"$W/results"
	done <"$W/contenders"
done

# ---- table ----------------------------------------------------------------------
LB_ARGS=${LB_ARGS:-} CPU=${CPU:-} python3 - "$W/results" "$RUNS" "$BIN" <<'PY'
import collections, statistics, subprocess, sys
res = collections.defaultdict(list)
for line in open(sys.argv[1]):
    peer, lock, ns = line.split()
    res[(lock, peer)].append(float(ns))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "?")
import os
print("ns per lock+unlock pair at 1 thread, empty sections, median of %s interleaved runs; %s%s%s"
      % (sys.argv[2], cpu, "; CPU " + os.environ["CPU"] if os.environ.get("CPU") else "",
         "; lockbench " + os.environ["LB_ARGS"] if os.environ.get("LB_ARGS") else ""))
print("%-14s %10s %11s %11s %11s  %-11s %s" % ("lock", "lockbench", "lockhammer", "ck",
                                             "libslock", "best peer", "lockbench/best"))
locks = ["null", "tas", "ttas", "ticket", "anderson", "mcs", "clh", "qspinlock", "pthread_mutex"]
for lock in locks:
    med = {p: statistics.median(v) for (l, p), v in res.items() if l == lock}
    if "lockbench" not in med:
        continue
    peers = {p: v for p, v in med.items() if p != "lockbench"}
    cell = lambda p: "%11.2f" % med[p] if p in med else "%11s" % "-"
    if peers:
        best = min(peers, key=peers.get)
        ratio = "%.2f" % (peers[best] / med["lockbench"])
    else:
        best, ratio = "-", "-"
    print("%-14s %10.2f %s %s %s  %-11s %s" % (lock, med["lockbench"], cell("lockhammer"),
                                             cell("ck"), cell("libslock"), best, ratio))
PY
