#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of results reporting: the output formats, `compare`
# (golden tables reproduced digit for digit from the published seed
# tables, through JSON files), `import locktorture`, and bad input.
# Runs the binary as a user would; python3 inspects JSON.
#
# usage: tests/e2e_results.sh [./lockbench]
set -u

LB=$(realpath "${1:-./lockbench}")
HERE=$(cd "$(dirname "$0")" && pwd)
G=$HERE/golden
FIX=$HERE/fixtures/locktorture
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$HERE/lib.sh"


# refuse WHAT PATTERN CMD...: exit 2, exactly one stderr line matching
# PATTERN, nothing on stdout, no file left in $T/out.
refuse() {
	local what=$1 pat=$2 rc
	shift 2
	rm -rf "$T/out" && mkdir -p "$T/out"
	"$@" >"$T/stdout" 2>"$T/stderr"
	rc=$?
	if [ $rc -ne 2 ]; then bad "$what: exit $rc, want 2"; cat "$T/stderr"; return; fi
	if [ "$(wc -l <"$T/stderr")" -ne 1 ]; then
		bad "$what: want one line on stderr"; cat "$T/stderr"; return
	fi
	if ! grep -q -- "$pat" "$T/stderr"; then
		bad "$what: stderr lacks '$pat'"; cat "$T/stderr"; return
	fi
	if ! grep -q '^lockbench: ' "$T/stderr"; then bad "$what: no 'lockbench: ' prefix"; return; fi
	if [ -s "$T/stdout" ]; then bad "$what: wrote to stdout"; return; fi
	if [ -n "$(ls -A "$T/out")" ]; then bad "$what: left $(ls "$T/out")"; return; fi
	ok
}

RT="$G/rtmutex/k0.json $G/rtmutex/k1.json $G/rtmutex/k2.json $G/rtmutex/k3.json $G/rtmutex/k4.json $G/rtmutex/k5.json"
AIM="$G/aim7/aim7-1.json $G/aim7/aim7-2.json $G/aim7/aim7-3.json $G/aim7/aim7-4.json"
LKP="$G/lkp/lkp-aligned.json $G/lkp/lkp-per_node.json"
CNA="$G/cna/cna-stock.json $G/cna/cna-patched.json"

# ---- the generator reproduces the committed inputs -------------------------
python3 "$G/make_inputs.py" "$T/gen" || bad "make_inputs.py failed"
for d in rtmutex aim7 lkp cna mmtests lkp-compare; do
	diff -r "$T/gen/$d" "$G/$d" >/dev/null || bad "make_inputs.py output differs from tests/golden/$d"
done
ok

# ---- seed tables, byte for byte (docs/formats.md: table, box, lkp) --------
$LB compare --no-marks --width 0 -f table $RT >"$T/rt.txt"
same "$T/rt.txt" "$G/seed/rtmutex-locktorture-taishan200-96c.txt" "rtmutex table (seed)"
$LB compare --no-marks -f box --unit jpm $AIM >"$T/aim.txt"
same "$T/aim.txt" "$G/seed/qrwlock-aim7-box.txt" "AIM7 box (seed)"
$LB compare --no-marks -f lkp $LKP >"$T/lkp.txt"
same "$T/lkp.txt" "$G/seed/taskgroup-lkp-spr.txt" "lkp blocks (seed)"

# ---- speedup (docs/formats.md): the table byte for byte; the line above it
# word for word, except that lockbench says what it measures ("ops/s")
# where the posting said "total ops".
$LB compare --no-marks -f speedup --unit ops/s $CNA >"$T/cna.txt"
same "$T/cna.txt" "$G/expected/cna-speedup.txt" "CNA speedup (own golden)"
tail -n +2 "$T/cna.txt" >"$T/cna.body"
tail -n +2 "$G/seed/cna-locktorture-speedup.txt" >"$T/seed.body"
same "$T/cna.body" "$T/seed.body" "CNA speedup table body (seed)"
if [ "$(head -1 "$T/cna.txt" | sed 's|ops/s|total ops|' | tr -s ' ')" = \
     "$(head -1 "$G/seed/cna-locktorture-speedup.txt" | tr -s ' ')" ]; then ok; else
	bad "CNA speedup head line words"; head -1 "$T/cna.txt"; fi

# ---- mmtests compare-kernels and lkp-tests comparison (published, byte for byte)
MMT="$G/mmtests/mmtests-vanilla.json $G/mmtests/mmtests-sched-wfsync-v1r1.json"
LKC="$G/lkp-compare/lkp-f2ffc48de2017c69.json $G/lkp-compare/lkp-ee5eda8ea59546af2e8f192c060.json"
$LB compare --no-marks -f mmtests $MMT >"$T/o"
same "$T/o" "$G/seed/mmtests-netperf-udp.txt" "mmtests compare-kernels (seed)"
$LB compare --no-marks -f lkp-compare $LKC >"$T/o"
same "$T/o" "$G/seed/lkp-stress-ng-pipeherd.txt" "lkp-tests %stddev %change (seed)"
# With marks: the seed, then a note under it; mmtests' stars are its own.
$LB compare -f mmtests $MMT >"$T/o"
head -12 "$T/o" | cmp -s - "$G/seed/mmtests-netperf-udp.txt" &&
	grep -q "^\*x%\*  significant change from vanilla" "$T/o" && ok || { bad "mmtests with marks"; cat "$T/o"; }
