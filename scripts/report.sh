#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# docs/performance.md, generated: the measured figures of lockbench with
# the host they were measured on (CPU model, kernel, hypervisor, clock
# and cpu_relax() cost, load before and after), the date, lockbench's
# version and each script's command line, so that anyone can regenerate
# it on their own machine (`make report`).  It runs, in a few minutes:
#   lockbench system check       what this machine can resolve
#   tests/e2e_insn.sh            the loop's instructions per operation (valgrind)
#   scripts/insn-peers.sh        the same for the peers' loops (if built)
#   scripts/bench-peers.sh       ns per lock+unlock beside the peers (if built),
#                                and ns per handover at 2 threads and more
#   scripts/bench-delays.sh      do --cs-ns and --ncs-ns hold?
#   scripts/bench-delays-hosts.sh  ... on this host and simulated ones?
#   scripts/bench-calib.sh       calibrations from one invocation to the next
#   scripts/bench-cv.sh          1-thread run-to-run spread
#   scripts/validate-marks.sh    is the `!` mark right? (causes made on purpose)
#   scripts/aa-significance.sh   false significance and power of `#`
#   scripts/bench-ktree.sh       a kernel tree's qspinlock beside the built-in
# The peers are built from folders you name (LOCKHAMMER_DIR, CK_DIR,
# LIBSLOCK_DIR, see scripts/bench-peers.sh); without them those two
# sections say so and are skipped.
#
# usage: scripts/report.sh [./lockbench] [OUT.md]   (default docs/performance.md)
#   RUNS (3) and DURATION (0.3) shorten or lengthen the timed scripts;
#   DELAY_HOSTS ("here clock+10 clock+30 pause+20 pause+120"), DELAY_REQ
#   (50,100,400,1000), DELAY_TOL (0.05) and DELAY_TOL50 (0.10) go to
#   scripts/bench-delays-hosts.sh as HOSTS, REQ, TOL and TOL50; CALIB_N
#   (20) and CALIB_TOL (5, percent) to scripts/bench-calib.sh as N and TOL;
#   MARKS_INV (3), MARKS_REPS (3), MARKS_RUNS (lockbench's default -r) and
#   MARKS_D (0.5) to scripts/validate-marks.sh as INV, REPS, RUNS and
#   DURATION.
#   AA_REPS (20) to scripts/aa-significance.sh as -n.
#   KTREE, a kernel source tree for scripts/bench-ktree.sh (default the
#   linux-source-6.12 that tests/e2e_ktree_real.sh extracted, if there;
#   none: skip it), its rounds DURATION seconds long.
set -uo pipefail

LB=$(realpath "${1:-./lockbench}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${2:-$ROOT/docs/performance.md}
RUNS=${RUNS:-3}
DURATION=${DURATION:-0.3}
DELAY_HOSTS=${DELAY_HOSTS:-here clock+10 clock+30 pause+20 pause+120}
DELAY_REQ=${DELAY_REQ:-50,100,400,1000}
DELAY_TOL=${DELAY_TOL:-0.05}
DELAY_TOL50=${DELAY_TOL50:-0.10}
CALIB_N=${CALIB_N:-20}
CALIB_TOL=${CALIB_TOL:-5}
MARKS_INV=${MARKS_INV:-3}
MARKS_REPS=${MARKS_REPS:-3}
MARKS_RUNS=${MARKS_RUNS:-}
MARKS_D=${MARKS_D:-0.5}
AA_REPS=${AA_REPS:-20}
KTREE=${KTREE:-}
[ -x "$LB" ] || { echo "report: $LB is not an executable lockbench" >&2; exit 2; }
case $RUNS in '' | *[!0-9]*) echo "report: RUNS ($RUNS) is not a number" >&2; exit 2 ;; esac
case $DURATION in '' | *[!0-9.]*) echo "report: DURATION ($DURATION) is not a number of seconds" >&2; exit 2 ;; esac
for v in DELAY_TOL DELAY_TOL50; do
	case ${!v} in '' | *[!0-9.]* | *.*.*) echo "report: $v (${!v}) is not a fraction (0.05: 5%)" >&2; exit 2 ;; esac
