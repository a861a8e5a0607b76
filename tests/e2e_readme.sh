#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Every command of README.md, run as written: the indented code lines
# are read from README.md when the test runs (so an edit of the README
# is tested), in a scratch directory where ./lockbench is the binary.
# Only paths are substituted: ~/linux and ~/linux-cna are miniature
# kernel trees (tests/fixtures/ktree-*), dmesg-*.log are fixture logs
# (tests/fixtures/locktorture), `sudo ./lockbench locktorture` runs
# against the fake module (tests/fakelt) in a fake /sys (tests/fakesys),
# mylock.c is examples/ticket_backoff.c named mylock, and locks/ and
# build/include/ are the tree's.  Durations are
# shortened by LOCKBENCH_TIME_SCALE (lockbench(1), ENVIRONMENT), which
# the binary honours.  Not run: the set-up line's apt-get and make (its
# packages are checked against .ci/run's instead; its ./lockbench is
# run), `make test` (which runs this).  A command that exits non-zero,
# a command of a kind this script does not know, or output whose shape
# differs from what the README shows (the quickstart's heading, columns
# and row labels; the sweep's tables) fails the test.
#
# usage: tests/e2e_readme.sh [./lockbench]   (README=FILE: another README)
set -u

BIN=$(realpath "${1:-./lockbench}")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
README=$(realpath "${README:-$ROOT/README.md}")
OUT=$(mktemp -d)
dirs=()
trap lt_cleanup EXIT
. "$HERE/lib.sh"
# The scale itself: a bad factor is one line, exit 2, nothing run.
for f in 0 2 x -1; do
	LOCKBENCH_TIME_SCALE=$f expect_exit 2 "LOCKBENCH_TIME_SCALE=$f" -- "$BIN" -l tas -t 1 -q &&
		{ [ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "^lockbench: LOCKBENCH_TIME_SCALE ($f): " \
			"$OUT/stderr" && ok || bad "LOCKBENCH_TIME_SCALE=$f: $(cat "$OUT/stderr")"; }
done
# A run records the durations as run.
LOCKBENCH_TIME_SCALE=0.1 "$BIN" -l tas -t 1 -r 1 -d 0.5 --warmup 0.2 --no-tune -q -f json -o "$OUT/s.json" &&
	python3 -c 'import json, sys; c = json.load(open(sys.argv[1]))["config"]
assert abs(c["duration_s"] - 0.05) < 1e-9 and abs(c["warmup_s"] - 0.02) < 1e-9, c' "$OUT/s.json" &&
	ok || bad "LOCKBENCH_TIME_SCALE=0.1: the durations recorded"
export LOCKBENCH_TIME_SCALE=${LOCKBENCH_TIME_SCALE:-0.05}
W=$OUT/w
mkdir -p "$W"

# ---- the commands, as the README has them ------------------------------------
# Indented lines outside the example-output blocks, in order.
python3 - "$README" >"$OUT/cmds" <<'EOF'
import sys
skip = False
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("<!-- example:"):
        skip = line.endswith(":begin -->")
        continue
    if not skip and line.startswith("    ") and line.strip():
        print(line.strip())
EOF
[ "$(wc -l <"$OUT/cmds")" -ge 10 ] && ok || bad "README: only $(wc -l <"$OUT/cmds") commands found"

# ---- the scratch directory -----------------------------------------------------
ln -s "$BIN" "$W/lockbench"
ln -s "$ROOT/locks" "$W/locks"
mkdir -p "$W/build" && ln -s "$ROOT/build/include" "$W/build/include"
# the kernel compatibility layer, found next to the binary when it is ./lockbench
export LOCKBENCH_COMPAT_DIR=${LOCKBENCH_COMPAT_DIR:-$ROOT/kernel/compat}
cp -r "$ROOT/tests/fixtures/ktree-onefile" "$W/linux"
cp -r "$ROOT/tests/fixtures/ktree-split" "$W/linux-cna"
cp "$ROOT/tests/fixtures/locktorture/new-kernel.log" "$W/dmesg-1.log"
cp "$ROOT/tests/fixtures/locktorture/one-report.log" "$W/dmesg-2.log"
sed 's/"ticket_backoff"/"mylock"/' "$ROOT/examples/ticket_backoff.c" >"$W/mylock.c"
mkdir -p "$W/a" "$W/b"
# The fake machine and module of `sudo ./lockbench locktorture`.
build_mkfake
build_fake_modprobe
fake_machine() {
	local d R
	d=$("$OUT/mkfake" acpi) || exit 1
	dirs+=("$d")
	R=$d/root
	lt_machine "$d"
	FAKE_ENV=(LOCKBENCH_SYSROOT="$R" LOCKBENCH_STATE="$d/state/state.json"
		  LOCKBENCH_MODPROBE="$OUT/fake_modprobe")
}

# run N CMD: the README's command line CMD (paths substituted) in $W by
# bash; its stdout in $OUT/N.out, stderr in $OUT/N.err; exit 0 wanted.
run() {
	local n=$1 cmd=$2 env=()
	cmd=${cmd//\~\/linux-cna/$W/linux-cna}
	cmd=${cmd//\~\/linux/$W/linux}
	case $cmd in
	sudo\ *)
		# root, or not: the fake module needs neither
		cmd=${cmd#sudo }
		fake_machine
		env=("${FAKE_ENV[@]}")
		;;
	*"lockbench system check"*)
		# a fake machine whose /proc/stat does not move: the check
		# refuses a floor measured beside other work (e2e_syscheck.sh
		# tests that), which is not what this test is about
		fake_machine
		quiet_proc "${FAKE_ENV[0]#LOCKBENCH_SYSROOT=}"
		env=("${FAKE_ENV[@]}")
		;;
	esac
	(cd "$W" && env "${env[@]}" bash -c "$cmd") >"$OUT/$n.out" 2>"$OUT/$n.err"
	local rc=$?
	[ $rc -eq 0 ] && ok || { bad "README command exits $rc: $2: $(tail -n 3 "$OUT/$n.err")"; return 1; }
}

# The set-up line: its packages are .ci/run's native ones; its last
# command, the default sweep, is run.
setup=$(grep -m1 'apt-get install' "$OUT/cmds")
# (the :arm64 and cross packages of .ci/run are for `make arm64` only)
want=$(sed -n '/apt-get install/,/>\/dev\/null/p' "$ROOT/.ci/run" | tr ' \t\\' '\n\n\n' |
	grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vE 'arm64|aarch64|^qemu-user$|^apt-get$|^install$' | sort -u)
have=$(echo "$setup" | sed 's/.*apt-get install -y //; s/ &&.*//' | tr ' ' '\n' | sort -u)
[ -n "$want" ] && [ "$want" = "$have" ] && ok ||
	bad "README set-up line and .ci/run install different packages: $(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | tr '\n' ' ')"
case $setup in
*"&& ./lockbench") ok ;;
*) bad "README set-up line does not end in ./lockbench: $setup" ;;
esac