$LB compare -f mmtests $G/rtmutex/k0.json $G/rtmutex/k1.json >"$T/o"
grep -q "^Hmean     2               357.80 (   0.00%)      414.77 (  15.92%)$" "$T/o" && ok ||
	{ bad "mmtests: Hmean of the runs, not significant after Holm"; cat "$T/o"; }

# ---- own goldens with marks and other formats -----------------------------
$LB compare --width 0 $RT >"$T/o"; same "$T/o" "$G/expected/rtmutex-table-marks.txt" "table with marks"
# -v: every note in full (the brief notes above are one line per kind).
$LB compare -v --width 0 $RT >"$T/o"; same "$T/o" "$G/expected/rtmutex-table-marks-v.txt" "table with marks, -v"
$LB compare -f box --width 0 $RT >"$T/o"; same "$T/o" "$G/expected/rtmutex-box-marks.txt" "box with marks"
$LB compare -f lkp $RT >"$T/o"; same "$T/o" "$G/expected/rtmutex-lkp-marks.txt" "lkp with marks"
$LB compare -f speedup $G/rtmutex/k0.json $G/rtmutex/k1.json >"$T/o"
same "$T/o" "$G/expected/rtmutex-speedup-marks.txt" "speedup with marks"
# Its scale in ops/s (899.91 kops/s is 8.999 x10^5 ops/s), not a
# prefixed unit times a power of ten ("kops/s x10^2").
head -1 "$T/o" | grep -q "^locktorture, ops/s x10^5, average of 5 runs$" &&
	grep -q "^1     8.999 " "$T/o" && ok || bad "speedup scale: $(head -3 "$T/o")"
$LB compare -f csv -l rtmutex_lock $G/rtmutex/k0.json $G/rtmutex/k1.json >"$T/o"
same "$T/o" "$G/expected/rtmutex-k0k1.csv" "csv"
# --unit ns: ns per operation of one thread (threads * 1e9 / ops/s), the
# std at the same CV, rel% the change of that time; said in the heading.
$LB compare --unit ns --width 0 $G/rtmutex/k0.json $G/rtmutex/k1.json >"$T/o"
same "$T/o" "$G/expected/rtmutex-table-ns.txt" "table in ns per operation"
grep -q "^Statistic (ns/op per thread): mean" "$T/o" && grep -q "^2  *5566\.4  *401\.6  *4798\.1  *377\.2  *-14%~$" "$T/o" &&
	ok || bad "--unit ns: 359.30 kops/s at 2 writers is 5566.4 ns per op"
$LB compare --unit ns -f csv $G/rtmutex/k0.json >"$T/o"
python3 - "$T/o" <<'EOF' && ok || bad "--unit ns: csv values"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all(r["unit"] == "ns" for r in rows)
for r in rows:
    want = int(r["threads"]) * 1e9 / float(r["ops_per_sec"])
    assert abs(float(r["value"]) - want) < 1e-6 * want, (r, want)
EOF
for f in box lkp speedup mmtests lkp-compare; do
	refuse "--unit ns -f $f" "unit ns: the $f format shows a throughput" $LB compare --unit ns -f $f $G/rtmutex/k0.json $G/rtmutex/k1.json
done
$LB compare -f box --unit jpm $AIM --baseline "Modified 3.10.1 kernel + queue read/write lock" >"$T/o"
same "$T/o" "$G/expected/aim7-box-baseline3.txt" "box, --baseline 3"
$LB compare -v -f box --unit jpm $AIM --baseline "Modified 3.10.1 kernel + queue read/write lock" >"$T/o"
same "$T/o" "$G/expected/aim7-box-baseline3-v.txt" "box, --baseline 3, -v"
# Six kernels split within 80 columns (--width), the baseline repeated
# in every piece (docs/formats.md, "Width"); the goldens above are the
# same tables with --width 0.
$LB compare $RT >"$T/o"; same "$T/o" "$G/expected/rtmutex-table-split.txt" "table split at 80"
$LB compare --width 100 $RT >"$T/o"; same "$T/o" "$G/expected/rtmutex-table-w100.txt" "table split at 100"
$LB compare -f box $RT >"$T/o"; same "$T/o" "$G/expected/rtmutex-box-split.txt" "box split at 80"
$LB compare -f mmtests $RT >"$T/o"; same "$T/o" "$G/expected/rtmutex-mmtests-split.txt" "mmtests split at 80"
$LB compare -f lkp-compare --width 120 $RT >"$T/o"
same "$T/o" "$G/expected/rtmutex-lkpcmp-split.txt" "lkp-compare split at 120"

