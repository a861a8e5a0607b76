#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault battery's words: text that a file (or the machine) supplies
# never reaches a terminal raw, and a floor file is read as any input.
#
#   - `rerun FILE` echoes its recorded words, and compare shows the
#     files' kernel and CPU model (its warnings, "kernel differs",
#     "CPU model differs", --header): an ESC, a BEL or a C1 control in
#     them is escaped, and a newline cannot start a forged line;
#   - a --floor file's floor.refused or floor.host.hostname with a
#     newline or an ESC gives exactly one line on stderr, escaped;
#   - `system show` shows a machine's text (a fake sysfs governor) with
#     its ESC and BEL escaped;
#   - floor.refused that is not a string is refused;
#   - a --floor file larger than the input limit (LOCKBENCH_MAX_INPUT,
#     else 4 MiB) is refused with one line before it is parsed.
#
# Files go to one temporary directory; the machine is left alone.
# Usage: tests/e2e_faults_words.sh [./lockbench]
set -u
. "$(dirname "$0")/lib.sh"
e2e_setup "$@"
QUICK=(-l tas -t 1 -r 2 --warmup 0 -d 0.02 --no-probe --no-tune -q)

# raw WHAT FILE...: no control character but newline in the files (the
# last command's stdout and stderr): an ESC, a BEL, a C1 control.
raw() {
	local what=$1
	shift
	if LC_ALL=C grep -qaP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$@"; then
		bad "$what: raw control characters: $(cat -v "$@" | head -c 400)"
	else
		ok
	fi
}
# forged WHAT FILE...: no line of the files is a forged "lockbench:" one.
forged() {
	local what=$1
	shift
	if grep -qa '^lockbench: forged' "$@"; then
		bad "$what: a forged line: $(grep -a '^lockbench: forged' "$@" | cat -v)"
	else
		ok
	fi
}

expect_exit 0 "a run" -- "$BIN" "${QUICK[@]}" -f json -o "$OUT/a.json"
expect_exit 0 "another run" -- "$BIN" "${QUICK[@]}" -f json -o "$OUT/b.json"
cp "$OUT/b.json" "$OUT/b0.json"     # b.json gets the words below
EVIL=$'6.1\e[31mred\a\nlockbench: forged \xc2\x9b2J'

# ---- rerun's recorded words --------------------------------------------------
python3 - "$OUT/a.json" "$OUT/r.json" "$EVIL" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
cmd = [w for w in d["provenance"]["command"] if w not in ("-q", "--quiet")]
d["provenance"]["command"] = cmd + ["--label", sys.argv[3]]
json.dump(d, open(sys.argv[2], "w"))
PY
"$BIN" rerun "$OUT/r.json" --no-tune -d 0.02 -r 1 -o "$OUT/r2.json" >"$OUT/stdout" 2>"$OUT/stderr"
grep -q "rerun:" "$OUT/stderr" && ok || bad "rerun echoed no words: $(head -c 300 "$OUT/stderr")"
raw "rerun's recorded words" "$OUT/stdout" "$OUT/stderr"
forged "rerun's recorded words" "$OUT/stdout" "$OUT/stderr"

# ---- compare: the files' kernel and CPU model -----------------------------
python3 - "$OUT/b.json" "$EVIL" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"]["kernel"] = sys.argv[2]
d["machine"]["cpu_model"] = "cpu " + sys.argv[2]
d["provenance"]["kernel"] = sys.argv[2]
json.dump(d, open(sys.argv[1], "w"))
PY
for opts in "" "-v" "--header" "-f box --header"; do
	# shellcheck disable=SC2086
	"$BIN" compare $opts "$OUT/a.json" "$OUT/b.json" >"$OUT/stdout" 2>"$OUT/stderr"
	grep -qa "differs" "$OUT/stdout" "$OUT/stderr" || [ -n "$opts" ] && ok ||
		bad "compare $opts: no 'differs' line"
	raw "compare $opts: kernel and CPU model" "$OUT/stdout" "$OUT/stderr"
	forged "compare $opts: kernel and CPU model" "$OUT/stdout" "$OUT/stderr"
done
# JSON stays exact: the kernel as the file has it
expect_exit 0 "compare -f json" -- "$BIN" compare -f json -o "$OUT/c.json" "$OUT/a.json" "$OUT/b.json"
python3 - "$OUT/c.json" "$EVIL" <<'PY' && ok || bad "compare -f json: the kernel was changed"
import json, sys
d = json.load(open(sys.argv[1]))
assert any(f["machine"]["kernel"] == sys.argv[2] for f in d["config"]["files"]), d["config"]["files"]
PY

