#!/usr/bin/env bash
# End-to-end tests of --counters: software events measured per run and
# per point in JSON and noted under the table; unknown names exit 2;
# hardware events on a machine without a PMU (this VM) noted with
# `auto` and exit 3 when named; where a PMU exists, counted instead.
# Usage: e2e_counters.sh BINARY
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"
SHORT=(-l mcs,ticket -t 1,2 -r 2 --warmup 0.05 -d 0.2 --no-tune)

# json FILE PYTHON: run python with d = the parsed file.
json() {
	python3 - "$1" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
$2
PY
}

bad_input "unknown event" "counters (no-such-event): event not found" --counters cycles,no-such-event
bad_input "empty item" "empty element in the list" --counters task-clock,,cycles

# Software events: in every run and point, per operation.
expect_exit 0 "software counters" -- "$BIN" "${SHORT[@]}" -q \
	--counters task-clock,context-switches -f table,json -o "$OUT/sw.json" -v
json "$OUT/sw.json" '
c = d["config"]["counters"]
assert c["requested"] == "task-clock,context-switches", c
assert c["events"] == ["task-clock", "context-switches"] and c["unavailable"] == [], c
for p in d["points"]:
    assert p["status"] == "ok", p
    for r in p["runs"]:
        ev = r["perf"]["events"]
        assert ev["task-clock"]["total"] > 0, ev
        assert abs(ev["task-clock"]["per_op"] * r["ops"] - ev["task-clock"]["total"]) < 1e-6 * ev["task-clock"]["total"], ev
        assert ev["context-switches"]["total"] >= 0, ev
    s = p["perf_per_op"]["task-clock"]
    assert s["n"] == len(p["runs"]) == 2 and s["mean"] > 0, s
    want = sum(r["perf"]["events"]["task-clock"]["per_op"] for r in p["runs"]) / 2
    assert abs(s["mean"] - want) <= 1e-9 * want, (s, want)
' && ok || bad "software counters in JSON"
# The note is wrapped at 72 columns like every note: join its lines.
tr -s ' \n' '  ' <"$OUT/stdout" | grep -q "per operation at 2 threads, mcs: task-clock [0-9.e+-]*, context-switches " \
	&& ok || bad "table note: $(cat "$OUT/stdout")"
# Without -v too: the counters --counters names come last among the
# brief notes (docs/formats.md, "Notes": marks, then the rest, counters
# at the end): shown whole, or, where the lines before took the room (a
# busy host adds '!', geometric mean and latency come first), named in
# the last line, which counts what was left out.
expect_exit 0 "software counters, brief notes" -- "$BIN" "${SHORT[@]}" -q \
	--counters task-clock,context-switches
sed -n '/^$/,$p' "$OUT/stdout" | grep . >"$OUT/notes"
if tr -s ' \n' '  ' <"$OUT/stdout" | grep -q "per operation at 2 threads, mcs: task-clock [0-9.e+-]*, context-switches "; then
	ok
elif tail -n 1 "$OUT/notes" | grep -q "^[0-9]* more notes\? (-v prints them all): .*counters$"; then
	ok
else
	bad "brief notes lack the counters: $(cat "$OUT/stdout")"
fi
# Within 6 lines, or past 6 only the marks' notes.
{ [ "$(grep -c . "$OUT/notes")" -le 6 ] ||
	awk '/^   / || /more notes? \(-v/ { next } !/^[*#~_!?^] / { exit 1 }' "$OUT/notes"; } &&
	ok || bad "more than 6 note lines: $(cat "$OUT/stdout")"
# (-v adds the one-line machine summary, not a wrapped note.)
awk 'length > 72 && !/^[0-9 ]/ && !/^(Lock|Statistic|threads|machine)/ { exit 1 }' "$OUT/stdout" \
	&& ok || bad "notes wider than 72: $(cat "$OUT/stdout")"

# compare reads them back: runs keep their totals, points are recomputed.
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); d["label"] = "k1"
json.dump(d, open(sys.argv[2], "w"))' "$OUT/sw.json" "$OUT/sw2.json"
expect_exit 0 "compare with counters" -- "$BIN" compare -f json "$OUT/sw.json" "$OUT/sw2.json" \
	-o "$OUT/cmp.json"
python3 - "$OUT/sw.json" "$OUT/cmp.json" <<'PY' && ok || bad "counters through compare"
import json, sys
a, c = (json.load(open(f)) for f in sys.argv[1:])
pa = {(p["variant"], p["threads"]): p for p in a["points"]}
for p in c["points"]:
    src = pa[(p["variant"].split("/")[-1], p["threads"])]
    assert [r["perf"] for r in p["runs"]] == [r["perf"] for r in src["runs"]], p["variant"]
    got, want = p["perf_per_op"]["task-clock"]["mean"], src["perf_per_op"]["task-clock"]["mean"]
    assert abs(got - want) <= 1e-9 * want, (got, want)