# ---- compare: JSON out, several locks per file, missing points -------------
$LB compare -f table,json -o "$T/merged.json" $G/rtmutex/k0.json $G/rtmutex/k1.json >"$T/o" || bad "compare -o"
python3 - "$T/merged.json" <<'EOF' || bad "merged JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "lockbench-results" and d["schema_version"].startswith("1.")
assert [v["name"] for v in d["variants"]] == ["k0-stock-6.2.0-rc6", "k1-rmacq"]
p = [p for p in d["points"] if p["variant_index"] == 1 and p["threads"] == 2][0]
assert abs(p["summary"]["mean"] - 416830) < 1e-6, p["summary"]   # recomputed, not -1
assert abs(p["summary"]["std"] - 32770) < 1e-6
assert round(p["vs_baseline"]["rel_pct"]) == 16
assert p["vs_baseline"]["welch"]["p"] < 0.05
EOF
# A file holding two locks gives label/lock columns; -l narrows it.
python3 - "$T/merged.json" "$T/both.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = "both"
for v, name in zip(d["variants"], ["rtmutex_lock", "rtmutex_patched"]):
    v["name"] = v["lock"] = name
for p in d["points"]:
    p["variant"] = d["variants"][p["variant_index"]]["name"]
json.dump(d, open(sys.argv[2], "w"))
EOF
$LB compare --no-marks --width 0 "$T/both.json" $G/rtmutex/k2.json | head -1 >"$T/o"
grep -q "Kernel: *both/rtmutex_lock *both/rtmutex_patched *k2-readonce$" "$T/o" && ok || { bad "label/lock columns"; cat "$T/o"; }
$LB compare --no-marks -l rtmutex_lock "$T/both.json" $G/rtmutex/k2.json | head -1 >"$T/o"
grep -q "Kernel: *both *k2-readonce$" "$T/o" && ok || { bad "-l narrows to one column"; cat "$T/o"; }
$LB compare --no-marks --width 0 "$T/merged.json" $G/rtmutex/k2.json | head -1 >"$T/o"
grep -q "merged/k0-stock-6.2.0-rc6 *merged/k1-rmacq *k2-readonce$" "$T/o" && ok || { bad "compare of a compare"; cat "$T/o"; }
# Two labels with the same two locks: each lock against itself under the
# baseline label (patch vs stock); a column name still picks one column.
python3 - "$T/both.json" "$T/both2.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = "both2"
for p in d["points"]:
    for r in p["runs"]:
        r["ops_per_sec"] *= 1.5 if p["variant_index"] else 0.5
        r["ops"] = int(r["ops_per_sec"] * 60)
json.dump(d, open(sys.argv[2], "w"))
EOF
$LB compare -f json -o "$T/pair.json" "$T/both.json" "$T/both2.json"
python3 - "$T/pair.json" <<'EOF' && ok || bad "pairing per lock"
import json, sys
d = json.load(open(sys.argv[1]))
base = {p["variant"]: (p["vs_baseline"] or {}).get("baseline") for p in d["points"] if p["threads"] == 1}
assert base == {"both/rtmutex_lock": None, "both/rtmutex_patched": None,
                "both2/rtmutex_lock": "both/rtmutex_lock",
                "both2/rtmutex_patched": "both/rtmutex_patched"}, base
EOF
$LB compare -v "$T/both.json" "$T/both2.json" >"$T/o"
grep -q "difference from the same lock under both not" "$T/o" && ok || { bad "pairing note"; cat "$T/o"; }
# The brief notes say it on one line: # and ~ against the same lock.
$LB compare "$T/both.json" "$T/both2.json" >"$T/o"
# (~ reads p >= 0.05, not under the # line's p < 0.05)
tr -s ' \n' '  ' <"$T/o" | grep -q "# significant (p < 0.05), ~ not (p >= 0.05), against the same lock under both; smallest detectable change" &&
	ok || { bad "pairing: brief note"; cat "$T/o"; }
