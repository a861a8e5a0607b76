# Shared helpers of the end-to-end scripts: source after setting BIN and
# OUT (a scratch directory).  Each script counts with ok/bad and ends
# with its own "NAME: N passed, N failed" line.
pass=0
fail=0

ok() { pass=$((pass + 1)); }

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
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

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
	if [ "$(wc -l <"$OUT/stderr")" -ne 1 ]; then
		bad "$what: want one line on stderr, got: $(cat "$OUT/stderr")"
	elif ! grep -q -- "$pattern" "$OUT/stderr"; then
		bad "$what: stderr lacks '$pattern': $(cat "$OUT/stderr")"
	else
		ok
	fi
	if [ -n "${BAD_OUT:-}" ]; then
		if ls "$BAD_OUT"* >/dev/null 2>&1; then bad "$what: left an output file"; else ok; fi
	fi
}

# SIGDFL COMMAND...: run COMMAND with SIGINT and SIGQUIT at their default
# action.  A shell without job control starts a background job with
# both ignored, and lockbench leaves a signal ignored at start ignored
# (nohup, `trap '' TERM`), so a test that interrupts a background run
# starts it through this: "${SIGDFL[@]}" "$BIN" ... &
SIGDFL=(env --default-signal=INT,QUIT)

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
