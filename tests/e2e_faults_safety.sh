#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault battery, continued: touching only what lockbench created and
# ending every start-up failure cleanly.
#
#   - the state file: whatever else the path names (a device node, FIFO,
#     symlink, directory, an empty or foreign file, JSON without
#     lockbench's mark) is left as it is, with one line and exit 2; a
#     state file recorded under another sysfs root is refused;
#   - a worker that cannot be started, a placement that cannot be pinned,
#     a plugin init() that fails or never returns, a thread_init() that
#     never returns: one line, exit 2, the machine restored, the points
#     measured before it written;
#   - the first SIGINT while a start-up hangs (init(), thread_init())
#     ends the run;
#   - signals ignored at start (nohup, `trap '' TERM`) stay ignored.
#
# Everything happens under one temporary directory: the machine settings
# in fake sysfs trees (mkfake), device nodes made here with mknod
# (skipped where not permitted), never the real /dev or /sys.  Start-up
# failures are injected with tests/fault_preload.c (LD_PRELOAD), so they
# happen on any host whatever its limits.
# Usage: tests/e2e_faults_safety.sh [./lockbench]
set -u
. "$(dirname "$0")/lib.sh"
e2e_setup "$@"
QUICK=(-t 1 -r 1 --warmup 0 -d 0.05 -q)


build_mkfake
"$CC" -std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC "$ROOT/tests/fault_preload.c" \
	-o "$OUT/fault.so" -ldl || exit 1
for p in init_fails init_hangs thread_init_hangs; do
	"$CC" -std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$ROOT/locks" \
		"$ROOT/tests/plugins/$p.c" -o "$OUT/$p.so" || exit 1
done
restored() {	# restored WHAT: governor, boost, numa_balancing back; no state file
	[ "$(cat "$GOV")" = schedutil ] && ok || bad "$1: governor $(cat "$GOV")"
	[ "$(cat "$BOOST")" = 1 ] && ok || bad "$1: boost $(cat "$BOOST")"
	[ "$(cat "$NUMA")" = 1 ] && ok || bad "$1: numa_balancing $(cat "$NUMA")"
	[ ! -e "$LOCKBENCH_STATE" ] && ok || bad "$1: state file left"
}
fresh_tree
[ "$(cat "$GOV")" = schedutil ] || { echo "e2e_faults_safety: fake tree has no governor"; exit 1; }

# ---- 1. the state file: only lockbench's own ------------------------------

# refused WHAT PATH PATTERN: `system reset` with the state file at PATH
# says PATTERN in one line, exits 2, and PATH is still what it was.
refused() {
	local what=$1 path=$2 before
	before=$(stat -c '%F %i %t:%T %s' "$path")
	expect_exit 2 "$what" -- timeout -k 5 20 env LOCKBENCH_STATE="$path" "$BIN" system reset
	one_line "$what" "$3"
	[ "$(stat -c '%F %i %t:%T %s' "$path" 2>/dev/null)" = "$before" ] && ok ||
		bad "$what: $path was changed or removed"
}
D=$OUT/nodes
mkdir -p "$D"
if mknod "$D/null" c 1 3 2>/dev/null && mknod "$D/zero" c 1 5 2>/dev/null; then
	refused "a copy of /dev/null" "$D/null" "a character device, not a state file lockbench wrote; left as it is"
	[ -c "$D/null" ] && ok || bad "the null node is no longer a character device"
	refused "a copy of /dev/zero" "$D/zero" "a character device"
	# A run with the node as state file tunes nothing and keeps it.
	expect_exit 3 "run --freq with a device as state file" -- env LOCKBENCH_STATE="$D/null" \
		"$BIN" "${QUICK[@]}" -l tas --freq 1500MHz
	grep -q "a character device, not a state file lockbench wrote" "$OUT/stderr" && ok ||
		bad "run with a device state: $(cat "$OUT/stderr")"
	[ -c "$D/null" ] && [ "$(cat "$GOV")" = schedutil ] && ok || bad "run with a device state"
	expect_exit 0 "system show with a device as state file" -- env LOCKBENCH_STATE="$D/null" \
		"$BIN" system show
	one_line "system show with a device as state file" "a character device"
else
	echo "e2e_faults_safety: mknod not permitted here: device-node cases skipped"
fi
: >"$D/empty"
refused "an empty file" "$D/empty" "empty, not a state file lockbench wrote"
mkfifo "$D/fifo"
refused "a FIFO" "$D/fifo" "a FIFO"
mkdir "$D/dir"
refused "a directory" "$D/dir" "a directory"
echo '{"pid": 1, "root": "", "changes": []}' >"$D/unmarked.json"
refused "JSON without the mark" "$D/unmarked.json" 'without "lockbench": "machine state"'
echo 'hello' >"$D/text"
refused "a text file" "$D/text" "not JSON"
# jansson's message quotes the bad text, newline included: still one line.
printf '{"lockbench": "machine state", "a": "\\u0\n"}' >"$D/badescape.json"
refused "JSON with a bad escape before a newline" "$D/badescape.json" "not JSON (invalid escape"
if [ "$(id -u)" -eq 0 ]; then
	printf '{"lockbench": "machine state", "pid": 1, "root": "", "persist": true, "changes": []}' \
		>"$D/foreign.json"
	chown 65534 "$D/foreign.json"
	refused "another user's file" "$D/foreign.json" "owned by uid 65534"
