#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# lockbench against a real kernel on machines bigger than this one:
# scripts/vm.sh guests of Debian's own kernel (2 nodes x 4 CPUs; 4
# sockets x 4 cores in 4 nodes; 2 sockets x 4 cores x 2 threads in 2
# nodes; 64 CPUs in 8 nodes), one boot per topology, many checks per
# boot.  In each guest tests/vm/guest.sh gathers the kernel's own facts
# (sysfs, the workers' affinity in /proc, numa_maps, numa_balancing, the
# real locktorture module's dmesg) and tests/vm/check.py checks them
# against the docs.  Correctness only: no timing is asserted beyond a
# generous bound for a run to end (TCG emulates the guest's CPUs one
# after another, docs/vm.md).  Skipped, with one line, where
# qemu-system-x86 is absent.
#
# usage: tests/e2e_vm.sh [./lockbench]
#        tests/e2e_vm.sh --self-test [./lockbench]
#        tests/e2e_vm.sh --full [./lockbench]
# --self-test boots a guest whose lockbench has real-kernel facts broken
# (tests/vm/broken.sh: a placement that ignores a node, a memory node
# ignored, a numa_balancing restore skipped, the locktorture module
# missing, a kernel tree's CNA lock run without the nodes) and passes
# only when the checks catch every one.
# --full (make vm-full) boots only the 8x8 guest and runs every built-in
# lock at 64 threads there, which takes too long for make test
# (docs/vm.md has the times).
# LOCKBENCH_VM_CACHE (see scripts/vm.sh) keeps the kernel between runs.
set -u
SELF=0 FULL=0
case ${1:-} in
--self-test) SELF=1; shift ;;
--full) FULL=1; shift ;;
esac
BIN=$(realpath "${1:-./lockbench}")
HERE=$(cd "$(dirname "$0")" && pwd)
VM=$HERE/../scripts/vm.sh
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$HERE/lib.sh"

for p in qemu-system-x86_64 busybox cpio; do
	if ! command -v $p >/dev/null; then
		echo "e2e_vm: skipped: no $p (Debian: apt-get install qemu-system-x86 busybox-static cpio)"
		exit 0
	fi
done
# A topology mistyped: one line, exit 2, before anything is downloaded.
for t in 3xq 0x4 2x3x2; do
	expect_exit 2 "vm.sh $t" -- env LOCKBENCH_VM_CACHE="$OUT/nocache" "$VM" "$t" -- true
	one_line "vm.sh $t" "topology '$t'"
	[ -z "$(ls -A "$OUT/nocache" 2>/dev/null)" ] && ok || bad "vm.sh $t: prepared the guest before checking the topology"
done
"$VM" --prepare >/dev/null || { bad "the guest kernel and locktorture module could not be prepared"; exit 1; }
# The kernel-tree feature over real nodes (docs/kernel-tree.md): the
# fixture tree and the same tree with the fixture's CNA-like patch mail
# applied by scripts/make-cna-tree.sh, as tests/e2e_ktree.sh makes them,
# built here with build-kernel-lock -o (the guest has no compiler) and
# carried into every guest's /in/ktree for --plugin.
KT=$OUT/ktree
mkdir -p "$KT"
ONE=$HERE/fixtures/ktree-onefile
if [ "$FULL" = 0 ] && ! { LOCKBENCH_CACHE=$OUT/ktcache "$HERE/../scripts/make-cna-tree.sh" "$ONE" "$HERE/fixtures/ktree-cna" "$OUT/cna" &&
	LOCKBENCH_CACHE=$OUT/ktcache "$BIN" build-kernel-lock "$ONE" -o "$KT/stock.so" &&
	LOCKBENCH_CACHE=$OUT/ktcache "$BIN" build-kernel-lock "$OUT/cna" -o "$KT/cna.so"; } >"$OUT/ktree.log" 2>&1; then
	bad "the kernel-tree plugins could not be built: $(tail -3 "$OUT/ktree.log")"
fi

