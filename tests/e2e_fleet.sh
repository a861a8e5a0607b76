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
. "$HERE/lib.sh"

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
# Only KPIs: lkp counts every lockbench.* key as a performance metric, so
# no spread, CV, run count or fairness key may be a stat.
if grep -Eq '_std:|cv_pct:|\.runs:|jain:' "$T/lkp-k0.txt"; then
	bad "lkp parse: a stat that is not a KPI: $(grep -E '_std:|cv_pct:|\.runs:|jain:' "$T/lkp-k0.txt" | head -1)"
else ok; fi
# A run that gave no usable document is the stat run.fail (lkp's failure
# pattern), with one line on stderr and exit 0 (lkp drops the stats of a
# parser that fails), never a traceback.
lkp_bad_doc() { # lkp_bad_doc WHAT DOCUMENT
	printf '%s\n' "$2" | "$LKP/programs/lockbench/parse" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = "run.fail: 1" ] &&
	   [ "$(wc -l <"$T/err")" -eq 1 ] && ! grep -q Traceback "$T/err"; then ok
	else bad "lkp parse of $1: exit $rc, out '$(cat "$T/out")', err '$(cat "$T/err")'"; fi
}
# A point whose every run the noise rule left out (summary.n 0, mean
# null as lockbench writes it, or 0): a warn key (lkp's failure
# pattern) and no throughput of 0.
for m in null 0.0; do
printf '{"points":[{"variant":"tas","threads":1,"status":"ok","summary":{"n":0,"mean":%s},"latency":{"p50_ns":21,"p99_ns":31}},{"variant":"ticket","threads":1,"status":"ok","summary":{"n":2,"mean":5.5}}]}\n' "$m" |
	"$LKP/programs/lockbench/parse" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$T/out")" = "$(printf 'tas.1.warn: 1\nticket.1.ops_per_sec: 5.50')" ] &&
   [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'tas.1: every run left out as noise' "$T/err"; then ok
else bad "lkp parse of a point with every run left out (mean $m): exit $rc, out '$(cat "$T/out")', err '$(cat "$T/err")'"; fi
done
lkp_bad_doc "no JSON" "no json here"
lkp_bad_doc "an empty output" ""
lkp_bad_doc "a null threads" '{"points":[{"variant":"tas","threads":null,"status":"ok","summary":{"mean":1}}]}'
lkp_bad_doc "a non-object point" '{"points":[3]}'
lkp_bad_doc "an empty points list" '{"points":[]}'
lkp_bad_doc "an ok point without a mean" '{"points":[{"variant":"tas","threads":2,"status":"ok"}]}'
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["incomplete"]=True; print(json.dumps(d))' \
	"$FIX/run-k0.json" >"$T/incomplete.json"
lkp_bad_doc "an interrupted run" "$(cat "$T/incomplete.json")"

# The KPI lines and the rest setup writes, in a skeleton of an lkp-tests
# checkout: every line once after two runs, the package's source a
# tarball beside the PKGBUILD with the version it names.
mkdir -p "$T/lkp/lib" "$T/lkp/programs" "$T/lkp/etc" "$T/lkp/distro/adaptation-pkg"
touch "$T/lkp/lib/install.sh" "$T/lkp/etc/linux-perf-test-cases" "$T/lkp/distro/adaptation-pkg/debian"
echo 'aim7\.jobs-per-min: 1' >"$T/lkp/etc/index-perf-all.yaml"
# The source: a tarball (lockbench-VERSION/Makefile inside), as a user
# names it with LOCKBENCH_SRC; git is not needed.
mkdir -p "$T/src/lockbench-9.9" && printf 'VERSION := 9.9\n' >"$T/src/lockbench-9.9/Makefile"
tar -C "$T/src" -czf "$T/lockbench-9.9.tar.gz" lockbench-9.9
if LOCKBENCH_SRC=$T/lockbench-9.9.tar.gz "$LKP/setup" "$T/lkp" >/dev/null 2>"$T/err" &&
   cp -a "$T/lkp" "$T/lkp1" &&
   LOCKBENCH_SRC=$T/lockbench-9.9.tar.gz "$LKP/setup" "$T/lkp" >/dev/null 2>>"$T/err"; then
	if diff -r "$T/lkp" "$T/lkp1" >/dev/null; then ok; else bad "lkp setup: a second run changed the checkout"; fi
	if grep -qx 'lockbench\\\.\.+\\\.ops_per_sec: 1' "$T/lkp/etc/index-perf-all.yaml" &&
	   grep -qx 'lockbench\\\.\.+\\\.latency_p99_ns: -1' "$T/lkp/etc/index-perf-all.yaml" &&
	   [ "$(grep -c lockbench "$T/lkp/etc/index-perf-all.yaml")" -eq 3 ] &&
	   [ "$(grep -cx lockbench "$T/lkp/etc/linux-perf-test-cases")" -eq 1 ] &&
	   [ "$(grep -cx 'lockbench::' "$T/lkp/distro/adaptation-pkg/debian")" -eq 1 ]; then ok
	else bad "lkp setup: a KPI, test case or adaptation-pkg line is missing or twice"; fi
	if [ "$(sed -n 's/^pkgver=//p' "$T/lkp/programs/lockbench/pkg/PKGBUILD")" = 9.9 ] &&
	   cmp -s "$T/lockbench-9.9.tar.gz" "$T/lkp/programs/lockbench/pkg/lockbench-9.9.tar.gz" &&
	   ! grep -q 'https\?://' "$T/lkp/programs/lockbench/pkg/PKGBUILD"; then ok
	else bad "lkp setup: no lockbench-9.9.tar.gz beside the PKGBUILD, or an address in it"; fi
else bad "lkp setup: $(cat "$T/err")"; fi
"$LKP/setup" "$T/nowhere" >/dev/null 2>"$T/err"
if [ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok; else bad "lkp setup of no checkout: $(cat "$T/err")"; fi
LOCKBENCH_SRC=$T/nowhere.tar.gz "$LKP/setup" "$T/lkp" >/dev/null 2>"$T/err"
if [ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok; else bad "lkp setup of a missing LOCKBENCH_SRC: $(cat "$T/err")"; fi
# No address the project does not own, anywhere in the fleet files.
if grep -rq 'github.com/lockbench' "$LKP" "$MMT" "$TOP/docs/fleet.md"; then
	bad "an invented lockbench address: $(grep -rl 'github.com/lockbench' "$LKP" "$MMT" "$TOP/docs/fleet.md" | head -1)"
else ok; fi

# ---- lkp-tests: the job file expanded into command lines --------------------

"$HERE/lkp_job_expand.py" "$LKP/jobs/lockbench.yaml" "$LKP/programs/lockbench/run" 8 \
	>"$T/jobs.txt" 2>"$T/err" || bad "job expansion: $(cat "$T/err")"
same "$G/lkp-jobs-8cpus.txt" "$T/jobs.txt" "lkp job file on 8 CPUs"
# The thread count is lockbench's own parameter, inside the lockbench
# map of each job: lkp shell-expands top-level values (on a local run)
# and puts a top-level nr_threads through its filters/nr_threads, both
# before the run script can check the value.
for j in lockbench lockbench-smoke; do
	if awk '/^lockbench:/ { m = 1; next } /^[^ #]/ { m = 0 }
	        /^nr_threads:/ { top = 1 } m && /^  nr_threads:/ { nested = 1 }
	        END { exit !(nested && !top) }' "$LKP/jobs/$j.yaml"; then ok
	else bad "jobs/$j.yaml: nr_threads is not inside the lockbench map, or also top-level"; fi
done
for n in 100% 50% 1 3%; do
	nr_threads=$n nr_cpu=48 LOCKBENCH_DRY_RUN=1 "$LKP/programs/lockbench/run"
done >"$T/threads.txt"
if [ "$(grep -o -- '-t [0-9]*' "$T/threads.txt" | tr '\n' ' ')" = "-t 48 -t 24 -t 1 -t 1 " ]; then ok
else bad "nr_threads 100%/50%/1/3% of 48 CPUs: $(cat "$T/threads.txt")"; fi
if nr_threads=many LOCKBENCH_DRY_RUN=1 "$LKP/programs/lockbench/run" >/dev/null 2>"$T/err"; then
	bad "nr_threads=many was accepted"
elif grep -q 'nr_threads (many)' "$T/err"; then ok
else bad "nr_threads=many: $(cat "$T/err")"; fi
# Job parameters are data: an arithmetic injection is refused with one
# line and exit 2 before anything runs, dry run or not.
for v in 'nr_threads=x[$(touch PWN)]%' 'nr_cpu=x[$(touch PWN)]' 'locks=,' 'runs=a b' 'cs_ns=1;id' \
	 'runtime=1e9' 'tune=maybe'; do
	(cd "$T" && env LOCKBENCH_DRY_RUN=1 nr_threads=50% "${v%%=*}=${v#*=}" "$LKP/programs/lockbench/run" \
		>"$T/out" 2>"$T/err")
	rc=$?
	if [ $rc -eq 2 ] && [ ! -e "$T/PWN" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && [ ! -s "$T/out" ]; then ok
	else bad "lkp run with $v: exit $rc, $(cat "$T/err")"; rm -f "$T/PWN"; fi
done
(cd "$T" && nr_threads='x[$(touch PWN)]%' LOCKBENCH=/bin/true "$LKP/programs/lockbench/run" >/dev/null 2>&1)
if [ ! -e "$T/PWN" ]; then ok; else bad "lkp run (not a dry run) ran an injected command"; rm -f "$T/PWN"; fi
# To lkp the job file is code: its job.sh double-quotes a value holding
# `$` (lib/job2sh.rb shell_escape_expand), so the command runs in job.sh
# and the run script sees only its output (cs_ns=1).  The run script
# reads the job.sh lkp wrote (tests/fixtures/fleet/lkp-job-cs_ns.sh, as
# lkp bbbc29c4 wrote it) and refuses every lockbench parameter that holds
# shell syntax there, one line naming lkp's code, before lockbench runs.
for pv in locks=tas nr_threads=1 cs_ns=1 ncs_ns=1 runs=2 warmup=0.05 workload=cs placement=cores \
	  tune=no include_broken=1; do
	p=${pv%%=*} v=${pv#*=}
	rm -rf "$T/inj" && mkdir -p "$T/inj/rr"
	sed "s/ cs_ns=\"1\\\$(touch PWN)\"/ $p=\"$v\$(touch PWN)\"/" "$FIX/lkp-job-cs_ns.sh" >"$T/inj/rr/job.sh"
	grep -q "[ \t]$p=\"$v\\\$(touch PWN)\" \$LKP_SRC/bin/run-test lockbench\$" "$T/inj/rr/job.sh" ||
		bad "injection fixture for $p: no $p=\"$v\$(touch PWN)\" line"
	for lb in dry /bin/true; do
		(cd "$T/inj" && if [ $lb = dry ]; then export LOCKBENCH_DRY_RUN=1; else export LOCKBENCH=$lb; fi
		 env RESULT_ROOT="$T/inj/rr" nr_threads=1 "$p=$v" "$LKP/programs/lockbench/run" >"$T/out" 2>"$T/err")
		rc=$?
		if [ $rc -eq 2 ] && [ ! -e "$T/inj/PWN" ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] &&
		   grep -q "^lockbench: $p: .*shell_escape_expand" "$T/err"; then ok
		else bad "lkp job.sh with $p=\"$v\$(touch PWN)\" ($lb): exit $rc, $(cat "$T/out" "$T/err")"; fi
	done
done
# The same job.sh without the payload runs; a top-level value with shell
# syntax (lkp's expand_shell_var evaluates it) is refused too.
rm -rf "$T/inj" && mkdir -p "$T/inj/rr"
sed 's/ cs_ns="1\$(touch PWN)"/ cs_ns=1/' "$FIX/lkp-job-cs_ns.sh" >"$T/inj/rr/job.sh"
if RESULT_ROOT=$T/inj/rr LOCKBENCH_DRY_RUN=1 nr_threads=1 cs_ns=1 "$LKP/programs/lockbench/run" 2>"$T/err" |
   grep -q -- '--cs-ns 1 '; then ok; else bad "lkp job.sh without a payload: $(cat "$T/err")"; fi
sed -i 's/^\texport runtime=2$/\texport runtime="2$(touch PWN)"/' "$T/inj/rr/job.sh"
(cd "$T/inj" && RESULT_ROOT=$T/inj/rr LOCKBENCH_DRY_RUN=1 nr_threads=1 runtime=2 "$LKP/programs/lockbench/run" >/dev/null 2>"$T/err")
if [ $? -eq 2 ] && grep -q '^lockbench: runtime: .*expand_shell_var' "$T/err" && [ ! -e "$T/inj/PWN" ]; then ok
else bad "lkp job.sh with a top-level runtime=\"2\$(touch PWN)\": $(cat "$T/err")"; fi

# A lockbench that exits 0 without a document, or fails, fails the run.
printf '#!/bin/sh\nexit 0\n' >"$T/silent"; printf '#!/bin/sh\necho "{}"; exit 3\n' >"$T/three"
chmod +x "$T/silent" "$T/three"
nr_threads=1 LOCKBENCH=$T/silent "$LKP/programs/lockbench/run" >/dev/null 2>&1
if [ $? -eq 1 ]; then ok; else bad "lkp run of a lockbench that writes nothing: not exit 1"; fi
nr_threads=1 LOCKBENCH=$T/three "$LKP/programs/lockbench/run" >/dev/null 2>&1
if [ $? -eq 3 ]; then ok; else bad "lkp run of a lockbench that exits 3: not exit 3"; fi

# Every parameter the run script reads is declared in its header and in
# meta.yaml, as lkp-tests expects.
for p in locks nr_threads cs_ns ncs_ns runtime runs warmup workload placement tune include_broken; do
	if grep -q "^# - $p\$" "$LKP/programs/lockbench/run" &&
	   grep -q "^  $p:" "$LKP/programs/lockbench/meta.yaml"; then ok
	else bad "parameter $p is not declared in run and meta.yaml"; fi
done

# The run script end to end with the real binary: its stdout parses.
nr_threads=2 locks=tas runs=2 runtime=0.2s LOCKBENCH=$LB "$LKP/programs/lockbench/run" \
	>"$T/live.log" 2>"$T/err" || bad "lkp run: exit $?: $(cat "$T/err")"
"$LKP/programs/lockbench/parse" <"$T/live.log" >"$T/live.txt"
# (a busy host may leave every run out: then the warn key)
if grep -Eq '^tas\.2\.(ops_per_sec: [0-9]|warn: 1$)' "$T/live.txt"; then ok
else bad "lkp run | parse: no tas.2.ops_per_sec: $(head -c 300 "$T/live.txt")"; fi

# reproduce.sh (lkp's log_echo) gets the command line as it ran: no
# temporary -o file, so running it again prints the JSON.
mkdir -p "$T/lkpsrc/lib" "$T/rr"
printf 'log_echo() { echo "$@" >>"$TMP_RESULT_ROOT/reproduce.sh"; }\n' >"$T/lkpsrc/lib/reproduce-log.sh"
LKP_SRC=$T/lkpsrc TMP_RESULT_ROOT=$T/rr nr_threads=1 locks=tas runs=1 runtime=0.1s tune=no \
	LOCKBENCH=$LB "$LKP/programs/lockbench/run" >/dev/null 2>&1
if [ "$(grep -c . "$T/rr/reproduce.sh" 2>/dev/null)" = 1 ] && ! grep -q -- ' -o ' "$T/rr/reproduce.sh" &&
   bash "$T/rr/reproduce.sh" 2>/dev/null | "$LKP/programs/lockbench/parse" 2>/dev/null | grep -Eq '^tas\.1\.(ops_per_sec|warn): '; then ok
else bad "reproduce.sh: $(cat "$T/rr/reproduce.sh" 2>&1)"; fi

# scripts/check-engines.sh needs both engines, so make test does not run
# it: its syntax (its Ruby and awk are quoted inside it), and a usage
# error is one line and exit 2, before anything is copied.
if bash -n "$TOP/scripts/check-engines.sh" 2>"$T/err" && bash -n "$TOP/scripts/check-engines-sandbox.sh" 2>>"$T/err"
then ok; else bad "check-engines: $(cat "$T/err")"; fi
"$TOP/scripts/check-engines.sh" "$T/nowhere" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok
else bad "check-engines with one argument: exit $rc, $(cat "$T/out" "$T/err")"; fi
"$TOP/scripts/check-engines.sh" --only lkpx "$T/a" "$T/b" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q 'not lkp or mmtests' "$T/err"; then ok
else bad "check-engines --only lkpx: exit $rc, $(cat "$T/out" "$T/err")"; fi

# ---- provenance: lockbench's own commit, never a git tree around it ---------

# A fleet builds lockbench from a tarball unpacked inside the engine's
# own git checkout (lkp-tests' pkg/, mmtests' work/sources/).  A copy of
# this source without .git (the objects built already, so only
# provenance.o recompiles) inside a fresh repository with a commit of
# its own: the JSON must name the commit `git archive` wrote into
# GIT-REVISION, else "unknown", never the outer repository's commit.
prov_git() { # prov_git DIR: the JSON's provenance.git of DIR's build
	make -C "$1" -s lockbench >"$T/prov-make.log" 2>&1 ||
		{ echo "make failed: $(tail -3 "$T/prov-make.log")"; return; }
	"$1/lockbench" -l tas -t 1 -r 1 --warmup 0.02 -d 0.05 -q -f json --no-tune 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["provenance"]["git"])'
}
if [ -x "$TOP/lockbench" ] && [ -d "$TOP/build/release" ]; then
	git init -q "$T/outer" &&
		git -C "$T/outer" -c user.name=t -c user.email=t@t commit -q --allow-empty -m outer
	outer=$(git -C "$T/outer" rev-parse HEAD)
	mkdir -p "$T/outer/lockbench/build"
	tar -C "$TOP" -cf - --exclude=./.git --exclude=./build --exclude=./tests/out . |
		tar -C "$T/outer/lockbench" -xf -
	cp -a "$TOP/build/release" "$T/outer/lockbench/build/"
	rev=0123456789abcdef0123456789abcdef01234567
	if git -C "$TOP" rev-parse --show-toplevel >/dev/null 2>&1; then
		# export-subst: an archive of a commit carries that commit.
		rev=$(git -C "$TOP" archive HEAD GIT-REVISION | tar -xOf - GIT-REVISION)
		if [ "$rev" = "$(git -C "$TOP" rev-parse HEAD)" ]; then ok
		else bad "git archive: GIT-REVISION holds '$rev', not HEAD (.gitattributes export-subst)"; fi
	fi
	echo "$rev" >"$T/outer/lockbench/GIT-REVISION"
	got=$(prov_git "$T/outer/lockbench")
	if [ "$got" = "${rev:0:12}" ]; then ok
	else bad "built inside another git repository ($outer): provenance.git '$got', not ${rev:0:12}"; fi
	printf '$%s$\n' 'Format:%H' >"$T/outer/lockbench/GIT-REVISION"
	got=$(prov_git "$T/outer/lockbench")
	if [ "$got" = unknown ]; then ok
	else bad "built inside another git repository, no revision: provenance.git '$got', not unknown"; fi
	# lkp's setup archives a lockbench checkout: never the repository around it.
	LOCKBENCH_SRC=$T/outer/lockbench "$LKP/setup" "$T/lkp" >/dev/null 2>"$T/err"
	if [ $? -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok
	else bad "lkp setup of a lockbench copy inside another repository: $(cat "$T/err")"; fi
else bad "provenance: $TOP/lockbench and build/release not built"; fi

# The document's command blocks, which check-engines runs as written:
# offline-safe (the gems and perl modules from Debian packages, the
# i386 lines of lkp's base dropped, lkp's own host config from its base
# install, no prompt from mmtests), and every lockbench file they name
# exists.
"$TOP/scripts/check-engines.sh" --walkthrough lkp >"$T/walk-lkp" 2>"$T/err" &&
"$TOP/scripts/check-engines.sh" --walkthrough mmtests >"$T/walk-mm" 2>>"$T/err" || bad "check-engines --walkthrough: $(cat "$T/err")"
for w in 'apt-get install -y ruby .*ruby-tty-command' "sed -i '/:i386 /d' distro/depends/lkp-dev" '^id lkp \|\| useradd' '^lkp install$' \
	 '^mkdir split && lkp split-job -o split jobs/lockbench-smoke.yaml$' "lkp run -s 'commit: k0'"; do
	if grep -Eq -- "$w" "$T/walk-lkp"; then ok; else bad "docs/fleet.md lkp walkthrough: no line matching $w"; fi
done
for w in 'apt-get install -y libfile-which-perl libyaml-pp-perl libfile-slurp-perl gawk binutils-dev' \
	 '^export AUTO_PACKAGE_INSTALL=yes$' 'LOCKBENCH_VERSION=HEAD ./run-mmtests.sh -c configs/config-workload-lockbench-spinlocks' \
	 'compare-kernels.sh --baseline'; do
	if grep -Eq -- "$w" "$T/walk-mm"; then ok; else bad "docs/fleet.md mmtests walkthrough: no line matching $w"; fi
done
for f in $(grep -oh 'scripts/[a-z-]*/setup\|configs/config-workload-lockbench-[a-z]*\|jobs/lockbench[a-z-]*\.yaml' "$T/walk-lkp" "$T/walk-mm" | sort -u); do
	case $f in
	configs/*) g=$MMT/$f ;; jobs/*) g=$LKP/$f ;; *) g=$TOP/$f ;;
	esac
	if [ -e "$g" ]; then ok; else bad "docs/fleet.md walkthrough names $f: no $g"; fi
done
"$TOP/scripts/check-engines.sh" --walkthrough nothing >"$T/out" 2>"$T/err"
if [ $? -eq 2 ] && [ ! -s "$T/out" ] && [ "$(wc -l <"$T/err")" -eq 1 ]; then ok
else bad "check-engines --walkthrough of no block: $(cat "$T/out" "$T/err")"; fi

# ---- mmtests: the extraction --------------------------------------------------

mkdir -p "$T/mm"
cp "$FIX/run-k0.json" "$T/mm/lockbench-2.json"
gzip -c "$FIX/run-busted.json" >"$T/mm/lockbench-4.json.gz"
"$MMT/shellpack_src/src/lockbench/parse-results" "$T/mm" >"$T/mm.txt" 2>"$T/mm.err"
[ $? -eq 1 ] || bad "mmtests parse-results with a failed lock: not exit 1"
same "$G/mmtests-extract.txt" "$T/mm.txt" "mmtests extraction lines"
if grep -q 'busted at 2 threads: failed' "$T/mm.err" &&
   [ "$(grep '^busted' "$T/mm.txt")" = "$(printf 'busted\tFAILED\t2\t1\t2\t_')" ]; then ok
else bad "mmtests extraction: busted must be one FAILED row (2), without samples"; fi
# A run lockbench left out as noisy is no sample for mmtests' statistics.
mkdir -p "$T/mmx"
python3 - "$FIX/run-k0.json" "$T/mmx/lockbench-2.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["points"][0]["runs"][0]["excluded"] = True
json.dump(d, open(sys.argv[2], "w"))
PY
"$MMT/shellpack_src/src/lockbench/parse-results" "$T/mmx" >"$T/mmx.txt" 2>/dev/null
read -r op th nr < <(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; print(p["variant"], p["threads"], len(p["runs"]))' "$FIX/run-k0.json")
n1=$(awk -F'\t' -v l="$op" -v t="$th" '$1 == l && $2 == "_" && $3 == t' "$T/mmx.txt" | wc -l)
[ "$nr" -ge 2 ] && [ "$n1" -eq $((nr - 1)) ] && ok || bad "mmtests extraction: a run left out as noisy gave a sample ($nr runs, $n1 samples)"
# compare-kernels.sh's rows are the baseline's operations: a failure
# shows whichever kernel is the baseline only when every kernel's
# results have the FAILED rows (1: completed, 2: failed).  The good run
# and the same run with ticket failed and with thread count 2
# interrupted give the same operations, FAILED rows told apart by value.
mm_ops() { "$MMT/shellpack_src/src/lockbench/parse-results" "$1" 2>/dev/null | awk -F'\t' '$2 == "FAILED" { print $1 "-FAILED-" $3 "=" $5 }' | sort | tr '\n' ' '; }
for k in good bad int; do mkdir -p "$T/mmk/$k"; cp "$FIX/run-k0.json" "$T/mmk/$k/lockbench-2.json"; done
python3 - "$T/mmk" <<'PY'
import json, sys
for k, how in (("bad", "failed"), ("int", "incomplete")):
    f = f"{sys.argv[1]}/{k}/lockbench-2.json"
    d = json.load(open(f))
    if how == "failed":
        d["points"] = [dict(p, status="failed") if p["variant"] == "ticket" else p for p in d["points"]]
    else:
        d["incomplete"] = True
    json.dump(d, open(f, "w"))
PY
good=$(mm_ops "$T/mmk/good") bad=$(mm_ops "$T/mmk/bad") int=$(mm_ops "$T/mmk/int")
if [ "$good" = "run-FAILED-2=1 tas-FAILED-1=1 tas-FAILED-2=1 ticket-FAILED-1=1 ticket-FAILED-2=1 " ] &&
   [ "$bad" = "run-FAILED-2=1 tas-FAILED-1=1 tas-FAILED-2=1 ticket-FAILED-1=2 ticket-FAILED-2=2 " ] &&
   [ "$int" = "run-FAILED-2=2 " ]; then ok
else bad "mmtests FAILED rows: good '$good', ticket failed '$bad', interrupted '$int'"; fi
# A run that gave no usable document is a run-FAILED row and exit 1.
mm_bad() { # mm_bad WHAT FILE CONTENT
	rm -rf "$T/mmb" && mkdir "$T/mmb" && printf '%s\n' "$3" >"$T/mmb/$2"
	"$MMT/shellpack_src/src/lockbench/parse-results" "$T/mmb" >"$T/out" 2>"$T/err"
	local rc=$?
	if [ $rc -eq 1 ] && [ "$(cat "$T/out")" = "$(printf 'run\tFAILED\t4\t1\t2\t_')" ] &&
	   [ "$(wc -l <"$T/err")" -eq 1 ] && ! grep -q Traceback "$T/err"; then ok
	else bad "mmtests parse-results of $1: exit $rc, out '$(cat "$T/out")', err '$(cat "$T/err")'"; fi
}
mm_bad "an interrupted run" lockbench-4.json "$(cat "$T/incomplete.json")"
mm_bad "a failed mark without JSON" lockbench-4.failed "exit 1"
mm_bad "an empty JSON file" lockbench-4.json ""
mm_bad "a non-object point" lockbench-4.json '{"points":[3]}'
mm_bad "a null threads" lockbench-4.json '{"points":[{"variant":"tas","threads":null,"status":"ok"}]}'
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

# ---- mmtests: the bench script ------------------------------------------------

# The bench with mmtests' directives as plain shell (what mmtests'
# shellpack generator makes of them, reduced to one thread count and
# mmtests' die/warn): the configuration from $MB/args, lockbench from
# LOCKBENCH_BINARY, its files in $MB/logs.
MB=$T/mmbench
mkdir -p "$MB/logs"
cat >"$MB/stubs" <<'SH'
SHELLPACK_SUCCESS=0
die() { echo "FATAL: $*"; exit 255; }
warn() { echo "WARNING: $*"; }
mmtests_activity() { :; }
monitor_pre_hook() { :; }
monitor_post_hook() { :; }
SH
sed -e 's|^###SHELLPACK preamble .*|. "$MB/stubs"|' -e 's|^###SHELLPACK parseargEnd|. "$MB/args"|' \
    -e 's|^###SHELLPACK threads_large_stride_begin \(.*\)|for NR_THREADS in `seq \1`; do|' \
    -e 's|^###SHELLPACK threads_stride_end|done|' -e '/^###SHELLPACK/d' \
    "$MMT/shellpack_src/src/lockbench/lockbench-bench" >"$MB/bench"
printf '%s\n' LOCKBENCH_LOCKS=tas,ticket LOCKBENCH_MIN_THREADS=2 LOCKBENCH_MAX_THREADS=2 \
	LOCKBENCH_DURATION=0.05 LOCKBENCH_ITERATIONS=2 LOCKBENCH_EXTRA_OPTS=--no-tune >"$MB/args"
# SIGINT as at a terminal: a background job of this shell ignores it,
# and bash cannot trap a signal ignored at its start.
SIGINT_DFL='import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])'
# A lockbench that exits 1 with a reason on stderr (a point hung): the
# bench shows the reason in its output (mmtests.log), not the status
# alone, marks the thread count failed and fails.
cat >"$MB/lb-hung" <<'SH'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = -o ] && cp "$LB_DOC" "$2"; shift; done
echo "lockbench: tas at 2 threads: workers did not stop within 10.0 s of the end of the window (deadlock?)" >&2
exit 1
SH
chmod +x "$MB/lb-hung"
LB_DOC=$FIX/run-k0.json MB=$MB LOGDIR_RESULTS=$MB/logs LOCKBENCH_BINARY=$MB/lb-hung \
	bash "$MB/bench" >"$MB/out" 2>&1
rc=$?
if [ $rc -ne 0 ] && [ -e "$MB/logs/lockbench-2.failed" ] &&
   grep -q '^WARNING: lockbench: a point failed at 2 threads (exit 1): lockbench: tas at 2 threads: workers did not stop' "$MB/out"; then ok
else bad "mmtests bench, lockbench exit 1: exit $rc, reason not shown: $(tr '\n' '|' <"$MB/out")"; fi
# The same bench with the real lockbench, SIGINT (^C) to the bench
# while lockbench runs: lockbench is stopped (the JSON incomplete), the
# thread count is marked interrupted and the bench fails.
rm -f "$MB/logs"/*
sed -i 's/^LOCKBENCH_DURATION=.*/LOCKBENCH_DURATION=20/' "$MB/args"
MB=$MB LOGDIR_RESULTS=$MB/logs LOCKBENCH_BINARY=$LB python3 -c "$SIGINT_DFL" bash "$MB/bench" >"$MB/out" 2>&1 &
bpid=$!
for i in $(seq 1 400); do pgrep -P $bpid -x lockbench >/dev/null && break; sleep 0.05; done
sleep 1
kill -INT $bpid
wait $bpid
rc=$?
if [ $rc -ne 0 ] && grep -qs '^interrupted' "$MB/logs/lockbench-2.failed" &&
   python3 -c 'import json, sys; sys.exit(not json.load(open(sys.argv[1]))["incomplete"])' "$MB/logs/lockbench-2.json"; then ok
else bad "mmtests bench, SIGINT: exit $rc, $(cat "$MB/logs/lockbench-2.failed" 2>&1), $(tr '\n' '|' <"$MB/out")"; fi

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

e2e_done
