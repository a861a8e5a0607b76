#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e_sweep.sh - sweeps over workload and lock options end to end: one
# command measuring a product of lists (interleaved), its JSON params,
# CSV parameter columns, one table per combination, --rows, compare and
# merge of sweeps, bad input.  Usage: tests/e2e_sweep.sh [BINARY]
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"

SHORT="-r 2 -d 0.05 --warmup 0.02 --no-probe -q"

# Bad input: one line, exit 2, before anything runs.
bad_input "empty list element" "empty element in the list" --cs-ns 0,,100
bad_input "trailing comma" "empty element in the list" --cs-lines 1,4,
bad_input "same value twice" "are the same value" --cs-ns 1us,1000
bad_input "bad element" "cs-ns (2xs)" --cs-ns 100,2xs
bad_input "list for a non-list option" "takes one value, not a list" -d 1,2
bad_input "list for --warmup" "takes one value, not a list" --warmup 1s,2s
bad_input "unknown --rows" "--rows (cs-nz): not a dimension of this run; valid: threads, cs-ns" \
	--cs-ns 0,100 --rows cs-nz
bad_input "--rows without a sweep" "give an option a list to sweep it" --rows cs-ns
bad_input "--row-name with a sweep" "choose the rows with --rows" --cs-ns 0,100 --row-name cs_ns
bad_input "lock-opt list, empty element" "empty element in the list" \
	-l cna --lock-opt cna.threshold_ns=1e5,,1e6
bad_input "lock-opt list, out of range" "lock-opt cna.threshold_ns" \
	-l cna --lock-opt cna.threshold_ns=1,1e20
bad_input "a list for a workload's option elsewhere" "only with -w rw" --read-pct 10,20

# The six-file sweep of a user, as one command: one JSON, one CSV with
# parameter columns and one table per combination.
expect_exit 0 "six-point sweep" -- "$BIN" -l ticket -t 2 --cs-ns 0,100,1000 --cs-lines 1,4 \
	$SHORT --seed 7 --label s -o "json=$OUT/s.json,csv=$OUT/s.csv"
cp "$OUT/stdout" "$OUT/s.txt"
python3 - "$OUT/s.json" <<'PY' && ok || bad "sweep JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == "1.5", d["schema_version"]
names = [v["name"] for v in d["variants"]]
want = ["ticket cs_ns=%d cs_lines=%d" % (c, l) for c in (0, 100, 1000) for l in (1, 4)]
assert names == want, names
for v in d["variants"]:
    c, l = [int(w.split("=")[1]) for w in v["name"].split()[1:]]
    assert v["params"] == {"cs_ns": c, "cs_lines": l}, v
    assert v["lock"] == "ticket"
assert d["config"]["sweep"] == {"cs_ns": [0, 100, 1000], "cs_lines": [1, 4]}, d["config"]["sweep"]
assert d["config"]["locks"] == ["ticket"], d["config"]["locks"]
assert d["rows"] == [2]
assert len(d["points"]) == 6
# Each run measured what its variant asked for, and the runs of the
# six variants are interleaved: every round holds one run of each.
for p in d["points"]:
    v = d["variants"][p["variant_index"]]
    assert p["status"] == "ok" and len(p["runs"]) == 2, p["status"]
    for r in p["runs"]:
        assert r["cs_ns_requested"] == v["params"]["cs_ns"], (v["name"], r["cs_ns_requested"])
order = [s["variant"] for s in d["run_order"]]
assert [s["run"] for s in d["run_order"]] == [1] * 6 + [2] * 6, d["run_order"]
assert sorted(order[:6]) == sorted(want) and sorted(order[6:]) == sorted(want), order
# One lock: each variant is the baseline of its own combination.
assert all(p["vs_baseline"] is None for p in d["points"])
PY
python3 - "$OUT/s.csv" <<'PY' && ok || bad "sweep CSV: $(head -2 "$OUT/s.csv")"
import csv, io, sys
lines = open(sys.argv[1]).read().splitlines()
rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
head = lines[0].split(",")
assert head[:8] == ["variant", "lock", "label", "row", "threads", "cs_ns", "cs_lines", "status"], head
assert len(rows) == 12, len(rows)
for r in rows:
    assert r["variant"] == "ticket cs_ns=%s cs_lines=%s" % (r["cs_ns"], r["cs_lines"]), r
    assert r["threads"] == "2" and r["status"] == "ok" and float(r["ops_per_sec"]) >= 0, r
