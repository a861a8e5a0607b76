#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Run lockbench through the engines kernel performance fleets use, as
# far as this machine allows (docs/fleet.md):
#
#   scripts/check-engines.sh LKP=DIR MMTESTS=DIR [LOCKBENCH=./lockbench]
#
# DIR are checkouts of lkp-tests and mmtests; each is copied under a
# temporary directory and lockbench's files (scripts/lkp-tests,
# scripts/mmtests) are installed into the copy, never into DIR.  The
# locally built binary stands in for the package (no network: the
# PKGBUILD and the shellpack installer cannot download).  For two
# "kernels" (labels k0 and k1) each engine runs one short job through
# its own entry points, then its own comparison shows lockbench's
# figures side by side.  Each step prints "ok", "FAILED" or "skipped"
# with the reason; the exit status is 1 when a step that could run
# failed.  Needs ruby and the gems lkp's libraries load (Debian: ruby
# ruby-tty-command ruby-activesupport ruby-gnuplot ruby-term-ansicolor
# ruby-git) for lkp-tests, and perl with File::Which and YAML::PP
# (libfile-which-perl libyaml-pp-perl) for mmtests' reports.
set -u

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$HERE")
LKP= MMTESTS= LOCKBENCH=$TOP/lockbench
for a in "$@"; do
	case "$a" in
	LKP=*) LKP=${a#LKP=} ;;
	MMTESTS=*) MMTESTS=${a#MMTESTS=} ;;
	LOCKBENCH=*) LOCKBENCH=${a#LOCKBENCH=} ;;
	*) echo "check-engines: unknown argument ($a); usage: LKP=DIR MMTESTS=DIR [LOCKBENCH=BIN]" >&2
	   exit 2 ;;
	esac
done
[ -n "$LKP$MMTESTS" ] || { echo "check-engines: give LKP=DIR and/or MMTESTS=DIR" >&2; exit 2; }
LOCKBENCH=$(realpath "$LOCKBENCH" 2>/dev/null) && [ -x "$LOCKBENCH" ] ||
	{ echo "check-engines: no lockbench binary (build it: make lockbench)" >&2; exit 2; }
W=$(mktemp -d /tmp/check-engines.XXXXXX)
failed=0
say() { echo "check-engines: $*"; }
step() { # step WHAT CMD...: run, log to $W/log, say ok or FAILED
	local what=$1; shift
	if "$@" >>"$W/log" 2>&1; then say "ok: $what"; return 0; fi
	say "FAILED: $what (see $W/log)"; failed=1; return 1
}
version() { git -C "$1" describe --always --tags 2>/dev/null || echo unknown; }
# One short job's settings: two locks, two runs, a short window.
LOCKS=tas,ticket

# ---- lkp-tests ------------------------------------------------------------

lkp_one() { # lkp_one LABEL: run, parse, dump-stat into $W/lkp-rt/LABEL
	local rt=$W/lkp-rt/$1
	mkdir -p "$rt" "$W/lkp-tmp/$1"
	(cd "$W/lkp" && export LKP_SRC=$W/lkp RESULT_ROOT=$rt \
		TMP_RESULT_ROOT=$W/lkp-tmp/$1 LOCKBENCH=$LOCKBENCH LOCKBENCH_LABEL=$1 \
		BENCHMARK_ROOT=$W/lkp-bm && set -a && . "$W/job.env" && set +a &&
	 programs/lockbench/run >"$rt/lockbench" &&
	 programs/lockbench/parse <"$rt/lockbench" >"$rt/lockbench.stats" &&
	 sbin/dump-stat lockbench "$rt/lockbench.json" <"$rt/lockbench.stats")
}

