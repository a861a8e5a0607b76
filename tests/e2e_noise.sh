#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e_noise.sh - noise handling end to end: what each run's workers got
# of the window in JSON, a run sharing its CPU with a pinned busy loop
# flagged with its reason, a SIGSTOPped run flagged and left out, -r
# auto, topo --c2c, bad input.  Usage: tests/e2e_noise.sh [BINARY]
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"

bad_input "ci-target without auto" "need -r auto" --ci-target 2%
bad_input "max-runs without auto" "need -r auto" --max-runs 5
bad_input "bad ci-target" "ci-target (0%)" -r auto --ci-target 0%
bad_input "bad ci-target text" "ci-target (abc)" -r auto --ci-target abc
bad_input "removed --probe-factor" "unknown option" --probe-factor 2
bad_input "removed --exclude-flagged" "unknown option" --exclude-flagged
bad_input "bad runs" "runs (autox)" -r autox
bad_input "auto and sequential" "needs --order interleaved" -r auto --order sequential
bad_input "c2c of another machine" "--c2c measures this machine" topo --c2c \
	--topology "package:1 core:2 pu:1"

ncpu=$(nproc)
HOG=
trap 'rm -rf "$OUT"; [ -n "$HOG" ] && kill "$HOG" 2>/dev/null' EXIT

# Every run carries what its workers got of the window, its stopped
# time, flags and reason; the shares are the kernel's and add up to at
# most about the window (bounds generous: the machine may be shared).
expect_exit 0 "measured run" -- "$BIN" -l ticket,mcs -t 1,2 -r 2 --warmup 0.05 -d 0.2 \
	--cs-ns 200 -f table,json -o "$OUT/n.json" -q --seed 3 -v
cp "$OUT/stdout" "$OUT/n.txt"
python3 - "$OUT/n.json" <<'PY' && ok || bad "noise json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema_version"] == "1.5"
n = d["noise"]
assert n["measured"] and n["adaptive"] is None and n["lost_min"] == 0.05, n
assert n["runs"] == 8 and set(n["by_flag"]) == {"shared_cpu", "stopped", "cs_length_off"}, n
for p in d["points"]:
    assert p["noise"]["flagged_runs"] >= 0 and p["adaptive"] is None
    for r in p["runs"]:
        assert r["cs_ns_requested"] == 200 and r["cs_ns_actual_median"] > 0
        assert len(r["workers"]) == p["threads"]
        for w in r["workers"]:
            assert w["cpu"] >= 0 and w["nivcsw"] >= 0, w
            assert 0 <= w["cpu_share"] <= 1 and 0 <= w["wait_share"] <= 1, w
            # (a wait still going on at the window's end is not counted
            # yet: the sum may fall short on a busy machine, never over)
            assert w["cpu_share"] + w["wait_share"] <= 1.2, w
        assert r["monitor_late_s"] >= 0 and r["stopped_s"] >= 0
        assert set(r["flags"]) <= {"shared_cpu", "stopped", "cs_length_off"}, r["flags"]
        worst = max(w["wait_share"] for w in r["workers"])
        assert ("shared_cpu" in r["flags"]) == (worst >= 0.05), r
        assert (r["reason"] is None) == (not {"shared_cpu", "stopped"} & set(r["flags"])), r
        for k in ("probe", "steal", "core_speed"):
            assert k not in r, k
PY
# The ! mark, when a point was flagged, is explained once, with no
# advice to drop the flagged runs (after a mean, or after the - of a
# point whose every run a busy machine left out).
if grep -q "[0-9-]!" "$OUT/n.txt"; then
	[ "$(grep -c '^!  noisy: [1-9][0-9]* of [0-9]* runs flagged' "$OUT/n.txt")" -eq 1 ] &&
		! grep -q "exclude-flagged" "$OUT/n.txt" && ok || bad "! without its note: $(cat "$OUT/n.txt")"
else
	grep -q "^!  noisy" "$OUT/n.txt" && bad "note without a !" || ok
fi

# --no-probe: the kernel's accounts not read, nothing flagged for noise;
# the section lengths still sampled.
expect_exit 0 "no probe" -- "$BIN" -l ticket -t 2 -r 1 --warmup 0.05 -d 0.1 --no-probe \
	--cs-ns 200 -f json -o "$OUT/np.json" -q
python3 -c "
import json; d=json.load(open('$OUT/np.json'))
r=d['points'][0]['runs'][0]
assert [w['wait_share'] for w in r['workers']] == [None, None], r['workers']
assert r['monitor_late_s'] is None and r['stopped_s'] == 0 and r['reason'] is None, r
assert not set(r['flags']) & {'shared_cpu', 'stopped'} and r['cs_ns_requested'] == 200, r" &&
	ok || bad "--no-probe json"

