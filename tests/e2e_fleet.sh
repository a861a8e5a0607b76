#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of the files other engines load (scripts/lkp-tests/,
# scripts/mmtests/) and of comparing results from several hosts, on
# lockbench output recorded in tests/fixtures/fleet (a short real run:
# -l tas,ticket -t 1,2 -r 2 -d 0.05; and tas,busted --include-broken,
# where busted fails its mutual-exclusion check).  Neither engine is
# needed: scripts/check-engines.sh runs the real ones.
#
# usage: tests/e2e_fleet.sh [./lockbench]
set -u

LB=$(realpath "${1:-./lockbench}")
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
G=$HERE/golden/fleet
FIX=$HERE/fixtures/fleet
LKP=$TOP/scripts/lkp-tests
MMT=$TOP/scripts/mmtests
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fails=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# same GOLDEN ACTUAL WHAT: byte-for-byte equality (LB_GOLDEN_UPDATE=1
# rewrites the golden file instead).
same() {
	if [ -n "${LB_GOLDEN_UPDATE:-}" ]; then cp "$2" "$1"; ok; return; fi
	if cmp -s "$1" "$2"; then ok; else bad "$3"; diff "$1" "$2" | head -20; fi
}

# ---- lkp-tests: the stats parser -------------------------------------------

# lkp keeps the test's stdout (log_echo lines, then the JSON) and feeds it
# to programs/lockbench/parse.
{ echo "2026-12-05 01:00:00 lockbench -l tas,ticket -t 2 -o /tmp/x"; cat "$FIX/run-k0.json"; } \
	>"$T/lkp.log"
"$LKP/programs/lockbench/parse" <"$T/lkp.log" >"$T/lkp-k0.txt" 2>"$T/err" ||
	bad "lkp parse: exit $?: $(cat "$T/err")"
same "$G/lkp-k0.txt" "$T/lkp-k0.txt" "lkp parse: stats of the tas/ticket run"
"$LKP/programs/lockbench/parse" <"$FIX/run-busted.json" >"$T/lkp-busted.txt"
same "$G/lkp-busted.txt" "$T/lkp-busted.txt" "lkp parse: a failed lock"
# A failed lock is a fail key and never a throughput.
if grep -q '^busted\.2\.fail: 1$' "$T/lkp-busted.txt" &&
   ! grep -q '^busted\.2\.ops_per_sec' "$T/lkp-busted.txt"; then ok
else bad "lkp parse: busted shows no fail key, or a throughput"; fi
# lkp's own rule: `key: value`, no blank in the key, the value a number.
if grep -Evq '^[A-Za-z0-9_.+=%-]+: -?[0-9]+(\.[0-9]+)?$' "$T/lkp-k0.txt" "$T/lkp-busted.txt"
then bad "lkp parse: a line is not 'key: number'"; else ok; fi
echo "no json here" | "$LKP/programs/lockbench/parse" >"$T/out" 2>"$T/err"
if [ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ]; then ok
else bad "lkp parse: no JSON must exit 2 with one line"; fi

# ---- lkp-tests: the job file expanded into command lines --------------------

"$HERE/lkp_job_expand.py" "$LKP/jobs/lockbench.yaml" "$LKP/programs/lockbench/run" 8 \
	>"$T/jobs.txt" 2>"$T/err" || bad "job expansion: $(cat "$T/err")"
same "$G/lkp-jobs-8cpus.txt" "$T/jobs.txt" "lkp job file on 8 CPUs"
for n in 100% 50% 1 3%; do
	nr_threads=$n nr_cpu=48 LOCKBENCH_DRY_RUN=1 "$LKP/programs/lockbench/run"
done >"$T/threads.txt"
if [ "$(grep -o -- '-t [0-9]*' "$T/threads.txt" | tr '\n' ' ')" = "-t 48 -t 24 -t 1 -t 1 " ]; then ok
else bad "nr_threads 100%/50%/1/3% of 48 CPUs: $(cat "$T/threads.txt")"; fi
if nr_threads=many LOCKBENCH_DRY_RUN=1 "$LKP/programs/lockbench/run" >/dev/null 2>"$T/err"; then
	bad "nr_threads=many was accepted"
elif grep -q 'nr_threads (many)' "$T/err"; then ok
else bad "nr_threads=many: $(cat "$T/err")"; fi
# Every parameter the run script reads is declared in its header and in
# meta.yaml, as lkp-tests expects.
for p in locks nr_threads cs_ns ncs_ns runtime runs workload placement; do
	if grep -q "^# - $p\$" "$LKP/programs/lockbench/run" &&
	   grep -q "^  $p:" "$LKP/programs/lockbench/meta.yaml"; then ok
	else bad "parameter $p is not declared in run and meta.yaml"; fi
done