# The README's own example of the quickstart: heading and row labels of
# each table (the numbers and marks are this machine's).
shape() { # FILE: per table the heading words, the statistic line, the row labels
	awk '/^(Lock|Kernel):/ { print "H", $0; rows = 0; next }
	     /^Statistic/ { print "S", $0; next }
	     /^threads:$|^cs_ns:$/ { rows = 1; print "R", $0; next }
	     /^$/ { rows = 0; next }
	     rows { l = $1; sub(/\*$/, "", l); print "L", l }' "$1" | tr -s ' '
}
# loose SHAPE: what no split of the tables changes: the locks in order
# of first appearance, the row headings and the row labels.
loose() {
	awk '$1 == "H" { for (i = 3; i <= NF; i++) if (!seen[$i]++) h = h "H " $i "\n"; next }
	     $1 == "S" { next }
	     !seen[$0]++ { r = r $0 "\n" }
	     END { printf "%s%s", h, r }' "$1"
}
sed -n '/<!-- example:quickstart:begin -->/,/<!-- example:quickstart:end -->/p' "$README" |
	grep -v '^<!--' | sed 's/^    //' >"$OUT/quickstart.readme"

n=0
while IFS= read -r cmd; do
	n=$((n + 1))
	case $cmd in
	*apt-get*)
		run $n "./lockbench" || continue
		grep -q "^Lock:" "$OUT/$n.out" && ok || bad "./lockbench: no table: $(head -5 "$OUT/$n.out")" ;;
	"make test")
		ok ;;  # the command running this test
	"./lockbench -l pthread_mutex,ticket,mcs -t 1,2,4")
		run $n "$cmd" || continue
		shape "$OUT/quickstart.readme" >"$OUT/want.shape"
		shape "$OUT/$n.out" >"$OUT/got.shape"
		# On a busy host the noise rule may leave out every run of a
		# point (its cells "-", the "!" note says so): the narrower
		# cells can then fit one table where the README shows two.
		# The locks and rows must still be the README's.
		if tr -s " \n" "  " <"$OUT/$n.out" | grep -q "left out of the statistics"; then
			loose "$OUT/want.shape" >"$OUT/want.loose"
			loose "$OUT/got.shape" >"$OUT/got.loose"
			mv "$OUT/want.loose" "$OUT/want.shape"
			mv "$OUT/got.loose" "$OUT/got.shape"
		fi
		[ -s "$OUT/want.shape" ] && cmp -s "$OUT/want.shape" "$OUT/got.shape" && ok ||
			bad "quickstart: the table's shape differs from the README's: $(diff "$OUT/want.shape" "$OUT/got.shape" | head -8 | tr '\n' '|')"
		# the notes: none cut; at most 6 lines, or past 6 only the
		# notes of the marks the table shows (a noisy host adds '!'
		# and '^'), the rest behind "more notes"
		notes=$(awk 'NR > 1 && prev == "" && !/^(Lock|Kernel):/ { on = 1 } on; { prev = $0 }' "$OUT/$n.out")
		{ [ "$(echo "$notes" | grep -c .)" -le 6 ] ||
			echo "$notes" | awk '/^   / || /more notes? \(-v/ { next } !/^[*#~_!?^] / { exit 1 }'; } &&
			! echo "$notes" | grep -q '\.\.\.$' && ok ||
			bad "quickstart notes: $notes" ;;
	./lockbench\ *--rows\ cs-ns*)
		run $n "$cmd" || continue
		# a table per (threads, cs_lines), cs_ns 0, 100, 1000 down the rows
		[ "$(grep -c '^threads=2 cs_lines=[14]$' "$OUT/$n.out")" -eq 2 ] &&
			[ "$(grep -c '^cs_ns:$' "$OUT/$n.out")" -eq 2 ] &&
			[ "$(grep -A3 '^cs_ns:$' "$OUT/$n.out" | awk '/^[0-9]/ { print $1 }' | tr '\n' ' ')" = "0 100 1000 0 100 1000 " ] &&
			ok || bad "sweep: $(cat "$OUT/$n.out")" ;;
	cc\ *)
		run $n "$cmd" || continue
		cp "$W/mylock.so" "$W/a/mylock.so" && cp "$W/mylock.so" "$W/b/mylock.so" && ok ||
			bad "cc: no mylock.so" ;;
	./lockbench\ --plugin*|./lockbench\ --kernel-tree*)
		run $n "$cmd" || continue
		locks=$(echo "$cmd" | sed 's/.* -l \([^ ]*\).*/\1/' | tr ',' ' ')
		for l in $locks; do
			grep -q "^Lock:.* $l\( \|$\)" "$OUT/$n.out" && ok || bad "$l not in the table: $(head -3 "$OUT/$n.out")"
		done ;;
	./lockbench\ -l\ *-o\ run.json)
		run $n "$cmd" || continue
		grep -q "^Lock: *ticket *mcs$" "$OUT/$n.out" && ok || bad "run.json run: no table"
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$W/run.json" && ok ||
			bad "run.json is not JSON" ;;
	jq\ *)
		run $n "$cmd" || continue
		# a mean for every point, or none where the point's every run
		# was left out as noisy (a busy host; run.json says so)
		python3 - "$OUT/$n.out" "$W/run.json" <<'PY' && ok ||
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
pts = {(p["variant"], str(p["threads"])): p for p in json.load(open(sys.argv[2]))["points"]}
assert len(rows) == 4 and all(len(r) == 3 for r in rows), rows
for v, t, m in rows:
    p = pts[(v, t)]
    if m == "":
        assert p["runs"] and all(r["excluded"] for r in p["runs"]), (v, t)
    else:
        mean = p["summary"]["mean"]
        assert float(m) > 0 and abs(float(m) - mean) <= 1e-9 * mean, (v, t, m)