# A worker sharing its CPU with a busy loop pinned there for the whole
# run: every run flagged shared_cpu, its reason naming its wait.
if [ "$ncpu" -ge 2 ]; then
	timeout 120 taskset -c 1 sh -c 'while :; do :; done' &
	HOG=$!
	expect_exit 0 "beside a busy loop" -- "$BIN" -l tas -t 1 -p cpus:1 -r 3 --warmup 0.05 \
		-d 0.3 --no-tune -f table,json -o "$OUT/hog.json" -q -v
	kill "$HOG" 2>/dev/null
	wait "$HOG" 2>/dev/null
	HOG=
	python3 - "$OUT/hog.json" <<'PY' && ok || bad "busy loop: not flagged"
import json, re, sys
runs = json.load(open(sys.argv[1]))["points"][0]["runs"]
for r in runs:
    assert r["workers"][0]["cpu"] == 1, r["workers"]
    assert "shared_cpu" in r["flags"], (r["flags"], r["workers"])
    m = re.match(r"shared its CPU: waited (\d+)% of the window", r["reason"])
    assert m and int(m.group(1)) >= 20, r["reason"]
PY
	grep -q "^!  noisy: 3 of 3 runs flagged (shared its CPU 3" "$OUT/stdout" && ok ||
		bad "busy loop note: $(cat "$OUT/stdout")"
fi

# A run stopped (SIGSTOP for 1.5 s inside a 0.5 s window, then SIGCONT,
# under timeout): flagged stopped with its length, left out of the
# point's statistics, and the point's mean that of the other runs.  The
# stop waits for the second run's progress line (start-up takes longer
# on a loaded machine than any fixed sleep), then lands mid-window.
timeout 120 "$BIN" -l tas -t 1 -r 3 --warmup 0.05 -d 0.5 --no-tune -v -f table,json \
	-o table="$OUT/st.txt",json="$OUT/st.json" 2>"$OUT/st.err" &
pid=$!
until_stderr "$OUT/st.err" "run 2/3" || bad "stopped run: the second run never started"
lb=$(ps -o pid= --ppid $pid)	# lockbench itself, timeout's child
sleep 0.2
kill -STOP $lb
sleep 1.5
kill -CONT $lb
wait $pid && ok || bad "stopped run: exit $?"
python3 - "$OUT/st.json" <<'PY' && ok || bad "stopped run: flags"
import json, sys
p = json.load(open(sys.argv[1]))["points"][0]
runs = p["runs"]
st = [r for r in runs if "stopped" in r["flags"]]
assert len(st) == 1, [(r["window_s"], r["flags"], r["stopped_s"]) for r in runs]
s = st[0]
assert 1.0 <= s["stopped_s"] <= 2.5, s["stopped_s"]
assert "stopped for " in s["reason"] and s["excluded"], s
# The others may be left out too when the machine is busy (one rule at
# every point: even all of them, docs/method.md "Noise").
kept = [r for r in runs if not r["excluded"]]
assert len(kept) <= 2 and p["summary"]["n"] == len(kept)
assert p["noise"]["excluded_runs"] == 3 - len(kept)
if kept:
    mean = sum(r["ops_per_sec"] for r in kept) / len(kept)
    assert abs(p["summary"]["mean"] - mean) <= 1e-6 * mean, (p["summary"]["mean"], mean)
else:
    assert p["summary"]["mean"] is None, p["summary"]  # no kept run: no mean
PY
tr -s ' \n' '  ' <"$OUT/st.txt" | grep -q "left out of the statistics" && ok ||
	bad "stopped run: note: $(cat "$OUT/st.txt")"

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

# compare reads its files back and keeps the run members and the runs
# left out.
expect_exit 0 "compare" -- "$BIN" compare -f json "$OUT/n.json" -o "$OUT/c.json"
python3 -c "
import json; d=json.load(open('$OUT/c.json'))
r=d['points'][0]['runs'][0]; assert 'workers' in r and 'flags' in r" && ok || bad "compare keeps noise members"
expect_exit 0 "compare stopped" -- "$BIN" compare -f json "$OUT/st.json" -o "$OUT/cst.json"
python3 -c "
import json; p=json.load(open('$OUT/cst.json'))['points'][0]
assert p['summary']['n'] == sum(not r['excluded'] for r in p['runs'])
assert any(r['excluded'] and 'stopped' in r['flags'] for r in p['runs'])" && ok ||
	bad "compare lost the stopped run's exclusion"

# topo --c2c prints the matrix of this machine.
expect_exit 0 "topo --c2c" -- "$BIN" topo --c2c
grep -q "^core-to-core round trip" "$OUT/stdout" && ok || bad "c2c heading"
if [ "$ncpu" -ge 2 ]; then
	awk '/^core-to-core/{m=1; next} m && $1 ~ /^[0-9]+$/ {for (i=2;i<=NF;i++) if ($i != "-" && ($i+0 < 10 || $i+0 > 100000000)) bad=1} END{exit bad}' \
		"$OUT/stdout" && ok || bad "c2c values: $(cat "$OUT/stdout")"
fi

e2e_done
