# Shared helpers of the end-to-end scripts: source after setting BIN and
# OUT (a scratch directory), or source first and call e2e_setup.  Each
# script counts with ok/bad and ends with e2e_done, its "NAME: N passed,
# N failed" line.  Here: the set-up and the counters, a command's exit
# and its one-line stderr (expect_exit, one_line, bad_input), files
# checked (same, json_ok), time (now, within), waiting on a background
# run (until_stderr, SIGDFL), and the fake machines (build_mkfake,
# fresh_tree, tree_sum, quiet_proc; for the fake locktorture
# build_fake_modprobe, lt_machine, lt_cleanup).
pass=0
fail=0
CC=${CC:-cc}

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

# e2e_done: the script's last line, "NAME: N passed, N failed" (NAME the
# script's), and its status: 0 when nothing failed.
e2e_done() {
	echo "$(basename "$0" .sh): $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

# until_stderr FILE PATTERN: wait (about 30 s at most) until FILE, a
# background run's stderr, holds PATTERN (e.g. a progress line: start-up
# time varies with the machine's load, so no fixed sleep); 1 if never.
until_stderr() {
	for _ in $(seq 3000); do
		grep -q -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.01
	done
	return 1
}

# This folder (tests/), wherever the script that sources this runs from.
LIB_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# e2e_setup [BIN]: the start the fault scripts share.  BIN the binary
# named (./lockbench by default) made absolute, ROOT the source tree,
# OUT a new scratch directory removed at exit (a script with more to
# clean sets its own trap after this), TMPDIR inside it (a rescue file
# that finds no other place lands there) and the current directory (so
# does a relative path a bug might create).
e2e_setup() {
	BIN=$(realpath "${1:-./lockbench}")
	ROOT=$(cd "$LIB_TESTS/.." && pwd)
	OUT=$(mktemp -d)
	trap 'rm -rf "$OUT"' EXIT
	export TMPDIR=$OUT
	cd "$OUT" || exit 1
}

# same EXPECTED ACTUAL WHAT: byte-for-byte equality, else a failure with
# the first lines of the diff (LB_GOLDEN_UPDATE=1 rewrites EXPECTED, a
# golden file, instead).
same() {
	if [ -n "${LB_GOLDEN_UPDATE:-}" ]; then cp "$2" "$1"; ok; return; fi
	if cmp -s "$1" "$2"; then ok; else bad "$3"; diff "$1" "$2" | head -20; fi
}

# json_ok WHAT FILE [CONDITION]: FILE is JSON and the python CONDITION
# on it (as d) holds.
json_ok() {
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert ${3:-True}" "$2" \
		2>/dev/null && ok || bad "$1: $2 is not the JSON expected"
}

# now: the time, in seconds; within WHAT START LIMIT: less than LIMIT
# seconds since START (a `now`).
now() { date +%s.%N; }
within() {
	python3 -c 'import sys; sys.exit(0 if float(sys.argv[2]) - float(sys.argv[1]) < float(sys.argv[3]) else 1)' \
		"$2" "$(now)" "$3" && ok || bad "$1: took $(python3 -c "print(round($(now) - $2, 2))") s, want < $3 s"
}

# one_line WHAT PATTERN: the last command's stderr ($OUT/stderr) is one
# line holding PATTERN; counts a failure otherwise.
one_line() {
	if [ "$(wc -l <"$OUT/stderr")" -ne 1 ]; then
		bad "$1: want one line on stderr, got: $(head -c 400 "$OUT/stderr")"
	elif ! grep -q -- "$2" "$OUT/stderr"; then
		bad "$1: stderr lacks '$2': $(head -c 400 "$OUT/stderr")"
	else
		ok
	fi
}

# build_mkfake: compile the fake sysroot maker (tests/fakesys/mkfake.c)
# into $OUT/mkfake; the script ends if it cannot.
build_mkfake() {
	"${CC:-cc}" -std=gnu11 -O2 -I"$LIB_TESTS/fakesys" "$LIB_TESTS/fakesys/mkfake.c" \
		"$LIB_TESTS/fakesys/fakesys.c" -o "$OUT/mkfake" || exit 1
}

# build_fake_modprobe: compile the fake modprobe of the locktorture
# tests (tests/fakelt/fake_modprobe.c) into $OUT/fake_modprobe.
build_fake_modprobe() {
	"${CC:-cc}" -std=gnu11 -O2 -Wall -Wextra "$LIB_TESTS/fakelt/fake_modprobe.c" \
		-o "$OUT/fake_modprobe" -lm || exit 1
}

# lt_machine DIR [noloader]: the fake machine DIR (made by mkfake) made
# one that can load the fake locktorture: a kernel release, /dev/kmsg,
# the release's modules.dep and modules.builtin, and /proc/modules
# unless noloader (a kernel without module support).
lt_machine() {
	local R=$1/root
	mkdir -p "$R/dev" "$R/proc/sys/kernel" "$R/lib/modules/6.6.0-fake"
	: >"$R/dev/kmsg"
	echo 6.6.0-fake >"$R/proc/sys/kernel/osrelease"
	echo "kernel/kernel/locking/locktorture.ko.xz: kernel/kernel/torture.ko.xz" \
		>"$R/lib/modules/6.6.0-fake/modules.dep"
	: >"$R/lib/modules/6.6.0-fake/modules.builtin"
	[ "${2:-}" = noloader ] || : >"$R/proc/modules"
}

# lt_cleanup: for the EXIT trap of a script whose fake machines are in
# the array dirs: each one's fake locktorture daemon (left running by a
# failed test) stopped through the fake modprobe, the machines and $OUT
# removed.
lt_cleanup() {
	for d in "${dirs[@]}"; do
		[ -f "$d/root/fakelt/daemon.pid" ] &&
			LOCKBENCH_SYSROOT=$d/root "$OUT/fake_modprobe" -r locktorture 2>/dev/null
		rm -rf "$d"
	done
	rm -rf "$OUT"
}

# fresh_tree [NAME]: a new fake machine (`mkfake acpi`, after
# build_mkfake) in $OUT/NAME (default: tree), removed with $OUT, and
# lockbench pointed at it: LOCKBENCH_SYSROOT its root, LOCKBENCH_STATE
# a state file inside it.  TREE names it; GOV, BOOST and NUMA its CPU
# 0 governor, boost and numa_balancing files.
fresh_tree() {
	local d
	TREE=$OUT/${1:-tree}
	rm -rf "$TREE"
	d=$("$OUT/mkfake" acpi) || exit 1
	mv "$d" "$TREE"
	export LOCKBENCH_SYSROOT=$TREE/root LOCKBENCH_STATE=$TREE/state/state.json
	GOV=$TREE/root/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
	BOOST=$TREE/root/sys/devices/system/cpu/cpufreq/boost
	NUMA=$TREE/root/proc/sys/kernel/numa_balancing
}

# tree_sum DIR: every file under DIR (a fake machine) with its value, as
# one hash; a value's last newline is left out, as a restore writes the
# value without the fake file's newline (a sysfs attribute takes it so;
# scaling_setspeed's "<unsupported>" is written back too,
# topology/machine_state.c).
tree_sum() {
	python3 -c 'import os, sys
for d, _, files in sorted(os.walk(sys.argv[1])):
    for f in sorted(files):
        p = os.path.join(d, f)
        print(p, open(p, "rb").read().rstrip(b"\n"))' "$1" | sha256sum
}

# expect_exit CODE DESCRIPTION -- command...: run it, stdout and stderr
# into $OUT/stdout and $OUT/stderr; count a failure unless it exits CODE.
expect_exit() {
	local want=$1 what=$2
	shift 3
	"$@" >"$OUT/stdout" 2>"$OUT/stderr"
	local got=$?
	if [ "$got" -ne "$want" ]; then
		bad "$what: exit $got, want $want; stderr: $(head -c 300 "$OUT/stderr")"
		return 1
	fi
	ok
}

# bad_input DESCRIPTION PATTERN ARGS...: `$BIN ARGS -q` must exit 2 with
# exactly one line on stderr containing PATTERN.  With BAD_OUT set, the
# run also gets `-o $BAD_OUT`, and no such file (or temporary twin) may
# be left behind.
bad_input() {
	local what=$1 pattern=$2
	shift 2
	if [ -n "${BAD_OUT:-}" ]; then
		rm -f "$BAD_OUT"
		set -- "$@" -o "$BAD_OUT"
	fi
	expect_exit 2 "$what" -- "$BIN" "$@" -q || return
	one_line "$what" "$pattern"
	if [ -n "${BAD_OUT:-}" ]; then
		if ls "$BAD_OUT"* >/dev/null 2>&1; then bad "$what: left an output file"; else ok; fi
	fi
}

# SIGDFL COMMAND...: run COMMAND with every signal at its default
# action.  A shell without job control starts a background job with
# SIGINT and SIGQUIT ignored, `nohup make test` ignores SIGHUP, and
# lockbench leaves a signal ignored at start ignored (`trap '' TERM`),
# so a test that interrupts a background run starts it through this:
# "${SIGDFL[@]}" "$BIN" ... &
SIGDFL=(env --default-signal)

# quiet_proc ROOT: a /proc/stat and /proc/interrupts under the fake
# sysroot ROOT that do not move, so that `system check` run there finds
# the machine quiet whatever else runs (its floor is refused on a busy
# machine; e2e_syscheck.sh tests that refusal on a /proc/stat that moves).
quiet_proc() {
	local r=$1 n
	n=$(nproc)
	mkdir -p "$r/proc"
	{
		echo "cpu  100 0 100 1000 0 0 0 0 0 0"
		for c in $(seq 0 $((n - 1))); do echo "cpu$c 50 0 50 500 0 0 0 0 0 0"; done
	} >"$r/proc/stat"
	{
		for c in $(seq 0 $((n - 1))); do printf '  CPU%d' "$c"; done; echo
		printf 'LOC:'; for c in $(seq 0 $((n - 1))); do printf ' %d' $((100 + c)); done
		echo "   Local timer interrupts"
	} >"$r/proc/interrupts"
}