PY
# One table per combination, each under a line naming it.
heads=$(grep -c '^cs_ns=[0-9]* cs_lines=[14]$' "$OUT/s.txt")
[ "$heads" -eq 6 ] && ok || bad "six table headings, got $heads: $(head -20 "$OUT/s.txt")"
awk '/^cs_ns=100 cs_lines=4$/ {getline; print; getline; getline; getline; print; exit}' \
	"$OUT/s.txt" >"$OUT/one"
grep -q '^Lock: *ticket *$' "$OUT/one" && grep -q '^2  ' "$OUT/one" && ok ||
	bad "table under cs_ns=100 cs_lines=4: $(cat "$OUT/one")"

# scripts/plot with a swept parameter on the x axis (the text chart
# needs no matplotlib): one series per lock and other parameter.
"$(dirname "$0")/../scripts/plot" "$OUT/s.json" --x cs_ns -o - >"$OUT/chart" 2>"$OUT/stderr" &&
	[ "$(grep -c 'ticket cs_lines=[14]' "$OUT/chart")" -eq 6 ] &&
	grep -q '^0 ' "$OUT/chart" && grep -q '^1000 ' "$OUT/chart" &&
	! grep -q 'cs_ns=0' "$OUT/chart" && ok || bad "plot --x cs_ns: $(cat "$OUT/chart" "$OUT/stderr")"

# --rows: the row dimension a parameter, one table per thread count and
# the other parameters; two locks, so each row has its rel% column.
expect_exit 0 "--rows cs-ns" -- "$BIN" -l ticket,mcs -t 1,2 --cs-ns 0,1us --cs-lines 1,2 \
	$SHORT --rows cs-ns --no-marks --seed 3
python3 - "$OUT/stdout" <<'PY' && ok || bad "--rows tables: $(head -30 "$OUT/stdout")"
import re, sys
t = open(sys.argv[1]).read()
blocks = [b for b in t.split("\n\n") if b.strip()]
heads = [b.splitlines()[0] for b in blocks]
assert heads == ["threads=%d cs_lines=%d" % (n, l) for n in (1, 2) for l in (1, 2)], heads
for b in blocks:
    lines = b.splitlines()
    assert re.match(r"Lock: +ticket +mcs *$", lines[1]), lines[1]
    assert lines[3] == "cs_ns:", lines[3]
    # a rel% or "-": a lock whose 2-thread window made no operation on
    # a loaded machine (a preempted holder) has a mean of 0 and no rel%
    assert re.match(r"0 +[0-9.]+ .*([-+][0-9]+%|-)$", lines[4]), lines[4]
    assert re.match(r"1000 +[0-9.]+ .*([-+][0-9]+%|-)$", lines[5]), lines[5]
    assert len(lines) == 6, lines
PY

# speedup takes two columns: per table, so a sweep of two locks is fine
# and one of three is refused before it runs.
bad_input "speedup of three locks" "format speedup (3 variants)" -l ticket,mcs,tas \
	--cs-ns 0,100 -f speedup
expect_exit 0 "speedup of a sweep" -- "$BIN" -l ticket,mcs -t 1 --cs-ns 0,100 $SHORT -f speedup
[ "$(grep -c '^#thr  *ticket  *mcs  *speedup (mcs/ticket)$' "$OUT/stdout")" -eq 2 ] &&
	grep -q '^cs_ns=100$' "$OUT/stdout" && ok || bad "speedup tables: $(cat "$OUT/stdout")"

# A lock option swept: its values name the variants; the other lock is
# compared at the first value.
expect_exit 0 "lock-opt list" -- "$BIN" -l cna,mcs -t 1 --lock-opt cna.threshold_ns=1e5,1e6 \
	--cs-ns 0,100 --dry-run
