#!/usr/bin/env bash
# End-to-end tests of the handovers (the lock passing from one thread to
# another, docs/method.md, "Handovers"): their count, rate and ns per
# handover in the JSON, --unit handovers/s and ns/handover in the table
# (and refused elsewhere), and the exclusion check that counts them
# catching `busted` in every run with empty sections.
# Usage: e2e_handover.sh BINARY
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"
SHORT=(--warmup 0.05 -d 0.2 --no-tune --no-probe)
EMPTY=(--cs-lines 0 --ncs-ns 0)

bad_input "--unit ns/handover in csv" "--unit ns/handover: the csv format shows a throughput" \
	--unit ns/handover -f csv
bad_input "--unit handovers/s in box" "--unit handovers/s: the box format" \
	--unit handovers/s -f box
bad_input "unknown unit names the handover ones" "ns, handovers/s, ns/handover" --unit ns/h

# JSON: every run counts its handovers; 1 thread has none (null ns),
# 2 threads: at most the acquisitions, and ns per handover is the window
# over their count; a point's rate is the mean of its included runs'.
expect_exit 0 "run" -- "$BIN" -l tas,mcs -t 1,2 -r 2 "${SHORT[@]}" "${EMPTY[@]}" -q \
	-f json -o "$OUT/h.json"
python3 - "$OUT/h.json" <<'PY' && ok || bad "handovers in JSON"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for r in p["runs"]:
        h = r["handover"]
        assert h["handovers"] <= h["acquisitions"], h
        if p["threads"] == 1:
            assert h["handovers"] == 0 and h["ns_per_handover"] is None, h
            assert h["handovers_per_sec"] == 0, h
        elif h["handovers"]:
            assert abs(h["ns_per_handover"] * h["handovers"] / 1e9 - r["window_s"]) < 1e-6 * r["window_s"], (h, r["window_s"])
            assert abs(h["handovers_per_sec"] * r["window_s"] - h["handovers"]) < 1e-6 * h["handovers"], h
    ph = p["handover"]
    rates = [r["handover"]["handovers_per_sec"] for r in p["runs"] if not r["excluded"]]
    if not rates:
        continue
    assert abs(ph["handovers_per_sec"] - sum(rates) / len(rates)) <= 1e-9 * max(rates + [1]), (ph, rates)
    if ph["handovers_per_sec"]:
        assert abs(ph["ns_per_handover"] - 1e9 / ph["handovers_per_sec"]) < 1e-6 * ph["ns_per_handover"], ph
PY

# The table in ns per handover: "-" at 1 thread (none), the 2-thread
# cell 1e9 over the mean rate; read back from the file by compare.
expect_exit 0 "compare --unit ns/handover" -- "$BIN" compare "$OUT/h.json" --unit ns/handover \
	--no-marks
grep -q "^Statistic (ns/handover):" "$OUT/stdout" && ok || bad "ns/handover heading: $(cat "$OUT/stdout")"
python3 - "$OUT/h.json" "$OUT/stdout" <<'PY' && ok || bad "ns/handover cells: $(cat "$OUT/stdout")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = {l.split()[0]: l.split()[1:] for l in open(sys.argv[2]) if l[:1].isdigit()}
assert rows["1"][0] == "-" and rows["1"][2] == "-", rows
want = {p["variant"]: p["handover"]["ns_per_handover"] for p in d["points"] if p["threads"] == 2}
got = {"tas": rows["2"][0], "mcs": rows["2"][2]}
for v, x in want.items():
    assert (x is None and got[v] == "-") or abs(float(got[v]) - x) <= 0.05 + 1e-9 * x, (v, got[v], x)
PY
expect_exit 0 "compare --unit handovers/s" -- "$BIN" compare "$OUT/h.json" --unit handovers/s \
	--no-marks
awk '/^1 / {exit !($2 == "0" && $4 == "0")}' "$OUT/stdout" && ok ||
	bad "handovers/s at 1 thread: $(cat "$OUT/stdout")"

