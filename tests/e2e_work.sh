#!/usr/bin/env bash
# End-to-end tests of the workloads and metrics: rw, torture,
# layout, the JSON metrics, -q, --resume, and scripts/plot.
# Usage: e2e_work.sh BINARY
set -u
BIN=${1:-./lockbench}
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"
SHORT=(--warmup 0.05 -d 0.2 --stat-interval 0.05 --no-tune)

# json FILE PYTHON: run python with d = the parsed file.
json() {
	python3 - "$1" <<PY
import json, sys
d = json.load(open(sys.argv[1]))
$2
PY
}

bad_input "readers outside rw" "--readers: only with -w rw" --readers 2
bad_input "read-pct range" "read-pct (101)" -w rw --read-pct 101
bad_input "roles must add up" "thread count must be 2" -w rw --readers 1 --writers 1 -t 3
bad_input "read-pct vs roles" "exclude --readers" -w rw --readers 1 --read-pct 50 -t 2
bad_input "layout takes no -l" "columns are --layouts" -w layout -l tas
bad_input "unknown layout" "unknown layout (diagonal)" -w layout --layouts packed,diagonal
bad_input "stutter outside torture" "--stutter: only with -w torture" --stutter 1
bad_input "unknown workload" "valid: cs, rw, torture, layout" -w nosuch

# list workloads -v explains each one; torture says it is a stress test.
expect_exit 0 "list workloads -v" -- "$BIN" list workloads -v
for w in cs rw torture layout; do
	grep -q "^$w " "$OUT/stdout" && ok || bad "list workloads lacks $w"
done
grep -q "NOT the recommended" "$OUT/stdout" && ok || bad "torture not called a stress test"

# rw: an rwlock and a mutex in one command; reads and writes in JSON,
# latency percentiles, handovers, per-run fairness and trend.
expect_exit 0 "rw run" -- "$BIN" -w rw -l qrwlock,pthread_mutex -t 1,2 -r 2 "${SHORT[@]}" \
	-q -f table,json -o "$OUT/rw.json"
grep -q "^Lock: *qrwlock *pthread_mutex" "$OUT/stdout" && ok || bad "rw table"
[ ! -s "$OUT/stderr" ] && ok || bad "-q left stderr: $(cat "$OUT/stderr")"
json "$OUT/rw.json" '
assert d["workload"] == "rw" and d["schema_version"] == "1.5"
assert d["config"]["read_pct"] == 90 and d["config"]["lat_sample"] == 256
for p in d["points"]:
    assert p["status"] == "ok", p
    for r in p["runs"]:
        rw = r["rw"]
        assert rw["read_ops"] + rw["write_ops"] == r["ops"]
        busy = r["ops"] >= 1000  # a loaded 2-CPU VM may starve a window
        assert rw["read_ops"] > rw["write_ops"] > 0 or not busy
        assert rw["thread_kind"] == ["mixed"] * p["threads"]
        assert sum(rw["thread_reads"]) == rw["read_ops"]
        ex = r["exclusion"]
        assert ex["ok"] and ex["counter"] < ex["total_ops"]
        l = r["latency"]
        assert l["sample_every"] == 256 and (l["samples"] > 0 or not busy)
        assert l["p50_ns"] <= l["p99_ns"] <= l["p999_ns"] <= l["max_ns"]
        assert sum(b[2] for b in l["buckets"]) == l["samples"]
        h = r["handover"]
        assert 0 <= h["same_node"] <= h["acquisitions"]
        assert h["same_node_frac"] is not None or not busy
        f = r["fairness"]
        assert f["min"] <= f["max"] and 0 < f["jain"] <= 1 + 1e-12
        assert r["trend"]["trending"] in (True, False)
    assert p["latency"]["sample_every"] == 256 and p["rw"]["reads_per_sec"] >= 0
    assert "trending_runs" in p
' && ok || bad "rw json"

# A window of about a thousand operations (0.2 ms sections) still splits
# reads and writes as drawn (90%): the read count is exact at the
# window's edges, not published only every 256 operations (it once read
# every operation of such a window as a read).
expect_exit 0 "rw short window" -- "$BIN" -w rw -l qrwlock -t 1,2 -r 2 --cs-ns 200000 \
	"${SHORT[@]}" -q -f json -o "$OUT/rwshort.json"