grep -q '^locks: cna threshold_ns=100000 cs_ns=0 (baseline), cna threshold_ns=1000000 cs_ns=0, cna threshold_ns=100000 cs_ns=100, cna threshold_ns=1000000 cs_ns=100, mcs cs_ns=0, mcs cs_ns=100$' \
	"$OUT/stdout" && grep -q '^points: 6 variants x 1 thread count x' "$OUT/stdout" && ok ||
	bad "lock-opt variants: $(cat "$OUT/stdout")"

# A second sweep (another label) and a single run with other values.
expect_exit 0 "second sweep" -- "$BIN" -l ticket -t 2 --cs-ns 0,100,1000 --cs-lines 1,4 \
	$SHORT --seed 8 --label p -f json -o "$OUT/p.json"
expect_exit 0 "single run" -- "$BIN" -l ticket -t 2 --cs-ns 500 $SHORT --label one \
	-f json -o "$OUT/one.json"

# compare of two sweeps: no false "configuration differs", each column
# paired with the same parameters under the baseline label.
expect_exit 0 "compare sweeps" -- "$BIN" compare "$OUT/s.json" "$OUT/p.json" --no-marks
[ ! -s "$OUT/stderr" ] && ok || bad "compare of sweeps warned: $(cat "$OUT/stderr")"
[ "$(grep -c '^cs_ns=[0-9]* cs_lines=[14]$' "$OUT/stdout")" -eq 6 ] &&
	grep -q '^Kernel: *s/ticket *p/ticket *$' "$OUT/stdout" && ok ||
	bad "compare sweep tables: $(head -12 "$OUT/stdout")"
expect_exit 0 "compare sweeps to JSON" -- "$BIN" compare "$OUT/s.json" "$OUT/p.json" -f json
python3 - "$OUT/stdout" <<'PY' && ok || bad "compare pairing"
import json, sys
d = json.load(open(sys.argv[1]))
v = d["variants"]
for p in d["points"]:
    me = v[p["variant_index"]]
    if me["label"] == "s":
        continue
    b = next(x for x in v if x["name"] == p["vs_baseline"]["baseline"])
    assert b["label"] == "s" and b["params"] == me["params"], (me, b)
PY
# ... and a warning when a column has no baseline at its parameters.
expect_exit 0 "compare sweep and single run" -- "$BIN" compare "$OUT/s.json" "$OUT/one.json"
grep -q 'warning: compare: one is compared with s/ticket cs_ns=0 cs_lines=1, measured with other parameters: cs_ns (500, 0)' \
	"$OUT/stderr" && ok || bad "parameter warning: $(cat "$OUT/stderr")"
expect_exit 2 "compare --rows unknown" -- "$BIN" compare "$OUT/s.json" --rows ncs-ns
grep -q 'rows (ncs-ns): not a dimension of these results; valid: threads, cs_ns, cs_lines' \
	"$OUT/stderr" && [ "$(wc -l <"$OUT/stderr")" -eq 1 ] && ok || bad "compare --rows: $(cat "$OUT/stderr")"
expect_exit 0 "compare --rows cs_lines" -- "$BIN" compare "$OUT/s.json" --rows cs_lines --no-marks
[ "$(grep -c '^threads=2 cs_ns=[0-9]*$' "$OUT/stdout")" -eq 3 ] && grep -q '^cs_lines:$' "$OUT/stdout" &&
	ok || bad "compare --rows cs_lines: $(head -12 "$OUT/stdout")"

