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

# ---- compare --rows PARAM: a bash-loop sweep, one table ----------------------
for c in 0 100 1000; do
	"$BIN" -l ticket,mcs "${QUICK[@]}" --cs-ns $c -f json -o "$OUT/cs$c.json" || bad "cs $c"
done
expect_exit 0 "compare --rows cs-ns of three files" -- "$BIN" compare --rows cs-ns \
	"$OUT/cs0.json" "$OUT/cs100.json" "$OUT/cs1000.json"
# One table: one heading, rows 0, 100, 1000 under "cs_ns:", each with both locks.
[ "$(grep -c '^Lock:' "$OUT/stdout")" -eq 1 ] && grep -q "^Lock: *ticket *mcs$" "$OUT/stdout" &&
	grep -A3 '^cs_ns:$' "$OUT/stdout" | awk 'NR > 1 { print $1 }' | tr '\n' ' ' |
	grep -qx "0 100 1000 " && ok || bad "--rows cs-ns: one table: $(cat "$OUT/stdout")"
[ "$(grep -A3 '^cs_ns:$' "$OUT/stdout" | awk 'NR > 1' | grep -c '[+-][0-9]*%')" -eq 3 ] && ok ||
	bad "--rows cs-ns: mcs against ticket at each cs_ns: $(cat "$OUT/stdout")"
grep -q "measured with other parameters\|configuration differs" "$OUT/stderr" &&
	bad "--rows cs-ns warned: $(cat "$OUT/stderr")" || ok
# JSON: each column carries its cs_ns as a sweep's would.
"$BIN" compare --rows cs-ns -f json "$OUT/cs0.json" "$OUT/cs100.json" "$OUT/cs1000.json" |
	python3 -c 'import json, sys
d = json.load(sys.stdin)
got = sorted((v["name"], v["params"]["cs_ns"]) for v in d["variants"])
assert got == sorted((f"{l} cs_ns={c}", c) for l in ("ticket", "mcs") for c in (0, 100, 1000)), got' &&
	ok || bad "--rows cs-ns: JSON params"
# A file that differs in something else: one line, exit 2.
"$BIN" -l ticket,mcs "${QUICK[@]}" --cs-ns 100 --ncs-ns 50 -f json -o "$OUT/ncs.json" || bad "ncs"
expect_exit 2 "--rows cs-ns, another setting differs" -- "$BIN" compare --rows cs-ns \
	"$OUT/cs0.json" "$OUT/ncs.json" &&
	{ [ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "differ in ncs_ns (.*) too" "$OUT/stderr" &&
		[ ! -s "$OUT/stdout" ] && ok || bad "refusal: $(cat "$OUT/stderr")"; }

echo "e2e_notes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
