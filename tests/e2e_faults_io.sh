#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault battery's files: every command that writes goes through the
# one writer of -o, every path read must be a regular file, and what a
# reader cannot trust is said.
#
#   - outputs: a plugin (build-kernel-lock -o) is never written over a
#     device node, a FIFO, a socket or as "-"; a symlink is followed and
#     kept; a block device or a socket is refused by every writer (merge,
#     compare, import, a run, system check), a character device or FIFO
#     written in place stays what it is;
#   - inputs: a FIFO, a device node or a directory given to compare,
#     merge, compare --floor, rerun, import, --plugin, --resume or an
#     hwloc XML --topology is refused at once (each under `timeout`: a
#     hang fails the case instead of hanging the suite);
#   - a results point "ok" with no runs is refused, not shown as 0.00;
#   - import locktorture says how many statistics lines it could not read;
#   - a stack limit too small (ulimit -s 32, 64) is one line, not SIGSEGV;
#   - system check killed by INT, TERM or HUP while its runs go leaves no
#     rescue file, no directory and no child behind.
#
# Device nodes are made here with mknod (skipped where not permitted),
# never in /dev; machine settings are left alone (--no-tune).
# Usage: tests/e2e_faults_io.sh [./lockbench]
set -u
. "$(dirname "$0")/lib.sh"
e2e_setup "$@"
export LOCKBENCH_CACHE=$OUT/cache TMPDIR=$OUT/tmp
mkdir -p "$TMPDIR"
QUICK=(-t 1 -r 2 --warmup 0 -d 0.02 --no-probe --no-tune -q)
ONE=$ROOT/tests/fixtures/ktree-onefile
LT=$ROOT/tests/fixtures/locktorture/new-kernel.log