PY
			bad "jq: want variant, threads, mean for 4 points: $(cat "$OUT/$n.out")" ;;
	python3\ -c*)
		run $n "$cmd" || continue
		grep -qx "1\.[0-9]* 4" "$OUT/$n.out" && ok || bad "python3: $(cat "$OUT/$n.out")" ;;
	"./lockbench system check -f table,json -o check.json")
		run $n "$cmd" || continue
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["floor"]["rel_pct"] > 0' \
			"$W/check.json" && grep -qi floor "$OUT/$n.out" && ok || bad "system check: no report on stdout, or check.json not its JSON" ;;
	for\ *)
		run $n "$cmd" ;;
	"./lockbench compare --floor check.json k0-*.json k1-*.json")
		run $n "$cmd" || continue
		grep -q "^Kernel: *stock/[a-z_]* *patched/[a-z_]*$" "$OUT/$n.out" && ok ||
			bad "compare --floor: $(head -5 "$OUT/$n.out")" ;;
	./lockbench\ import\ *)
		run $n "$cmd" || continue
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["label"] == "k1-rmacq"' \
			"$W/k1.json" && ok || bad "import: k1.json" ;;
	sudo\ ./lockbench\ locktorture*)
		run $n "$cmd" || continue
		grep -q "^Kernel:" "$OUT/$n.out" && grep -q "^nwriters_stress:$" "$OUT/$n.out" && ok ||
			bad "locktorture: $(head -5 "$OUT/$n.out")" ;;
	scripts/vm.sh\ 4x4\ --\ lockbench\ topo\ *)
		# a guest boot: tests/e2e_vm.sh boots 4x4 and checks topo and
		# spread there; here only that vm.sh takes the command line
		(cd "$ROOT" && bash -n scripts/vm.sh && scripts/vm.sh --help | grep -q '^vm.sh \[options\] TOPOLOGY') &&
			ok || bad "scripts/vm.sh: no usage" ;;
	./lockbench\ topo\ *)
		run $n "$cmd" || continue
		[ "$(grep -c . "$OUT/$n.out")" -ge 8 ] && ok || bad "topo: $(cat "$OUT/$n.out")" ;;
	*)
		bad "README command this test does not know (add it here): $cmd" ;;
	esac
done <"$OUT/cmds"

e2e_done