# A mark's legend under the table only where the table shows the mark:
# the `?`, `#`, `~` and `_` judge the throughput and stay off the cells
# of a unit of handovers (docs/formats.md, "Rules common to the text
# formats", Unit), so their notes go
# too.  The runs made spread (`?`) and alike between the locks (`~`),
# every run kept whatever this machine's load: the throughput table
# shows both marks and their notes, the handover tables neither.
expect_exit 0 "run of three" -- "$BIN" -l tas,ticket -t 1,2 -r 3 --warmup 0.02 -d 0.1 --no-tune \
	--no-probe -q -f json -o "$OUT/m.json"
python3 - "$OUT/m.json" <<'PY' || bad "marks: editing the runs"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for k, r in enumerate(p["runs"]):
        r.pop("workers", None); r["flags"] = []; r["excluded"] = False; r["reason"] = None
        r["ops_per_sec"] = 1000.0 * (1 + 0.3 * k) * (1 + 0.05 * (-1) ** k * p["variant_index"])
json.dump(d, open(sys.argv[1], "w"))
PY
# marks_told FILE [WANT]: in a table and its notes, each of ? # ~ _ is
# after a cell exactly when its legend opens a note line (or follows
# ", " in the brief `#` `~` line); WANT: marks the table must show.
marks_told() {
	python3 - "$@" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
table, _, notes = text.partition("\n\n")
cells = " ".join(l for l in table.splitlines() if l[:1].isdigit())
for m in "?#~_":
    shown = bool(re.search(r"[0-9%]" + re.escape(m), cells))
    told = bool(re.search(r"(^|, )" + re.escape(m) + "  ", notes, re.M))
    assert shown == told, f"mark {m}: in the table {shown}, its legend {told}"
    assert m not in (sys.argv[2] if len(sys.argv) > 2 else "") or shown, f"mark {m} not shown"
PY
}
for u in kops/s ns/handover handovers/s; do
	for v in "" -v; do
		expect_exit 0 "compare --unit $u $v" -- "$BIN" compare "$OUT/m.json" --unit $u $v
		want=$([ $u = kops/s ] && echo "?~")
		marks_told "$OUT/stdout" "$want" && ok || bad "--unit $u $v: $(cat "$OUT/stdout")"
	done
done

# A file written before the handovers were counted: null, never 0, and
# the table shows "-" for them.
expect_exit 0 "compare an older file" -- "$BIN" compare -f json -o "$OUT/old.json" \
	"$(dirname "$0")/fixtures/fleet/run-k0.json"
python3 - "$OUT/old.json" <<'PY' && ok || bad "older file: handovers not null"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for r in p["runs"]:
        h = r["handover"]
        assert h["handovers"] is None and h["ns_per_handover"] is None, h
    assert p["handover"]["handovers_per_sec"] is None, p["handover"]
PY
expect_exit 0 "older file in ns/handover" -- "$BIN" compare --unit ns/handover --no-marks \
	"$(dirname "$0")/fixtures/fleet/run-k0.json"
awk '/^[0-9]/ {n++; for (i = 2; i <= NF; i++) if ($i != "-") bad = 1} END {exit bad || !n}' \
	"$OUT/stdout" && ok || bad "older file in ns/handover: $(cat "$OUT/stdout")"

# The exclusion check catches busted in every run with empty sections
# (the case where the check's own word is most of what the section
# does): five invocations each at 2 and 4 threads exit 1 naming the
# violation, their run's exclusion.ok false.  (The default sections:
# tests/e2e_faults.sh.)
for t in 2 4; do
	for i in 1 2 3 4 5; do
		expect_exit 1 "busted at $t threads, empty sections, run $i" -- "$BIN" -l busted \
			--include-broken -t $t -r 1 --warmup 0.05 -d 0.5 --no-tune --no-probe \
			"${EMPTY[@]}" -q -f json -o "$OUT/b.json" || continue
		grep -q "mutual exclusion violated" "$OUT/stderr" && ok ||
			bad "busted at $t, run $i: $(cat "$OUT/stderr")"
		python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]
assert p["status"] == "failed" and not p["runs"][0]["exclusion"]["ok"]' "$OUT/b.json" && ok ||
			bad "busted at $t, run $i: JSON"
	done
done

e2e_done