done
case $DELAY_REQ in '' | *[!0-9,]*) echo "report: DELAY_REQ ($DELAY_REQ) is not a list of ns (50,100)" >&2; exit 2 ;; esac
case $CALIB_N in '' | *[!0-9]* | 0) echo "report: CALIB_N ($CALIB_N) is not a number of invocations" >&2; exit 2 ;; esac
for v in MARKS_INV MARKS_REPS; do
	case ${!v} in '' | *[!0-9]* | 0) echo "report: $v (${!v}) is not a positive count" >&2; exit 2 ;; esac
done
case $MARKS_RUNS in *[!0-9]*) echo "report: MARKS_RUNS ($MARKS_RUNS) is not a count" >&2; exit 2 ;; esac
case $MARKS_D in '' | *[!0-9.]* | *.*.*) echo "report: MARKS_D ($MARKS_D) is not a number of seconds" >&2; exit 2 ;; esac
case $AA_REPS in '' | *[!0-9]* | 0) echo "report: AA_REPS ($AA_REPS) is not a number of repetitions" >&2; exit 2 ;; esac
cd "$ROOT"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exec 3>"$tmp/body"

# section TITLE SENTENCE CMD...: run CMD, put its command line, exit
# status and output in the report.
section() {
	local title=$1 what=$2; shift 2
	local t0=$SECONDS rc
	echo "report: $title" >&2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	{
		printf '## %s\n\n%s\n\n' "$title" "$what"
		printf '    $ %s\n' "$(printf '%q ' "$@" | sed "s|$ROOT/||g; s| *$||")"
		printf '\n(exit %d, %d s)\n\n' "$rc" "$((SECONDS - t0))"
		sed 's/^/    /; s/ *$//' "$tmp/out"
		echo
	} >&3
}

# skipped TITLE REASON
skipped() {
	printf '## %s\n\nSkipped: %s\n\n' "$1" "$2" >&3
	echo "report: $1 skipped" >&2
}

load_start=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u +%Y-%m-%dT%H:%M:%SZ)

"$LB" system check -q -f json -o "$tmp/check.json" 2>"$tmp/check.err"
section "What this machine can resolve" \
	"\`lockbench system check\`: the clock, \`cpu_relax()\`, the empty loop, the shortest delay held, the core-to-core round trip, the 1-thread spread and the invocation floor (docs/method.md)." \
	"$LB" system check -q
if command -v valgrind >/dev/null; then
	section "Instructions per operation" \
		"The worker loop of \`null\` and of the locks with a peer implementation, counted by valgrind at 1 thread with empty sections, against the budgets \`make test\` enforces (deterministic: no timing)." \
		tests/e2e_insn.sh "$LB"
else
	skipped "Instructions per operation" "valgrind is not installed (apt-get install -y valgrind)."
fi
if [ -n "${LOCKHAMMER_DIR:-}${CK_DIR:-}" ]; then
	section "Instructions beside the peers" \
		"lockbench's loops against lockhammer's and ck's, in instructions per lock+unlock (callgrind)." \
		scripts/insn-peers.sh "$LB"
else
	skipped "Instructions beside the peers" "the peers are not built: set LOCKHAMMER_DIR and/or CK_DIR to their source checkouts (scripts/insn-peers.sh)."
fi
if [ -n "${LOCKHAMMER_DIR:-}${CK_DIR:-}${LIBSLOCK_DIR:-}" ]; then
	section "Time beside the peers" \
		"ns per lock+unlock at 1 thread, empty sections, interleaved with the peers." \
		env RUNS="$RUNS" DURATION="$DURATION" THREADS=1 scripts/bench-peers.sh "$LB"
