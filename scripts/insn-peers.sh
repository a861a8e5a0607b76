#!/usr/bin/env bash
# Instructions per lock+unlock at 1 thread, empty sections, under
# valgrind's callgrind: lockbench's loops against the peers' loops.
# Deterministic where time is not (scripts/bench-peers.sh times them).
#
#   scripts/insn-peers.sh [./lockbench] [lockhammer=DIR] [ck=DIR]
#   (or LOCKHAMMER_DIR, CK_DIR; either may be left out)
#
# lockbench: the whole worker loop instantiated for the lock (the owner
#   word, the unprotected counter, the sampled operation, the stop flag),
#   per operation, as tests/e2e_insn.sh counts it; "lock" is that less
#   the `null` loop: what lock and unlock add.
# lockhammer: its timed loop (-D, the one bench-peers.sh times), per
#   operation, from two runs of different length (the difference cancels
#   start-up and calibration); "lock" is that less lh_empty's.
# ck: its LATENCY loop (four lock/unlock pairs a turn, nothing else),
#   per pair, from two builds of different STEPS: lock and unlock only.
set -euo pipefail
BIN=$(realpath "${1:-./lockbench}")
shift || true
. "$(dirname "$0")/peers-build.sh"
peers_args insn-peers "lockhammer ck" "$@"
command -v valgrind >/dev/null || { echo "insn-peers: valgrind not installed" >&2; exit 1; }
HERE=$(cd "$(dirname "$0")" && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
log() { echo "insn-peers: $*" >&2; }
LOCKS="null tas ttas ticket anderson mcs clh qspinlock pthread_mutex"

# Instructions of a whole run of "$@" under callgrind.
ir() {
	valgrind -q --tool=callgrind --callgrind-out-file="$W/cg" "$@" >/dev/null 2>&1
	awk '/^(summary|totals):/ {print $2; exit}' "$W/cg"
}

# lockhammer's timed loop (-D S seconds), in its thread function hmr():
# "INSTRUCTIONS ACQUIRES" of one run.
lh_insn() {
	valgrind -q --tool=callgrind --callgrind-out-file="$W/cg" --toggle-collect=hmr \
		"$1" -c 0 -p 0 -t 1 -D "$2" -v >"$W/lh.out" 2>&1
	echo "$(awk '/^(summary|totals):/ {print $2; exit}' "$W/cg")" \
		"$(awk '/^total_lock_acquires =/ {print $3; exit}' "$W/lh.out")"
}

: >"$W/res"
budgets=$(for l in $LOCKS; do printf '%s=999 ' "$l"; done)
LB_INSN_BUDGET=$budgets "$HERE/../tests/e2e_insn.sh" "$BIN" 2>/dev/null |
	awk '/instructions per operation/ {sub(":", "", $2); print "lockbench", $2, $3}' >>"$W/res"

if [ -n "${LOCKHAMMER_DIR:-}" ]; then
	log "building lockhammer from $LOCKHAMMER_DIR"
	if peers_build_lockhammer "$LOCKHAMMER_DIR" >"$W/lh.list"; then
		while read -r lock bin; do
			lh_insn "$bin" 0.2 >"$W/lh1"
			lh_insn "$bin" 0.6 >"$W/lh2"
			read -r i1 n1 <"$W/lh1"
			read -r i2 n2 <"$W/lh2"
			echo "lockhammer $lock $(awk -v a="$i1" -v b="$i2" -v m="$n1" -v n="$n2" \
				'BEGIN {if (n > m) printf "%.1f", (b - a) / (n - m)}')" >>"$W/res"
		done <"$W/lh.list"
	else
		log "lockhammer did not build: skipped"
	fi
fi
if [ -n "${CK_DIR:-}" ]; then
	log "building Concurrency Kit's latency benchmarks from $CK_DIR"
	if peers_build_ck "$CK_DIR" 100000 >"$W/ck1.list" &&
	   peers_build_ck "$CK_DIR" 300000 >"$W/ck3.list"; then
		paste -d' ' "$W/ck1.list" "$W/ck3.list" | while read -r lock b1 _ b3; do
			a=$(ir "$b1")
			b=$(ir "$b3")
			echo "ck $lock $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.1f", (b - a) / 800000}')" >>"$W/res"
		done
	else
		log "ck did not build: skipped"
	fi
fi

python3 - "$W/res" "$LOCKS" <<'PY'
import sys
res = {}
for line in open(sys.argv[1]):
    peer, lock, n = line.split()
    res[(peer, lock)] = float(n)
def cell(peer, lock, less=None):
    if (peer, lock) not in res:
        return "%8s" % "-"
    v = res[(peer, lock)]
    if less and (peer, less) in res:
        v -= res[(peer, less)]
    return "%8.1f" % v
print("instructions per lock+unlock at 1 thread, empty sections (callgrind)")
print("%-14s %8s %8s   %8s %8s   %8s" % ("", "lockbench", "", "lockhammer", "", "ck"))
print("%-14s %8s %8s   %8s %8s   %8s" % ("lock", "loop", "lock", "loop", "lock", "lock"))
for lock in sys.argv[2].split():
    print("%-14s %8s %8s   %8s %8s   %8s" % (
        lock, cell("lockbench", lock), cell("lockbench", lock, "null"),
        cell("lockhammer", lock), cell("lockhammer", lock, "null"), cell("ck", lock)))
PY
