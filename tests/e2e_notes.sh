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
# The runs' noise measurements are dropped (as the file of a quiet
# machine): a point whose every run a busy machine left out has no rel%,
# and what is tested here is the table's shape, not this machine's load.
for c in 0 100 1000; do
	"$BIN" -l ticket,mcs "${QUICK[@]}" --cs-ns $c -f json -o "$OUT/cs$c.json" || bad "cs $c"
	python3 - "$OUT/cs$c.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for r in p["runs"]:
        r.pop("workers", None); r["flags"] = []; r["excluded"] = False; r["reason"] = None
        r["ops_per_sec"] = max(r["ops_per_sec"], 1.0)
json.dump(d, open(sys.argv[1], "w"))
PY
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

# ---- `_` from its cause, and the marks' notes inside the cap -----------------
# edit IN OUT PYTHON: OUT is IN as JSON `d` after the python statements;
# every run's own noise measurements dropped first, so that what a test
# sets (flags, excluded) is what the file records, whatever the load.
edit() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for r in p["runs"]:
        r.pop("workers", None); r["flags"] = []; r["excluded"] = False; r["reason"] = None
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
}
"$BIN" -l ticket,mcs,tas,clh,cna -t 1,2 -r 3 --warmup 0 -d 0.02 --no-tune -q -f json \
	-o "$OUT/five.json" || bad "five locks"
# -r 3, and two runs of mcs at 1 thread left out for a busy machine: the
# point is too few runs to judge because of them, not because of -r.
edit "$OUT/five.json" "$OUT/left.json" '
for p in d["points"]:
    for k, r in enumerate(p["runs"]):
        r["ops_per_sec"] = 1000.0 * (1 + p["variant_index"]) * (1 + 0.01 * k)
        if p["variant"] == "mcs" and p["threads"] == 1 and k:
            r["excluded"] = True; r["flags"] = ["shared_cpu"]
            r["reason"] = "shared its CPU: waited 50% of the window"'
"$BIN" compare "$OUT/left.json" >"$OUT/o" 2>"$OUT/e"
grep -q "^1 .* +[0-9]*%_" "$OUT/o" && tr -s ' \n' '  ' <"$OUT/o" |
	grep -q "_ too few runs to judge: runs left out as noisy (a quieter machine would)" &&
	! grep -q -- "-r 2" "$OUT/o" && ok ||
	bad "_ after runs left out: names the machine, not -r: $(cat "$OUT/o")"
# The same point from -r 1: then -r is the cause, and the note says so.
edit "$OUT/five.json" "$OUT/r1.json" '
for p in d["points"]:
    p["runs"] = p["runs"][:1]
    p["runs"][0]["ops_per_sec"] = 1000.0 * (1 + p["variant_index"])'
"$BIN" compare "$OUT/r1.json" >"$OUT/o" 2>"$OUT/e"
grep -q "^_  too few runs to judge: -r 2 would$" "$OUT/o" && ok ||
	bad "_ from -r 1: names -r 2: $(cat "$OUT/o")"
# --counters named (one line per lock): the notes of the marks shown
# (#, ?) stay, the counters are what the cap cuts.
edit "$OUT/five.json" "$OUT/ctr.json" '
d["config"]["counters"] = {"requested": "cycles,instructions", "events": ["cycles", "instructions"]}
for p in d["points"]:
    for k, r in enumerate(p["runs"]):
        r["ops_per_sec"] = 1000.0 * (1 + p["variant_index"]) * (1 + 0.3 * (k - 1))
        r["perf"] = {"events": {"cycles": {"total": 1000.0 * r["ops"]},
                                "instructions": {"total": 700.0 * r["ops"]}}, "scaled": False}'
"$BIN" compare "$OUT/ctr.json" >"$OUT/o" 2>"$OUT/e"
notes=$(sed -n '/^$/,$p' "$OUT/o")
grep -q "[0-9]%#" "$OUT/o" && grep -q "[0-9]?" "$OUT/o" &&
	printf '%s\n' "$notes" | grep -q "^#  significant" &&
	printf '%s\n' "$notes" | grep -q "^?  std above" && ok || bad "marks # and ? shown, a note cut: $notes"
printf '%s\n' "$notes" | tr -s ' \n' '  ' | grep -q " [0-9] more notes\? (-v prints them all): [^#?]*counters" &&
	ok ||
	bad "the counters cut before the marks' notes: $notes"

e2e_done
