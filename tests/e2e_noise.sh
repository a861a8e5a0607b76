#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e_noise.sh - noise handling end to end: probe values in
# JSON for every run, flags, -r auto, --exclude-flagged, topo --c2c,
# bad input.  Usage: tests/e2e_noise.sh [BINARY]
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"

bad_input "ci-target without auto" "need -r auto" --ci-target 2%
bad_input "max-runs without auto" "need -r auto" --max-runs 5
bad_input "bad ci-target" "ci-target (0%)" -r auto --ci-target 0%
bad_input "bad ci-target text" "ci-target (abc)" -r auto --ci-target abc
bad_input "bad probe factor" "probe-factor (0.5)" --probe-factor 0.5
bad_input "bad runs" "runs (autox)" -r autox
bad_input "auto and sequential" "needs --order interleaved" -r auto --order sequential
bad_input "c2c of another machine" "--c2c measures this machine" topo --c2c \
	--topology "package:1 core:2 pu:1"

ncpu=$(nproc)

# Every run carries probe values in a plausible range (tens to thousands
# of ns; a starved helper on a busy machine can take longer, so the
# bound is loose), steal, workers and the section lengths.
expect_exit 0 "probed run" -- "$BIN" -l ticket,mcs -t 1,2 -r 2 --warmup 0.05 -d 0.2 \
	--cs-ns 200 -f table,json -o "$OUT/n.json" -q --seed 3 -v
python3 - "$OUT/n.json" "$ncpu" <<'PY' && ok || bad "probe json"
import json, sys
d = json.load(open(sys.argv[1])); ncpu = int(sys.argv[2])
assert d["schema_version"] == "1.4"
n = d["noise"]
assert n["measured"] and n["probe"] and n["probe_factor"] == 1.5 and n["adaptive"] is None
assert n["runs"] == 8, n
for p in d["points"]:
    assert p["noise"]["flagged_runs"] >= 0 and p["adaptive"] is None
    for r in p["runs"]:
        assert r["cs_ns_requested"] == 200 and r["ncs_ns_requested"] == 100
        assert r["cs_ns_actual_median"] is not None and r["cs_ns_actual_median"] > 0
        assert r["cs_samples"] > 0
        assert len(r["workers"]) == p["threads"]
        for w in r["workers"]:
            assert w["cpu"] >= 0 and w["cpu_end"] >= 0 and w["nivcsw"] >= 0
            assert w["core_ghz_before"] > 0 and w["core_ghz_after"] > 0
            # the window's issue probes, about one a millisecond
            assert w["core_issue_probes"] >= 20 and w["core_issue_rate"] > 0, w
        cs = r["core_speed"]
        assert cs["window_issue_rate"] > 0 and p["noise"]["issue_typical"] > 0
        assert abs(cs["window_issue_rate"] / p["noise"]["issue_typical"] - 1
                   - cs["window_issue_vs_point"]) < 1e-9
        assert r["steal"] is None or 0 <= r["steal"]["fraction"] <= 1
        assert isinstance(r["flags"], list) and r["excluded"] is False
        if p["threads"] == 1 or ncpu < 2:
            assert r["probe"] is None
            continue
        pr = r["probe"]
        assert pr["pairs"] == [[pr["pairs"][0][0], pr["pairs"][0][1]]]
        for v in pr["before_ns"] + pr["after_ns"]:
            assert v is not None and 10 <= v <= 1e6, v
        for f in r["flags"]:
            assert f in ("placement_changed", "steal", "migrated", "cs_length_off",
                         "core_speed_moved")
        cs = r["core_speed"]
        assert cs is not None and 0.1 < cs["before_ghz"] < 10 and 0.1 < cs["after_ghz"] < 10, cs
        assert abs(cs["after_ghz"] / cs["before_ghz"] - 1 - cs["change"]) < 1e-9
        assert (abs(cs["change"]) > d["noise"]["speed_tolerance"]) == ("core_speed_moved" in r["flags"])
    if p["threads"] == 2 and ncpu >= 2:
        t = p["noise"]["probe_typical_ns"]
        assert len(t) == 1 and 10 <= t[0] <= 1e6, t
PY
# The ! mark, when a point was flagged, is explained once.
if grep -q "[0-9]!" "$OUT/stdout"; then
	[ "$(grep -c '^!  noisy: [1-9][0-9]* of [0-9]* runs flagged' "$OUT/stdout")" -eq 1 ] &&
		grep -q "exclude-flagged" "$OUT/stdout" && ok || bad "! without its note"
else
	grep -q "^!  noisy" "$OUT/stdout" && bad "note without a !" || ok
fi

# A 1-thread point of 6 runs has its fit of ns/op on the probes; where
# the fit is used it decides core_speed_moved, run by run.
expect_exit 0 "fitted point" -- "$BIN" -l tas -t 1 -r 6 --warmup 0.05 -d 0.1 --ncs-ns 0 \
	--cs-lines 0 -f json -o "$OUT/fit.json" -q