json "$OUT/rwshort.json" '
for p in d["points"]:
    for r in p["runs"]:
        w = r["rw"]["write_ops"]
        assert r["ops"] < 100 or 0.04 * r["ops"] < w < 0.2 * r["ops"], (r["ops"], w)
' && ok || bad "rw short window split"

# Fixed roles: thread 0 writes, thread 1 reads.
expect_exit 0 "rw roles" -- "$BIN" -w rw -l pthread_rwlock --readers 1 --writers 1 -r 1 \
	"${SHORT[@]}" -q -f json -o "$OUT/roles.json"
json "$OUT/roles.json" '
p = d["points"][0]; assert p["threads"] == 2
assert p["runs"][0]["rw"]["thread_kind"] == ["writer", "reader"]
assert p["runs"][0]["rw"]["thread_reads"][0] == 0
' && ok || bad "rw roles json"

# A broken lock is caught by rw too.
expect_exit 1 "rw busted" -- "$BIN" -w rw -l busted --include-broken -t 2 -r 1 --cs-ns 500 \
	--read-pct 50 "${SHORT[@]}" -q
grep -q "FAILED" "$OUT/stdout" && ok || bad "rw busted not FAILED"
grep -q "mutual exclusion violated" "$OUT/stderr" && ok || bad "rw busted stderr"

# torture: long holds and stutter, still checked.
expect_exit 0 "torture" -- "$BIN" -w torture -l ticket,pthread_mutex -t 2 -r 1 --long-hold 2 \
	--stutter 0.1 --warmup 0.05 -d 0.4 --stat-interval 0.1 --no-tune -q -f json -o "$OUT/t.json"
json "$OUT/t.json" '
assert d["config"]["long_hold_ms"] == 2 and d["config"]["stutter_s"] == 0.1
for p in d["points"]:
    assert p["status"] == "ok" and p["runs"][0]["exclusion"]["ok"]
    assert p["runs"][0]["rw"] is None
' && ok || bad "torture json"

# layout: the layouts are the columns; lkp blocks as published.
expect_exit 0 "layout lkp" -- "$BIN" -w layout --fake-nodes 2 -t 1,2 -r 2 "${SHORT[@]}" -q \
	-f lkp,json -o "$OUT/layout.json"
grep -q "^layout/threads=2$" "$OUT/stdout" && ok || bad "layout lkp title: $(head -5 "$OUT/stdout")"
grep -q "^layout  *kops/s(higher is better)" "$OUT/stdout" && ok || bad "layout lkp header"
# (a point left one run by the noise rule has no std: ±-)
for l in packed aligned per_node; do
	grep -Eq "^$l +[0-9]+\.[0-9]{2}±([0-9]+\.[0-9]{2}%|-)" "$OUT/stdout" && ok || bad "lkp line $l"
done
json "$OUT/layout.json" '
assert [v["name"] for v in d["variants"]] == ["packed", "aligned", "per_node"]
assert all(v["lock"] == "null" for v in d["variants"])
assert d["variant_heading"] == "Layout" and d["config"]["layouts"] == ["packed", "aligned", "per_node"]
for p in d["points"]:
    assert p["status"] == "ok" and not p["runs"][0]["exclusion"]["checked"]
    assert p["runs"][0]["handover"] is None
' && ok || bad "layout json"

# --resume: interrupt a sweep, continue it; kept runs stay as they were.
BASE=(-l tas,ticket -t 1,2 --warmup 0.1 -d 0.25 --stat-interval 0.25 --no-tune -q -f json --seed 11)
RES=("${BASE[@]}" -r 3)
# (without -q: the signal waits for the second run's progress line, as
# start-up time varies with the machine's load)
"${SIGDFL[@]}" "$BIN" "${RES[@]/#-q/--no-tune}" -o "$OUT/res.json" >/dev/null 2>"$OUT/res.err" &
pid=$!
until_stderr "$OUT/res.err" "^lockbench: \[1/" || bad "resume: the second run never started"
sleep 0.2
kill -INT $pid
wait $pid
[ $? -eq 1 ] && ok || bad "interrupted sweep exit"
cp "$OUT/res.json" "$OUT/res0.json"
json "$OUT/res0.json" 'assert d["incomplete"] and any(p["runs"] for p in d["points"])' \
	&& ok || bad "interrupted json"