$LB compare -f json -o "$T/pair.json" --baseline both/rtmutex_lock "$T/both.json" "$T/both2.json"
python3 -c "
import json; d = json.load(open('$T/pair.json'))
b = {(p['vs_baseline'] or {}).get('baseline') for p in d['points']}
assert b == {None, 'both/rtmutex_lock'}, b" && ok || bad "--baseline COLUMN: one baseline"
refuse "lkp-compare with pairing" "format lkp-compare: one baseline column" $LB compare -f lkp-compare "$T/both.json" "$T/both2.json"
# Different machines or settings: compared, with one warning per file
# naming the fields; the same machine and settings: not a word.
python3 - "$G/cna/cna-patched.json" "$T/altra.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["machine"]["cpu_model"] = "Ampere Altra"
d["config"] = {"duration_s": 2.0}
json.dump(d, open(sys.argv[2], "w"))
EOF
$LB compare $G/cna/cna-stock.json "$T/altra.json" >"$T/o" 2>"$T/e"
[ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "^lockbench: warning: compare (.*cna-stock.json, .*altra.json): machine differs: cpu_model (\".*\", \"Ampere Altra\"); configuration differs: duration_s (none, 2.0)$" "$T/e" &&
	ok || { bad "compare: differing machine not named"; cat "$T/e"; }
$LB compare $RT >"$T/o" 2>"$T/e"
[ ! -s "$T/e" ] && ok || { bad "compare: warning without a difference"; cat "$T/e"; }
# -o files get the user's umask (not mkstemp's 0600).
(umask 022 && $LB compare -f json -o "$T/um.json" $G/rtmutex/k0.json) &&
	[ "$(stat -c %a "$T/um.json")" = 644 ] && ok || bad "-o file mode under umask 022: $(stat -c %a "$T/um.json")"
(umask 077 && $LB compare -f json -o "$T/um2.json" $G/rtmutex/k0.json) &&
	[ "$(stat -c %a "$T/um2.json")" = 600 ] && ok || bad "-o file mode under umask 077"
# Points missing from one file are shown as -, not dropped.
python3 - "$G/rtmutex/k1.json" "$T/short.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = "short"
d["rows"] = d["rows"][:3] + [128]
d["points"] = [p for p in d["points"] if p["row_index"] < 3]
d["points"].append(dict(d["points"][0], threads=128, row_index=3))
json.dump(d, open(sys.argv[2], "w"))
EOF
$LB compare --no-marks $G/rtmutex/k0.json "$T/short.json" >"$T/o"
grep -q "^95  *174.35  *57.89  *-  *-  *-$" "$T/o" && grep -q "^128  *-  *-  *880.10  *29.62  *-$" "$T/o" && ok ||
	{ bad "missing points as -"; cat "$T/o"; }
$LB compare $G/rtmutex/k0.json "$T/short.json" | grep -q "^-  not measured" && ok || bad "note for -"

# ---- significance follows the experiment ----------------------------------
# Synthetic files from k0.json's layout: `mk OUT LABEL RATES...` writes one
# invocation (no `invocation` members) holding one lock per rate list
# "r1:r2:..." (one rate per round), at the first row only.
mk() {
	python3 - "$G/rtmutex/k0.json" "$@" <<'EOF2'
import copy, json, sys
src, out, label, lists = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
d = json.load(open(src))
d["label"] = label
d["rows"] = d["rows"][:1]
d["row_desc"] = d["row_desc"][:1] if d.get("row_desc") else None
tmpl = [p for p in d["points"] if p["row_index"] == 0][0]
d["variants"] = [dict(d["variants"][0], name="lock%d" % i, lock="lock%d" % i)
                 for i in range(len(lists))]
d["points"] = []
for i, l in enumerate(lists):
    p = copy.deepcopy(tmpl)
    p["variant"], p["variant_index"] = "lock%d" % i, i
    run = p["runs"][0]
    run.pop("invocation", None)
    p["runs"] = []
    for k, x in enumerate(float(v) for v in l.split(":")):
        p["runs"].append(dict(run, seq=k, ops_per_sec=x, ops=int(x * 60)))
    d["points"].append(p)
json.dump(d, open(out, "w"))
EOF2
}
# verdict FILE: method significant rel p of the second column.
verdict() {
	python3 - "$1" <<'EOF2'
import json, sys
d = json.load(open(sys.argv[1]))
vb = [p for p in d["points"] if p["variant_index"] == 1][0]["vs_baseline"]
t = vb["test"]
print(t["method"], vb["significant"], round(vb["rel_pct"]), t["p"])
EOF2
}
# Within one run: paired by round; one wild round of ten is cut.
mk "$T/r.json" run 1000:1010:990:1005:995:1000:1010:990:1005:995 \
	950:958:942:956:1490:950:958:942:956:946
$LB compare -f json -o "$T/v.json" "$T/r.json"
case "$(verdict "$T/v.json")" in "rounds True "*) ok ;; *) bad "rounds, one outlier: $(verdict "$T/v.json")" ;; esac
python3 -c "
import json; d = json.load(open('$T/v.json')); vb = d['points'][1]['vs_baseline']
assert vb['welch']['p'] > 0.05, vb   # treating runs as independent misses it
assert d['significance']['tests'] == 1 and d['significance']['correction'] == 'holm'
" && ok || bad "rounds: Welch on runs would not see it"
# Across files: one invocation a side has no p-value and says so.
mk "$T/a1.json" A 1000:1001:999; mk "$T/a2.json" A 1020:1019:1021; mk "$T/a3.json" A 990:991:989
mk "$T/b1.json" B 900:901:899; mk "$T/b2.json" B 910:909:911; mk "$T/b3.json" B 895:894:896
mk "$T/c1.json" C 1010:1011:1009; mk "$T/c2.json" C 985:986:984; mk "$T/c3.json" C 1005:1004:1006
$LB compare -f json -o "$T/v.json" "$T/a1.json" "$T/b1.json"
case "$(verdict "$T/v.json")" in "one-invocation False -10 None") ok ;; *) bad "one invocation a side: $(verdict "$T/v.json")" ;; esac
$LB compare -v "$T/a1.json" "$T/b1.json" >"$T/o"
grep -q "^1 .*-10%_$" "$T/o" && ! grep -q "%~" "$T/o" &&
	tr -s ' \n' '  ' <"$T/o" | grep -q "_ too few runs to judge: one invocation per label (compare 2 or more files per --label" && ok ||
	{ bad "one invocation: note"; cat "$T/o"; }
