#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault battery's writes: what -o replaces, and when a write ends.
#
#   - a full file system: an existing -o file with two hard links, written
#     by compare, merge, import, a run and rerun on a small tmpfs that
#     takes the new content once but not twice: exit 2, both links keep
#     the old content, and the complete new content is kept beside it and
#     named on stderr;
#   - an existing -o file with a POSIX ACL (group::---, mask rw) and an
#     extended attribute keeps both; one with two links stays linked;
#   - rerun 'r,1.json' -o 'r,1.json' (a comma in the name) is refused,
#     however -o names the input;
#   - a stop signal cuts a blocked write short: a run whose -o - reader
#     stalls, whose FIFO's reader stalls, or whose FIFO has no reader
#     ends on INT, on TERM and on a second INT (exit 1, or 130 when the
#     first INT came during the run), and its results are saved to a
#     rescue file named on stderr.
#
# The tmpfs is mounted on a directory made here (skipped, one line, where
# mount is not permitted); files go to one temporary directory; the
# machine is left alone (--no-tune).  Usage: tests/e2e_faults_write.sh
# [./lockbench]
set -u
. "$(dirname "$0")/lib.sh"
e2e_setup "$@"
MNT=$OUT/m
trap 'mountpoint -q "$MNT" && umount "$MNT"; rm -rf "$OUT"' EXIT
export TMPDIR=$OUT/tmp
mkdir -p "$TMPDIR" "$MNT"
RUN=(-t 1 -r 2 --warmup 0 -d 0.02 --no-probe --no-tune -q)
QUICK=(-l tas "${RUN[@]}")
LT=$ROOT/tests/fixtures/locktorture/new-kernel.log

expect_exit 0 "a run" -- "$BIN" "${QUICK[@]}" -f json -o "$OUT/a.json"
expect_exit 0 "another run" -- "$BIN" "${QUICK[@]}" -f json -o "$OUT/b.json"