# The run script end to end with the real binary: its stdout parses.
nr_threads=2 locks=tas runs=2 runtime=0.2s LOCKBENCH=$LB "$LKP/programs/lockbench/run" \
	>"$T/live.log" 2>"$T/err" || bad "lkp run: exit $?: $(cat "$T/err")"
"$LKP/programs/lockbench/parse" <"$T/live.log" >"$T/live.txt"
if grep -Eq '^tas\.2\.ops_per_sec: [0-9]' "$T/live.txt"; then ok
else bad "lkp run | parse: no tas.2.ops_per_sec: $(head -c 300 "$T/live.txt")"; fi

# ---- mmtests: the extraction --------------------------------------------------

mkdir -p "$T/mm"
cp "$FIX/run-k0.json" "$T/mm/lockbench-2.json"
gzip -c "$FIX/run-busted.json" >"$T/mm/lockbench-4.json.gz"
"$MMT/shellpack_src/src/lockbench/parse-results" "$T/mm" >"$T/mm.txt" 2>"$T/mm.err" ||
	bad "mmtests parse-results: exit $?"
same "$G/mmtests-extract.txt" "$T/mm.txt" "mmtests extraction lines"
if grep -q 'busted at 2 threads: failed' "$T/mm.err" && ! grep -q '^busted' "$T/mm.txt"; then ok
else bad "mmtests extraction: busted must be reported failed, without samples"; fi
mkdir "$T/empty"
if "$MMT/shellpack_src/src/lockbench/parse-results" "$T/empty" >/dev/null 2>"$T/err"; then
	bad "mmtests extraction of an empty directory succeeded"
elif [ "$(wc -l <"$T/err")" -eq 1 ]; then ok; else bad "empty dir: $(cat "$T/err")"; fi
# The shellpack uses the directives futexbench's does, and the driver
# passes every option the bench script parses.
for o in $(grep -o 'parseargParam[[:space:]]*--[a-z-]*' \
	   "$MMT/shellpack_src/src/lockbench/lockbench-bench" | awk '{print $2}'); do
	if grep -q -- "$o" "$MMT/drivers/driver-lockbench.sh"; then ok
	else bad "driver-lockbench.sh does not pass $o"; fi
done

# ---- several hosts: merge and compare ----------------------------------------

# A second host: a copy of the run with other machine facts, twice the
# CPUs and each row at twice the threads.
python3 - "$FIX/run-k0.json" "$T/hostb.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["machine"]
m.update(hostname="epyc-2s", cpu_model="AMD EPYC 7763 64-Core Processor",
         pus=4, cores=4, packages=2, kernel="6.12.0")
d["provenance"]["host"] = "epyc-2s"
d["ncpus"] = 4
d["calibration"]["clock_read_ns"] = 24.5
d["rows"] = [2 * x for x in d["rows"]]
for p in d["points"]:
    p["threads"] *= 2
json.dump(d, open(sys.argv[2], "w"))
PY
"$LB" compare --columns host --rows cpu-share -l tas --no-marks "$FIX/run-k0.json" \
	"$T/hostb.json" >"$T/hosts-share.txt" 2>"$T/err" || bad "compare --columns host: exit $?"
same "$G/compare-hosts-share.txt" "$T/hosts-share.txt" "compare --columns host --rows cpu-share"
"$LB" compare --columns host -l tas --no-marks "$FIX/run-k0.json" "$T/hostb.json" \
	>"$T/hosts-threads.txt" 2>"$T/err" || bad "compare --columns host (threads): exit $?"
same "$G/compare-hosts-threads.txt" "$T/hosts-threads.txt" "compare --columns host, rows by threads"
"$LB" merge -o "$T/merged.json" "$FIX/run-k0.json" "$T/hostb.json" 2>/dev/null ||
	bad "merge of two hosts: exit $?"
python3 - "$T/merged.json" <<'PY' && ok || bad "merge lost a host's machine facts"
import json, sys
files = json.load(open(sys.argv[1]))["config"]["files"]
hosts = [f["machine"]["hostname"] for f in files]
assert hosts[1] == "epyc-2s" and hosts[0] != hosts[1], hosts
assert files[1]["machine"]["packages"] == 2
PY
"$LB" compare --columns colour "$FIX/run-k0.json" "$T/hostb.json" >"$T/out" 2>"$T/err"
if [ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'valid: label, host' "$T/err"; then ok
else bad "--columns colour: $(cat "$T/err")"; fi
python3 -c '
import json, sys
d = json.load(open(sys.argv[1])); del d["machine"]["hostname"]; d["provenance"]["host"] = ""
json.dump(d, open(sys.argv[2], "w"))' "$FIX/run-k0.json" "$T/nohost.json"
"$LB" compare --columns host "$T/nohost.json" "$T/hostb.json" >"$T/out" 2>"$T/err"
if [ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ]; then ok
else bad "--columns host of a file with no host: $(cat "$T/err")"; fi

echo "e2e_fleet: $pass passed, $fails failed"
[ $fails -eq 0 ]
