#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of -o choosing the format by its name (docs/formats.md,
# "Where each format goes"): without -f, every command that writes -o
# (run, system check, compare, merge, import, locktorture, rerun) writes
# JSON into NAME.json, CSV into NAME.csv and its text format into
# NAME.txt; -f that contradicts the name is refused with one line, exit
# 2, and no file.  The README's floor recipe (system check -o
# check.json, then compare --floor check.json) works as written.
#
# usage: tests/e2e_outext.sh [./lockbench]
set -u

BIN=$(realpath "${1:-./lockbench}")
HERE=$(cd "$(dirname "$0")" && pwd)
G=$HERE/golden
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$HERE/lib.sh"

K0=$G/rtmutex/k0.json
K1=$G/rtmutex/k1.json
LT=$HERE/fixtures/locktorture/new-kernel.log
QUICK=(-l tas,ticket -t 1 -r 2 --warmup 0 -d 0.05 --no-tune -q)

is_json() { python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
is_csv() { head -1 "$1" | grep -q '^variant,lock,label,'; }
is_table() { grep -q '^\(Lock\|Kernel\):' "$1" && ! is_json "$1"; }

# named WHAT KIND FILE ARGS...: `$BIN ARGS -o FILE` exits 0 and FILE
# holds KIND (json, csv, table).
named() {
	local what=$1 kind=$2 file=$OUT/$3
	shift 3
	rm -f "$file"
	expect_exit 0 "$what" -- "$BIN" "$@" -o "$file" || return
	"is_$kind" "$file" && ok || bad "$what: $file is not $kind: $(head -c 200 "$file")"
}

# clash WHAT FILE ARGS...: exit 2, one line naming the clash, no file.
clash() {
	local what=$1 file=$OUT/$2
	shift 2
	rm -f "$file"
	expect_exit 2 "$what" -- "$BIN" "$@" -o "$file" || return
	[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "^lockbench: --output (.*): the name says" \
		"$OUT/stderr" && ok || bad "$what: want one line: $(cat "$OUT/stderr")"
	ls "$file"* >/dev/null 2>&1 && bad "$what: left $file" || ok
}

# ---- a run --------------------------------------------------------------
named "run -o .json" json run.json "${QUICK[@]}"
named "run -o .csv" csv run.csv "${QUICK[@]}"
named "run -o .txt" table run.txt "${QUICK[@]}"
named "run -o, another name: the table" table run.out "${QUICK[@]}"
named "run -f table,json -o .json" json both.json "${QUICK[@]}" -f table,json
grep -q "^Lock:" "$OUT/stdout" && ok || bad "run -f table,json: the table not on stdout"
clash "run -f table -o .json" x.json "${QUICK[@]}" -f table
clash "run -f json -o .csv" x.csv "${QUICK[@]}" -f json
clash "run -f csv -o .txt" x.txt "${QUICK[@]}" -f csv
clash "run -f table,csv -o .json (csv goes there)" x.json "${QUICK[@]}" -f table,csv
expect_exit 0 "run -f json -o .JSON" -- "$BIN" "${QUICK[@]}" -f json -o "$OUT/up.JSON"

# ---- rerun: the recorded -f goes with the recorded -o ----------------------
named "rerun -o .csv" csv again.csv rerun "$OUT/run.json" -q
named "rerun -o .json" json again.json rerun "$OUT/run.json" -q
"$BIN" "${QUICK[@]}" -f json -o "$OUT/rec.json" && ok || bad "run -f json"
named "rerun of a -f json run, -o .txt" table again.txt rerun "$OUT/rec.json" -q
clash "rerun -f json -o .csv" x.csv rerun "$OUT/rec.json" -q -f json

# ---- compare, merge, import, locktorture -----------------------------------
named "compare -o .json" json c.json compare "$K0" "$K1"
named "compare -o .csv" csv c.csv compare "$K0" "$K1"
named "compare -o .txt" table c.txt compare "$K0" "$K1"
clash "compare -f table -o .json" x.json compare -f table "$K0" "$K1"
clash "compare -f json -o .txt" x.txt compare -f json "$K0" "$K1"
named "merge -o .json" json m.json merge "$K0" "$K1"
clash "merge -o .csv (merge writes JSON)" x.csv merge "$K0" "$K1"
named "import -o .json" json i.json import locktorture "$LT"
named "import -o .txt" table i.txt import locktorture "$LT"
named "import -o .csv" csv i.csv import locktorture "$LT"
clash "import -f csv -o .json" x.json import locktorture -f csv "$LT"
# locktorture refuses bad -f/-o before it touches the machine
clash "locktorture -f table -o .json" x.json locktorture -f table -t 1 -r 1 -d 1 -q

# ---- system check and the README's floor recipe ------------------------------
# (on a fake machine whose /proc/stat does not move: the check refuses a
# floor measured beside other work, which this test is not about)
build_mkfake
fk=$("$OUT/mkfake" acpi) || exit 1
trap 'rm -rf "$OUT" "$fk"' EXIT
quiet_proc "$fk/root"
export LOCKBENCH_SYSROOT=$fk/root LOCKBENCH_STATE=$fk/state/state.json
named "system check -o .json" json check.json system check -d 0.02 -q
clash "system check -f table -o .json" x.json system check -d 0.02 -q -f table
clash "system check -f json -o .txt" x.txt system check -d 0.02 -q -f json
"$BIN" compare --floor "$OUT/check.json" "$K0" "$K1" >"$OUT/o" 2>"$OUT/e"
rc=$?
[ $rc -eq 0 ] && grep -q "^Kernel:" "$OUT/o" && ok ||
	bad "compare --floor check.json: exit $rc: $(cat "$OUT/e")"

e2e_done