python3 - "$OUT/fit.json" <<'PY' && ok || bad "core fit json"
import json, math, sys
d = json.load(open(sys.argv[1])); tol = d["noise"]["fit_tolerance"]
assert tol == 0.01, tol
p = d["points"][0]; n = p["noise"]; f = n["core_fit"]
assert 5 <= f["runs"] <= 6 and (f["p"] is None or 0 <= f["p"] <= 1), f
assert (f["r2"] is None) or (f["r2"] <= 1), f
assert n["speed_typical_ghz"] > 0
for r in p["runs"]:
    cs = r["core_speed"]
    assert abs((cs["before_ghz"] + cs["after_ghz"]) / 2 / n["speed_typical_ghz"] - 1
               - cs["vs_point"]) < 1e-9
    if f["used"]:
        assert cs["fit_vs_point"] is not None
        assert (abs(cs["fit_vs_point"]) > tol) == ("core_speed_moved" in r["flags"]), r
    else:
        assert cs["fit_vs_point"] is None
PY

# --no-probe: no probe, the rest still measured.
expect_exit 0 "no probe" -- "$BIN" -l ticket -t 2 -r 1 --warmup 0.05 -d 0.1 --no-probe \
	-f json -o "$OUT/np.json" -q
python3 -c "
import json; d=json.load(open('$OUT/np.json'))
assert d['noise']['probe'] is False
r=d['points'][0]['runs'][0]; assert r['probe'] is None and len(r['workers'])==2" && ok || bad "--no-probe json"

# A very large factor flags no placement change; a factor barely above 1
# flags (nearly) every probed run: the two bound what the flag does.
expect_exit 0 "tight factor" -- "$BIN" -l ticket -t 2 -r 3 --warmup 0.05 -d 0.1 \
	--probe-factor 1.0001 --exclude-flagged -f table,json -o "$OUT/tf.json" -q -v
if [ "$ncpu" -ge 2 ]; then
	python3 -c "
import json; d=json.load(open('$OUT/tf.json')); p=d['points'][0]
fl=[r for r in p['runs'] if 'placement_changed' in r['flags']]
assert len(fl) >= 2, p['runs']
ex=[r for r in p['runs'] if r['excluded']]
assert p['noise']['excluded_runs'] == len(ex)
assert p['summary']['n'] == 3 - len(ex) and p['summary']['n'] >= 1" && ok || bad "tight factor flags"
	grep -q "^!  noisy: [1-9][0-9]* of 3 runs flagged (placement changed [1-9]" "$OUT/stdout" &&
		tr -s ' \n' '  ' <"$OUT/stdout" | grep -q "(threads: ticket 2); \(excluded from the statistics\|kept: every run of those points was flagged\)" && ok ||
		bad "tight factor note: $(cat "$OUT/stdout")"
	# compare carries the flags through: the ! mark, the note, --exclude-flagged's
	# exclusions recomputed (here: not asked, so none).
	"$BIN" compare "$OUT/tf.json" >"$OUT/cmp.txt" 2>&1
	grep -q "^2 *[0-9.]*!^\? " "$OUT/cmp.txt" && grep -q "^!  noisy: [1-9][0-9]* of 3 runs flagged" "$OUT/cmp.txt" &&
		ok || bad "compare lost the ! mark: $(cat "$OUT/cmp.txt")"
	awk 'length > 72 { exit 1 }' "$OUT/cmp.txt" && ok || bad "compare notes wider than 72: $(cat "$OUT/cmp.txt")"
	"$BIN" compare -v "$OUT/tf.json" >"$OUT/cmp.txt" 2>&1
	awk 'length > 72 && !/^machine: / { exit 1 }' "$OUT/cmp.txt" && ok || bad "compare -v notes wider than 72: $(cat "$OUT/cmp.txt")"
fi
expect_exit 0 "loose factor" -- "$BIN" -l ticket -t 2 -r 2 --warmup 0.05 -d 0.1 \
	--probe-factor 1000 -f json -o "$OUT/lf.json" -q
python3 -c "
import json; d=json.load(open('$OUT/lf.json'))
assert d['noise']['by_flag']['placement_changed'] == 0" && ok || bad "loose factor flagged"

# -r auto: stops at the CI target or a limit and says which points missed.
expect_exit 0 "auto" -- "$BIN" -l ticket,mcs -t 1 -r auto --ci-target 50% --max-runs 6 \
	--warmup 0.02 -d 0.05 -f table,json -o "$OUT/a.json" -q