check_lkp() {
	local job
	say "lkp-tests $(version "$LKP") from $LKP"
	cp -a "$LKP" "$W/lkp" && cp -r "$TOP/scripts/lkp-tests/." "$W/lkp/" &&
		cat "$W/lkp/etc/index-perf-lockbench.yaml" >>"$W/lkp/etc/index-perf.yaml" ||
		{ say "FAILED: install into the copy"; failed=1; return; }
	command -v ruby >/dev/null || { say "skipped: lkp-tests needs ruby (apt-get install ruby)"; return; }
	# The testbox file `lkp install` makes (hosts/HOSTNAME: nr_cpu,
	# memory), by lkp's own function, in the copy.
	step "lkp lib/host.sh create_host_config (in the copy)" env LKP_SRC="$W/lkp" \
		bash -c '. "$LKP_SRC/lib/host.sh"; create_host_config' || return
	# lkp's own job splitter: one job file per combination.
	mkdir -p "$W/jobs"
	step "lkp split-job jobs/lockbench.yaml" \
		env LKP_SRC="$W/lkp" ruby "$W/lkp/sbin/split-job" -o "$W/jobs" "$W/lkp/jobs/lockbench.yaml" || return
	job=$(ls "$W/jobs"/*tas_ticket*100%*.yaml | head -1)
	say "   $(ls "$W/jobs" | wc -l) jobs; running the parameters of $(basename "$job"), shortened"
	# That job's lockbench parameters as shell variables, shortened.
	ruby -ryaml -e 'j = YAML.load_file(ARGV[0]); p = j["lockbench"] || {}
		puts "nr_threads=#{j["nr_threads"]}"
		%w[cs_ns ncs_ns placement workload].each { |k| puts "#{k}=#{p[k]}" if p[k] }' \
		"$job" >"$W/job.env"
	echo "locks=$LOCKS runs=2 runtime=0.4s" >>"$W/job.env"
	step "programs/lockbench/run + parse + lkp's sbin/dump-stat, kernel k0" lkp_one k0 &&
	step "programs/lockbench/run + parse + lkp's sbin/dump-stat, kernel k1" lkp_one k1 || return
	# lkp's own comparison of two stats files (lib/stats.rb, as its
	# compare and bisect use): the changed stats, then every stat.
	step "lkp lib/stats.rb get_changed_stats k0 vs k1" env LKP_SRC="$W/lkp" ruby -e '
		require ENV["LKP_SRC"] + "/lib/stats"
		a, b = ARGV
		ch = get_changed_stats(a, b, {"distance" => 0, "gap" => 0}) || {}
		puts "changed stats (lkp thresholds): #{ch.size}"
		ma, mb = load_json(a), load_json(b)
		printf("%-34s %14s %14s %8s %s\n", "stat", "k0", "k1", "change", "")
		(ma.keys | mb.keys).sort.each do |k|
			x, y = ma[k], mb[k]
			x = x.sum.to_f / x.size if x.is_a?(Array)
			y = y.sum.to_f / y.size if y.is_a?(Array)
			pct = x && y && x != 0 ? format("%+.1f%%", (y - x) * 100.0 / x) : "-"
			printf("%-34s %14s %14s %8s %s\n", k, x, y, pct,
			       failure_stat?(k) ? "failure" : (perf_metric?(k) ? "perf" : ""))
		end' "$W/lkp-rt/k0/lockbench.json" "$W/lkp-rt/k1/lockbench.json" &&
		sed -n '/changed stats (lkp/,$p' "$W/log"
}

# ---- mmtests --------------------------------------------------------------

check_mmtests() {
	say "mmtests $(version "$MMTESTS") from $MMTESTS"
	cp -a "$MMTESTS" "$W/mmtests" && cp -r "$TOP/scripts/mmtests/." "$W/mmtests/" ||
		{ say "FAILED: install into the copy"; failed=1; return; }
	command -v perl >/dev/null || { say "skipped: mmtests needs perl"; return; }
	# A short config of the shipped one: two locks, 1..2 threads.
	sed -e "s/^export LOCKBENCH_LOCKS=.*/export LOCKBENCH_LOCKS=$LOCKS/" \
	    -e 's/^export LOCKBENCH_MAX_THREADS=.*/export LOCKBENCH_MAX_THREADS=2/' \
	    -e 's/^export LOCKBENCH_DURATION=.*/export LOCKBENCH_DURATION=0.1/' \
	    -e 's/^export LOCKBENCH_ITERATIONS=.*/export LOCKBENCH_ITERATIONS=3/' \
	    -e 's/^export RUN_MONITOR=.*/export RUN_MONITOR=no/' \
	    "$W/mmtests/configs/config-workload-lockbench-spinlocks" >"$W/mmtests/configs/config-check-lockbench"
	for k in k0 k1; do
		(cd "$W/mmtests" && LOCKBENCH_BINARY=$LOCKBENCH MMTESTS_SKIP_PKG_INSTALL=yes \
			timeout 600 ./run-mmtests.sh -n -c configs/config-check-lockbench "$k") \
			>>"$W/log" 2>&1 </dev/null
		if ls "$W/mmtests/work/log/$k"/lockbench*/logs/lockbench-*.json >/dev/null 2>&1 ||
		   find "$W/mmtests/work/log/$k" -name 'lockbench-*.json' 2>/dev/null | grep -q .; then
			say "ok: run-mmtests.sh, kernel $k"
		else
			say "FAILED: run-mmtests.sh, kernel $k (see $W/log)"; failed=1; return
		fi
	done
	# mmtests' report: its own statistics (Hmean, ...) of each LOCK-THREADS.
	step "compare-kernels.sh k0 k1 shows lockbench's operations" bash -c "
		cd '$W/mmtests/work/log' &&
		../../compare-kernels.sh --baseline k0 --compare k1 >'$W/mm-compare.txt' &&
		grep -q '^Hmean *tas-1 ' '$W/mm-compare.txt'" &&
		grep -E '^(Hmean|HStddev|Min|Max) ' "$W/mm-compare.txt"
}

[ -n "$LKP" ] && check_lkp
[ -n "$MMTESTS" ] && check_mmtests
say "work directory: $W"
exit $failed