PY
expect_exit 0 "compare table note" -- "$BIN" compare -v "$OUT/sw.json" "$OUT/sw2.json"
grep -q "^per operation at 2 threads, .*mcs: task-clock" "$OUT/stdout" && ok || bad "compare note: $(cat "$OUT/stdout")"

# compare checks the machine environment of its files: same, silent
# and kept; different, one warning per item naming each file's value.
grep -q "differ" "$OUT/stderr" && bad "compare warned about identical files: $(cat "$OUT/stderr")" || ok
python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
d["machine"]["environment"]["clocksource"] = {"current": "hpet", "available": "hpet"}
d["machine"]["environment"]["thp"] = {"enabled": "never", "defrag": "never"}
json.dump(d, open(sys.argv[2], "w"))' "$OUT/sw2.json" "$OUT/sw3.json"
expect_exit 0 "compare different machines" -- "$BIN" compare "$OUT/sw.json" "$OUT/sw3.json"
grep -q "^lockbench: warning: the files differ in clocksource: sw \(\"[a-z_-]*\"\|null\), k1 \"hpet\"$" \
	"$OUT/stderr" && ok || bad "clocksource warning: $(cat "$OUT/stderr")"
grep -q "^lockbench: warning: the files differ in transparent huge pages: .*k1 \"never\"$" \
	"$OUT/stderr" && ok || bad "THP warning: $(cat "$OUT/stderr")"
[ "$(grep -c differ "$OUT/stderr")" -eq 2 ] && ok || bad "one warning per differing item: $(cat "$OUT/stderr")"

# off: nothing measured, nothing noted.
expect_exit 0 "counters off" -- "$BIN" "${SHORT[@]}" --counters off -f json -o "$OUT/off.json"
json "$OUT/off.json" '
assert d["config"]["counters"]["events"] == []
assert all(r["perf"] is None for p in d["points"] for r in p["runs"])
assert all(p["perf_per_op"] is None for p in d["points"])
' && ok || bad "--counters off in JSON"
grep -q "counters" "$OUT/stderr" && bad "--counters off noted: $(cat "$OUT/stderr")" || ok

# The default (auto) measures what it can into the JSON but keeps the
# table as it was: the note is for counters asked for by name.
expect_exit 0 "counters auto" -- "$BIN" "${SHORT[@]}" -q -f table,json -o "$OUT/auto.json"
grep -q "^per operation" "$OUT/stdout" && bad "auto counters noted under the table: $(cat "$OUT/stdout")" || ok
json "$OUT/auto.json" '
assert d["config"]["counters"]["requested"] == "auto"
assert any(p["perf_per_op"] for p in d["points"]), "auto measured nothing"
' && ok || bad "--counters auto in JSON"

# Hardware events: this VM exposes no PMU ("cpu" or an Arm PMU in
# event_source); a machine that has one counts them.
if ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|armv8_.*|arm_.*)$'; then
	expect_exit 0 "cycles counted" -- "$BIN" "${SHORT[@]}" -q --counters cycles,instructions \
		-f json -o "$OUT/hw.json"
	json "$OUT/hw.json" '
assert all(p["perf_per_op"]["cycles"]["mean"] > 0 for p in d["points"])
' && ok || bad "cycles per op"
else
	expect_exit 3 "cycles named, no PMU" -- "$BIN" "${SHORT[@]}" -q --counters task-clock,cycles \
		-o "$OUT/hw.json"
	[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "^lockbench: counters unavailable: cycles: no such event" \
		"$OUT/stderr" && ok || bad "exit 3 message: $(cat "$OUT/stderr")"
	[ -e "$OUT/hw.json" ] && bad "exit 3 left an output file" || ok
	# auto: one line naming them, and the run goes on with the rest.
	expect_exit 0 "auto without PMU" -- "$BIN" "${SHORT[@]}" -f json -o "$OUT/auto.json"
	[ "$(grep -c "counters not measured" "$OUT/stderr")" -eq 1 ] && grep -q \
		"counters not measured: cycles, instructions, cache-misses, LLC-load-misses, branch-misses: no such event" \
		"$OUT/stderr" && ok || bad "auto note: $(grep counters "$OUT/stderr")"
	json "$OUT/auto.json" '
c = d["config"]["counters"]
assert c["requested"] == "auto"
assert [u["event"] for u in c["unavailable"]] == ["cycles", "instructions", "cache-misses", "LLC-load-misses", "branch-misses"], c
assert c["events"] == ["context-switches", "cpu-migrations", "page-faults", "task-clock"], c
assert all(r["perf"]["events"]["task-clock"]["total"] > 0 for p in d["points"] for r in p["runs"])
' && ok || bad "auto in JSON"
	expect_exit 0 "auto -q" -- "$BIN" "${SHORT[@]}" -q -o "$OUT/q.json"
	grep -q "counters" "$OUT/stderr" && bad "-q still notes counters" || ok
fi

e2e_done
