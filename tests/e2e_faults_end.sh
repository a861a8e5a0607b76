#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault battery, a run's end: a spinning lock oversubscribed beyond
# its bound is refused before anything is tuned; at the bound, a stop
# signal is obeyed within about a second while the workers still drain a
# FIFO queue, and a hang ends within the watchdog's bound; a worker that
# cannot start ends the sweep with exit 2.  Every case runs against the
# fake sysfs tree (tests/fakesys/mkfake) and checks that the tree is left
# exactly as it was found, with no state file left.  Each run is under
# `timeout`; the time bounds are seconds, generous for a busy machine.
# Usage: tests/e2e_faults_end.sh [./lockbench]
set -u
. "$(dirname "$0")/lib.sh"
e2e_setup "$@"

build_mkfake
CPUF=$OUT/tree/root/sys/devices/system/cpu
# untouched WHAT SUM: the tree is as it was (governor, scaling_setspeed,
# boost, numa_balancing and the rest) and no state file is left.
untouched() {
	[ "$(tree_sum "$OUT/tree/root")" = "$2" ] && ok || bad "$1: the fake machine was left changed:" \
		"governor $(cat "$CPUF/cpu0/cpufreq/scaling_governor")," \
		"setspeed $(cat "$CPUF/cpu0/cpufreq/scaling_setspeed"), boost $(cat "$CPUF/cpufreq/boost")"
	[ ! -e "$LOCKBENCH_STATE" ] && ok || bad "$1: state file left"
}
cpus=$(nproc)

# ---- a spinning lock oversubscribed beyond its bound ------------------------
# 4096 threads of a spinning lock on a small machine ran for minutes,
# deaf to SIGTERM, the machine left tuned: refused at once, one line,
# exit 2, before anything is tuned.  Sleeping locks are not bounded.
fresh_tree
sum=$(tree_sum "$OUT/tree/root")
t0=$(now)
expect_exit 2 "ticket at 4096 threads" -- timeout -k 5 30 "$BIN" -l ticket -t 4096 -d 0.05 --warmup 0.01 -r 1
within "ticket at 4096 threads refused" "$t0" 10
one_line "ticket at 4096 threads" "ticket spins, and 4096 threads is more than 16 per usable CPU"
untouched "ticket at 4096 threads" "$sum"
expect_exit 2 "ticket at 17 threads on one CPU" -- "$BIN" -l ticket -p cpus:0 -t 1,17 --dry-run
one_line "ticket at 17 threads on one CPU" "use at most 16 threads or a lock that sleeps"
expect_exit 2 "a sweep with one spinning lock" -- "$BIN" -l pthread_mutex,mcs -p cpus:0 -t 64 --dry-run
one_line "a sweep with one spinning lock" "mcs spins"
expect_exit 0 "ticket at 16 threads on one CPU" -- "$BIN" -l ticket -p cpus:0 -t 16 --dry-run
expect_exit 0 "pthread_mutex at 4096 threads" -- "$BIN" -l pthread_mutex -t 4096 --dry-run
expect_exit 0 "tas at 16 threads per CPU" -- "$BIN" -l tas -t $((16 * cpus)) --dry-run

# ---- at the bound: a stop signal while the queue drains -----------------------
# 16 ticket threads on one CPU, each holding the lock 0.25 s: once
# stopped, the queue alone takes seconds to drain (every waiter still
# takes its turn).  SIGTERM mid-run is obeyed within about a second
# (the workers left in the queue are abandoned), exit 1, the machine
# restored, the state file there while tuned and gone after.
fresh_tree
sum=$(tree_sum "$OUT/tree/root")
"$BIN" -l ticket -p cpus:0 -t 16 --cs-ns 250ms -d 60 --warmup 0 -r 1 \
	-f json -o "$OUT/term.json" >"$OUT/term.out" 2>"$OUT/term.err" &
pid=$!
# A timeout that keeps lockbench's own exit status (and ends its sleep).
(trap 'kill $s 2>/dev/null; exit 0' TERM; sleep 120 & s=$!; wait $s; kill -KILL $pid) \
	>/dev/null 2>&1 &
killer=$!
until_stderr "$OUT/term.err" "ticket threads=16" || bad "SIGTERM at the bound: the run never started"
sleep 1
[ "$(cat "$CPUF/cpu0/cpufreq/scaling_governor")" = userspace ] && ok ||
	bad "SIGTERM at the bound: the fake machine was not tuned"
[ -s "$LOCKBENCH_STATE" ] && ok || bad "SIGTERM at the bound: no state file while tuned"
t0=$(now)
kill -TERM $pid
wait $pid
rc=$?
within "SIGTERM at the bound" "$t0" 3
kill $killer 2>/dev/null
[ $rc -eq 1 ] && ok || bad "SIGTERM at the bound: exit $rc ($(head -c 300 "$OUT/term.err"))"
grep -q "interrupted" "$OUT/term.err" && ok || bad "SIGTERM at the bound: $(cat "$OUT/term.err")"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['incomplete']" "$OUT/term.json" &&
	ok || bad "SIGTERM at the bound: no incomplete JSON"
untouched "SIGTERM at the bound" "$sum"

# ---- at the bound: a hang ends within the watchdog's bound --------------------
# A lock that never releases, 16 threads on one CPU, --watchdog 1: the
# run ends (warm-up + the watchdog + the watchdog for the workers to
# leave, and then some), exit 1, the machine restored.
if "$CC" -std=gnu11 -O2 -shared -fPIC -I"$ROOT/locks" "$ROOT/tests/plugins/deadlock.c" \
	-o "$OUT/deadlock.so"; then
	fresh_tree
	sum=$(tree_sum "$OUT/tree/root")
	t0=$(now)
	expect_exit 1 "hang at the bound" -- timeout -k 5 60 "$BIN" --plugin "$OUT/deadlock.so" -l deadlock \
		-p cpus:0 -t 16 -r 1 --warmup 0 -d 5 --watchdog 1 -q
	within "hang at the bound" "$t0" 15
	grep -q "made no progress for 1.0 s\|did not stop" "$OUT/stderr" && ok ||
		bad "hang at the bound: $(cat "$OUT/stderr")"
	untouched "hang at the bound" "$sum"
else
	bad "building tests/plugins/deadlock.c"
fi

# ---- a worker that cannot start --------------------------------------------
# Under `ulimit -v` a worker thread cannot be created:
# one line says so, exit 2, and the governor, scaling_setspeed, boost and
# numa_balancing are put back with the state file gone.  The limit that
# lets the binary load but not the thread depends on the build; the
# first that gives "starting thread" is used.
found=
for lim in 16000 20000 24000 28000 32000 40000; do
	fresh_tree
	sum=$(tree_sum "$OUT/tree/root")
	(ulimit -v $lim; exec timeout -k 5 60 "$BIN" -l ticket -t 1,2 -d 0.05 --warmup 0.01 -r 1 -q) \
		>"$OUT/stdout" 2>"$OUT/stderr"
	rc=$?
	grep -q "starting thread" "$OUT/stderr" || continue
	found=$lim
	[ $rc -eq 2 ] && ok || bad "worker not started (ulimit -v $lim): exit $rc"
	one_line "worker not started (ulimit -v $lim)" "starting thread [0-9]* of [12] (cpu [0-9]*) failed"
	untouched "worker not started (ulimit -v $lim)" "$sum"
	break
done
[ -n "$found" ] && ok || bad "no ulimit -v made a worker fail to start: $(cat "$OUT/stderr")"

e2e_done