else
	skipped "Time beside the peers" "the peers are not built: set LOCKHAMMER_DIR, CK_DIR and/or LIBSLOCK_DIR to their source checkouts (scripts/bench-peers.sh)."
fi
if [ -n "${LOCKHAMMER_DIR:-}${CK_DIR:-}" ] && [ "$(getconf _NPROCESSORS_ONLN)" -gt 1 ]; then
	section "Handovers beside the peers" \
		"ns per handover (the lock passing from one thread to another) at every thread count from 2 to the CPUs, empty sections, interleaved with lockhammer and ck carrying the same counter word (scripts/peers/), the handovers per acquisition in brackets, and the exclusion check's cost per handover measured in lockhammer with and without it (docs/method.md, \"Handovers\")." \
		env RUNS="$RUNS" DURATION="$(awk -v d="$DURATION" 'BEGIN {print d < 1 ? 1 : d}')" \
		THREADS="$(seq 2 "$(getconf _NPROCESSORS_ONLN)" | tr '\n' ' ' | sed 's/ $//')" \
		scripts/bench-peers.sh "$LB"
else
	skipped "Handovers beside the peers" "the peers are not built (set LOCKHAMMER_DIR and/or CK_DIR), or this machine has one CPU (scripts/bench-peers.sh)."
fi
section "Section delays" \
	"Do \`--cs-ns\` and \`--ncs-ns\` hold?  Sampled lengths and the cost added per operation, 1 thread, then beside a waiter." \
	env RUNS="$RUNS" DURATION="$DURATION" REQ=50,100,1000 LOCKS2=ticket,mcs scripts/bench-delays.sh "$LB"
section "Section delays on simulated hosts" \
	"The same check on this host and on simulated ones (a clock read 10 or 30 ns dearer, a pause 20 or 120 ns dearer), both measures, with the time the host takes away from a vCPU taken out of the outside figure; PASS within 5% from 100 ns, 10% at 50 (docs/method.md)." \
	env RUNS="$RUNS" DURATION="$DURATION" HOSTS="$DELAY_HOSTS" REQ="$DELAY_REQ" \
	TOL="$DELAY_TOL" TOL50="$DELAY_TOL50" scripts/bench-delays-hosts.sh "$LB"
section "Calibrations, invocation to invocation" \
	"Every figure the run measures about the machine before it, over $CALIB_N identical invocations: the median, the extremes, the largest distance from the median, and that distance counted in core cycles (docs/method.md, \"Calibration\")." \
	env N="$CALIB_N" TOL="$CALIB_TOL" scripts/bench-calib.sh "$LB"
section "1-thread run-to-run spread" \
	"The CV of ns per operation of tas and ticket at 1 thread, and how many of the runs more than 2% off their lock's median were flagged." \
	env RUNS=$((RUNS * 2)) DURATION="$DURATION" scripts/bench-cv.sh "$LB"
if [ "$(nproc)" -ge 2 ]; then
	section "Noise marks" \
		"Is the \`!\` mark right?  Each noise rule (docs/method.md, \"Noise\") on quiet runs of the default workload at 1 and 2 threads, $MARKS_INV invocations, and against causes made on purpose: a busy loop pinned to a worker's CPU for whole invocations and for 0.3 s of one run's 1 s window, a SIGSTOP of 100 ms (a tenth of the window) in one run, a memory-hungry process on the other CPU; then whether flagged runs are further from their point's median than unflagged ones.  Targets: at most 5% of quiet runs flagged and 10% of points marked, at least 90% of the busy-loop runs caught." \
		env INV="$MARKS_INV" REPS="$MARKS_REPS" RUNS="$MARKS_RUNS" DURATION="$MARKS_D" \
		scripts/validate-marks.sh "$LB"
else
	skipped "Noise marks" "scripts/validate-marks.sh needs 2 CPUs."