# Five rounds, a change of several times in every round (a stock and a
# patched tree): found by the paired t on all five rounds (df 4).
mk "$T/r5.json" run 700:1200:2600:1500:2000 5000:6000:7700:6500:5500
$LB compare -f json -o "$T/v.json" "$T/r5.json"
case "$(verdict "$T/v.json")" in "rounds True 284 0.00123"*) ok ;; *) bad "rounds, 5, 4x: $(verdict "$T/v.json")" ;; esac
# One round a side: too few runs to judge, `_` with the -r that would.
mk "$T/r1.json" run 1000 500
$LB compare "$T/r1.json" >"$T/o"
grep -q -- "-50%_$" "$T/o" && grep -q "^_  too few runs to judge: -r 2 would$" "$T/o" &&
	! grep -q "%~" "$T/o" && ok || { bad "one round: _ and -r 2"; cat "$T/o"; }
# Three files per label: one column per label, tested on invocations.
$LB compare -f json -o "$T/v.json" "$T/a"[123].json "$T/b"[123].json
case "$(verdict "$T/v.json")" in "invocations True -10 "*) ok ;; *) bad "invocations, B 10% slower: $(verdict "$T/v.json")" ;; esac
python3 -c "
import json; d = json.load(open('$T/v.json'))
assert [v['name'] for v in d['variants']] == ['A', 'B'], d['variants']
assert len(d['points'][0]['runs']) == 9
assert sorted(set(r['invocation'] for r in d['points'][1]['runs'])) == [4, 5, 6]
" && ok || bad "invocations: one column per label, runs numbered apart"
$LB compare -f json -o "$T/v.json" "$T/a"[123].json "$T/c"[123].json
case "$(verdict "$T/v.json")" in "invocations False "*) ok ;; *) bad "invocations, A/A: $(verdict "$T/v.json")" ;; esac
# The regression gate: B is 10% slower on 3 invocations a side.
$LB compare --fail-if-regressed 5% "$T/a"[123].json "$T/b"[123].json >"$T/o" 2>"$T/e"
[ $? -eq 4 ] && grep -q "^lockbench: regression: B at nwriters_stress 1: -10.[0-9]% against A" "$T/e" &&
	ok || { bad "gate: exit 4 naming the point"; cat "$T/e"; }
$LB compare --fail-if-regressed 20% "$T/a"[123].json "$T/b"[123].json >"$T/o" 2>"$T/e"
[ $? -eq 0 ] && [ ! -s "$T/e" ] && ok || bad "gate: 10% is within 20%"
# One invocation a side: not assessed, so the gate cannot pass it (exit 5,
# one line); with an invocation floor it is assessed (tests/e2e_compare.sh).
$LB compare --fail-if-regressed 1% "$T/a1.json" "$T/b1.json" >"$T/o" 2>"$T/e"
[ $? -eq 5 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "^lockbench: cannot assess: 1 point could not show a change of 1% (e.g. B at nwriters_stress 1: -10.0%): one invocation a side" "$T/e" &&
	ok || { bad "gate: one invocation a side, no floor: exit 5"; cat "$T/e"; }
$LB compare --fail-if-regressed 1% --floor 5% "$T/a1.json" "$T/b1.json" >"$T/o" 2>"$T/e"
[ $? -eq 4 ] && ok || bad "gate: one invocation a side, a 5% floor: -10% fails it"
# Three invocations a side: the smallest difference it could detect,
# under the table and in the JSON.
$LB compare -v "$T/a"[123].json "$T/b"[123].json >"$T/o"
grep -q "^smallest difference this comparison could detect: [0-9.]*% (80% power," "$T/o" &&
	ok || { bad "MDE note"; cat "$T/o"; }
$LB compare -f json -o "$T/v.json" "$T/a"[123].json "$T/b"[123].json
python3 -c "
import json; d = json.load(open('$T/v.json'))
m = d['significance']['mde_pct']; t = d['points'][1]['vs_baseline']['test']
assert m['points'] == 1 and m['power'] == 0.8 and m['min'] == m['max'] == t['mde_pct'], (m, t)
# A, B: invocation means 1000, 1020, 990 and 900, 910, 895 (runs +-1):
# the invocation level decides, and 3 a side cannot see much below 5%.
assert 3 < t['mde_pct'] < 10, t
" && ok || bad "MDE in the JSON"
$LB compare --fail-if-regressed 5% --baseline B "$T/a"[123].json "$T/b"[123].json >"$T/o" 2>"$T/e"
[ $? -eq 0 ] && ok || bad "gate: A is faster than B, no regression"
# --min-effect: a significant 10% below a 15% floor is not marked.
$LB compare -f json -o "$T/v.json" --min-effect 15% "$T/a"[123].json "$T/b"[123].json
case "$(verdict "$T/v.json")" in "invocations False -10 "*) ok ;; *) bad "--min-effect: $(verdict "$T/v.json")" ;; esac
refuse "compare bad --fail-if-regressed" "fail-if-regressed (lots)" $LB compare --fail-if-regressed lots "$T/a1.json"
# The same file twice is not a second invocation.
refuse "compare same file twice" "a1.json): given twice" $LB compare "$T/a1.json" "$T/a1.json"

