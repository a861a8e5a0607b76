#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault battery: what a user meets by accident, run as a user would.
# Output to special files, symlinks and full or closed outputs; inputs
# without end; huge synthetic machines; contradictory options; signals
# at random moments, kill -9 then `system reset`; plugins that deadlock,
# fail to initialise or break mutual exclusion once in 1000; mutated
# inputs for every parser.  Everything is written under one temporary
# directory, the machine settings in a fake sysfs tree (mkfake): no real
# device node, no real /sys.  Usage: tests/e2e_faults.sh [./lockbench]
set -u
. "$(dirname "$0")/lib.sh"
e2e_setup "$@"
G=$ROOT/tests/golden/rtmutex
LT=$ROOT/tests/fixtures/locktorture
# Short runs: one thread count, one run, a short window.
QUICK=(-t 1 -r 1 --warmup 0 -d 0.05 -q)

# A fake sysfs tree with cpufreq for the machine settings; the state
# file inside it too.
build_mkfake
GOV=$OUT/tree/root/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
restored() {	# restored WHAT: governor back, no state file
	[ "$(cat "$GOV")" = schedutil ] && ok || bad "$1: governor $(cat "$GOV")"
	[ ! -e "$LOCKBENCH_STATE" ] && ok || bad "$1: state file left"
}
fresh_tree
[ "$(cat "$GOV")" = schedutil ] || { echo "e2e_faults: fake tree has no governor"; exit 1; }

# ---- 1. output targets --------------------------------------------------

# A FIFO given to -o is written through, and stays a FIFO: for run,
# compare and import.
fifo_case() {	# fifo_case WHAT ARGS...
	local what=$1
	shift
	rm -f "$OUT/fifo" "$OUT/fromfifo"
	mkfifo "$OUT/fifo"
	timeout 30 cat "$OUT/fifo" >"$OUT/fromfifo" &
	local reader=$!
	expect_exit 0 "$what" -- timeout 60 "$BIN" "$@" -o "$OUT/fifo"
	wait $reader
	[ -p "$OUT/fifo" ] && ok || bad "$what: the FIFO was replaced by $(stat -c %F "$OUT/fifo")"
	json_ok "$what" "$OUT/fromfifo"
	ls "$OUT"/fifo.tmp.* >/dev/null 2>&1 && bad "$what: temporary file left" || ok
}
fifo_case "run -o FIFO" "${QUICK[@]}" -l tas -f json
fifo_case "compare -o FIFO" compare -f json "$G/k0.json" "$G/k1.json"
fifo_case "import -o FIFO" import locktorture "$LT/new-kernel.log"

# A symlink is followed: its target replaced, the link kept.
echo old >"$OUT/target.json"
ln -sf target.json "$OUT/link.json"
expect_exit 0 "compare -o symlink" -- "$BIN" compare -f json -o "$OUT/link.json" \
	"$G/k0.json" "$G/k1.json"
[ -L "$OUT/link.json" ] && ok || bad "-o symlink: the link was replaced by a file"
json_ok "-o symlink target" "$OUT/target.json"
ln -sf nowhere/x.json "$OUT/dangling.json"
expect_exit 2 "-o dangling symlink" -- "$BIN" compare -f json -o "$OUT/dangling.json" "$G/k0.json"
one_line "-o dangling symlink" "cannot write output"