fi
# The floor of the check above, when it measured one (a busy machine
# refuses it): the one-invocation lines use it.
aa_floor=()
python3 -c "import json, sys; sys.exit(json.load(open('$tmp/check.json'))['floor']['rel_pct'] is None)" \
	2>/dev/null && aa_floor=(-f "$tmp/check.json")
section "Significance: false alarms and power" \
	"How often \`#\` marks a difference between two copies of one lock (A/A), and how often it finds a copy 2x slower, at -r 3, 5 and 10 within a run, a copy 10% slower at the default -r, and A/A with one invocation a side and the invocation floor; then the candidate tests on the same runs (docs/method.md, \"Statistics\")." \
	env LB_OPTS="-d $DURATION --warmup $DURATION" SKIP=across \
	scripts/aa-significance.sh -n "$AA_REPS" "${aa_floor[@]}" "$LB"
[ -z "$KTREE" ] && [ -d build/ktree-real/linux-source-6.12/kernel/locking ] &&
	KTREE=$ROOT/build/ktree-real/linux-source-6.12
if [ -n "$KTREE" ] && [ "$KTREE" != none ]; then
	section "A kernel tree's qspinlock beside the built-in" \
		"The tree's qspinlock (on its inline loop, and on the generic loop) against the built-in \`qspinlock\` at 1 and 2 threads, interleaved in each round, 3 invocations of 5 rounds, with empty sections and with the default workload (docs/kernel-tree.md)." \
		scripts/bench-ktree.sh -n 3 -r 5 -d "$DURATION" -T "$KTREE" "$LB"
else
	skipped "A kernel tree's qspinlock beside the built-in" "no kernel tree: set KTREE, or run tests/e2e_ktree_real.sh once to extract Debian's linux-source-6.12."
fi
exec 3>&-
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

python3 - "$tmp/check.json" "$LB" <<'PY' >"$tmp/head" || { echo "report: could not read the system check" >&2; exit 1; }
import json, platform, subprocess, sys
d = json.load(open(sys.argv[1]))
m, lb, hv = d["machine"], d["lockbench"], d.get("hypervisor") or {}
def f(x, unit, fmt="%.1f"):
    return "-" if x is None else (fmt % x) + " " + unit
hyp = "none" if not hv.get("detected") else \
    " ".join(str(hv[k]) for k in ("vendor", "product", "type") if hv.get(k)) or "yes (unnamed)"
print("| | |\n|---|---|")
for k, v in [
    ("CPU", "%s (%d PUs, %d cores, %d NUMA nodes)" % (m["cpu_model"], m["pus"], m["cores"], m["numa_nodes"])),
    ("kernel", m["kernel"] + " " + m.get("kernel_version", "")),
    ("arch", m["arch"]),
    ("hypervisor", hyp),
    ("clock", "%s, read %s" % (d["clock"]["source"], f(d["clock"]["read_ns"], "ns"))),
    ("cpu_relax()", f(d.get("relax_ns"), "ns")),
    ("lockbench", "%s (git %s, %s %s)" % (lb["version"], lb["git"], lb["compiler"], lb["cflags"])),
]:
    print("| %s | %s |" % (k, v))
PY
{
	echo "# Performance: measured figures"
	echo
	echo "Generated by \`make report\` (scripts/report.sh); do not edit: run it"
	echo "again on your machine.  Every figure below is the output of the"
	echo "command printed above it, on the host described here, and moves with"
	echo "the host and its load: read ratios, not absolutes."
	echo
	echo "Measured from $start to $(date -u +%Y-%m-%dT%H:%M:%SZ);"
	echo "load average (1, 5, 15 min) $load_start at the start, $load_end at the end."
	echo
	echo 'The host (`lockbench system check -f json`, run just before the sections):'
	echo
	cat "$tmp/head"
	echo
	cat "$tmp/body"
} >"$tmp/report.md"
mv "$tmp/report.md" "$OUT"
echo "report: wrote $OUT" >&2