bad_input "resume other config" "different configuration: runs is 2 here, 3 in the file" \
	"${BASE[@]}" -r 2 -o "$OUT/res.json" --resume "$OUT/res.json"
cmp -s "$OUT/res.json" "$OUT/res0.json" && ok || bad "refused resume touched the file"
bad_input "resume missing file" "--resume: cannot read results" "${RES[@]}" --resume "$OUT/none.json"
expect_exit 0 "resume" -- "$BIN" "${RES[@]}" -o "$OUT/res.json" --resume "$OUT/res.json"
python3 - "$OUT/res0.json" "$OUT/res.json" <<'PY' && ok || bad "resumed json"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert not b["incomplete"]
old = {(p["variant"], p["threads"]): p["runs"] for p in a["points"]}
for p in b["points"]:
    assert p["status"] == "ok" and len(p["runs"]) == 3, p
    kept = old[(p["variant"], p["threads"])]
    assert [r["ops"] for r in p["runs"][:len(kept)]] == [r["ops"] for r in kept]
assert sum(len(r) for r in old.values()) < 12  # something was left to do
PY

# scripts/plot on generated JSON.  Variants of res.json: a "patched"
# label (one point flagged), and three files differing only in cs_ns.
PLOT=$HERE/../scripts/plot
python3 - "$OUT/res.json" "$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
# A busy host may leave runs out, every run of a point even (no mean):
# the charts are under test here, not the host, so the fixture keeps
# every run, and a point without a mean gets its runs' mean.
for q in d["points"]:
    q["runs"] = [dict(r, excluded=False) for r in q["runs"]]
    if (q.get("summary") or {}).get("mean") is None:
        rates = [r["ops_per_sec"] for r in q["runs"]]
        q["summary"] = dict(q.get("summary") or {}, n=len(rates), mean=sum(rates) / len(rates))
p = dict(d, label="patched")
p["points"] = [dict(q, noise=dict(q.get("noise") or {}, flagged_runs=1 if i == 0 else 0))
               for i, q in enumerate(d["points"])]
# patched's tas at 2 threads: every run left out, no mean (drawn "-")
assert (p["points"][1]["variant"], p["points"][1]["threads"]) == ("tas", 2)
p["points"][1] = dict(p["points"][1], summary=dict(p["points"][1]["summary"], n=0, mean=None))
json.dump(dict(d, label="stock"), open(sys.argv[2] + "/stock.json", "w"))
json.dump(p, open(sys.argv[2] + "/patched.json", "w"))
for i, cs in enumerate((0, 100, 1000)):
    json.dump(dict(d, label="cs%d" % cs, config=dict(d["config"], cs_ns=cs)),
              open(sys.argv[2] + "/cs%d.json" % cs, "w"))
PY
expect_exit 2 "plot mixed workloads" -- "$PLOT" "$OUT/rw.json" "$OUT/res.json" -o "$OUT/mix.png"
grep -q "cannot plot together (.*rw.json, .*res.json): different workloads (rw, cs)" "$OUT/stderr" &&
	[ ! -e "$OUT/mix.png" ] && ok || bad "plot: mixed workloads not named"
expect_exit 0 "plot text chart" -- "$PLOT" "$OUT/stock.json" "$OUT/patched.json" -o "$OUT/chart.txt"
grep -q "^1 *tas patched *#* *[0-9.]*!$" "$OUT/chart.txt" && grep -q "^ *tas stock *#" "$OUT/chart.txt" &&
	grep -q "^!  some runs of the point were flagged" "$OUT/chart.txt" && ok || { bad "plot: text chart"; cat "$OUT/chart.txt"; }
grep -q "^[0-9 ]*tas patched *-$" "$OUT/chart.txt" && ok || { bad "plot: a point without a mean"; cat "$OUT/chart.txt"; }
awk 'NR > 2 && length > 72 { exit 1 }' "$OUT/chart.txt" && ok || bad "plot: text chart wider than 72"
"$PLOT" "$OUT"/cs0.json "$OUT"/cs100.json "$OUT"/cs1000.json --x cs_ns --at-threads 2 \
	--ignore-label -o - >"$OUT/cs.txt" 2>&1