# The mode the umask gives, not 0600.
for mask in 022 077 002; do
	rm -f "$OUT/mode.json"
	(umask $mask && "$BIN" compare -f json -o "$OUT/mode.json" "$G/k0.json") 2>/dev/null
	want=$(printf '%o' $((0666 & ~8#$mask)))
	got=$(stat -c %a "$OUT/mode.json" 2>/dev/null)
	[ "$got" = "$want" ] && ok || bad "umask $mask: mode $got, want $want"
done

# -o - is stdout.
expect_exit 0 "-o -" -- "$BIN" compare -f json -o - "$G/k0.json"
json_ok "-o -" "$OUT/stdout"
[ -e "$OUT/-" ] && bad "-o - created a file named -" || ok

# ---- 2. temporary files -------------------------------------------------

# An impossible --freq (exit 3) after -o was checked: no file, no twin.
expect_exit 3 "impossible --freq" -- "$BIN" "${QUICK[@]}" -l tas --freq 99999MHz -o "$OUT/freq.json"
ls "$OUT"/freq.json* >/dev/null 2>&1 && bad "exit 3 left $(ls "$OUT"/freq.json*)" || ok
restored "exit 3"
# Bad usage found late (after -o was checked): nothing either.
expect_exit 2 "bad --resume" -- "$BIN" "${QUICK[@]}" -l tas --resume "$OUT/none.json" -o "$OUT/late.json"
ls "$OUT"/late.json* >/dev/null 2>&1 && bad "exit 2 left $(ls "$OUT"/late.json*)" || ok
# kill -9 while measuring: no twin (it is created when results are written).
"$BIN" -l tas,ticket -t 1 -r 20 --warmup 0 -d 0.1 -q -f json -o "$OUT/k9.json" \
	>/dev/null 2>&1 &
pid=$!
# the machine is tuned before the first run: wait for it (start-up time
# varies with the machine's load), then a little into the runs
for _ in $(seq 200); do [ "$(cat "$GOV" 2>/dev/null)" = userspace ] && break; sleep 0.1; done
sleep 0.3
kill -9 $pid
wait $pid 2>/dev/null
ls "$OUT"/k9.json* >/dev/null 2>&1 && bad "kill -9 left $(ls "$OUT"/k9.json*)" || ok
# ... and the tuned machine is restored by `system reset`.
[ -e "$LOCKBENCH_STATE" ] && ok || bad "kill -9: no state file to reset from"
expect_exit 0 "next run reports the stale state" -- "$BIN" "${QUICK[@]}" -l tas
grep -q "restore it with: LOCKBENCH_STATE='$LOCKBENCH_STATE' lockbench system reset" \
	"$OUT/stderr" && ok || bad "stale state, run: $(cat "$OUT/stderr")"
expect_exit 0 "system show reports the stale state" -- "$BIN" system show
grep -q "restore them with: LOCKBENCH_STATE='$LOCKBENCH_STATE' lockbench system reset" \
	"$OUT/stderr" && ok || bad "stale state, system show: $(cat "$OUT/stderr")"
expect_exit 3 "run with --freq refuses a stale state" -- "$BIN" "${QUICK[@]}" -l tas --freq 1500MHz
grep -q "restore it with: LOCKBENCH_STATE='$LOCKBENCH_STATE' lockbench system reset" \
	"$OUT/stderr" && ok || bad "stale state: no restore command: $(cat "$OUT/stderr")"
expect_exit 0 "system reset after kill -9" -- "$BIN" system reset
restored "kill -9 + reset"
# A twin left by a crash is reported by the next write to that path.
: >"$OUT/stale.json.tmp.AbC123"
expect_exit 0 "stale twin" -- "$BIN" compare -f json -o "$OUT/stale.json" "$G/k0.json"
grep -q "temporary file (.*stale.json.tmp.AbC123)" "$OUT/stderr" && ok \
	|| bad "stale twin not reported: $(cat "$OUT/stderr")"

# ---- 3. input limits ----------------------------------------------------

# /dev/zero, endless, is no regular file: refused before a byte is read
# (docs/formats.md).  A file above the limit stops at it, in bounded
# memory.
for args in "compare /dev/zero $G/k0.json" "--dry-run -t 1 --resume /dev/zero"; do
	# shellcheck disable=SC2086
	expect_exit 2 "$args" -- timeout 60 "$BIN" $args &&
		one_line "$args" "(/dev/zero): a character device, not a regular file"
done
limited() {	# limited WHAT ARGS...: exit 2, "input limit", under 200 MB
	local what=$1
	shift
	expect_exit 2 "$what" -- timeout 60 /usr/bin/time -f "%M" -o "$OUT/rss" "$BIN" "$@" || return
	grep -q "input limit" "$OUT/stderr" && ok || bad "$what: $(head -c 300 "$OUT/stderr")"
	[ "$(tail -1 "$OUT/rss")" -lt 200000 ] && ok || bad "$what: $(tail -1 "$OUT/rss") kB"
}
if [ -x /usr/bin/time ]; then
	head -c 3000000 /dev/zero | tr '\0' x >"$OUT/big.log"
	LOCKBENCH_MAX_INPUT=1M limited "import above the limit" import locktorture "$OUT/big.log"
fi
LOCKBENCH_MAX_INPUT=4K expect_exit 2 "results above LOCKBENCH_MAX_INPUT" -- \
	"$BIN" compare "$G/k0.json"
one_line "results above LOCKBENCH_MAX_INPUT" "larger than the input limit of 4096 bytes"
LOCKBENCH_MAX_INPUT=64M expect_exit 0 "LOCKBENCH_MAX_INPUT raises it" -- "$BIN" compare "$G/k0.json"
LOCKBENCH_MAX_INPUT=lots expect_exit 2 "bad LOCKBENCH_MAX_INPUT" -- "$BIN" compare "$G/k0.json"
one_line "bad LOCKBENCH_MAX_INPUT" "LOCKBENCH_MAX_INPUT (lots)"

# A large log and its large JSON in bounded memory: import keeps one
# compact copy of each run and writes the JSON run by run; compare reads
# a results file above 16 MiB in two passes, one run at a time.  (Before:
# 540 MB for the import of this 20 MB log, 600 MB for the compare.)
python3 - "$OUT/many.log" <<'PY'
import sys
start = ("[ %d.000000] spin_lock-torture:--- Start of test: nreaders_stress=0 "
         "nwriters_stress=%d stat_interval=30 stutter=5 verbose=1\n")
end = "[ %d.000500] spin_lock-torture:--- End of test: SUCCESS: nwriters_stress=%d\n"
with open(sys.argv[1], "w") as f:
    t = size = run = 0
    while size < 20e6:
        w = [1, 2, 4, 8][run % 4]
        run += 1
        lines = [start % (t, w)]
        for i in range(1, 21):
            tot = i * 1000000
            lines.append("[ %d.000000] Writes:  Total: %d  Max/Min: %d/%d   Fail: 0 \n"
                         % (t + 30 * i, tot, tot // w + 5, tot // w - 5))
        t += 630
        lines.append(end % (t, w))
        text = "".join(lines)
        f.write(text)
        size += len(text)
PY
rss() {	# rss ARGS...: "EXIT MAXRSS_KB" of lockbench ARGS
	python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$BIN" "$@"
}
read -r rc kb < <(rss import locktorture "$OUT/many.log" -f json -o "$OUT/many.json")
[ "$rc" = 0 ] && [ "$kb" -lt 150000 ] && ok || bad "import of a 20 MB log: exit $rc, $kb kB"
[ "$(stat -c %s "$OUT/many.json")" -gt $((16 << 20)) ] && ok ||
	bad "the JSON of the 20 MB log is not above 16 MiB: the two-pass read is not exercised"
read -r rc kb < <(rss compare "$OUT/many.json" -f json -o "$OUT/many-cmp.json")
[ "$rc" = 0 ] && [ "$kb" -lt 150000 ] && ok || bad "compare of its JSON: exit $rc, $kb kB"
python3 - "$OUT/many.json" "$OUT/many-cmp.json" <<'PY' && ok || bad "compare of a large file lost runs"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
runs = lambda d: [[(r["ops_per_sec"], r["locktorture"]["line"]) for r in p["runs"]] for p in d["points"]]
assert runs(a) == runs(b) and sum(map(len, runs(a))) > 7000, sum(map(len, runs(a)))
PY

# ---- 4. write errors on stdout -------------------------------------------

# Closed stdout, a file size limit (SIGXFSZ ignored: the write fails
# with EFBIG, as on a full disk), and a pipe whose reader has gone.
"$BIN" compare "$G/k0.json" "$G/k1.json" >&- 2>"$OUT/stderr"; rc=$?
[ $rc -eq 2 ] && ok || bad "compare >&-: exit $rc"
one_line "compare >&-" "cannot write"
( trap '' XFSZ; ulimit -f 1; "$BIN" compare -f table,json -o - "$G/k0.json" "$G/k1.json" \
	>"$OUT/small" 2>"$OUT/stderr" ); rc=$?
[ $rc -eq 2 ] && ok || bad "compare into a size-limited file: exit $rc"
one_line "compare into a size-limited file" "File too large"
( trap '' XFSZ; ulimit -f 1; "$BIN" "${QUICK[@]}" -l tas,ticket -f table,json -o - --no-tune \
	>"$OUT/small" 2>"$OUT/stderr" ); rc=$?
[ $rc -eq 2 ] && ok || bad "run -f table into a size-limited file: exit $rc"
closed_pipe() {	# closed_pipe ARGS...: exit status with stdout a pipe nobody reads
	python3 - "$BIN" "$@" <<'PY'
import os, subprocess, sys
r, w = os.pipe()
os.close(r)
p = subprocess.run(sys.argv[1:], stdout=w, stderr=subprocess.PIPE)
sys.stderr.write(p.stderr.decode())
print(p.returncode)
PY
}
rc=$(closed_pipe compare "$G/k0.json" "$G/k1.json" 2>"$OUT/stderr")
[ "$rc" = 2 ] && ok || bad "compare into a closed pipe: exit $rc"
one_line "compare into a closed pipe" "Broken pipe"

# ---- 5. huge synthetic machines -----------------------------------------

expect_exit 2 "topo pu:100000" -- timeout 10 "$BIN" topo --topology pu:100000
one_line "topo pu:100000" "more than 8192 PUs"
expect_exit 2 "100000 PUs --dry-run" -- timeout 10 "$BIN" --topology \
	"package:10 numa:10 core:100 pu:10" --dry-run -t max
one_line "100000 PUs --dry-run" "more than 8192 PUs"
expect_exit 2 "one level of 8192" -- timeout 10 "$BIN" topo --topology pu:8192
one_line "one level of 8192" "at most 1024"
expect_exit 0 "8192 PUs --dry-run" -- timeout 20 "$BIN" --topology \
	"package:8 numa:4 l3:4 core:32 pu:2" --dry-run -t 1,1024 -l tas

# ---- 6. and 8. options --------------------------------------------------

BAD_OUT=$OUT/bad.json
bad_input "lock-opt for a lock not run" "ttas is not among the locks" \
	-l tas --lock-opt ttas.backoff_min=8
bad_input "lock-opt min above max" "backoff_min must not exceed backoff_max" \
	-l ttas --lock-opt ttas.backoff_min=1000 --lock-opt ttas.backoff_max=10
bad_input "lock-opt repeated" "given twice for ttas.backoff_min" \
	-l ttas --lock-opt ttas.backoff_min=8 --lock-opt ttas.backoff_min=9
bad_input "lock-opt range names the option" "lock-opt ttas.backoff_min (0)" \
	-l ttas --lock-opt ttas.backoff_min=0
bad_input "repeated option" "--duration given twice (1, 2)" -d 1 -d 2
bad_input "--freq with --no-tune" "--no-tune contradicts --freq (1500MHz)" --freq 1500MHz --no-tune
bad_input "--no-tune with --numa-balancing" "contradicts --numa-balancing (off)" \
	--no-tune --numa-balancing off
unset BAD_OUT

plugin() {	# plugin SRC NAME: build it as a user would
	"$CC" -std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$ROOT/locks" \
		"$ROOT/$1" -o "$OUT/$2.so" && ok || bad "building $1"
}
plugin tests/plugins/init_fails.c init_fails
plugin tests/plugins/zero_size.c zero_size
plugin tests/plugins/rare_skip.c rare_skip
plugin tests/plugins/crash.c crash
expect_exit 2 "plugin init fails" -- "$BIN" --plugin "$OUT/init_fails.so" -l ticket,init_fails \
	"${QUICK[@]}" --no-tune -f json -o "$OUT/init.json"
grep -q "init_fails: init failed: .*(plugin .*init_fails.so)" "$OUT/stderr" && ok \
	|| bad "plugin init: $(cat "$OUT/stderr")"
json_ok "plugin init fails" "$OUT/init.json" "d['incomplete'] is True"
expect_exit 2 "plugin lock_size 0" -- "$BIN" --plugin "$OUT/zero_size.so" -l zero_size \
	"${QUICK[@]}" --no-tune
one_line "plugin lock_size 0" "lock_size 0"

# ---- 7. signals ---------------------------------------------------------

# Every catchable terminating signal restores the machine and writes
# what was measured: here after a random delay into a tuned run.  The
# signal sent is set to its default action too (a suite started under
# nohup would otherwise hand lockbench SIGHUP ignored, which it keeps).
sig_case() {	# sig_case SIGNAL DELAY
	fresh_tree
	env --default-signal="INT,QUIT,$1" "$BIN" -l tas,ticket -t 1 -r 30 --warmup 0 -d 0.1 -q -f json \
		-o "$OUT/sig.json" >/dev/null 2>"$OUT/sig.err" &
	local pid=$!
	sleep "$2"
	kill -"$1" $pid
	wait $pid
	local rc=$? what="SIG$1 after ${2}s"
	if [ $rc -eq $((128 + $(kill -l "$1"))) ] && [ ! -e "$OUT/sig.json" ]; then
		ok      # before the handlers (and any tuning): ended by it, no file
	elif [ $rc -eq 1 ]; then
		ok
		json_ok "$what" "$OUT/sig.json" "d['incomplete'] is True"
	else
		bad "$what: exit $rc ($(head -c 200 "$OUT/sig.err"))"
	fi
	restored "$what"
	rm -f "$OUT/sig.json"
}
for s in INT TERM HUP QUIT USR1 USR2 ALRM; do
	sig_case $s "0.$((RANDOM % 9 + 2))"
done
# Signals while workers will not stop (a plugin that deadlocks after
# tas completed; --watchdog 30): the machine restored, the waiting cut
# short, the completed points written (table and JSON), exit 1 (or 128
# + the signal when it took the second).
plugin tests/plugins/deadlock.c deadlock
for s in INT TERM; do
	fresh_tree
	rm -f "$OUT/two.json"
	"${SIGDFL[@]}" "$BIN" --plugin "$OUT/deadlock.so" -l tas,deadlock --order sequential -t 1 -r 2 \
		--warmup 0 -d 0.2 --watchdog 30 -f table,json -o "$OUT/two.json" \
		>"$OUT/two.out" 2>"$OUT/two.err" &
	pid=$!
	until_stderr "$OUT/two.err" "deadlock threads=1" || bad "double SIG$s: deadlock never ran"
	sleep 0.5
	t0=$(date +%s)
	kill -$s $pid
	sleep 0.3
	kill -$s $pid 2>/dev/null
	wait $pid
	rc=$?
	# The first signal already gives up on the stuck worker (exit 1); if
	# it had not, the second one does (128 + the signal).
	[ $rc -eq 1 ] || [ $rc -eq $((128 + $(kill -l $s))) ] && ok || bad "double SIG$s: exit $rc"
	[ $(($(date +%s) - t0)) -lt 10 ] && ok || bad "double SIG$s: waited for the workers"
	restored "double SIG$s"
	json_ok "double SIG$s" "$OUT/two.json" \
		"d['incomplete'] and [len(p['runs']) for p in d['points']] == [2, 0]"
	grep -Eq '^1  *([0-9.]|-!)' "$OUT/two.out" && grep -q '^Lock: *tas *deadlock' "$OUT/two.out" &&
		ok || bad "double SIG$s: no table: $(cat "$OUT/two.out")"
	ls "$OUT"/two.json.tmp.* >/dev/null 2>&1 && bad "double SIG$s left a temporary file" || ok
	kill -9 $pid 2>/dev/null
done
# Two SIGINTs back to back in an ordinary sweep (an impatient Ctrl-C):
# the same, whichever moment the second one meets.
fresh_tree
"${SIGDFL[@]}" "$BIN" -l tas,ticket -t 1 -r 50 --warmup 0 -d 0.1 -f table,json -o "$OUT/two.json" \
	>"$OUT/two.out" 2>"$OUT/two.err" &
pid=$!
until_stderr "$OUT/two.err" "run 3/50" || bad "two SIGINTs: the sweep never ran"
kill -INT $pid
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] || [ $rc -eq 1 ] && ok || bad "two SIGINTs: exit $rc"
restored "two SIGINTs"
json_ok "two SIGINTs" "$OUT/two.json" "d['incomplete'] and sum(len(p['runs']) for p in d['points']) >= 2"
# (a row of -! is a point whose runs a busy host left out: the table is there)
grep -Eq '^1  *([0-9.]|-!)' "$OUT/two.out" && ok || bad "two SIGINTs: no table: $(cat "$OUT/two.out")"
# stdout a closed pipe: the run still restores and writes -o.
fresh_tree
rc=$(closed_pipe "${QUICK[@]}" -l tas -f table,json -o "$OUT/pipe.json" 2>"$OUT/stderr")
[ "$rc" = 2 ] && ok || bad "run into a closed pipe: exit $rc ($(cat "$OUT/stderr"))"
restored "run into a closed pipe"
json_ok "run into a closed pipe" "$OUT/pipe.json"

# A plugin that crashes: the process dies by SIGSEGV, the machine restored.
fresh_tree
"$BIN" --plugin "$OUT/crash.so" -l crash "${QUICK[@]}" -o "$OUT/crash.json" \
	>/dev/null 2>&1
rc=$?
[ $rc -eq 139 ] && ok || bad "crashing plugin: exit $rc, want 139 (SIGSEGV)"
restored "crashing plugin"
ls "$OUT"/crash.json* >/dev/null 2>&1 && bad "crash left $(ls "$OUT"/crash.json*)" || ok

# ---- a write that fails after the sweep: nothing measured is lost --------

# rescue_case WHAT DIR ARGS...: start a run writing into DIR (created),
# remove DIR once it measures; exit 2, the results in a rescue file
# named on stderr (cwd $OUT here) and the table on stdout.
rescue_case() {
	local what=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	rm -f "$OUT"/lockbench-rescue-*.json
	"$BIN" -l tas,ticket -t 1 -r 3 --warmup 0 -d 0.3 --no-tune "$@" \
		>"$OUT/stdout" 2>"$OUT/stderr" &
	local pid=$!
	until_stderr "$OUT/stderr" "run 1/3" || bad "$what: the run never started"
	rm -rf "$dir"
	wait $pid
	local rc=$?
	cd "$OUT" || exit 1     # (the case whose current directory was removed)
	[ $rc -eq 2 ] && ok || bad "$what: exit $rc: $(cat "$OUT/stderr")"
	grep -q "cannot write output" "$OUT/stderr" && ok || bad "$what: no failure named"
	RESCUE=$(sed -n 's/^lockbench: the results are saved in //p' "$OUT/stderr")
	json_ok "$what: rescue file" "${RESCUE:-none}" \
		"[len(p['runs']) for p in d['points']] == [3, 3]"
	grep -q '^Lock: *tas *ticket' "$OUT/stdout" && ok || bad "$what: no table on stdout"
}
rescue_case "output directory removed" "$OUT/gone" -f table,json -o "$OUT/gone/x.json"
[ "$(dirname "$RESCUE")" = "$OUT" ] && ok || bad "rescue not in the current directory: $RESCUE"
rescue_case "-f json, directory removed" "$OUT/gone" -f json -o "$OUT/gone/x.json"
rescue_case "json and csv, the json's directory removed" "$OUT/gone" \
	-o "json=$OUT/gone/x.json,csv=$OUT/kept.csv"
head -1 "$OUT/kept.csv" | grep -q '^variant,' && [ "$(wc -l <"$OUT/kept.csv")" -eq 7 ] &&
	ok || bad "the CSV that could be written was not"
# The current directory is gone too: $TMPDIR.
mkdir -p "$OUT/cwd" "$OUT/tmpd"
cd "$OUT/cwd" || exit 1
TMPDIR=$OUT/tmpd rescue_case "cwd removed too" "$OUT/cwd" -f json -o "$OUT/cwd/x.json"
[ "$(dirname "$RESCUE")" = "$OUT/tmpd" ] && ok || bad "rescue not in \$TMPDIR: $RESCUE"
# A device that fails every write (/dev/full, kept as a device): the
# rescue is not put beside it, in /dev, but here.
expect_exit 2 "run -o /dev/full" -- "$BIN" "${QUICK[@]}" -l tas --no-tune -f json -o /dev/full
RESCUE=$(sed -n 's/^lockbench: the results are saved in //p' "$OUT/stderr")
[ "$(dirname "${RESCUE:-/}")" = "$OUT" ] && ok || bad "/dev/full: rescue at '$RESCUE'"
json_ok "/dev/full rescue" "${RESCUE:-none}"
ls /dev/lockbench-rescue-* >/dev/null 2>&1 && bad "a rescue file in /dev" || ok
rm -f "$OUT"/lockbench-rescue-*.json

# ---- watchdog and broken locks ------------------------------------------

expect_exit 1 "deadlocked plugin" -- timeout 30 "$BIN" --plugin "$OUT/deadlock.so" -l deadlock \
	-t 1 -r 1 --warmup 0 -d 0.1 --watchdog 0.5 --no-tune -q
grep -q "did not stop" "$OUT/stderr" && ok || bad "watchdog: $(cat "$OUT/stderr")"
for t in 2 4; do
	expect_exit 1 "busted at $t threads" -- "$BIN" -l busted --include-broken -t $t -r 1 \
		--warmup 0 -d 0.2 --no-tune -q
	expect_exit 1 "1-in-1000 TAS at $t threads" -- "$BIN" --plugin "$OUT/rare_skip.so" \
		-l rare_skip -t $t -r 3 --warmup 0 -d 0.5 --cs-ns 1000 --no-tune -q
	grep -q "mutual exclusion violated" "$OUT/stderr" && ok || bad "rare_skip at $t: $(cat "$OUT/stderr")"
done

# ---- 9. impossible values in results ------------------------------------

python3 - "$G/k0.json" "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for name, val in [("neg", -0.01), ("huge", 1e308)]:
    e = json.loads(json.dumps(d))
    e["points"][0]["runs"][0]["ops_per_sec"] = val
    json.dump(e, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
for f in neg huge; do
	expect_exit 2 "ops_per_sec $f" -- "$BIN" compare "$OUT/$f.json" "$G/k1.json"
	one_line "ops_per_sec $f" "$f.json): points\[0\].runs\[0\].ops_per_sec (.*): impossible"
done

# ---- bounded fuzz: mutated inputs to each parser --------------------------

# Each mutation flips, cuts or duplicates bytes; every answer must be
# exit 0 or 2 with at most one line, never a signal or a hang.
mutate() {	# mutate SRC DST SEED
	python3 - "$1" "$2" "$3" <<'PY'
import random, sys
rnd = random.Random(int(sys.argv[3]))
b = bytearray(open(sys.argv[1], "rb").read())
for _ in range(rnd.randint(1, 8)):
    op, i = rnd.randrange(4), rnd.randrange(max(len(b), 1))
    if op == 0 and b:
        b[i] = rnd.randrange(256)
    elif op == 1:
        b = b[:i]
    elif op == 2:
        b[i:i] = b[i:i + rnd.randint(1, 64)]
    else:
        b[i:i] = rnd.choice([b"-1e308", b"NaN", b"[[[[[[[[", b"\x00", b"99999999999999999999"])
open(sys.argv[2], "wb").write(b)
PY
}
fuzz_one() {	# fuzz_one WHAT ARGS...
	timeout 20 "$BIN" "$@" >/dev/null 2>"$OUT/stderr"
	local rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
		bad "$1: exit $rc: $(head -c 200 "$OUT/stderr")"
	elif [ $rc -eq 2 ] && [ "$(wc -l <"$OUT/stderr")" -ne 1 ]; then
		bad "$1: $(wc -l <"$OUT/stderr") lines on stderr"
	else
		ok
	fi
}
for i in $(seq 1 10); do
	mutate "$G/k0.json" "$OUT/m.json" $i
	fuzz_one "compare mutated JSON #$i" compare "$OUT/m.json"
	mutate "$LT/new-kernel.log" "$OUT/m.log" $i
	fuzz_one "import mutated log #$i" import locktorture "$OUT/m.log"
	fresh_tree
	printf '{"lockbench": "machine state", "pid": 1, "root": "%s", "changes": [' "$LOCKBENCH_SYSROOT" >"$OUT/st.json"
	printf '{"path": "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "old": "schedutil", "new": "userspace"}]}' >>"$OUT/st.json"
	mkdir -p "$(dirname "$LOCKBENCH_STATE")"
	mutate "$OUT/st.json" "$LOCKBENCH_STATE" $i
	fuzz_one "system reset of a mutated state file #$i" system reset
	fuzz_one "topology of a mutated description #$i" topo --topology \
		"$(python3 -c "import random; r=random.Random($i); print(' '.join(f'{t}:{r.choice([0,1,2,3,7,1000,99999])}' for t in ['package','numa','core','pu'][:r.randint(1,4)]))")"
done

# ---- nothing outside the temporary directory ------------------------------

[ -c /dev/null ] && ok || bad "/dev/null is no longer a character device"
[ -c /dev/full ] && ok || bad "/dev/full is no longer a character device"

e2e_done