python3 -c "
import json; d=json.load(open('$OUT/a.json'))
a=d['noise']['adaptive']; assert a['ci_target']==0.5 and a['max_runs']==6
for p in d['points']:
    ad=p['adaptive']; assert ad['stopped'] in ('ci_target_met','max_runs'), ad
    assert 3 <= len(p['runs']) <= 6
    if ad['stopped']=='ci_target_met': assert ad['reached']
assert len(d['run_order']) == sum(len(p['runs']) for p in d['points'])" && ok || bad "auto json"
expect_exit 0 "auto unreachable" -- "$BIN" -l ticket,mcs -t 2 -r auto --ci-target 0.001% \
	--max-runs 3 --warmup 0.02 -d 0.05 -f table,json -o "$OUT/u.json" -q -v
tr -s ' \n' '  ' <"$OUT/stdout" | grep -q "not reached, max runs reached (threads: ticket 2; mcs 2)" && ok ||
	bad "auto note: $(cat "$OUT/stdout")"
python3 -c "
import json; d=json.load(open('$OUT/u.json'))
assert d['noise']['adaptive']['points_not_reached'] == 2
for p in d['points']: assert p['adaptive']['stopped']=='max_runs' and not p['adaptive']['reached'] and len(p['runs'])==3" &&
	ok || bad "auto unreachable json"
start=$(date +%s.%N)
expect_exit 0 "auto budget" -- "$BIN" -l ticket,mcs -t 1,2 -r auto --ci-target 0.001% \
	--time-budget 2 --warmup 0.02 -d 0.1 -f json -o "$OUT/b.json" -q
python3 -c "
import json; d=json.load(open('$OUT/b.json'))
st=[p['adaptive']['stopped'] for p in d['points']]
assert 'time_budget' in st, st
assert all(len(p['runs']) < 30 for p in d['points'])" && ok || bad "auto budget json"

# compare reads 1.2 files back and keeps the run members.
expect_exit 0 "compare" -- "$BIN" compare -f json "$OUT/n.json" -o "$OUT/c.json"
python3 -c "
import json; d=json.load(open('$OUT/c.json'))
r=d['points'][0]['runs'][0]; assert 'workers' in r and 'flags' in r" && ok || bad "compare keeps noise members"

# Every workload's loop runs the probes: the core clock just before the
# window and after, the issue probes inside it (a loop without sampled
# operations calls them itself: layout).
for w in rw torture layout; do
	expect_exit 0 "probes in $w" -- "$BIN" -w "$w" -t 1 -r 1 --warmup 0.05 -d 0.2 \
		-q -f json -o "$OUT/w-$w.json"
	python3 - "$OUT/w-$w.json" <<'PY' && ok || bad "probes in $w"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for r in p["runs"]:
        for w in r["workers"]:
            assert w["core_ghz_before"] > 0 and w["core_ghz_after"] > 0, w
            assert w["core_issue_probes"] >= 20, w
PY
done

# A run stopped (SIGSTOP for 2 s inside a 0.6 s window, then SIGCONT):
# flagged window_stretched, marked !, and the others not.  The stop
# waits for the second run's progress line (start-up takes longer on
# a loaded machine than any fixed sleep), then lands mid-window.
"$BIN" -l tas -t 1 -r 3 --warmup 0.05 -d 0.6 --no-tune -f table,json \
	-o table="$OUT/st.txt",json="$OUT/st.json" 2>"$OUT/st.err" &
pid=$!
until_stderr "$OUT/st.err" "run 2/3" || bad "stopped run: the second run never started"
sleep 0.3
kill -STOP $pid
sleep 2
kill -CONT $pid
wait $pid && ok || bad "stopped run: exit $?"
python3 - "$OUT/st.json" <<'PY' && ok || bad "stopped run: window_stretched"
import json, sys
runs = json.load(open(sys.argv[1]))["points"][0]["runs"]
st = [r for r in runs if "window_stretched" in r["flags"]]
assert len(st) >= 1 and all(r["window_s"] > 1.5 for r in st), [(r["window_s"], r["flags"]) for r in runs]
assert all("window_stretched" not in r["flags"] for r in runs if r["window_s"] < 0.9), runs
PY
grep -q "window stretched" "$OUT/st.txt" && ok || bad "stopped run: note: $(cat "$OUT/st.txt")"

# topo --c2c prints the matrix of this machine.
expect_exit 0 "topo --c2c" -- "$BIN" topo --c2c
grep -q "^core-to-core round trip" "$OUT/stdout" && ok || bad "c2c heading"
if [ "$ncpu" -ge 2 ]; then
	awk '/^core-to-core/{m=1; next} m && $1 ~ /^[0-9]+$/ {for (i=2;i<=NF;i++) if ($i != "-" && ($i+0 < 10 || $i+0 > 1000000)) bad=1} END{exit bad}' \
		"$OUT/stdout" && ok || bad "c2c values: $(cat "$OUT/stdout")"
fi

echo "e2e_noise: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