# refused WHAT PATTERN ARGS...: exit 2 within 20 s, one line with PATTERN.
refused() {
	local what=$1 pattern=$2
	shift 2
	expect_exit 2 "$what" -- timeout -k 5 20 "$BIN" "$@" && one_line "$what" "$pattern"
}
# unchanged WHAT PATH STAMP: PATH is still what `stamp PATH` said before.
stamp() { stat -c '%F %i %t:%T %s %Y' "$1" 2>/dev/null; }
unchanged() {
	[ "$(stamp "$2")" = "$3" ] && ok || bad "$1: $2 was changed: $(stamp "$2"), was $3"
}
no_twins() {	# no_twins WHAT: no temporary twin left in $OUT/w
	ls "$OUT"/w/*.tmp.* >/dev/null 2>&1 && bad "$1: a twin left: $(ls "$OUT"/w)" || ok
}

# Inputs for the cases: two results files, a system check floor.
expect_exit 0 "a run" -- "$BIN" "${QUICK[@]}" -l tas -f json -o "$OUT/a.json"
expect_exit 0 "another run" -- "$BIN" "${QUICK[@]}" -l tas,ticket -f json -o "$OUT/b.json"
mkdir -p "$OUT/w" "$OUT/n"
NODES=false
if mknod "$OUT/n/null" c 1 3 2>/dev/null && mknod "$OUT/n/loop" b 7 0 2>/dev/null; then
	NODES=true
else
	echo "e2e_faults_io: mknod not permitted here: device-node cases skipped"
fi
mkfifo "$OUT/n/fifo" "$OUT/n/fifo.xml" "$OUT/n/fifo.so"
python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$OUT/n/sock"

# ---- 1. a plugin is written only to a file -----------------------------------
if $NODES; then
	before=$(stamp "$OUT/n/null")
	refused "build-kernel-lock -o a character device" \
		"cannot write output (.*null): a character device, not a regular file (a plugin" \
		build-kernel-lock "$ONE" -q -o "$OUT/n/null"
	unchanged "build-kernel-lock -o a character device" "$OUT/n/null" "$before"
	[ -c "$OUT/n/null" ] && ok || bad "the character device is gone"
fi
before=$(stamp "$OUT/n/fifo")
refused "build-kernel-lock -o a FIFO" "a FIFO, not a regular file (a plugin" \
	build-kernel-lock "$ONE" -q -o "$OUT/n/fifo"
unchanged "build-kernel-lock -o a FIFO" "$OUT/n/fifo" "$before"
refused "build-kernel-lock -o a socket" "a socket, not a regular file" \
	build-kernel-lock "$ONE" -q -o "$OUT/n/sock"
[ -S "$OUT/n/sock" ] && ok || bad "the socket is gone"
refused "build-kernel-lock -o -" "cannot write output (-): a plugin is binary" \
	build-kernel-lock "$ONE" -q -o -
[ -e "$OUT/-" ] && bad "build-kernel-lock -o - made a file named -" || ok
[ -s "$OUT/stdout" ] && bad "build-kernel-lock -o - wrote on stdout" || ok
ls "$OUT"/cache/*.so >/dev/null 2>&1 && bad "a refused -o built first" || ok
# A symlink is followed: the link stays, its target is the plugin.
echo old >"$OUT/w/real.so"
ln -s real.so "$OUT/w/link.so"
expect_exit 0 "build-kernel-lock -o a symlink" -- "$BIN" build-kernel-lock "$ONE" -o "$OUT/w/link.so"
[ -L "$OUT/w/link.so" ] && [ "$(readlink "$OUT/w/link.so")" = real.so ] && ok ||
	bad "-o link.so: the link was replaced by $(stat -c %F "$OUT/w/link.so")"
[ "$(head -c 4 "$OUT/w/real.so" | od -An -c | tr -d ' ')" = '177ELF' ] && ok ||
	bad "-o link.so: the target is not the plugin"
grep -q "^built $OUT/w/link.so (qspinlock)\$" "$OUT/stdout" && ok || bad "-o link.so: $(cat "$OUT/stdout")"
ln -s nowhere/x.so "$OUT/w/dangling.so"
refused "build-kernel-lock -o a dangling symlink" "the symlink's target" \
	build-kernel-lock "$ONE" -q -o "$OUT/w/dangling.so"
# A new file: complete, mode 0777 less the umask, loadable.
expect_exit 0 "build-kernel-lock -o a new file" -- sh -c \
	"umask 022 && exec '$BIN' build-kernel-lock '$ONE' -q -o '$OUT/w/new.so'"
[ "$(stat -c %a "$OUT/w/new.so")" = 755 ] && ok || bad "new plugin mode $(stat -c %a "$OUT/w/new.so")"
expect_exit 0 "the plugin written loads" -- "$BIN" list locks --plugin "kt=$OUT/w/new.so"
grep -q '^qspinlock_kt' "$OUT/stdout" && ok || bad "the plugin written does not load"
no_twins "build-kernel-lock -o"

# ---- 2. every writer: block devices and sockets refused, nodes kept -----------
writers() {	# writers WHAT TARGET PATTERN: each command writing to TARGET is refused
	local what=$1 t=$2 pattern=$3 before
	before=$(stamp "$t")
	refused "merge -o $what" "$pattern" merge -o "$t" "$OUT/a.json" "$OUT/b.json"
	refused "compare -o $what" "$pattern" compare -f json -o "$t" "$OUT/a.json"
	refused "import -o $what" "$pattern" import locktorture -q -o "$t" "$LT"
	refused "run -o $what" "$pattern" "${QUICK[@]}" -l tas -f json -o "$t"
	refused "system check -o $what" "$pattern" system check -q -o "$t"
	unchanged "every writer -o $what" "$t" "$before"
}
writers "a socket" "$OUT/n/sock" "a socket, not a regular file (lockbench writes files, character"
$NODES && writers "a block device" "$OUT/n/loop" "a block device, not a regular file"
if $NODES; then
	# A character device is written in place (as /dev/null), never replaced.
	before=$(stamp "$OUT/n/null")
	expect_exit 0 "merge -o a character device" -- "$BIN" merge -o "$OUT/n/null" \
		"$OUT/a.json" "$OUT/b.json"
	unchanged "merge -o a character device" "$OUT/n/null" "$before"
	[ -c "$OUT/n/null" ] && ok || bad "merge replaced the character device"
fi
# merge -o a symlink: the link kept, the target the merged JSON.
echo '{}' >"$OUT/w/m-target.json"
ln -s m-target.json "$OUT/w/m-link.json"
expect_exit 0 "merge -o a symlink" -- "$BIN" merge -o "$OUT/w/m-link.json" "$OUT/a.json" "$OUT/b.json"
[ -L "$OUT/w/m-link.json" ] && ok || bad "merge -o: the link was replaced"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["points"]' "$OUT/w/m-target.json" &&
	ok || bad "merge -o symlink: the target is not the merged JSON"
# merge -o -: standard output, no file named "-".
expect_exit 0 "merge -o -" -- "$BIN" merge -o - "$OUT/a.json" "$OUT/b.json"
python3 -c 'import json, sys; json.load(sys.stdin)' <"$OUT/stdout" && ok || bad "merge -o -: not JSON on stdout"
[ -e "$OUT/-" ] && bad "merge -o - made a file named -" || ok
no_twins "merge -o"

# ---- 3. inputs that are not regular files: refused at once ----------------------
inputs() {	# inputs WHAT PATH: every reader refuses PATH, none waits on it
	local what=$1 p=$2 before
	before=$(stamp "$p")
	refused "compare $what" "cannot read results (.*): $what, not a regular file" compare "$p"
	refused "merge $what" "cannot read results (.*): $what, not a regular file" \
		merge -o "$OUT/w/m.json" "$OUT/a.json" "$p"
	refused "compare --floor $what" "\-\-floor (.*): $what, not a regular file" \
		compare --floor "$p" "$OUT/a.json" "$OUT/b.json"
	refused "rerun $what" "rerun (.*): $what, not a regular file" rerun "$p" --dry-run
	refused "import $what" "cannot import (.*): $what, not a regular file" import locktorture "$p"
	refused "--resume $what" "\-\-resume (.*): $what, not a regular file" \
		"${QUICK[@]}" -l tas --resume "$p" -f json -o "$OUT/w/r.json"
	refused "--plugin $what" "plugin (.*): not a regular file" --plugin "$p" list locks
	unchanged "readers of $what" "$p" "$before"
}
inputs "a FIFO" "$OUT/n/fifo"
$NODES && inputs "a character device" "$OUT/n/null"
mkdir "$OUT/n/dir"
refused "compare a directory" "a directory, not a regular file" compare "$OUT/n/dir"
refused "--topology a FIFO named .xml" "topology (.*fifo.xml): not a regular file" \
	--topology "$OUT/n/fifo.xml" topo
refused "--plugin TAG=FIFO" "not a regular file" --plugin "x=$OUT/n/fifo.so" list locks
[ -p "$OUT/n/fifo.xml" ] && [ -p "$OUT/n/fifo.so" ] && ok || bad "a FIFO input was replaced"
ls "$OUT"/w/m.json* "$OUT"/w/r.json* >/dev/null 2>&1 && bad "a refused input left an output" || ok

# ---- 4. a point "ok" with no runs ---------------------------------------------
python3 - "$OUT/b.json" "$OUT/norun.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["points"][0]["runs"] = []
json.dump(d, open(sys.argv[2], "w"))
EOF
refused "compare: ok with no runs" "points\[0\] (tas, 1): status ok with no runs" compare "$OUT/norun.json"
grep -q '0\.00' "$OUT/stdout" && bad "compare showed 0.00 for a point without runs" || ok
refused "merge: ok with no runs" "status ok with no runs" merge -o "$OUT/w/nr.json" "$OUT/norun.json" "$OUT/a.json"
[ -e "$OUT/w/nr.json" ] && bad "merge of a point without runs wrote" || ok

# ---- 5. import: statistics lines it could not read are counted ------------------
lt_case() {	# lt_case WHAT SED-EXPRESSION
	sed "$2" "$LT" >"$OUT/bad.log"
	cmp -s "$OUT/bad.log" "$LT" && { bad "$1: the log was not changed"; return; }
	expect_exit 0 "import: $1" -- "$BIN" import locktorture -f json -o "$OUT/w/lt.json" "$OUT/bad.log"
	one_line "import: $1" "import (.*bad.log): 1 statistics line could not be read .*the first at line 11) and is left out"
	python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["config"]["unreadable_stats_lines"] == 1' \
		"$OUT/w/lt.json" && ok || bad "import: $1: config.unreadable_stats_lines is not 1"
}
lt_case "a Total that overflows" 's/Total: 110000000 /Total: 99999999999999999999999 /'
lt_case "a negative Total" 's/Total: 110000000 /Total: -110000000 /'
lt_case "binary garbage after a Total" 's/\(Total: 110000000 .*Fail: 0\) $/\1 \x01\x02\xfe\xff/'
expect_exit 0 "import: a log read whole" -- "$BIN" import locktorture -f json -o "$OUT/w/lt.json" "$LT"
[ -s "$OUT/stderr" ] && bad "import of a clean log said: $(cat "$OUT/stderr")" || ok
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["config"]["unreadable_stats_lines"] == 0' \
	"$OUT/w/lt.json" && ok || bad "import of a clean log: unreadable_stats_lines is not 0"

# ---- 6. a small stack limit -----------------------------------------------------
for s in 32 64; do
	expect_exit 2 "ulimit -s $s" -- sh -c "ulimit -s $s && exec '$BIN' -l tas -f json $(printf "'%s' " "${QUICK[@]}")"
	one_line "ulimit -s $s" "the stack limit (ulimit -s) is $s KiB; lockbench needs at least 512 KiB"
	expect_exit 2 "ulimit -s $s, system show" -- sh -c "ulimit -s $s && exec '$BIN' system show"
done
expect_exit 0 "ulimit -s 1024" -- sh -c "ulimit -s 1024 && exec '$BIN' -l tas $(printf "'%s' " "${QUICK[@]}")"

# ---- 7. system check stopped while its runs go -----------------------------------
# kids PID: the pids of PID's children, from /proc (no procps needed).
kids() {
	grep -l -E "^PPid:[[:space:]]+$1\$" /proc/[0-9]*/status 2>/dev/null |
		sed 's,^/proc/\([0-9]*\)/status$,\1,'
}
# check_killed SIG: the check gets SIG while one of its child runs is
# running (the floor phase's invocations): it dies by SIG, and leaves no
# rescue file in its working directory, no directory in $TMPDIR and no
# child running.
check_killed() {
	local sig=$1 pid child="" rc
	rm -rf "$OUT/cwd" && mkdir "$OUT/cwd"
	(cd "$OUT/cwd" && exec "${SIGDFL[@]}" "$BIN" system check -d 0.05 -f json -o "$OUT/cwd/c.json") \
		2>"$OUT/stderr" &
	pid=$!
	until_stderr "$OUT/stderr" "invocation floor" || bad "SIG$sig: the floor phase never began"
	for _ in $(seq 2000); do
		child=$(kids $pid | head -1)
		[ -n "$child" ] && break
		sleep 0.005
	done
	[ -n "$child" ] || bad "SIG$sig: no child run seen"
	kill -"$sig" $pid
	wait $pid
	rc=$?
	[ $rc -eq $((128 + $(kill -l "$sig"))) ] && ok || bad "SIG$sig: exit $rc, not by the signal"
	sleep 0.5	# a child left running would finish and write by now
	ls "$OUT"/cwd/lockbench-rescue-* >/dev/null 2>&1 && bad "SIG$sig: a rescue file in the working directory" || ok
	[ -z "$(ls -A "$OUT/cwd")" ] && ok || bad "SIG$sig: left $(ls -A "$OUT/cwd")"
	[ -z "$(ls -A "$TMPDIR")" ] && ok || bad "SIG$sig: left $(ls -A "$TMPDIR") in \$TMPDIR"
	[ -n "$child" ] && grep -qa lockbench "/proc/$child/cmdline" 2>/dev/null &&
		bad "SIG$sig: its child run $child still runs" || ok
}
check_killed TERM
check_killed INT
check_killed HUP
# ... and a check that completes leaves nothing either.
# (exit 5 where a busy host makes it refuse the floor: its JSON says so)
"$BIN" system check -d 0.05 -f json -o "$OUT/w/check.json" >/dev/null 2>"$OUT/stderr"
rc=$?
[ $rc -eq 0 ] || { [ $rc -eq 5 ] && grep -q "refus" "$OUT/stderr"; } && ok ||
	bad "system check: exit $rc; stderr: $(cat "$OUT/stderr")"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["schema"] == "lockbench-system-check"' \
	"$OUT/w/check.json" && ok || bad "system check -o: not its JSON"
[ -z "$(ls -A "$TMPDIR")" ] && ok || bad "system check left $(ls -A "$TMPDIR") in \$TMPDIR"

e2e_done