# ---- bad input: one line, exit 2, no output file ---------------------------
printf 'hello, world\n' >"$T/notjson.json"
printf '{"type": "FeatureCollection", "features": []}\n' >"$T/other.json"
head -c 2000 $G/rtmutex/k0.json >"$T/trunc.json"
sed 's/"schema_version": "1.1"/"schema_version": "2.0"/' $G/rtmutex/k0.json >"$T/v2.json"
printf '{"schema": "lockbench-results", "schema_version": "1.0", "variants": [], "rows": [], "points": []}\n' >"$T/empty.json"
: >"$T/zero.json"
sed 's/"workload": "locktorture"/"workload": "cs"/' $G/rtmutex/k1.json >"$T/cs.json"
sed 's|"unit": "ops/s"|"unit": "jpm"|' $G/rtmutex/k1.json >"$T/jpm.json"
O="-o $T/out/x.json"
refuse "compare missing file" "cannot read results (.*nope.json): No such file" $LB compare $O $G/rtmutex/k0.json "$T/nope.json"
refuse "compare not JSON" "notjson.json): not JSON" $LB compare $O $G/rtmutex/k0.json "$T/notjson.json"
refuse "compare other tool" "other.json): not lockbench results" $LB compare $O "$T/other.json"
refuse "compare truncated" "trunc.json): truncated JSON" $LB compare $O "$T/trunc.json"
refuse "compare newer schema" "written by a newer lockbench (schema 2.0); this one reads 1.x" $LB compare $O "$T/v2.json"
refuse "compare empty results" "empty.json): empty results" $LB compare $O "$T/empty.json"
refuse "compare empty file" "zero.json): empty file" $LB compare $O "$T/zero.json"
refuse "compare workloads differ" "cannot compare (.*k0.json, .*cs.json): different workloads" $LB compare $O $G/rtmutex/k0.json "$T/cs.json"
refuse "compare units differ" "jpm.json): unit (jpm)" $LB compare $O $G/rtmutex/k0.json "$T/jpm.json"
refuse "compare no file" "no results file" $LB compare $O
refuse "compare bad baseline" "baseline (nope): no such column or label; valid: columns k0" $LB compare $O --baseline nope $G/rtmutex/k0.json $G/rtmutex/k1.json
refuse "compare baseline prefix" "baseline (k0-stock): no such column or label; valid: columns k0-stock-6.2.0-rc6, k1-rmacq; labels" $LB compare $O --baseline k0-stock $G/rtmutex/k0.json $G/rtmutex/k1.json
refuse "compare bad format" "unknown format (nope): valid: table, box" $LB compare -f nope $O $G/rtmutex/k0.json
refuse "compare speedup 6 variants" "format speedup (6 variants): needs exactly two" $LB compare -f speedup -o "$T/out/x.txt" $RT
refuse "compare same file twice" "k0.json): given twice" $LB compare $O $G/rtmutex/k0.json $G/rtmutex/k0.json
refuse "compare -l no such lock" "no lock of -l (nope)" $LB compare -l nope $O $G/rtmutex/k0.json
refuse "compare bad option" "unknown option" $LB compare --frobnicate $G/rtmutex/k0.json
refuse "compare bad unit" "unit (furlongs)" $LB compare --unit furlongs $G/rtmutex/k0.json

# ---- import locktorture -----------------------------------------------------
$LB import locktorture --label k9 -o "$T/imp.json" "$FIX/two-runs.log" "$FIX/new-kernel.log" 2>"$T/err" ||
	bad "import of fixtures"
python3 - "$T/imp.json" <<'EOF' || bad "imported JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "lockbench-results"
assert d["row_heading"] == "nwriters_stress" and d["variant_heading"] == "Kernel"
assert d["label"] == "k9" and d["workload"] == "locktorture"
byname = {(d["variants"][p["variant_index"]]["lock"], p["threads"]): p for p in d["points"]}
# --label heads the columns: label/type, as the logs hold two types.
assert sorted(v["name"] for v in d["variants"]) == ["k9/mutex_lock", "k9/rtmutex_lock", "k9/spin_lock"], d["variants"]
p = byname[("mutex_lock", 8)]
r = p["runs"][0]
# Totals 5.0M, 8.0M, 11.6M at 30 s steps: intervals 100000 and 120000 ops/s
# (start-up interval and the stopping reports dropped).
assert r["ops_per_sec"] == 110000 and r["window_s"] == 60 and r["series"] == [100000, 120000], r
lt = r["locktorture"]
assert lt["type"] == "mutex_lock" and lt["intervals"] == 2 and lt["reports"][0]["max"] == 1300000
assert "unfair" in lt and "failed" in lt
EOF
$LB import locktorture --label ka -o "$T/ka.json" "$FIX/two-runs.log" 2>/dev/null
$LB import locktorture --label kb -o "$T/kb.json" "$FIX/two-runs.log" "$FIX/two-runs.log" 2>/dev/null
$LB compare --no-marks -l mutex_lock "$T/ka.json" "$T/kb.json" >"$T/o"
# ka has one run: its std is undefined ("-"), kb's two equal runs give 0.00.
head -3 "$T/o" | tail -1 | grep -q "^nwriters_stress:$" && grep -q "^8  *110.00  *-  *110.00  *0.00  *+0%" "$T/o" && ok ||
	{ bad "import -> compare"; cat "$T/o"; }

