#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run lockbench through lkp-tests and mmtests exactly as a fleet does,
# with the engines' own commands (docs/fleet.md):
#
#   scripts/check-engines.sh [--only lkp|mmtests] LKP_DIR MMTESTS_DIR
#
# LKP_DIR and MMTESTS_DIR are clean checkouts of intel/lkp-tests and
# gormanm/mmtests; each is copied under a work directory; the checkouts
# are never written.  First the command blocks of docs/fleet.md marked
# `<!-- walkthrough: lkp -->` and `<!-- walkthrough: mmtests -->` run as
# written, line by line in one shell, from LOCKBENCH_SRC (default: this
# checkout), with LKP_SRC the lkp copy and HOME a directory holding the
# mmtests copy as ~/mmtests; stdin is /dev/null, so a prompt fails its
# line.  Then the checks a fleet cannot see in one run: a second kernel,
# a measured slowdown (lockbench with a 20 us critical section) and its
# direction in both engines, a failed lock, a lockbench signalled in the
# middle of its runs, one that writes nothing, the JSON's commit, and a
# `$(...)` injection in each lockbench job parameter.
#
# The engines run as root and install packages, write /lkp,
# /var/lib/dpkg and /sys/kernel/mm/transparent_hugepage: every engine
# command runs in a sandbox, a chroot on an overlay of / (its writes land
# in the work directory) in private mount and pid namespaces, with /sys
# and /proc/sys read-only but for a copy of the THP directory.
#
# One line per step: "PASS: step", "FAIL: step: the error" (lockbench's
# or the document's), or "ENGINE: step: ..." for a failure that is the
# engine's own, quoting the engine's code; the exit status is 1 when a
# step FAILed, 2 on a usage error.  Logs stay in the work directory
# (printed at the end).  Needs root, unshare and overlayfs, and what the
# document's first lines install (ruby and the gems lkp loads, the perl
# modules of mmtests' reports).
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
DOC=$TOP/docs/fleet.md
usage() { echo "check-engines: $*; usage: scripts/check-engines.sh [--only lkp|mmtests] LKP_DIR MMTESTS_DIR" >&2; exit 2; }

# doc_block NAME: the lines of the ```sh block after the marker
# `<!-- walkthrough: NAME -->` in docs/fleet.md.
doc_block()
{
	awk -v m="<!-- walkthrough: $1 -->" '
		$0 == m { want = 1; next }
		want == 1 && /^```sh$/ { want = 2; next }
		want == 2 && /^```$/ { exit }
		want == 2 { print }' "$DOC"
}

# --walkthrough NAME: print the block the check runs (tests/e2e_fleet.sh).
if [ "${1:-}" = --walkthrough ]; then
	[ $# -eq 2 ] && doc_block "$2" | grep . || { echo "check-engines: no walkthrough ${2:-}" >&2; exit 2; }
	exit 0
fi
# --only ENGINE: that engine's steps alone (the other checkout is still
# named and checked, so the command line stays the same).
ONLY=
if [ "${1:-}" = --only ]; then
	case "${2:-}" in lkp | mmtests) ONLY=$2 ;; *) usage "--only ${2:-}: not lkp or mmtests" ;; esac
	shift 2