# ---- a --floor file's words and types ----------------------------------------
# floor FILE REFUSED HOST: a system-check file with those (JSON values)
floor() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
f = {"rel_pct": 4.5, "invocations": 10, "sd_between_pct": 1.5, "lock": "tas",
     "threads": 1, "workload": "cs", "source": "system check"}
refused, host = json.loads(sys.argv[2]), json.loads(sys.argv[3])
if refused is not None:
    f["refused"] = refused
if host is not None:
    f["host"] = host
json.dump({"schema": "lockbench-system-check", "schema_version": "1.1", "floor": f},
          open(sys.argv[1], "w"))
PY
}
J=$(python3 -c 'import json, sys; print(json.dumps(sys.argv[1]))' "$EVIL")
floor "$OUT/f1.json" "$J" null
expect_exit 2 "--floor: floor.refused with ESC and a newline" -- \
	"$BIN" compare --floor "$OUT/f1.json" "$OUT/a.json" "$OUT/b0.json"
one_line "--floor: floor.refused with ESC and a newline" "refused its floor"
raw "--floor: floor.refused" "$OUT/stderr"
floor "$OUT/f2.json" null "{\"hostname\": $J, \"arch\": \"x86_64\", \"pus\": 99999}"
expect_exit 2 "--floor: floor.host.hostname with ESC and a newline" -- \
	"$BIN" compare --floor "$OUT/f2.json" "$OUT/a.json" "$OUT/b0.json"
one_line "--floor: floor.host.hostname with ESC and a newline" "measured on"
raw "--floor: floor.host.hostname" "$OUT/stderr"
floor "$OUT/f3.json" 7 null
expect_exit 2 "--floor: floor.refused a number" -- \
	"$BIN" compare --floor "$OUT/f3.json" "$OUT/a.json" "$OUT/b0.json"
one_line "--floor: floor.refused a number" "floor.refused is not a string"
floor "$OUT/f4.json" null '{"hostname": 5, "arch": "x86_64", "pus": 2}'
expect_exit 2 "--floor: floor.host.hostname a number" -- \
	"$BIN" compare --floor "$OUT/f4.json" "$OUT/a.json" "$OUT/b0.json"
one_line "--floor: floor.host.hostname a number" "floor.host is not"

# ---- system show: the machine's own text -------------------------------------
build_mkfake
fresh_tree
printf 'perf\033]0;owned\a\nlockbench: forged\n' >"$GOV"
expect_exit 0 "system show, a governor with ESC and a newline" -- "$BIN" system show
grep -q "perf" "$OUT/stdout" && ok || bad "system show: no governor shown: $(head -c 300 "$OUT/stdout")"
raw "system show: the machine's text" "$OUT/stdout" "$OUT/stderr"
unset LOCKBENCH_SYSROOT LOCKBENCH_STATE

# ---- a --floor file above the input limit ------------------------------------
python3 - "$OUT/big.json" <<'PY'
import json, sys
f = {"rel_pct": 4.5, "invocations": 10, "sd_between_pct": 1.5, "source": "system check"}
json.dump({"schema": "lockbench-system-check", "floor": f, "pad": ["x" * 1000] * 6000},
          open(sys.argv[1], "w"))
PY
expect_exit 2 "--floor: 6 MB file, LOCKBENCH_MAX_INPUT=1M" -- env LOCKBENCH_MAX_INPUT=1M \
	"$BIN" compare --floor "$OUT/big.json" "$OUT/a.json" "$OUT/b0.json"
one_line "--floor: 6 MB file, LOCKBENCH_MAX_INPUT=1M" "larger than the input limit of 1048576 bytes"
expect_exit 2 "--floor: 6 MB file, the default limit" -- \
	"$BIN" compare --floor "$OUT/big.json" "$OUT/a.json" "$OUT/b0.json"
one_line "--floor: 6 MB file, the default limit" "LOCKBENCH_MAX_INPUT raises it"
expect_exit 0 "--floor: 6 MB file, LOCKBENCH_MAX_INPUT=8M" -- env LOCKBENCH_MAX_INPUT=8M \
	"$BIN" compare --floor "$OUT/big.json" "$OUT/a.json" "$OUT/b0.json"

e2e_done