# The log shapes people publish.  Two start-less runs (parameters from
# their End lines): two runs of one point, 113333.33 and 110000 ops/s.
$LB import locktorture -o "$T/ts.json" "$FIX/two-startless.log" 2>"$T/err" && ok || bad "two start-less runs"
python3 - "$T/ts.json" <<'EOF' && ok || bad "two start-less runs: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
(p,) = d["points"]
assert p["threads"] == 2 and len(p["runs"]) == 2, p
assert [round(r["ops_per_sec"], 2) for r in p["runs"]] == [113333.33, 110000.0]
assert [r["locktorture"]["line"] for r in p["runs"]] == [1, 9]
EOF
# A quoted, mail-wrapped post: start line over five lines, stats lines cut.
$LB import locktorture -f table "$FIX/mail-wrapped.log" >"$T/o" 2>"$T/err" &&
	grep -q "^8  *606.67  *-$" "$T/o" && ok || { bad "mail-wrapped log"; cat "$T/o" "$T/err"; }
# One run: std undefined, null in JSON (not 0).
$LB import locktorture -o "$T/mw.json" "$FIX/mail-wrapped.log" 2>/dev/null
python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["points"][0]["summary"]; assert s["std"] is None and s["cv"] is None, s' "$T/mw.json" &&
	ok || bad "one run: std null in JSON"
# ??? carried to the point, shown as ^ in text formats.
$LB import locktorture -v -f table,lkp -o - "$FIX/new-kernel.log" >"$T/o" 2>/dev/null
grep -q "^4  *966.67^  *-$" "$T/o" && grep -q "^rtmutex_lock  *966.67±-^$" "$T/o" &&
	grep -q "^^  unfair: " "$T/o" && tr -s ' \n' '  ' <"$T/o" | grep -q "least busy (locktorture's ???)" &&
	ok || { bad "??? as ^ mark"; cat "$T/o"; }
$LB import locktorture -o "$T/nk.json" "$FIX/new-kernel.log" 2>/dev/null
python3 - "$T/nk.json" <<'EOF' && ok || bad "??? in JSON"
import json, sys
(p,) = json.load(open(sys.argv[1]))["points"]
assert p["fairness"]["lt_unfair"] is True and p["runs"][0]["unfair_reported"] is True, p["fairness"]
EOF
# Fail > 0: FAILED, exit 1, the failing stats line named; the JSON is written.
$LB import locktorture -o "$T/fail.json" "$FIX/fail.log" 2>"$T/err"
rc=$?
[ $rc -eq 1 ] && grep -q "^lockbench: mutex_lock nwriters_stress=4: locktorture reported a failure (.*fail.log line 7: Fail > 0)$" "$T/err" &&
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; assert p["status"] == "failed" and "line 7" in p["error"]' "$T/fail.json" &&
	ok || { bad "failing run: exit $rc"; cat "$T/err"; }
# A boot log cut before its Start line: the run is skipped, saying what to give.
refuse "import start-less, no nwriters" "cannot import (.*robot-boot.log): no run with nwriters_stress" \
	$LB import locktorture -q -o "$T/out/x.json" "$FIX/robot-boot.log"
$LB import locktorture -o "$T/out/x.json" "$FIX/robot-boot.log" 2>"$T/err"
grep -q "skipped the run at .*robot-boot.log line 3: no nwriters_stress .*give --nwriters" "$T/err" && ok ||
	{ bad "start-less run: hint"; cat "$T/err"; }
# ... and imports when told what the log lacks: 100000, 90000 and 105000
# ops/s, so 98.33 kops/s, one run (std -), ??? on the last report (^).
$LB import locktorture --nwriters 4 --torture-type spin_lock -f table,json -o "$T/rb.json" \
	"$FIX/robot-boot.log" >"$T/o" 2>"$T/err" &&
	grep -q "^Kernel:  *spin_lock$" "$T/o" && grep -q "^4  *98.33^  *-$" "$T/o" && [ ! -s "$T/err" ] &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["points"][0]["runs"][0]; assert r["locktorture"]["nwriters_stress"] == 4 and r["locktorture"]["type"] == "spin_lock" and [round(x, 3) for x in r["series"]] == [100000, 90000, 105000], r' "$T/rb.json" &&
	ok || { bad "start-less run with --nwriters"; cat "$T/o" "$T/err"; }