fi
[ $# -eq 2 ] || usage "two checkouts needed"
[ -f "$1/lib/install.sh" ] || usage "$1: not an lkp-tests checkout"
[ -x "$2/run-mmtests.sh" ] || usage "$2: not an mmtests checkout"
[ "$(id -u)" = 0 ] || usage "needs root (lkp install, the sandbox)"
LKP_IN=$(realpath "$1") MM_IN=$(realpath "$2")
export LOCKBENCH_SRC=${LOCKBENCH_SRC:-$TOP}
W=$(mktemp -d /tmp/check-engines.XXXXXX) || exit 2
L=$W/lkp M=$W/home/mmtests LOGS=$W/logs
mkdir -p "$LOGS" "$W/home"
# The commit the JSON must name: HEAD of LOCKBENCH_SRC, which both
# installers archive.  A clone of it at that commit is what the check
# works from, so a commit made meanwhile changes nothing.
COMMIT=$(git -C "$LOCKBENCH_SRC" rev-parse HEAD 2>/dev/null) &&
	git clone -q "$LOCKBENCH_SRC" "$W/src" && git -C "$W/src" checkout -q --detach "$COMMIT" ||
	usage "LOCKBENCH_SRC ($LOCKBENCH_SRC): not a git checkout of lockbench with a commit"
export LOCKBENCH_SRC=$W/src
COMMIT=${COMMIT:0:12}
nfail=0 n=0 nengine=0

# ---- reporting --------------------------------------------------------

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: ${2:-see $LOGS}"; nfail=$((nfail + 1)); }
engine() { echo "ENGINE: $1: $2"; nengine=$((nengine + 1)); }
# err LOG: the engine's own error, the last lines that look like one.
err()
{
	grep -aE -i 'error|fail|cannot|could not|unknow|not found|die|no such|refus|exit' "$1" |
		grep -av '^+' | tail -3 | tr '\n' ' ' | cut -c1-400
}
# step NAME CMD...: run CMD (output to a log); PASS or FAIL with its
# error: the lines CMD gave with why(), else the log's last error lines.
# A step whose CMD says engine() instead is reported as the engine's.
step()
{
	local name=$1 log msg
	shift
	n=$((n + 1))
	log=$LOGS/$(printf '%02d' $n)-$(echo "$name" | tr -c 'A-Za-z0-9\n' '_' | cut -c1-50).log
	LAST_LOG=$log
	if "$@" >"$log" 2>&1; then pass "$name"; return 0; fi
	msg=$(grep -a '^engine: ' "$log" | cut -c9- | tr '\n' ' ')
	[ -z "$msg" ] || { engine "$name" "$msg (log: $log)"; return 1; }
	msg=$(grep -a '^why: ' "$log" | cut -c6- | tr '\n' ' ')
	fail "$name" "${msg:-$(err "$log")} (log: $log)"
	return 1
}
# why TEXT: the reason a step gives for its FAIL line.
why() { echo "why: $*" >&2; }
# owned TEXT: the step failed by the engine's own code (quoted in TEXT).
owned() { echo "engine: $*" >&2; }
# want WHAT CONDITION...: a check inside a step; its message on failure.
want() { local what=$1; shift; "$@" || { echo "error: $what" >&2; return 1; }; }
# quote FILE PATTERN: the engine's line matching PATTERN, as "FILE:N: line".
quote() { grep -nF -m1 -- "$2" "$1" | sed "s|^|${1#"$W"/*/}:|" | tr -s ' \t' ' '; }

# ---- the sandbox --------------------------------------------------------

# sb CMD...: CMD as root in a chroot on an overlay of / whose writes go to
# $W/ov/up; $W is bound in at its own path (shared with this script).
sb()
{
	mkdir -p "$W/ov/up" "$W/ov/work" "$W/ov/root"
	unshare -m -p --fork --kill-child --propagation private \
		bash "$HERE/check-engines-sandbox.sh" "$W" "$@"
}

# ---- the document's command blocks ---------------------------------------

# walk NAME: run the document's block NAME in the sandbox, as written,
# one line at a time in one shell from LOCKBENCH_SRC (a cd or an export
# carries over); each line's output in $W/walk-NAME/N.log, its status
# in N.rc.  Then one step per line.
WALKER='cd "$LOCKBENCH_SRC" || exit 125
walk_n=0
while IFS= read -r walk_line <&3; do
	case "$walk_line" in "" | "#"*) continue ;; esac
	walk_n=$((walk_n + 1))
	printf "%s\n" "$walk_line" >"$D/$walk_n.line"
	eval "$walk_line" >"$D/$walk_n.log" 2>&1 </dev/null
	echo $? >"$D/$walk_n.rc"
done 3<"$D/block"'

walk()
{
	local name=$1 d=$W/walk-$1 i line
	mkdir -p "$d" && doc_block "$name" >"$d/block"
	[ -s "$d/block" ] || { fail "docs/fleet.md: walkthrough $name" "no block after <!-- walkthrough: $name -->"; return 1; }
	sb env HOME="$W/home" LKP_SRC="$L" D="$d" LOCKBENCH_SRC="$LOCKBENCH_SRC" bash -c "$WALKER" \
		>"$d/walker.log" 2>&1
	for i in $(ls "$d" | sed -n 's/^\([0-9]*\)\.line$/\1/p' | sort -n); do
		line=$(cat "$d/$i.line")
		step "$name (docs/fleet.md, as written): $line" walk_line "$d" "$i"
	done
}

# walk_line DIR N: line N's status and output; a line that asked a
# question fails whatever its status.
walk_line()
{
	cat "$1/$2.log"
	if grep -qaE 'should all packages be automatically installed|\(yes/no|\[Y/n\]' "$1/$2.log"; then
		why "the line stopped to ask: $(grep -aoE '[^\n]*(automatically installed|yes/no|\[Y/n\])[^?]*\?' "$1/$2.log" | head -1)"
		return 1
	fi
	[ "$(cat "$1/$2.rc" 2>/dev/null)" = 0 ] && return 0
	case "$(cat "$1/$2.line")" in "lkp install"*) lkp_owned "$1/$2.log" && return 1 ;; esac
	echo "error: exit $(cat "$1/$2.rc" 2>/dev/null || echo '(not run)')"
	return 1
}

