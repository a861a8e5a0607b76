#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run lockbench through lkp-tests and mmtests exactly as a fleet does,
# with the engines' own commands (docs/fleet.md):
#
#   scripts/check-engines.sh LKP_DIR MMTESTS_DIR
#
# LKP_DIR and MMTESTS_DIR are clean checkouts of intel/lkp-tests and
# gormanm/mmtests; each is copied under a work directory and set up with
# scripts/lkp-tests/setup and scripts/mmtests/setup; the checkouts are
# never written.  lockbench is built by the engines' own installers from
# LOCKBENCH_SRC (default: this checkout's HEAD), offline.
#
# The engines run as root and install packages, write /lkp, /var/lib/dpkg
# and /sys/kernel/mm/transparent_hugepage: every engine command runs in
# a sandbox, a chroot on an overlay of / (its writes land in the work
# directory) in private mount and pid namespaces, with /sys and
# /proc/sys read-only but for a copy of the THP directory.  lockbench
# runs with --no-tune (tune: "no" in the lkp job, LOCKBENCH_EXTRA_OPTS in
# the mmtests configuration): nothing of the machine is changed.
#
# One line per step: "PASS: step" or "FAIL: step: the engine's own
# error"; the exit status is 1 when a step failed, 2 on a usage error.
# Logs stay in the work directory (printed at the end).  Needs root,
# unshare and overlayfs, ruby and the gems lkp loads (Debian: ruby-git
# ruby-activesupport ruby-tty-command ruby-gnuplot ruby-term-ansicolor
# ruby-colorize), perl's File::Which, YAML::PP and File::Slurp for
# mmtests' reports.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
usage() { echo "check-engines: $*; usage: scripts/check-engines.sh LKP_DIR MMTESTS_DIR" >&2; exit 2; }
[ $# -eq 2 ] || usage "two checkouts needed"
[ -f "$1/lib/install.sh" ] || usage "$1: not an lkp-tests checkout"
[ -x "$2/run-mmtests.sh" ] || usage "$2: not an mmtests checkout"
[ "$(id -u)" = 0 ] || usage "needs root (lkp install, the sandbox)"
LKP_IN=$(realpath "$1") MM_IN=$(realpath "$2")
export LOCKBENCH_SRC=${LOCKBENCH_SRC:-$TOP}
W=$(mktemp -d /tmp/check-engines.XXXXXX) || exit 2
L=$W/lkp M=$W/mmtests LOGS=$W/logs
mkdir -p "$LOGS"
nfail=0 n=0

# ---- reporting --------------------------------------------------------

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: ${2:-see $LOGS}"; nfail=$((nfail + 1)); }
# err LOG: the engine's own error, the last lines that look like one.
err()
{
	grep -aE -i 'error|fail|cannot|could not|unknow|not found|die|no such|refus|exit' "$1" |
		grep -av '^+' | tail -3 | tr '\n' ' ' | cut -c1-400
}
# step NAME CMD...: run CMD (output to a log); PASS or FAIL with its
# error: the lines CMD gave with why(), else the log's last error lines.
step()
{
	local name=$1 log msg
	shift
	n=$((n + 1))
	log=$LOGS/$(printf '%02d' $n)-$(echo "$name" | tr -c 'A-Za-z0-9\n' '_' | cut -c1-50).log
	LAST_LOG=$log
	if "$@" >"$log" 2>&1; then pass "$name"; return 0; fi
	msg=$(grep -a '^why: ' "$log" | cut -c6- | tr '\n' ' ')
	fail "$name" "${msg:-$(err "$log")} (log: $log)"
	return 1
}
# why TEXT: the reason a step gives for its FAIL line.
why() { echo "why: $*" >&2; }
# want WHAT CONDITION...: a check inside a step; its message on failure.
want() { local what=$1; shift; "$@" || { echo "error: $what" >&2; return 1; }; }

# ---- the sandbox --------------------------------------------------------

# sb CMD...: CMD as root in a chroot on an overlay of / whose writes go to
# $W/ov/up; $W is bound in at its own path (shared with this script).
sb()
{
	mkdir -p "$W/ov/up" "$W/ov/work" "$W/ov/root"
	unshare -m -p --fork --kill-child --propagation private \
		bash "$HERE/check-engines-sandbox.sh" "$W" "$@"
}

# ---- lkp-tests ------------------------------------------------------------

same_tree() { diff -r --no-dereference "$1" "$2" >/dev/null; }

lkp_setup_twice()
{
	cp -a "$LKP_IN" "$L" && "$TOP/scripts/lkp-tests/setup" "$L" || return
	cp -a "$L" "$W/lkp.once" && "$TOP/scripts/lkp-tests/setup" "$L" || return
	want "a second setup changed the checkout" same_tree "$L" "$W/lkp.once"
	rm -rf "$W/lkp.once"
}

lkp() { sb env LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && exec bin/lkp "$@"' lkp "$@"; }

# The job files: the smoke job as shipped, and the same with the busted
# lock (admitted with include_broken), split by lkp's own split-job.
lkp_split()
{
	sed -e 's/^  locks: .*/  locks: busted/' -e 's/^  nr_threads: .*/  nr_threads: 2/' -e 's/^  tune:/  include_broken: 1\n  tune:/' \
		"$L/jobs/lockbench-smoke.yaml" >"$L/jobs/lockbench-busted-check.yaml"
	mkdir -p "$L/split" && lkp split-job -o "$L/split" jobs/lockbench-smoke.yaml \
		jobs/lockbench-busted-check.yaml || return
	JOB=$(ls "$L"/split/lockbench-smoke-*.yaml) && BJOB=$(ls "$L"/split/lockbench-busted-check-*.yaml) ||
		{ echo "error: split-job made no job file" >&2; return 1; }
}

lkp_install_job()
{
	lkp install --skip-base "$JOB" || return
	want "no /lkp/benchmarks/lockbench/lockbench after lkp install" \
		test -x "$W/ov/up/lkp/benchmarks/lockbench/lockbench" &&
	want "lkp install did not build lockbench with makepkg" grep -q '^==> Finished making: lockbench' "$LAST_LOG"
}

# lkp_run KERNEL JOB [ENV...]: one `lkp run`; echo its result root.
lkp_run()
{
	local k=$1 job=$2
	shift 2
	rm -f "$L/result"
	sb env "$@" LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && bin/lkp run -s "commit: $0" "$1"' "$k" "$job" >&2 ||
		{ echo "error: lkp run exited $?" >&2; return 1; }
	RT=$(readlink "$L/result") && [ -n "$RT" ] || { echo "error: no result root" >&2; return 1; }
	echo "result root: $RT" >&2
}

# stat RT KEY: the value of KEY in RT's stats.json (via the overlay).
stat_of() { ruby -rjson -e 'v = JSON.parse(File.read(ARGV[0]))[ARGV[1]]; puts(v.nil? ? "" : v)' "$W/ov/up$1/stats.json" "$2" 2>/dev/null; }

lkp_three_runs()
{
	local i v
	for i in 1 2 3; do
		lkp_run "$1" "$JOB" || return
		v=$(stat_of "$RT" lockbench.tas.1.ops_per_sec)
		want "run $i: no lockbench.tas.1.ops_per_sec in $RT/stats.json" test -n "$v" || return
		want "run $i: a failure stat" test -z "$(stat_of "$RT" lockbench.run.fail)$(stat_of "$RT" lockbench.tas.1.fail)" || return
		echo "run $i: lockbench.tas.1.ops_per_sec $v"
	done
	eval "RT_$1=\$(dirname \"\$RT\")"
}

# lkp's compare of the two kernels, one lockbench KPI at a time.
lkp_compare()
{
	local f
	for f in lockbench.tas.1.ops_per_sec lockbench.ticket.1.ops_per_sec; do
		sb env LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && sbin/compare -c never --no-hide-noises -f "$0" "$1" "$2"' \
			"$f" "$RT_k0" "$RT_k1" >"$W/compare.out" 2>&1
		cat "$W/compare.out"
		want "sbin/compare -f $f lists no $f" grep -q "GEO-MEAN $f" "$W/compare.out" || return
	done
}

# lkp's own verdicts (lib/stats.rb): the changed stats of k0 against k1
# (an A/A pair: none), the KPIs' direction, and the busted lock's fail
# key as a failure stat.
LKP_RB='require ENV["LKP_SRC"] + "/lib/stats"
ch = get_changed_stats(ARGV[0] + "/matrix.json", ARGV[1] + "/matrix.json", {}) || {}
puts "changed stats k0 -> k1: #{ch.size} #{ch.keys.join(" ")}"
ok = ch.empty?
$stderr.puts "why: lkp get_changed_stats of an A/A pair (one machine, k0 then k1) found #{ch.size} changed: #{ch.keys.join(" ")} (load average #{File.read("/proc/loadavg").split[0, 3].join(" ")} on #{`nproc`.strip} CPUs)" unless ok
{ "lockbench.tas.1.ops_per_sec" => ["improvement", "regression"],
  "lockbench.tas.1.latency_p99_ns" => ["regression", "improvement"] }.each do |k, (up, down)|
  d = [kpi_stat_direction(k, 5), kpi_stat_direction(k, -5)]
  puts "#{k}: +5% #{d[0]}, -5% #{d[1]}"
  $stderr.puts "why: #{k}: lkp direction #{d.inspect}, not #{[up, down].inspect}" unless d == [up, down]
  ok &&= d == [up, down]
end
puts "perf metric lockbench.tas.1.ops_per_sec: #{perf_metric?("lockbench.tas.1.ops_per_sec")}"
puts "failure stat lockbench.busted.2.fail: #{failure_stat?("lockbench.busted.2.fail")}"
fs = %w[lockbench.busted.2.fail lockbench.run.fail].reject { |k| failure_stat?(k) }
$stderr.puts "why: not failure stats for lkp: #{fs.join(" ")}" unless fs.empty?
ok &&= fs.empty?
exit(ok ? 0 : 1)'

lkp_verdicts()
{
	sb env LKP_SRC="$L" ruby -W0 -e "$LKP_RB" "$RT_k0" "$RT_k1" ||
		{ echo "error: a changed stat in an A/A pair, a wrong direction, or a fail key not a failure" >&2; return 1; }
}

# lkp_failed_run WHAT JOB [ENV...]: lkp run must end with lockbench's
# failure in the stats (a fail key, or lkp's exit_code record).
lkp_failed_run()
{
	local what=$1 job=$2 keys
	shift 2
	lkp_run kfail "$job" "$@"
	[ -n "$RT" ] || return 1
	keys=$(ruby -rjson -e 'JSON.parse(File.read(ARGV[0])).each { |k, v| puts "#{k}: #{v}" if k =~ /\.fail$|exit_code|exit_fail/ }' \
		"$W/ov/up$RT/stats.json")
	echo "$what: $keys"
	want "$what: no fail key or exit code in $RT/stats.json" test -n "$keys" || return
	want "$what: a throughput in the stats" test -z "$(grep -l ops_per_sec "$W/ov/up$RT/stats.json")"
}

# Wrappers standing in for lockbench: one interrupted by SIGINT in the
# middle of its runs, one that exits 0 without writing anything.
make_wrappers()
{
	printf '#!/bin/sh\n/lkp/benchmarks/lockbench/lockbench "$@" -r 3 -d 2 & pid=$!\nsleep 2.5; kill -TERM $pid; wait $pid\n' \
		>"$W/lb-interrupted"
	printf '#!/bin/sh\nexit 0\n' >"$W/lb-silent"
	chmod +x "$W/lb-interrupted" "$W/lb-silent"
}

# lkp_inject PARAM: lkp run of the smoke job with lockbench's PARAM (in
# the lockbench map) set to 'x[$(touch FILE)]'; FILE must not appear and
# lkp must record the refused job as a failure.
lkp_inject()
{
	local pwn=$W/PWN-$1
	rm -f "$pwn" "$L/result"
	sb env LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && bin/lkp run -s "commit: kinject" -s "$0" "$1"' \
		"lockbench: {locks: tas, runs: 2, tune: 'no', $1: 'x[\$(touch $pwn)]'}" "$JOB"
	echo "lkp run exit: $?"
	want "an injected command ran ($pwn exists)" test ! -e "$pwn" || return
	want "lkp recorded no failure of the refused job" \
		grep -rqs 'exit_code.2: 1' "$W/ov/up$(readlink "$L/result")/last_state"
}

# lkp_inject_top: lkp run with a top-level nr_threads (lkp's key, which
# lockbench's jobs do not use) whose injected command appends the
# command line of the shell that ran it to FILE, to name lkp's code that
# evaluated the value: lib/job.rb's expand_shell_var (`eval echo` of each
# top-level value on a local run) or filters/nr_threads (bash arithmetic).
lkp_inject_top()
{
	local pwn=$W/PWN-top who=
	rm -f "$pwn" "$L/result"
	sb env LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && bin/lkp run -s "commit: kinject" -s "$0" "$1"' \
		"nr_threads: x[\$(tr '\\0' ' ' </proc/\$\$/cmdline >>$pwn; echo >>$pwn)]%" "$JOB"
	echo "lkp run exit: $?"
	if [ ! -e "$pwn" ]; then
		want "lkp recorded no failure of the refused job" \
			grep -rqs 'exit_code.2: 1' "$W/ov/up$(readlink "$L/result")/last_state"
		return
	fi
	echo "the injected command ran, in:" && cat "$pwn"
	grep -q 'eval echo' "$pwn" &&
		who="lkp's lib/job.rb expand_shell_var (\`eval echo\` of each top-level job value on a local run)"
	grep -q 'filters/nr_threads' "$pwn" && who="${who:+$who and }lkp's filters/nr_threads (bash arithmetic)"
	why "the injected command ran in ${who:-$(head -1 "$pwn")}, before lockbench's run script started;" \
		"lockbench's jobs keep nr_threads inside the lockbench map, which lkp neither shell-expands nor filters"
	return 1
}

# The run script itself, dry run or not, with nr_threads and nr_cpu.
lkp_inject_script()
{
	local pwn=$W/PWN-script
	(cd "$L" && LOCKBENCH_DRY_RUN=1 nr_threads="x[\$(touch $pwn)]%" programs/lockbench/run;
	 LOCKBENCH_DRY_RUN=1 nr_cpu="x[\$(touch $pwn)]" nr_threads=50% programs/lockbench/run;
	 LOCKBENCH=/bin/true nr_threads="x[\$(touch $pwn)]%" programs/lockbench/run)
	want "an injected command ran ($pwn exists)" test ! -e "$pwn"
}

# Bad parameters and documents: one clear line each, no traceback.
lkp_bad_input()
{
	local p=$L/programs/lockbench out
	out=$(LOCKBENCH_DRY_RUN=1 locks=, "$p/run" 2>&1)
	echo "locks=,: $out"
	want "locks=, gave no one-line error" test "$(echo "$out" | wc -l)" = 1 -a -n "${out##*division*}" || return
	for doc in '{"points":[{"variant":"tas","threads":null,"status":"ok"}]}' '{"points":[3]}' \
		'{"points":[], "incomplete": true}' ''; do
		out=$(printf '%s\n' "$doc" | "$p/parse" 2>&1)
		echo "parse of '$doc': $(echo "$out" | tr '\n' '|')"
		want "parse of '$doc': not one line and run.fail" \
			test "$(echo "$out" | grep -c Traceback)" = 0 -a "$(echo "$out" | grep -c '^run.fail: 1$')" = 1 || return
	done
}

# lkp's base: the packages of its distro/depends/lkp and lkp-dev (on
# x86_64 with i386 ones: lkp's distro/debian runs dpkg --add-architecture
# i386 and apt-get update itself).  A FAIL line carries apt's own errors:
# the index it could not fetch, the packages it could not install.
lkp_base()
{
	local apt
	lkp install && return
	apt=$(grep -aE '^E: |^ [^ ]+ : (Pre-?Depends|Depends|Breaks|Conflicts): ' "$LAST_LOG" |
		grep -av '^E: Some index files failed' | sed 's/^ *//' | tr '\n' ' ' | tr -s ' ' | cut -c1-900)
	why "lkp's base install failed${apt:+; apt: $apt}"
	return 1
}

# ---- mmtests --------------------------------------------------------------

mm_setup_twice()
{
	cp -a "$MM_IN" "$M" && "$TOP/scripts/mmtests/setup" "$M" || return
	cp -a "$M" "$W/mm.once" && "$TOP/scripts/mmtests/setup" "$M" || return
	want "a second setup changed the checkout" same_tree "$M" "$W/mm.once"
	rm -rf "$W/mm.once"
}

# mm_config NAME LOCKS EXTRA: a short copy of the spinlocks configuration.
mm_config()
{
	sed -e "s/^export LOCKBENCH_LOCKS=.*/export LOCKBENCH_LOCKS=$2/" \
	    -e 's/^export LOCKBENCH_MIN_THREADS=.*/export LOCKBENCH_MIN_THREADS=2/' \
	    -e 's/^export LOCKBENCH_MAX_THREADS=.*/export LOCKBENCH_MAX_THREADS=2/' \
	    -e 's/^export LOCKBENCH_DURATION=.*/export LOCKBENCH_DURATION=0.05/' \
	    -e 's/^export LOCKBENCH_ITERATIONS=.*/export LOCKBENCH_ITERATIONS=3/' \
	    -e 's/^export LOCKBENCH_WARMUP=.*/export LOCKBENCH_WARMUP=0.05/' \
	    -e "s/^export LOCKBENCH_EXTRA_OPTS=.*/export LOCKBENCH_EXTRA_OPTS=\"$3\"/" \
	    -e 's/^export RUN_MONITOR=.*/export RUN_MONITOR=no/' \
	    "$M/configs/config-workload-lockbench-spinlocks" >"$M/configs/config-check-$1"
}

# mm_run CONFIG KERNEL [ENV...]: run-mmtests.sh in the sandbox, packages
# taken as installed (mmtests' ASSUME_PACKAGE_INSTALLED).
mm_run()
{
	local c=$1 k=$2
	shift 2
	sb env ASSUME_PACKAGE_INSTALLED=yes "$@" bash -c 'cd "$0" && ./run-mmtests.sh -n -c "configs/config-check-$1" "$2"' \
		"$M" "$c" "$k" </dev/null
}

mm_json() { find "$M/work/log/$1" -name 'lockbench-2.json' 2>/dev/null | grep -q .; }

mm_first()
{
	mm_run ok k0 LOCKBENCH_SRC="$LOCKBENCH_SRC" || return
	want "no cached work/sources/lockbench-main.tar.gz" test -s "$M/work/sources/lockbench-main.tar.gz" &&
	want "no lockbench-2.json in work/log/k0" mm_json k0
}

mm_second()
{
	rm -rf "$M/work/sources/lockbench-main-installed"
	mm_run ok k1 LOCKBENCH_SRC= || return
	want "the installer did not build from its cached tarball" grep -q 'building from the cached' "$LAST_LOG" &&
	want "no lockbench-2.json in work/log/k1" mm_json k1
}

# mm_compare BASELINE COMPARE OPERATION: compare-kernels.sh must show
# mmtests' Hmean of OPERATION (its rows are the baseline's operations).
mm_compare()
{
	sb env ASSUME_PACKAGE_INSTALLED=yes bash -c 'cd "$0/work/log" && ../../compare-kernels.sh --baseline "$1" --compare "$2"' \
		"$M" "$1" "$2" >"$W/mm-compare-$2.txt" || return
	grep -E "^(Hmean|Min|Max) " "$W/mm-compare-$2.txt"
	want "compare-kernels.sh shows no Hmean of $3" grep -Eq "^Hmean +$3 " "$W/mm-compare-$2.txt"
}

mm_failed_lock()
{
	mm_config bad tas,busted "--no-tune --include-broken"
	mm_run bad kbad
	want "no lockbench-2.failed mark" test -n "$(find "$M/work/log/kbad" -name lockbench-2.failed)" &&
	mm_compare kbad k0 busted-FAILED-2
}

# mm_refused NAME VAR VALUE: a configuration with VAR=VALUE; the run
# must stop with lockbench's one line and write no result.
mm_refused()
{
	sed "s/^export $2=.*/export $2=\"$3\"/" "$M/configs/config-check-ok" >"$M/configs/config-check-$1"
	mm_run "$1" "k$1"
	echo "run-mmtests.sh exit: $?"
	want "no one-line refusal of $2=$3" grep -q "lockbench: $2 ($3)" "$LAST_LOG" &&
	want "a result written for $2=$3" test -z "$(find "$M/work/log/k$1" -name 'lockbench-*.json' 2>/dev/null)"
}

mm_incomplete()
{
	local d=$W/mm-incomplete
	mkdir -p "$d" && printf '{"points": [{"variant": "tas", "threads": 2, "status": "ok", "runs": [{"ops_per_sec": 5}]}], "incomplete": true}\n' >"$d/lockbench-2.json"
	"$M/shellpack_src/src/lockbench/parse-results" "$d" >"$d/out"
	local rc=$?
	cat "$d/out"
	want "parse-results of an interrupted run: exit $rc, not 1" test $rc = 1 &&
	want "parse-results of an interrupted run: no run-FAILED-2 row" grep -q "^run	FAILED	2	" "$d/out" &&
	want "parse-results of an interrupted run printed samples" test "$(grep -c . "$d/out")" = 1
}

check_mmtests()
{
	step "mmtests: scripts/mmtests/setup, twice: the same checkout" mm_setup_twice || return
	mm_config ok tas,ticket --no-tune
	step "mmtests: installer from LOCKBENCH_SRC (branch main) + run-mmtests.sh k0" mm_first || return
	step "mmtests: installer again from its cached tarball (LOCKBENCH_SRC empty) + run-mmtests.sh k1" mm_second || return
	step "mmtests: compare-kernels.sh k0 k1" mm_compare k0 k1 tas-2
	step "mmtests: a failed lock (busted): its FAILED row in compare-kernels.sh --baseline kbad" mm_failed_lock
	step "mmtests: LOCKBENCH_MAX_THREADS=abc refused" mm_refused abc LOCKBENCH_MAX_THREADS abc
	step "mmtests: LOCKBENCH_LOCKS with a space refused" mm_refused space LOCKBENCH_LOCKS "tas ticket"
	step "mmtests: parse-results of an interrupted run: FAILED, exit 1" mm_incomplete
}

check_lkp()
{
	step "lkp-tests: scripts/lkp-tests/setup, twice: the same checkout" lkp_setup_twice || return
	if ! step "lkp-tests: lkp install (lkp's base: its packages, hosts/\$HOSTNAME)" lkp_base; then
		echo "note: continuing with lkp's own create_host_config and bin/event/wakeup"
		sb env LKP_SRC="$L" bash -c '. "$LKP_SRC/lib/host.sh" && create_host_config &&
			make -C "$LKP_SRC/bin/event" wakeup' >>"$LAST_LOG" 2>&1
	fi
	step "lkp-tests: lkp split-job jobs/lockbench-smoke.yaml" lkp_split || return
	step "lkp-tests: lkp install --skip-base $(basename "$JOB") (makepkg from the local tarball)" \
		lkp_install_job || return
	step "lkp-tests: lkp run, kernel k0, 3 runs" lkp_three_runs k0 || return
	step "lkp-tests: lkp run, kernel k1, 3 runs" lkp_three_runs k1 || return
	step "lkp-tests: sbin/compare -f of the KPIs, k0 vs k1" lkp_compare
	step "lkp-tests: get_changed_stats (A/A: none), KPI direction, fail keys are failures" lkp_verdicts
	step "lkp-tests: lkp run of a busted lock: a failure in the stats" \
		lkp_failed_run busted "$BJOB"
	make_wrappers
	step "lkp-tests: lkp run of an interrupted lockbench: a failure in the stats" \
		lkp_failed_run interrupted "$JOB" LOCKBENCH="$W/lb-interrupted"
	step "lkp-tests: lkp run of a lockbench that writes nothing: a failure in the stats" \
		lkp_failed_run empty "$JOB" LOCKBENCH="$W/lb-silent"
	step "lkp-tests: programs/lockbench/run with nr_threads/nr_cpu='x[\$(touch FILE)]' (and LOCKBENCH_DRY_RUN=1): refused" \
		lkp_inject_script
	step "lkp-tests: lkp run with cs_ns='x[\$(touch FILE)]': refused, nothing runs" lkp_inject cs_ns
	step "lkp-tests: lkp run with ncs_ns='x[\$(touch FILE)]': refused, nothing runs" lkp_inject ncs_ns
	step "lkp-tests: lkp run with lockbench's nr_threads='x[\$(touch FILE)]' (the jobs' thread count): refused, nothing runs" \
		lkp_inject nr_threads
	step "lkp-tests: lkp run with a top-level nr_threads='x[\$(cmd)]%' (lkp's key; lockbench's jobs do not use it): nothing runs" \
		lkp_inject_top
	step "lkp-tests: locks=, and malformed documents: one line, run.fail, no traceback" lkp_bad_input
}

check_lkp
check_mmtests
echo "check-engines: work directory $W"
exit $((nfail > 0))