fi

# `system tune` creates it 0600 with the mark; a symlink to it is refused.
expect_exit 0 "system tune" -- "$BIN" system tune
[ "$(stat -c %a "$LOCKBENCH_STATE")" = 600 ] && ok || bad "state file mode $(stat -c %a "$LOCKBENCH_STATE")"
json_ok "state file" "$LOCKBENCH_STATE" "d['lockbench'] == 'machine state'"
ln -s "$LOCKBENCH_STATE" "$D/link"
refused "a symlink to a state file" "$D/link" "a symbolic link"
[ "$(cat "$GOV")" = userspace ] && ok || bad "a symlinked state file was restored"
# Tuning asked for is refused, not reported as "0 settings changed",
# when the state file is another lockbench's (3) or not lockbench's (2).
expect_exit 3 "system tune over a tuned machine" -- "$BIN" system tune
one_line "system tune over a tuned machine" "left by another lockbench.*nothing tuned"
printf 'hello\n' >"$D/notours"
expect_exit 2 "system tune, a state file not lockbench's" -- env LOCKBENCH_STATE="$D/notours" \
	"$BIN" system tune
one_line "system tune, a state file not lockbench's" "not a state file lockbench wrote.*nothing tuned"
[ "$(cat "$D/notours")" = hello ] && ok || bad "system tune wrote over a file not lockbench's"
# A run that cannot claim it runs untuned and says so, -q or not.
expect_exit 0 "-q run, a state file not lockbench's" -- env LOCKBENCH_STATE="$D/notours" \
	"$BIN" -l tas "${QUICK[@]}" --counters off -f csv
grep -q "not a state file lockbench wrote.*running with the machine as it is" "$OUT/stderr" &&
	ok || bad "-q run with a foreign state file said nothing: $(cat "$OUT/stderr")"

# Recorded under another root: refused, neither root written.
T1=$LOCKBENCH_SYSROOT S1=$LOCKBENCH_STATE GOV1=$GOV
fresh_tree other
expect_exit 2 "reset under another root" -- env LOCKBENCH_STATE="$S1" "$BIN" system reset
one_line "reset under another root" "recorded under the sysfs root '$T1', not this one ('$LOCKBENCH_SYSROOT'"
[ "$(cat "$GOV")" = schedutil ] && [ "$(cat "$GOV1")" = userspace ] && [ -f "$S1" ] && ok ||
	bad "reset under another root wrote something or removed the state file"
expect_exit 2 "reset of a root recorded as '' under a fake root" -- env LOCKBENCH_STATE="$S1" \
	LOCKBENCH_SYSROOT="$OUT/other/root/" "$BIN" system reset
python3 - "$S1" "$OUT/real.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["root"] = ""
json.dump(d, open(sys.argv[2], "w"))
PY
chmod 600 "$OUT/real.json"
expect_exit 2 "state file for the real /sys, fake root" -- env LOCKBENCH_STATE="$OUT/real.json" \
	"$BIN" system reset
one_line "state file for the real /sys, fake root" "recorded under the sysfs root '/'"
[ -f "$OUT/real.json" ] && [ "$(cat "$GOV")" = schedutil ] && ok || bad "root '' state file"
fresh_tree
LOCKBENCH_SYSROOT=$T1 LOCKBENCH_STATE=$S1 GOV=$GOV1 BOOST=$T1/sys/devices/system/cpu/cpufreq/boost \
	NUMA=$T1/proc/sys/kernel/numa_balancing
expect_exit 0 "reset under its own root" -- "$BIN" system reset
restored "reset under its own root"
fresh_tree

# The module record beside the state file: a FIFO there is left alone.
mkfifo "$OUT/st.json.module"
expect_exit 2 "module record is a FIFO" -- timeout -k 5 20 env LOCKBENCH_STATE="$OUT/st.json" \
	"$BIN" system reset
one_line "module record is a FIFO" "module record (.*): not a file lockbench wrote"
[ -p "$OUT/st.json.module" ] && ok || bad "module record FIFO removed"

# ---- 2. start-up failures: one line, exit 2, restored, points kept ---------