# An lkp install that failed on apt: the mirror's i386 index, which
# lkp's distro/debian asks apt for on every x86_64 install.
lkp_owned()
{
	local apt
	apt=$(grep -aE '^E: |^ [^ ]+ : (Pre-?Depends|Depends|Breaks|Conflicts): ' "$1" |
		grep -av '^E: Some index files failed' | sed 's/^ *//' | tr '\n' ' ' | tr -s ' ' | cut -c1-600)
	[ -n "$apt" ] || return 1
	owned "lkp's own install failed in apt; lkp-tests $(quote "$L/distro/debian" 'dpkg --add-architecture i386') and" \
		"$(quote "$L/distro/debian" '&& add_i386_package'); apt: $apt"
}

# ---- lkp-tests ------------------------------------------------------------

lkp() { sb env LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && exec lkp "$@"' lkp "$@"; }

# lkp_run KERNEL JOB [ENV...]: one `lkp run`; RT is its result root.
lkp_run()
{
	local k=$1 job=$2
	shift 2
	RT=
	rm -f "$L/result"
	sb env "$@" LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && lkp run -s "commit: $0" "$1"' "$k" "$job" >&2 ||
		{ echo "error: lkp run exited $?" >&2; return 1; }
	RT=$(readlink "$L/result") && [ -n "$RT" ] || { echo "error: no result root" >&2; return 1; }
	echo "result root: $RT" >&2
}

# stat RT KEY: the value of KEY in RT's stats.json (via the overlay).
stat_of() { ruby -rjson -e 'v = JSON.parse(File.read(ARGV[0]))[ARGV[1]]; puts(v.nil? ? "" : v)' "$W/ov/up$1/stats.json" "$2" 2>/dev/null; }

# The result roots of KERNEL (the directory holding one per run).
kernel_dir() { find "$W/ov/up/lkp/result/lockbench" -type d -name "$1" 2>/dev/null | head -1 | sed "s|^$W/ov/up||"; }

# lkp_check_runs KERNEL: three runs with a throughput and no failure.
lkp_check_runs()
{
	local d=$W/ov/up$(kernel_dir "$1") rt v i=0
	for rt in "$d"/[0-9]*; do
		[ -d "$rt" ] || continue
		i=$((i + 1))
		v=$(stat_of "${rt#"$W/ov/up"}" lockbench.tas.1.ops_per_sec)
		want "$rt: no lockbench.tas.1.ops_per_sec in stats.json" test -n "$v" || return
		want "$rt: a failure stat" test -z "$(stat_of "${rt#"$W/ov/up"}" lockbench.run.fail)" || return
		echo "$1 run $i: lockbench.tas.1.ops_per_sec $v"
	done
	want "$1: $i result roots, not 3" test "$i" = 3
}

lkp_three_runs()
{
	local i
	for i in 1 2 3; do lkp_run "$1" "$JOB" "${@:2}" || return; done
	lkp_check_runs "$1"
}

# The JSON lkp kept ($RESULT_ROOT/lockbench) names lockbench's commit.
lkp_provenance()
{
	local f g
	f=$(ls "$W/ov/up$(kernel_dir k0)"/*/lockbench 2>/dev/null | head -1)
	want "no \$RESULT_ROOT/lockbench of k0" test -n "$f" || return
	# lkp keeps the run script's stdout: its log_echo line, then the JSON.
	g=$(python3 -c 'import json, sys; t = open(sys.argv[1]).read(); print(json.loads(t[t.index("{"):])["provenance"]["git"])' "$f")
	echo "provenance.git: $g (lockbench HEAD $COMMIT; lkp-tests $(git -C "$L" rev-parse --short=12 HEAD))"
	want "the JSON names $g, not lockbench's commit $COMMIT" test "$g" = "$COMMIT"
}

# lkp's compare of two kernels, one lockbench KPI at a time.
lkp_compare()
{
	local f a b
	a=$(kernel_dir "$1") b=$(kernel_dir "$2")
	for f in lockbench.tas.1.ops_per_sec lockbench.ticket.1.ops_per_sec; do
		sb env LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && sbin/compare -c never --no-hide-noises -f "$0" "$1" "$2"' \
			"$f" "$a" "$b" >"$W/compare.out" 2>&1
		cat "$W/compare.out"
		want "sbin/compare -f $f lists no $f" grep -q "GEO-MEAN $f" "$W/compare.out" || return
	done
}

# lkp's own verdicts (lib/stats.rb): k0 against k1 (an A/A pair: no
# changed stat), k0 against kslow (lockbench with a 20 us critical
# section: the throughput KPIs changed, lower, and lkp's direction
# calls that a regression), and the fail keys as failure stats.
LKP_RB='require ENV["LKP_SRC"] + "/lib/stats"
require "json"
ok = true
ch = get_changed_stats(ARGV[0] + "/matrix.json", ARGV[1] + "/matrix.json", {}) || {}
puts "changed stats k0 -> k1: #{ch.size} #{ch.keys.join(" ")}"
unless ch.empty?
  $stderr.puts "why: lkp get_changed_stats of an A/A pair (one machine, k0 then k1) found #{ch.size} changed: #{ch.keys.join(" ")} (load #{File.read("/proc/loadavg").split[0, 3].join(" ")})"
  ok = false
end
sl = get_changed_stats(ARGV[0] + "/matrix.json", ARGV[2] + "/matrix.json", {}) || {}
%w[lockbench.tas.1.ops_per_sec lockbench.ticket.1.ops_per_sec].each do |k|
  c = sl[k]
  if c.nil?
    $stderr.puts "why: get_changed_stats k0 -> kslow: #{k} not changed (changed: #{sl.keys.join(" ")})"
    ok = false
    next
  end
  m = [ARGV[0], ARGV[2]].map { |d| v = JSON.parse(File.read(d + "/matrix.json"))[k]; v.sum.to_f / v.size }
  pct = (m[1] / m[0] - 1) * 100
  d = kpi_stat_direction(k, pct)
  puts "k0 -> kslow: #{k} #{pct.round(1)}%: #{d}"
  unless pct < 0 && d == "regression"
    $stderr.puts "why: #{k}: #{pct.round(1)}% read by lkp as #{d}, not a regression"
    ok = false
  end
end
fs = %w[lockbench.busted.2.fail lockbench.run.fail].reject { |k| failure_stat?(k) }
$stderr.puts "why: not failure stats for lkp: #{fs.join(" ")}" unless fs.empty?
ok &&= fs.empty?
exit(ok ? 0 : 1)'

lkp_verdicts()
{
	sb env LKP_SRC="$L" ruby -W0 -e "$LKP_RB" "$(kernel_dir k0)" "$(kernel_dir k1)" "$(kernel_dir kslow)"
}

# lkp_failed_run WHAT JOB [ENV...]: lkp run must end with lockbench's
# failure in the stats (a fail key, or lkp's exit_code record).
lkp_failed_run()
{
	local what=$1 job=$2 keys
	shift 2
	lkp_run kfail "$job" "$@"
	[ -n "$RT" ] || return 1
	lkp_fail_keys "$what"
}

lkp_fail_keys()
{
	local keys
	keys=$(ruby -rjson -e 'JSON.parse(File.read(ARGV[0])).each { |k, v| puts "#{k}: #{v}" if k =~ /\.fail$|exit_code|exit_fail/ }' \
		"$W/ov/up$RT/stats.json")
	echo "$1: $keys"
	want "$1: no fail key or exit code in $RT/stats.json" test -n "$keys" || return
	want "$1: a throughput in the stats" test -z "$(grep -l ops_per_sec "$W/ov/up$RT/stats.json")"
}

# A lockbench that lkp started, signalled (SIGTERM) in the middle of its
# runs: found by its --label (LOCKBENCH_LABEL, unique to this check).
lkp_interrupted()
{
	local label=check-engines-$$-int pid= i
	rm -f "$L/result"
	sb env LOCKBENCH_LABEL="$label" LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && lkp run -s "commit: kint" -s "runtime: 40s" "$0"' "$JOB" &
	local lkp_pid=$!
	for i in $(seq 1 120); do
		pid=$(pgrep -f -- "--label $label" | head -1)
		[ -n "$pid" ] && break
		sleep 0.5
	done
	want "no lockbench with --label $label appeared" test -n "$pid" || { wait $lkp_pid; return 1; }
	sleep 3
	echo "SIGTERM to lockbench (pid $pid): $(tr '\0' ' ' </proc/$pid/cmdline 2>/dev/null)"
	kill -TERM "$pid"
	wait $lkp_pid
	RT=$(readlink "$L/result")
	want "no result root" test -n "$RT" || return
	lkp_fail_keys interrupted
}

make_wrappers()
{
	printf '#!/bin/sh\nexit 0\n' >"$W/lb-silent"
	# lockbench with a 20 us critical section: a measured slowdown.
	cat >"$W/lb-slow" <<'EOF'
#!/bin/bash
a=() s=0
for x in "$@"; do
	if [ $s = 1 ]; then x=20000; s=0; elif [ "$x" = --cs-ns ]; then s=1; fi
	a+=("$x")
done
printf '%s\n' "${a[@]}" | grep -qx -- --cs-ns || a+=(--cs-ns 20000)
exec "$LOCKBENCH_REAL" "${a[@]}"
EOF
	chmod +x "$W/lb-silent" "$W/lb-slow"
}

# lockbench's programs in lkp: the run script, the parser, the binary.
LB_PROGS='programs/lockbench/|benchmarks/lockbench/'

# lkp_inject PARAM VALUE: lkp run of the smoke job with lockbench's PARAM
# (in the lockbench map) set to VALUE followed by a bracket-free
# `$(...)` that appends the command line of the shell running it to a
# file.  lockbench must refuse the job and run nothing: every record is
# lkp's job.sh (run_job, extract_stats), none lockbench's run script,
# parser or binary.
lkp_inject()
{
	local p=$1 v=$2 pwn=$W/PWN-$1 map k
	rm -f "$pwn" "$L/result"
	map="nr_threads: 1, locks: tas, runs: 2, warmup: 0.05s, tune: 'no'"
	map=$(echo "$map" | tr ',' '\n' | grep -v "^ *$p:" | paste -sd, -)
	map="lockbench: {$map, $p: '$v\$(cat /proc/\$\$/cmdline >>$pwn; echo >>$pwn)'}"
	echo "lkp run -s \"$map\""
	sb env LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && lkp run -s "commit: kinject" -s "$0" "$1"' "$map" "$JOB"
	echo "lkp run exit: $?"
	RT=$(readlink "$L/result")
	[ -e "$pwn" ] && { echo "the injected command ran, in:"; tr '\0' ' ' <"$pwn"; }
	want "lockbench's own code ran it: $(grep -aE "$LB_PROGS" "$pwn" 2>/dev/null | tr '\0' ' ' | head -1)" \
		test -z "$(grep -aE "$LB_PROGS" "$pwn" 2>/dev/null)" || return
	want "lkp recorded no refusal (exit_code 2) of the job" \
		grep -rqs 'exit_code.2: 1' "$W/ov/up$RT/last_state" || return
	# The run script's stderr is lkp run's, in this step's log.
	want "the run script did not say why (shell syntax in a job parameter)" \
		grep -qs "^lockbench: $p: .*shell syntax in a job parameter" "$LAST_LOG"
}

# After lkp_inject: when the command ran, it ran in lkp's job.sh.
lkp_inject_owner()
{
	local pwn=$W/PWN-$1 where
	[ -e "$pwn" ] || return 0
	where=$(tr '\0' ' ' <"$pwn" | grep -o 'job\.sh [a-z_]*' | sed 's/job\.sh //' | sort -u | paste -sd, -)
	engine "lkp-tests ran the injected \$(...) in $1 (in job.sh: ${where:-?}), before lockbench's run script started" \
		"$(quote "$L/lib/job2sh.rb" "'\$]+\$/") / $(quote "$L/lib/job2sh.rb" '"\"#{val}\""')" \
		"(shell_escape_expand: a value with \$ goes into job.sh in double quotes)"
}

# lkp_inject_top: a top-level nr_threads (lkp's key, which lockbench's
# jobs do not use) whose injected command records the command line of
# the shell that ran it: lkp's lib/job.rb expand_shell_var (`eval echo`
# of each top-level value on a local run) or filters/nr_threads.
lkp_inject_top()
{
	local pwn=$W/PWN-top
	rm -f "$pwn" "$L/result"
	sb env LKP_SRC="$L" bash -c 'cd "$LKP_SRC" && lkp run -s "commit: kinject" -s "$0" "$1"' \
		"nr_threads: 1\$(cat /proc/\$\$/cmdline >>$pwn; echo >>$pwn)" "$JOB"
	echo "lkp run exit: $?"
	[ -e "$pwn" ] || return 0
	echo "the injected command ran, in:" && tr '\0' ' ' <"$pwn"
	want "lockbench's own code ran it" test -z "$(grep -aE "$LB_PROGS" "$pwn")" || return
	owned "lkp-tests ran a top-level value's \$(...) in $(tr '\0' ' ' <"$pwn" | grep -o 'eval echo\|filters/nr_threads\|job\.sh [a-z_]*' | sort -u | paste -sd, -):" \
		"$(quote "$L/lib/job.rb" 'eval echo')"
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

lkp_busted_job()
{
	sed -e 's/^  locks: .*/  locks: busted/' -e 's/^  nr_threads: .*/  nr_threads: 2/' -e 's/^  tune:/  include_broken: 1\n  tune:/' \
		"$L/jobs/lockbench-smoke.yaml" >"$L/jobs/lockbench-busted-check.yaml" &&
	mkdir -p "$L/split-check" && lkp split-job -o "$L/split-check" jobs/lockbench-busted-check.yaml || return
	BJOB=$(ls "$L"/split-check/lockbench-busted-check-*.yaml) || return
}

check_lkp()
{
	local pv
	cp -a "$LKP_IN" "$L" || { fail "lkp-tests: copy $LKP_IN" "cp failed"; return; }
	walk lkp
	JOB=$(ls "$L"/split/lockbench-smoke-*.yaml 2>/dev/null)
	[ -n "$JOB" ] && [ -x "$W/ov/up/lkp/benchmarks/lockbench/lockbench" ] ||
		{ fail "lkp-tests: the walkthrough" "no split job or no lockbench built: the rest cannot run"; return; }
	step "lkp-tests: the walkthrough's three runs of k0: a throughput each, no failure" lkp_check_runs k0
	step "lkp-tests: the JSON lkp kept names lockbench's commit $COMMIT" lkp_provenance
	step "lkp-tests: lkp run, kernel k1, 3 runs" lkp_three_runs k1
	make_wrappers
	step "lkp-tests: lkp run, kernel kslow (lockbench with a 20 us critical section), 3 runs" \
		lkp_three_runs kslow LOCKBENCH="$W/lb-slow" LOCKBENCH_REAL=/lkp/benchmarks/lockbench/lockbench
	step "lkp-tests: sbin/compare -f of the KPIs, k0 vs k1" lkp_compare k0 k1
	step "lkp-tests: get_changed_stats: k0/k1 none, k0/kslow a regression by lkp's KPI direction; fail keys" lkp_verdicts
	step "lkp-tests: lkp split-job of the smoke job with the busted lock" lkp_busted_job &&
	step "lkp-tests: lkp run of a busted lock: a failure in the stats" lkp_failed_run busted "$BJOB"
	step "lkp-tests: lkp run, SIGTERM to the lockbench lkp started: a failure in the stats" lkp_interrupted
	step "lkp-tests: lkp run of a lockbench that writes nothing: a failure in the stats" \
		lkp_failed_run empty "$JOB" LOCKBENCH="$W/lb-silent"
	for pv in locks=tas nr_threads=1 cs_ns=1 ncs_ns=1 runs=2 warmup=0.05 workload=cs placement=cores \
		tune=no include_broken=0; do
		step "lkp-tests: lkp run with lockbench's ${pv%%=*}='${pv#*=}\$(cmd)': lockbench refuses it, runs nothing" \
			lkp_inject "${pv%%=*}" "${pv#*=}"
		lkp_inject_owner "${pv%%=*}"
	done
	step "lkp-tests: lkp run with a top-level nr_threads='1\$(cmd)' (lkp's key; lockbench's jobs do not use it)" \
		lkp_inject_top
	step "lkp-tests: programs/lockbench/run with nr_threads/nr_cpu='x[\$(touch FILE)]': refused" lkp_inject_script
	step "lkp-tests: locks=, and malformed documents: one line, run.fail, no traceback" lkp_bad_input
}

# ---- mmtests --------------------------------------------------------------

MMCONF=configs/config-workload-lockbench-spinlocks

# mm_run KERNEL [ENV...]: run-mmtests.sh as the document runs it, with
# ENV (a shorter or different configuration is a copy of the shipped
# one: CONF=configs/...).  MM_SETSID=1: in a session of its own, with
# SIGINT back to its default (a background job of this script ignores
# it, and bash cannot trap a signal ignored at its start: run-mmtests.sh's
# `trap begin_shutdown SIGINT` would do nothing), as a terminal's shell
# starts it.
SIGINT_DFL='import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])'
mm_run()
{
	local k=$1
	shift
	sb env HOME="$W/home" AUTO_PACKAGE_INSTALL=yes LOCKBENCH_SRC="$LOCKBENCH_SRC" LOCKBENCH_VERSION=HEAD "$@" \
		${MM_SETSID:+python3 -c "$SIGINT_DFL" setsid} \
		bash -c 'cd "$0" && ./run-mmtests.sh -c "${CONF:-configs/config-workload-lockbench-spinlocks}" "$1"' \
		"$M" "$k" </dev/null
}

# mm_config NAME LOCKS EXTRA: a copy of the shipped spinlocks
# configuration with LOCKS, 2 threads, short runs and lockbench options.
mm_config()
{
	sed -e "s/^export LOCKBENCH_LOCKS=.*/export LOCKBENCH_LOCKS=$2/" \
	    -e 's/^export LOCKBENCH_MIN_THREADS=.*/export LOCKBENCH_MIN_THREADS=2/' \
	    -e 's/^export LOCKBENCH_MAX_THREADS=.*/export LOCKBENCH_MAX_THREADS=2/' \
	    -e 's/^export LOCKBENCH_DURATION=.*/export LOCKBENCH_DURATION=0.2/' \
	    -e 's/^export LOCKBENCH_ITERATIONS=.*/export LOCKBENCH_ITERATIONS=3/' \
	    -e "s/^export LOCKBENCH_EXTRA_OPTS=.*/export LOCKBENCH_EXTRA_OPTS=\"$3\"/" \
	    "$M/$MMCONF" >"$M/configs/config-check-$1"
}

mm_json() { find "$M/work/log/$1" -name 'lockbench-*.json' 2>/dev/null | head -1; }

# The JSON of the walkthrough's first kernel names lockbench's commit;
# the second run built nothing (the same commit: the cached build).
mm_provenance()
{
	local f g
	f=$(mm_json 6.12-vanilla)
	want "no lockbench JSON in work/log/6.12-vanilla" test -n "$f" || return
	g=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["provenance"]["git"])' "$f")
	echo "provenance.git: $g (lockbench HEAD $COMMIT; mmtests $(git -C "$M" rev-parse --short=12 HEAD))"
	want "the JSON names $g, not lockbench's commit $COMMIT" test "$g" = "$COMMIT" || return
	f=$(grep -l 'run-mmtests.sh .* 6.12-patched' "$W"/walk-mmtests/*.line | sed 's/line$/log/')
	want "the run of 6.12-patched did not say the commit it resolved HEAD to" \
		grep -q "LOCKBENCH_VERSION HEAD of .* is commit $COMMIT" "$f" &&
	want "the run of 6.12-patched built lockbench again (same commit)" \
		test -z "$(grep -l 'lockbench installed successfully' "$f")"
}

# mm_compare BASELINE COMPARE ROW WANT: compare-kernels.sh's Hmean row
# ROW must show the compared kernel's value and change as WANT (a
# regex: after the baseline's value and its change).  compare-kernels
# writes a change it finds significant between stars, "*  -5.00%*",
# and any other between brackets, "(  -5.00%)": a WANT that is not
# about significance accepts both.
mm_compare()
{
	local out=$W/mm-compare-$1-$2.txt
	sb env HOME="$W/home" AUTO_PACKAGE_INSTALL=yes bash -c 'cd "$0/work/log" && ../../compare-kernels.sh --baseline "$1" --compare "$2"' \
		"$M" "$1" "$2" </dev/null >"$out" 2>&1
	grep -E "^Hmean " "$out"
	want "compare-kernels.sh --baseline $1 --compare $2: no Hmean $3 reading $4" \
		grep -Eq "^Hmean +$3 +[0-9.]+ \( *[-0-9.]+%\) +$4" "$out"
}

# A measured slowdown: lockbench with a 20 us critical section
# (LOCKBENCH_BINARY, the wrapper) as kernel 6.12-slow: compare-kernels
# shows tas-1 lower (a negative change, mmtests' own % column).
mm_slow()
{
	mm_config slow tas,ticket --no-tune
	mm_config fast tas,ticket --no-tune
	mm_run k-fast CONF=configs/config-check-fast >/dev/null 2>&1
	mm_run k-slow CONF=configs/config-check-slow LOCKBENCH_BINARY="$W/lb-slow" \
		LOCKBENCH_REAL="$(ls -d "$M"/work/sources/lockbench-*-installed | head -1)/lockbench" || return
	mm_compare k-fast k-slow tas-2 '[0-9.]+ [(*] *-[0-9.]+%[)*]'
}

# A busted lock: the run fails (run-mmtests.sh's status), FAILED rows.
mm_busted()
{
	mm_config bad tas,busted "--no-tune --include-broken"
	mm_run kbad CONF=configs/config-check-bad
	local rc=$?
	echo "run-mmtests.sh exit: $rc"
	want "run-mmtests.sh exited 0 with a busted lock" test $rc != 0 || return
	want "no 'test end :: lockbench' with a failure status in tests-timestamp" \
		grep -rqE 'test end :: lockbench [0-9]+ [1-9]' "$M/work/log/kbad" || return
	mm_compare kbad kbad busted-FAILED-2 '2\.00 \('
}

# A failed lock in either order: compare-kernels.sh's rows are the
# baseline's operations, so the failure needs the same lock in both
# kernels; busted fails everywhere, so the failed kernel is k-fast's
# results (mmtests' log directory) with ticket's point marked failed
# as lockbench marks a lock that broke exclusion, re-extracted by
# mmtests itself.
mm_failed_either_order()
{
	rm -rf "$M/work/log/kticket"
	cp -a "$M/work/log/k-fast" "$M/work/log/kticket" || return
	python3 -c 'import json, sys
f = sys.argv[1]; d = json.load(open(f))
d["points"] = [dict(p, status="failed", runs=[]) if p["variant"] == "ticket" else p for p in d["points"]]
json.dump(d, open(f, "w"))' "$M/work/log/kticket/iter-0/lockbench/logs/lockbench-2.json" || return
	mm_compare k-fast kticket ticket-FAILED-2 '2\.00 \( *100\.00%\)' &&
	mm_compare kticket k-fast ticket-FAILED-2 '1\.00 \( *-50\.00%\)'
}

# An interrupted run: SIGINT to run-mmtests.sh while lockbench runs
# (found by its --label, which the bench sets to uname -r: the run's
# name is in its -o path instead).  The run fails, and compare-kernels
# shows it in either order.
mm_interrupted()
{
	local pid= i mm_pid
	mm_config int tas,ticket --no-tune
	sed -i 's/^export LOCKBENCH_DURATION=.*/export LOCKBENCH_DURATION=3/' "$M/configs/config-check-int"
	MM_SETSID=1 mm_run kint CONF=configs/config-check-int >"$W/mm-kint.log" 2>&1 &
	mm_pid=$!
	for i in $(seq 1 600); do
		pid=$(pgrep -f -- "$M/work/sources/lockbench-.*-installed/lockbench -l tas,ticket -t 2 -r 3 -d 3 " | head -1)
		[ -n "$pid" ] && break
		sleep 0.5
	done
	want "no lockbench of kint appeared" test -n "$pid" || { wait $mm_pid; return 1; }
	sleep 2
	pid=$(pgrep -f -- "run-mmtests.sh -c configs/config-check-int kint" | head -1)
	pid=$(ps -o pgid= -p "$pid" | tr -d ' ')
	echo "SIGINT to the process group of run-mmtests.sh (as a terminal's ^C): $pid"
	[ -n "$pid" ] && kill -INT -- "-$pid"
	wait $mm_pid
	i=$?
	tail -20 "$W/mm-kint.log"
	echo "run-mmtests.sh exit: $i"
	want "run-mmtests.sh exited 0 when interrupted" test $i != 0 || return
	want "the bench did not mark the run interrupted (lockbench-2.failed)" \
		grep -qs '^interrupted' "$M/work/log/kint/iter-0/lockbench/logs/lockbench-2.failed" || return
	mm_compare kint k-fast run-FAILED-2 '1\.00 \( *-50\.00%\)' &&
	mm_compare k-fast kint run-FAILED-2 '2\.00 \( *100\.00%\)'
}

# mm_refused NAME VAR VALUE: a configuration with VAR=VALUE; the run
# must stop with lockbench's one line and write no result.
mm_refused()
{
	mm_config "$1" tas --no-tune
	sed -i "s/^export $2=.*/export $2=\"$3\"/" "$M/configs/config-check-$1"
	mm_run "k$1" CONF="configs/config-check-$1"
	echo "run-mmtests.sh exit: $?"
	want "no one-line refusal of $2=$3" grep -q "lockbench: ${4:-$2} ($3)" "$LAST_LOG" &&
	want "a result written for $2=$3" test -z "$(find "$M/work/log/k$1" -name 'lockbench-*.json' 2>/dev/null)"
}

check_mmtests()
{
	cp -a "$MM_IN" "$M" || { fail "mmtests: copy $MM_IN" "cp failed"; return; }
	make_wrappers	# lb-slow, also when the lkp steps did not run (--only)
	walk mmtests
	step "mmtests: the JSON names lockbench's commit $COMMIT; the second run reused its build" mm_provenance
	step "mmtests: compare-kernels.sh of the walkthrough: Hmean tas-1" mm_compare 6.12-vanilla 6.12-patched tas-1 '[0-9.]+ [(*]'
	step "mmtests: a measured slowdown (20 us critical section): lower in compare-kernels.sh" mm_slow
	step "mmtests: a busted lock: run-mmtests.sh fails, busted-FAILED-2 reads 2.00" mm_busted
	step "mmtests: a failed lock shows in compare-kernels.sh whichever kernel is the baseline" mm_failed_either_order
	step "mmtests: SIGINT to run-mmtests.sh mid-run: it fails, run-FAILED-2 shows in either order" mm_interrupted
	step "mmtests: LOCKBENCH_MAX_THREADS=abc refused" mm_refused abc LOCKBENCH_MAX_THREADS abc
	step "mmtests: LOCKBENCH_VERSION with a blank refused" mm_refused ver LOCKBENCH_VERSION "HEAD x" VERSION
}

[ "$ONLY" = mmtests ] || check_lkp
[ "$ONLY" = lkp ] || check_mmtests
echo "check-engines: $n steps, $nfail failed (lockbench's or the document's), $nengine the engines' own; work directory $W"
exit $((nfail > 0))