grep -q "^cs_ns " "$OUT/cs.txt" && grep -q "^0 *tas " "$OUT/cs.txt" && grep -q "^100 *tas " "$OUT/cs.txt" &&
	grep -q "^1000 *tas " "$OUT/cs.txt" && ok || { bad "plot: --x cs_ns"; cat "$OUT/cs.txt"; }
expect_exit 2 "plot --x needs one thread count" -- "$PLOT" "$OUT"/cs0.json "$OUT"/cs100.json \
	--x cs_ns --ignore-label -o -
# Several files per label (invocations) pool into one series: two files
# labelled stock give one "tas stock" bar per x whose mean is over both
# files' runs; an imported log's title names no unknown CPU or kernel.
cp "$OUT/stock.json" "$OUT/stock2.json"
expect_exit 0 "plot two files per label" -- "$PLOT" "$OUT/stock.json" "$OUT/stock2.json" "$OUT/patched.json" -o "$OUT/pool.txt"
python3 - "$OUT/stock.json" "$OUT/pool.txt" <<'PY' && ok || { bad "plot: files of one label not pooled"; cat "$OUT/pool.txt"; }
import json, re, sys
d, chart = json.load(open(sys.argv[1])), open(sys.argv[2]).read()
bars = re.findall(r"^(\S*) *tas stock .* ([0-9.]+)!?$", chart, re.M)
pts = [p for p in d["points"] if p["variant"].startswith("tas") and p["status"] == "ok"]
assert len(bars) == len(pts), (bars, len(pts))
for p, (_, v) in zip(sorted(pts, key=lambda p: p["threads"]), bars):
    rates = [r["ops_per_sec"] for r in p["runs"]]
    assert abs(float(v) - sum(rates) / len(rates) / 1e3) <= 0.01 * float(v) + 0.01, (v, rates)
PY
expect_exit 0 "import for plot" -- "$BIN" import locktorture --label lt -o "$OUT/lt.json" "$HERE/fixtures/locktorture/new-kernel.log"
expect_exit 0 "plot an imported log" -- "$PLOT" "$OUT/lt.json" -o "$OUT/lt.txt"
grep -q '?' "$OUT/lt.txt" && { bad "plot: imported log's title has ?"; cat "$OUT/lt.txt"; } || ok
expect_exit 2 "plot --x unknown" -- "$PLOT" "$OUT/res.json" --x frobs -o -
expect_exit 2 "plot bad output" -- "$PLOT" "$OUT/rw.json" -o "$OUT/fig.gif"
# Figures (skipped without matplotlib).
if python3 -c "import matplotlib" 2>/dev/null || /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
	expect_exit 0 "plot png" -- "$PLOT" "$OUT/rw.json" --latency --fairness -o "$OUT/fig.png"
	head -c 8 "$OUT/fig.png" | od -An -c | grep -q "P   N   G" && ok || bad "plot: not a PNG"
	expect_exit 0 "plot svg" -- "$PLOT" "$OUT/layout.json" --err ci -o "$OUT/fig.svg"
	grep -q "<svg" "$OUT/fig.svg" && ok || bad "plot: not an SVG"
	expect_exit 0 "plot pdf" -- "$PLOT" "$OUT/stock.json" "$OUT/patched.json" -o "$OUT/fig.pdf"
	head -c 5 "$OUT/fig.pdf" | grep -q "%PDF-" && ok || bad "plot: not a PDF"
	# Colour by lock (tas, ticket: the first two tab10 colours, never a
	# third), the flagged point circled in red.
	expect_exit 0 "plot stock/patched svg" -- "$PLOT" "$OUT/stock.json" "$OUT/patched.json" -o "$OUT/sp.svg"
	grep -q "stroke: #1f77b4" "$OUT/sp.svg" && grep -q "stroke: #ff7f0e" "$OUT/sp.svg" &&
		! grep -q "#2ca02c\|#d62728" "$OUT/sp.svg" && grep -q "stroke: #ff0000" "$OUT/sp.svg" &&
		ok || bad "plot: colour per lock, red circle for flagged"
	grep -q "stroke-dasharray" "$OUT/sp.svg" && ok || bad "plot: no dashed line for the second label"
else
	echo "e2e_work: plot figures not tested: matplotlib missing (apt-get install python3-matplotlib)"
fi

e2e_done