# merge: one document, labels and provenance kept, variants side by side.
expect_exit 0 "merge" -- "$BIN" merge "$OUT/s.json" "$OUT/p.json" "$OUT/one.json" -o "$OUT/all.json"
python3 - "$OUT/all.json" <<'PY' && ok || bad "merged JSON"
import json, sys
d = json.load(open(sys.argv[1]))
names = [v["name"] for v in d["variants"]]
assert len(names) == 13 and names[0] == "s/ticket cs_ns=0 cs_lines=1" and names[-1] == "one", names
assert [v["label"] for v in d["variants"]].count("p") == 6
assert d["variants"][-1]["params"] == {"cs_ns": 500, "cs_lines": 1}, d["variants"][-1]
files = d["config"]["files"]
assert d["config"]["command"] == "merge"
assert [f["label"] for f in files] == ["s", "p", "one"]
assert all(f["provenance"]["command"][0] == "lockbench" for f in files)
assert d["provenance"]["command"][1] == "merge"
assert len(d["points"]) == 13 and all(len(p["runs"]) == 2 for p in d["points"])
PY
expect_exit 0 "merged file renders" -- "$BIN" compare "$OUT/all.json" -f csv
head -1 "$OUT/stdout" | grep -q '^variant,lock,label,row,threads,cs_ns,cs_lines,status,' && ok ||
	bad "merged CSV header: $(head -1 "$OUT/stdout")"
expect_exit 0 "rw run" -- "$BIN" -w rw -l qrwlock -t 2 $SHORT -f json -o "$OUT/rw.json"
# Sweeps written as bash loops: one file per value.  merge keeps each
# file's parameter (variants[].params), so compare --rows cuts it; a
# loop over -t without --label is one table, not one column per file.
for cs in 0 100 1000; do
	"$BIN" -l ticket,mcs -t 1 $SHORT --cs-ns $cs -f json -o "$OUT/cs$cs.json" 2>/dev/null
done
expect_exit 0 "merge of a bash-loop sweep" -- "$BIN" merge "$OUT/cs0.json" "$OUT/cs100.json" \
	"$OUT/cs1000.json" -o "$OUT/csall.json"
python3 - "$OUT/csall.json" <<'PY' && ok || bad "merge of a bash-loop sweep: params kept"
import json, sys
d = json.load(open(sys.argv[1]))
got = sorted((v["lock"], v["params"]["cs_ns"]) for v in d["variants"])
assert got == sorted((l, c) for l in ("ticket", "mcs") for c in (0, 100, 1000)), got
PY
expect_exit 0 "compare --rows cs-ns of the merged file" -- "$BIN" compare --rows cs-ns \
	"$OUT/csall.json" --no-marks
python3 - "$OUT/stdout" <<'PY' && ok || bad "merged sweep as one table: $(head -12 "$OUT/stdout")"
import sys
t = open(sys.argv[1]).read().splitlines()
assert t[0].split() == ["threads=1"], t[0]
assert t[1].split() == ["Lock:", "ticket", "mcs"], t[1]
assert t[3] == "cs_ns:" and [l.split()[0] for l in t[4:7]] == ["0", "100", "1000"], t
PY
for t in 1 2; do
	"$BIN" -l ticket,mcs -t $t $SHORT -f json -o "$OUT/t$t.json" 2>/dev/null
done
expect_exit 0 "compare of a thread loop" -- "$BIN" compare "$OUT/t1.json" "$OUT/t2.json" --no-marks
python3 - "$OUT/stdout" <<'PY' && ok || bad "thread loop as one table: $(head -8 "$OUT/stdout")"
import sys
t = open(sys.argv[1]).read().splitlines()
assert t[0].split() == ["Lock:", "ticket", "mcs"], t[0]
assert t[2] == "threads:" and [l.split()[0] for l in t[3:5]] == ["1", "2"], t
PY
expect_exit 2 "merge of different workloads" -- "$BIN" merge "$OUT/s.json" "$OUT/rw.json" -o "$OUT/bad.json"
grep -q 'different workloads' "$OUT/stderr" && [ "$(wc -l <"$OUT/stderr")" -eq 1 ] &&
	[ ! -e "$OUT/bad.json" ] && ok || bad "merge workloads: $(cat "$OUT/stderr")"
expect_exit 2 "merge of one file" -- "$BIN" merge "$OUT/s.json"
grep -q 'nothing to join' "$OUT/stderr" && ok || bad "merge one: $(cat "$OUT/stderr")"
printf 'not json' >"$OUT/junk.json"
expect_exit 2 "merge of a broken file" -- "$BIN" merge "$OUT/s.json" "$OUT/junk.json"
[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && ok || bad "merge junk: $(cat "$OUT/stderr")"

e2e_done