# startup WHAT PATTERN KEPT ENV... -- ARGS...: a tuned run that meets a
# start-up failure after some points: exit 2, PATTERN in one line, the
# machine restored, the table and the JSON written, the JSON marked
# incomplete and KEPT (a python condition on its points p) true.
ONE_THREAD="all(p['runs'] for p in d['points'] if p['threads'] == 1)"
FIRST_LOCK="d['points'][0]['runs'] and d['points'][1]['status'] == 'error'"
startup() {
	local what=$1 pattern=$2 kept=$3 envs=()
	shift 3
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	fresh_tree
	rm -f "$OUT/s.json" "$OUT/s.txt"
	expect_exit 2 "$what" -- timeout -k 5 60 env "${envs[@]}" "$BIN" "$@" --order sequential \
		-r 1 --warmup 0 -d 0.05 -q -f table,json -o table="$OUT/s.txt",json="$OUT/s.json"
	one_line "$what" "$pattern"
	restored "$what"
	json_ok "$what" "$OUT/s.json" "d['incomplete'] is True and $kept"
	grep -q "^1 " "$OUT/s.txt" && ok || bad "$what: no table: $(cat "$OUT/s.txt" 2>/dev/null)"
}
startup "a worker that cannot be started" "starting thread 1 of 2 (cpu .*) failed: Resource temporarily unavailable" "$ONE_THREAD" \
	LD_PRELOAD="$OUT/fault.so" LB_FAULT_MAX_THREADS=1 -- -l tas,ticket -t 1,2
startup "a placement that cannot be pinned" "pinning thread 1 to cpu 1 failed: Invalid argument" "$ONE_THREAD" \
	LD_PRELOAD="$OUT/fault.so" LB_FAULT_AFFINITY_CPU=1 -- -l tas,ticket -t 1,2 -p cpus:0,1
startup "a plugin init() that never returns" "init_hangs: init() did not return within 1.0 s (plugin" "$FIRST_LOCK" \
	-- --plugin "$OUT/init_hangs.so" -l tas,init_hangs -t 1 --watchdog 1
startup "a plugin init() that fails" "init_fails: init failed: .*(plugin" "$FIRST_LOCK" \
	-- --plugin "$OUT/init_fails.so" -l tas,init_fails -t 1
startup "a plugin thread_init() that never returns" \
	"thread_init_hangs: 1 of 2 threads did not start within .*(thread_init did not return)" \
	"$ONE_THREAD" -- --plugin "$OUT/thread_init_hangs.so" -l tas,thread_init_hangs -t 1,2

# The first SIGINT while init() or a thread_init() hangs ends the run at
# once.
hung_sigint() {	# hung_sigint WHAT PLUGIN THREADS
	fresh_tree
	"${SIGDFL[@]}" "$BIN" --plugin "$OUT/$2.so" -l "tas,$2" -t "$3" --watchdog 120 \
		--order sequential -r 1 --warmup 0 -d 0.05 -q -f json -o "$OUT/i.json" \
		2>"$OUT/stderr" &
	local pid=$! t0 rc
	for _ in $(seq 100); do [ "$(cat "$GOV")" = userspace ] && break; sleep 0.1; done
	sleep 1.5
	kill -INT $pid
	t0=$(date +%s)
	for _ in $(seq 100); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
	kill -0 $pid 2>/dev/null && { bad "$1: still running"; kill -9 $pid; }
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && ok || bad "$1: exit $rc: $(cat "$OUT/stderr")"
	[ $(($(date +%s) - t0)) -lt 5 ] && ok || bad "$1: slow"
	restored "$1"
	json_ok "$1" "$OUT/i.json" "d['incomplete'] is True and d['points'][0]['runs']"
}
hung_sigint "SIGINT in a hung init()" init_hangs 1
hung_sigint "SIGINT in a hung thread_init()" thread_init_hangs 2

# ---- 3. signals ignored at start stay ignored --------------------------------

# ignored WHAT SIGNAL LAUNCHER...: the signal sent mid-run does not end it.
ignored() {
	local what=$1 sig=$2
	shift 2
	fresh_tree
	rm -f "$OUT/n.json"
	"$@" "$BIN" -l tas -t 1 -r 8 --warmup 0 -d 0.1 -q -f json -o "$OUT/n.json" \
		</dev/null >/dev/null 2>"$OUT/stderr" &
	local pid=$!
	for _ in $(seq 100); do [ "$(cat "$GOV")" = userspace ] && break; sleep 0.05; done
	kill -"$sig" $pid
	sleep 0.2
	[ "$(cat "$GOV")" = userspace ] && ok || bad "$what: the run stopped at SIG$sig"
	wait $pid
	local rc=$?
	[ $rc -eq 0 ] && ok || bad "$what: exit $rc: $(cat "$OUT/stderr")"
	json_ok "$what" "$OUT/n.json" "d['incomplete'] is False"
	restored "$what"
}
ignored "SIGHUP under nohup" HUP nohup
ignored "SIGTERM ignored by the parent" TERM sh -c "trap '' TERM; exec \"\$0\" \"\$@\""
# ... and the others still stop the run.
fresh_tree
nohup "${SIGDFL[@]}" "$BIN" -l tas -t 1 -r 50 --warmup 0 -d 0.1 -q -f json -o "$OUT/n.json" \
	</dev/null >/dev/null 2>"$OUT/stderr" &
pid=$!
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 1 ] && ok || bad "SIGINT under nohup: exit $rc"
json_ok "SIGINT under nohup" "$OUT/n.json" "d['incomplete'] is True"
restored "SIGINT under nohup"

e2e_done