# guest TOPOLOGY [ENV=V ...] -- STEP...: boot TOPOLOGY, run guest.sh's
# STEPs, count check.py's verdicts; CHECKS holds them.
guest() {
	local topo=$1 envs=() t0 rc
	shift
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	local d=$OUT/$topo
	t0=$(date +%s)
	"$VM" -T "${LIMIT:-900}" -b "$BIN" -i "$HERE/vm/guest.sh" -i "$HERE/vm/broken.sh" -i "$KT" -o "$d" "$topo" \
		-- env "${envs[@]}" sh /in/guest.sh "$@" >"$OUT/$topo.stdout" 2>"$OUT/$topo.stderr"
	rc=$?
	# the host's time, and each step's in the guest (the guest's clock
	# follows the host's; docs/vm.md), to judge the suite's time by
	echo "e2e_vm: guest $topo: $(($(date +%s) - t0)) s;$(awk '{ printf "%s %s %.0f s", (NR > 1 ? "," : ""), $1, $3 - $2 }' \
		"$d/steps.txt" 2>/dev/null)" >&2
	if [ $rc -ne 0 ]; then
		bad "guest $topo: vm.sh exit $rc: $(tail -5 "$OUT/$topo.stderr")"
		return 1
	fi
	IFS=x read -r nodes per thr <<<"$topo"
	VM_END_BOUND_S=${BOUND:-20} python3 "$HERE/vm/check.py" "$d" "$nodes" "$per" "${thr:-1}" "$@" >"$OUT/$topo.checks"
	CHECKS=$OUT/$topo.checks
	while read -r verdict rest; do
		case $verdict in
		ok) ok ;;
		FAIL) [ "$SELF" = 1 ] || bad "guest $topo: $rest" ;;
		esac
	done <"$CHECKS"
}

# caught WHAT: the self-test's checks flagged WHAT (a FAIL line holding it).
caught() {
	if grep -q "^FAIL .*$1" "$CHECKS"; then ok; else bad "self-test: a broken $2 went unnoticed"; fi
}

if [ "$SELF" = 1 ]; then
	# numab first: broken.sh leaves numa_balancing off after every run
	guest 4x4 LB=/in/broken.sh -- numab place/spread/4 mem/1/cores lt/1 ktree/16
	caught "placement spread at 4 threads: workers' affinity" "placement (a node ignored)"
	caught "mem-node 1 -p cores: its pages are on node 1" "memory node"
	caught "numa_balancing: restored after a normal end" "numa_balancing restore"
	caught "locktorture --check: the real module loads" "locktorture module (missing)"
	caught "CNA tree's secondary queue taken" "kernel-tree CNA run (without the nodes)"
	echo "e2e_vm --self-test: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi

if [ "$FULL" = 1 ]; then
	# every built-in lock, one run each, in one boot (18 to 25 min)
	BOUND=300 LIMIT=5400 guest 8x8 WD=300 -- locks/64
	echo "e2e_vm --full: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit
fi

guest 2x4 -- place/cores/8 place/smt/4 place/spread/4 place/node:1/4 place/cpus:7,0,5/3
guest 2x8x2 -- place/cores/8 place/cores/16 place/smt/4 place/spread/6 place/node:1/8 cna/16
guest 4x4 -- place/cores/16 place/spread/8 place/node:2,3/4 place/none/4 \
	mem/2/cores mem/local/node:3 mem/interleave/spread \
	locks/1,4,16 sig/TERM sig/HUP sig/INT numab cna/16 ktree/16 lt/1,2,4
# 64 threads: a lock of each family, the quickest there (a sleeping, a
# FIFO spinning, a queued, a NUMA-aware and a reader-writer lock; every
# built-in lock is --full's), the watchdog and the bound at 300 s (a
# hand-off may wait for 64 emulated CPUs' turns, docs/vm.md)
BOUND=300 guest 8x8 WD=300 -- place/spread/64 mem/7/node:7 \
	locks/64/rtmutex,ticket,qspinlock,cna,pthread_rwlock
e2e_done
