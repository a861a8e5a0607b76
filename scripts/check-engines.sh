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
# ruby-colorize), perl's File::Which and YAML::PP for mmtests' reports.
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
# step NAME CMD...: run CMD (output to a log); PASS or FAIL with its error.
step()
{
	local name=$1 log
	shift
	n=$((n + 1))
	log=$LOGS/$(printf '%02d' $n)-$(echo "$name" | tr -c 'A-Za-z0-9\n' '_' | cut -c1-50).log
	LAST_LOG=$log
	if "$@" >"$log" 2>&1; then pass "$name"; return 0; fi
	fail "$name" "$(err "$log") (log: $log)"
	return 1
}
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
	sed -e 's/^  locks: .*/  locks: busted/' -e 's/^  tune:/  include_broken: 1\n  tune:/' \
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
		v=$(stat_of "$RT" lockbench.tas.2.ops_per_sec)
		want "run $i: no lockbench.tas.2.ops_per_sec in $RT/stats.json" test -n "$v" || return
		want "run $i: a failure stat" test -z "$(stat_of "$RT" lockbench.run.fail)$(stat_of "$RT" lockbench.tas.2.fail)" || return
		echo "run $i: lockbench.tas.2.ops_per_sec $v"
	done
	eval "RT_$1=\$(dirname \"\$RT\")"
}

lkp_base()
{
	lkp install && return
	echo "error: lkp's base install failed (its own dependencies, see above)" >&2
	return 1
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
}

check_lkp
echo "check-engines: work directory $W"
exit $((nfail > 0))