# What the log says wins over the options: two-startless.log has nwriters_stress=2.
$LB import locktorture --nwriters 7 -f table "$FIX/two-startless.log" 2>/dev/null | grep -q "^2  " &&
	ok || bad "--nwriters overrode the log"
refuse "import bad --nwriters" "nwriters" $LB import locktorture --nwriters 0 "$FIX/robot-boot.log"
refuse "import bad --torture-type" "torture-type (spin lock)" $LB import locktorture --torture-type "spin lock" "$FIX/robot-boot.log"
# One report only: no complete interval.
refuse "import one report" "cannot import (.*one-report.log): no run with nwriters_stress and a complete statistics interval" \
	$LB import locktorture -q -o "$T/out/x.json" "$FIX/one-report.log"
# Totals-only logs, the shapes people post (golden tables: rate and what
# it rests on under the table; --label heads the column).
# Start line and the final totals (printed twice at stop, counted once):
# 45000000 over 230.125 - 200.125 s = 1500.00 kops/s.
$LB import locktorture -v --label stock -f table "$FIX/totals-start.log" >"$T/o" 2>"$T/err" &&
	same "$T/o" "$G/expected/lt-totals-start.txt" "totals after a Start line" ||
	{ bad "totals after a Start line: exit"; cat "$T/err"; }
# An End line with the parameters and the final totals: the length from --duration.
refuse "totals without a time base" "cannot import (.*totals-end.log): .*give --duration S" \
	$LB import locktorture -o "$T/out/x.json" "$FIX/totals-end.log"
grep -q "skipped the run at .*totals-end.log line 2: only final totals and no time base .*give --duration S" \
	"$T/stderr" && ok || { bad "totals without a time base: hint"; cat "$T/stderr"; }
$LB import locktorture -v --label stock --duration 30 -f table "$FIX/totals-end.log" >"$T/o" &&
	same "$T/o" "$G/expected/lt-totals-end.txt" "totals with --duration"
# Bare Writes/Reads totals: nwriters and the length from the options;
# 24000000 / 20 s written, the readers' 60000000 / 20 s in the JSON.
refuse "bare totals without --duration" "cannot import (.*totals-bare.log)" \
	$LB import locktorture --nwriters 4 -o "$T/out/x.json" "$FIX/totals-bare.log"
grep -q "no complete statistics interval (a log of final totals only needs --duration S)" "$T/stderr" &&
	ok || { bad "bare totals: hint"; cat "$T/stderr"; }
$LB import locktorture -v --label patched --nwriters 4 --nreaders 4 --duration 20 -f table,json \
	-o table=-,json="$T/bare.json" "$FIX/totals-bare.log" >"$T/o" &&
	same "$T/o" "$G/expected/lt-totals-bare.txt" "bare totals"
python3 - "$T/bare.json" <<'EOF' && ok || bad "bare totals: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["points"][0]["runs"][0]
lt = r["locktorture"]
assert d["variants"][0]["name"] == "patched" and r["ops_per_sec"] == 1200000 and r["window_s"] == 20, r
assert lt["rate_from"] == "duration" and lt["seconds"] == 20 and lt["reads_ops_per_sec"] == 3000000, lt
EOF
# Four reports on the 10 s grid before End (no stopping line): all three
# intervals count (1000000 / 10, 1100000 / 10, 900000 / 10 ops/s).
$LB import locktorture -v -f table "$FIX/on-grid.log" >"$T/o" && same "$T/o" "$G/expected/lt-on-grid.txt" "reports on the grid"
# Without -v, one line: the column and what its rate rests on.
$LB import locktorture -f table "$FIX/on-grid.log" | tail -1 | grep -qx "locktorture rates: spin_lock: 2: 1 run, 3 intervals" &&
	ok || bad "locktorture rates: the brief note"
$LB import locktorture -f table --no-marks "$FIX/on-grid.log" | grep -q "locktorture rates" &&
	bad "--no-marks printed the rate note" || ok
printf 'just some dmesg\nno torture here\n' >"$T/plain.log"
refuse "import missing file" "cannot import (.*nope.log): No such file" $LB import locktorture -o "$T/out/x.json" "$T/nope.log"
refuse "import not a log" "cannot import (.*plain.log): no locktorture statistics" $LB import locktorture -o "$T/out/x.json" "$T/plain.log"
refuse "import empty log" "cannot import (.*zero.json)" $LB import locktorture -o "$T/out/x.json" "$T/zero.json"
refuse "import unknown source" "unknown source (rcutorture): valid: locktorture" $LB import rcutorture x.log
refuse "import no log" "no log given" $LB import locktorture -o "$T/out/x.json"

# ---- list formats ----------------------------------------------------------
for f in table box lkp speedup csv json; do
	$LB list formats | grep -q "^$f " || bad "list formats lacks $f"
done
ok

e2e_done