# ---- 1. a full file system keeps the old file --------------------------------
# fill ROOM: leave ROOM bytes free on the tmpfs (a file "fill" takes the rest).
fill() {
	rm -f "$MNT/fill"
	python3 - "$MNT" "$1" <<'PY'
import os, sys
s = os.statvfs(sys.argv[1])
free = s.f_bavail * s.f_frsize - int(sys.argv[2])
with open(os.path.join(sys.argv[1], "fill"), "wb") as f:
    f.write(b"\0" * max(free, 0))
PY
}
# full WHAT ARGS...: `lockbench ARGS -o $MNT/r.json` (ARGS also run once
# to a normal file to learn the new content's size) with r.json two
# links to an old content (one page) and room for the new content's
# pages and half a page: the new content fits once, not twice.  (The
# content counted 10% longer: a rerun on a busy host writes longer
# reasons than its trial.)
full() {
	local what=$1 size old
	shift
	rm -f "$MNT"/* "$OUT/size.json"
	"$BIN" "$@" -o "$OUT/size.json" >/dev/null 2>&1
	size=$(stat -c %s "$OUT/size.json" 2>/dev/null || echo 0)
	[ "$size" -gt 4096 ] || { bad "$what: the trial wrote $size bytes"; return; }
	echo "the old content" >"$MNT/r.json"
	ln "$MNT/r.json" "$MNT/r2.json"
	old=$(md5sum <"$MNT/r.json")
	fill $(((size * 11 / 10 + 4095) / 4096 * 4096 + 2048))
	expect_exit 2 "$what on a full file system" -- "$BIN" "$@" -o "$MNT/r.json"
	[ "$(md5sum <"$MNT/r.json")" = "$old" ] && [ "$(md5sum <"$MNT/r2.json")" = "$old" ] &&
		[ "$(stat -c %h "$MNT/r.json")" = 2 ] && ok ||
		bad "$what: the old content is lost: $(stat -c '%h %s' "$MNT/r.json" "$MNT/r2.json")"
	local kept
	kept=$(sed -n 's/.*the complete new content is kept in \([^ ]*\)$/\1/p' "$OUT/stderr")
	[ -n "$kept" ] && python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$kept" &&
		ok || bad "$what: no complete copy kept and named: $(cat "$OUT/stderr")"
}
if mount -t tmpfs -o size=512k tmpfs "$MNT" 2>/dev/null; then
	full "compare" compare -f json "$OUT/a.json" "$OUT/b.json"
	full "merge" merge "$OUT/a.json" "$OUT/b.json"
	full "import" import locktorture "$LT" -f json
	full "a run" "${RUN[@]}" -l tas,ticket,mcs -f json
	full "rerun" rerun "$OUT/a.json" -q -l tas,ticket,mcs
	umount "$MNT"
else
	echo "e2e_faults_write: mount not permitted here: the full file system cases skipped"
fi

# ---- 2. ACLs, extended attributes and links kept -----------------------------
acl() { getfacl -cp "$1" 2>/dev/null; }
cp "$OUT/a.json" "$OUT/acl.json"
if setfacl -m g::---,m::rw "$OUT/acl.json" 2>/dev/null &&
   setfattr -n user.lockbench -v kept "$OUT/acl.json" 2>/dev/null; then
	before=$(acl "$OUT/acl.json")
	for cmd in "compare -f json" merge; do
		# shellcheck disable=SC2086
		expect_exit 0 "$cmd -o a file with an ACL" -- \
			"$BIN" $cmd -o "$OUT/acl.json" "$OUT/a.json" "$OUT/b.json"
		[ "$(acl "$OUT/acl.json")" = "$before" ] && ok ||
			bad "$cmd: the ACL changed: $(acl "$OUT/acl.json" | tr '\n' ' '), was $(echo "$before" | tr '\n' ' ')"
		[ "$(getfattr --only-values -n user.lockbench "$OUT/acl.json" 2>/dev/null)" = kept ] &&
			ok || bad "$cmd: the extended attribute is lost"
	done
else
	echo "e2e_faults_write: setfacl or setfattr not usable here: the ACL cases skipped"
fi
cp "$OUT/a.json" "$OUT/l1.json"
ln -f "$OUT/l1.json" "$OUT/l2.json"
expect_exit 0 "compare -o a file with two links" -- \
	"$BIN" compare -f json -o "$OUT/l1.json" "$OUT/a.json" "$OUT/b.json"
[ "$(stat -c %i "$OUT/l1.json")" = "$(stat -c %i "$OUT/l2.json")" ] &&
	! cmp -s "$OUT/l1.json" "$OUT/a.json" && ok || bad "the two links were split or not written"

# ---- 3. rerun never writes over its input ------------------------------------
cp "$OUT/a.json" "$OUT/r,1.json"
for o in 'r,1.json' './r,1.json' 'json=r,1.json,csv=x.csv' 'csv=x.csv,json=./r,1.json'; do
	before=$(md5sum <"$OUT/r,1.json")
	expect_exit 2 "rerun 'r,1.json' -o '$o'" -- "$BIN" rerun 'r,1.json' -q -o "$o"
	one_line "rerun 'r,1.json' -o '$o'" "names the file being rerun"
	[ "$(md5sum <"$OUT/r,1.json")" = "$before" ] && ok || bad "rerun -o '$o' changed its input"
done

# ---- 4. a stop signal cuts a blocked write short -----------------------------
# stall MODE SIGS CMD...: CMD's output blocked (MODE pipe: stdout a 4 KiB
# pipe, full already and never read; fifo: ./f, the same; noreader: ./f
# never opened); each signal of SIGS (INT, TERM; "run:INT" once the run
# has said its first point on stderr) sent once the process waits on its
# output (its wchan, steady for half a second).  Prints the exit status,
# or "hung" when it is still there 10 s later (then killed).
stall() {
	python3 - "$@" <<'PY'
import fcntl, os, signal, subprocess, sys, time
mode, sigs, cmd = sys.argv[1], sys.argv[2].split(","), sys.argv[3:]
dfl = lambda: [signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)]
out = subprocess.DEVNULL
if mode == "pipe":
    r, w = os.pipe()
    fcntl.fcntl(w, 1031, 4096)          # F_SETPIPE_SZ
    os.write(w, b"x" * 4096)
    out = w
else:
    if os.path.exists("f"):
        os.unlink("f")
    os.mkfifo("f")
p = subprocess.Popen(cmd, stdout=out, preexec_fn=dfl, stderr=open("stderr", "w"))
if mode == "fifo":
    fd = os.open("f", os.O_RDONLY | os.O_NONBLOCK)
    fcntl.fcntl(fd, 1031, 4096)
    os.write(os.open("f", os.O_WRONLY | os.O_NONBLOCK), b"x" * 4096)
WAITS = ("pipe_write", "wait_for_partner", "fifo_open", "poll")
def waiting():
    steady = 0
    for _ in range(600):
        if p.poll() is not None:
            return
        try:
            wchan = open("/proc/%d/wchan" % p.pid).read()
        except OSError:
            return
        steady = steady + 1 if any(w in wchan for w in WAITS) else 0
        if steady >= 10:
            return
        time.sleep(0.05)
for s in sigs:
    if s.startswith("run:"):
        for _ in range(600):
            if "run 1/" in open("stderr").read() or p.poll() is not None:
                break
            time.sleep(0.05)
        s = s[4:]
    else:
        waiting()
    if p.poll() is None:
        os.kill(p.pid, getattr(signal, "SIG" + s))
try:
    print(p.wait(timeout=10))
except subprocess.TimeoutExpired:
    p.kill()
    p.wait()
    print("hung")
PY
}
# cut WHAT WANT MODE SIGS ARGS...: the run ends with WANT and its
# results are in the rescue file it names (with SAVED set: in that file,
# and no rescue file is needed).
cut() {
	local what=$1 want=$2 mode=$3 sigs=$4 got rescue
	shift 4
	rm -f "$OUT"/lockbench-rescue-*
	got=$(stall "$mode" "$sigs" "$BIN" "$@")
	[ "$got" = "$want" ] && ok || bad "$what: exit $got, want $want: $(cat "$OUT/stderr")"
	rescue=$(sed -n 's/^lockbench: the results are saved in //p' "$OUT/stderr")
	[ -n "${SAVED:-}" ] && [ -z "$rescue" ] && rescue=$SAVED
	[ -n "$rescue" ] && python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["points"] or True' "$rescue" &&
		ok || bad "$what: no rescue file named: $(cat "$OUT/stderr")"
}
BIG=(-l tas,ticket -t 1,2 -r 2 --warmup 0 -d 0.02 --no-probe --no-tune -q)
cut "-o -, a stalled reader, INT" 1 pipe INT "${BIG[@]}" -f json -o -
cut "-o -, a stalled reader, TERM" 1 pipe TERM "${BIG[@]}" -f json -o -
SAVED=$OUT/j.json cut "stdout, a stalled reader, INT" 1 pipe INT "${BIG[@]}" -f table,json -o json=j.json
cut "a FIFO, a stalled reader, INT" 1 fifo INT "${BIG[@]}" -f json -o f
cut "a FIFO, a stalled reader, TERM" 1 fifo TERM "${BIG[@]}" -f json -o f
cut "a FIFO without a reader, INT" 1 noreader INT "${BIG[@]}" -f json -o f
cut "a FIFO without a reader, TERM" 1 noreader TERM "${BIG[@]}" -f json -o f
LONG=(-l tas,ticket -t 1,2 -r 2 --warmup 0 -d 0.3 --no-probe --no-tune -f json)
cut "-o -, INT in the run, INT in the write" 130 pipe run:INT,INT "${LONG[@]}" -o -
cut "a FIFO, INT in the run, INT in the write" 130 noreader run:INT,INT "${LONG[@]}" -o f

e2e_done
