#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# validate-marks.sh - is the `!` mark right?  Makes ground truth and
# reports, for every noise rule (docs/method.md, "Noise"), how often it
# fires on quiet runs and how often it catches the causes it should,
# and whether flagged runs are further from their point's median than
# unflagged ones.  The causes are made here, each bounded by `timeout`
# and ended by the script:
#   quiet     the default workload and locks at 1 and 2 threads, INV
#             invocations (no cause);
#   busy      a busy loop pinned to worker 0's CPU for a whole
#             invocation (shared_cpu should fire on every run);
#   part      a busy loop on worker 0's CPU for PART_S seconds inside the
#             second run of a 1-thread invocation of 3 runs of 1 s (that
#             run should be flagged);
#   sigstop   the process stopped (SIGSTOP) for 100 ms inside the second
#             run of such an invocation, a tenth of its window (stopped
#             should fire on that run);
#   memory    a memory-hungry process (dd from /dev/zero into a 64 MiB
#             buffer) on the other CPU for a whole invocation: no rule
#             claims to see it; the report says how often they fire and
#             how far its runs moved.
# Needs 2 CPUs (worker 0 on CPU 1, the memory hog on CPU 0), taskset,
# timeout and python3.  Run it on a quiet machine: the quiet figures are
# what it says about false alarms.
#   scripts/validate-marks.sh [./lockbench]
#   INV (3) invocations of the quiet and busy sets; RUNS (default -r of
#   lockbench when empty) runs per invocation; DURATION (0.5, lockbench's
#   default -d) seconds a window; REPS (3) repetitions of part, sigstop
#   and memory; PART_S (0.3) the busy loop's seconds in one run's 1 s
#   window; LB_ARGS (--no-tune) more lockbench options; SETS (all of
#   "quiet busy part sigstop memory") the sets to make.  KEEP=DIR keeps
#   the JSON files.
set -uo pipefail
LB=${1:-./lockbench}
INV=${INV:-3}
RUNS=${RUNS:-}
DURATION=${DURATION:-0.5}
REPS=${REPS:-3}
PART_S=${PART_S:-0.3}
SETS=" ${SETS:-quiet busy part sigstop memory} "
read -r -a EXTRA <<<"${LB_ARGS:---no-tune}"
die() { echo "validate-marks: $*" >&2; exit 2; }
[ -x "$LB" ] || die "$LB is not an executable lockbench"
for v in INV REPS; do
	case ${!v} in '' | *[!0-9]* | 0) die "$v (${!v}) is not a positive count" ;; esac
done
case $RUNS in *[!0-9]*) die "RUNS ($RUNS) is not a count" ;; esac
for v in DURATION PART_S; do
	case ${!v} in '' | *[!0-9.]* | *.*.*) die "$v (${!v}) is not a number of seconds" ;; esac
done
[ "$(nproc)" -ge 2 ] || die "needs 2 CPUs (worker 0 on CPU 1, a cause on CPU 0)"
for c in taskset timeout python3; do
	command -v "$c" >/dev/null || die "needs $c"
done
dir=$(mktemp -d)
HOG=
RUN=
cleanup() {
	[ -n "$HOG" ] && kill "$HOG" 2>/dev/null
	[ -n "$RUN" ] && kill "$RUN" 2>/dev/null
	[ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$dir"/*.json "$KEEP"/ 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
R=()
[ -n "$RUNS" ] && R=(-r "$RUNS")

# hog CPU SECONDS KIND: a cause on CPU for at most SECONDS, in the
# background ($HOG); KIND busy (a shell loop) or memory (dd).
hog() {
	case $3 in
	busy) timeout "$2" taskset -c "$1" sh -c 'while :; do :; done' & ;;
	memory) timeout "$2" taskset -c "$1" dd if=/dev/zero of=/dev/null bs=64M 2>/dev/null & ;;
	esac
	HOG=$!
}
unhog() {
	[ -n "$HOG" ] && kill "$HOG" 2>/dev/null
	wait "$HOG" 2>/dev/null
	HOG=
}

# lb NAME ARGS...: one invocation into $dir/NAME.json, bounded in time.
lb() {
	local name=$1; shift
	timeout 3600 "$LB" "$@" "${EXTRA[@]}" -q -f json -o "$dir/$name.json" ||
		echo "validate-marks: $name: lockbench exit $?" >&2
}

# during NAME SECONDS ACTION ARGS...: one 1-thread invocation of tas on
# CPU 1, 3 runs of -d 1; SECONDS after the second run's progress line
# (its start, a warm-up of 1 s, then SECONDS - 1 into its window, with
# room for a slow start), ACTION.  The script waits for that line in a
# blocking read of lockbench's stderr (a FIFO), never polling: a poll
# loop on the other CPU is itself a cause (on a host whose two vCPUs
# share a core it cost the first run about 10%, unflagged).
during() {
	local name=$1 at=$2 action=$3 pid lbpid= line done=; shift 3
	rm -f "$dir/fifo"
	mkfifo "$dir/fifo" || die "cannot make a FIFO in $dir"
	timeout 600 "$LB" -l tas -t 1 -p cpus:1 -r 3 --warmup 1 -d 1 "${EXTRA[@]}" \
		-f json -o "$dir/$name.json" 2>"$dir/fifo" &
	pid=$!
	RUN=$pid
	while IFS= read -r line; do
		printf '%s\n' "$line" >>"$dir/$name.err"
		[ -n "$done" ] && continue
		case $line in *"run 2/3"*) ;; *) continue ;; esac
		done=1
		lbpid=$(ps -o pid= --ppid "$pid" | tr -d ' ')
		sleep "$at"
		if [ -n "$lbpid" ]; then
			"$action" "$lbpid" "$@"
		fi
	done <"$dir/fifo"
	[ -n "$lbpid" ] || echo "validate-marks: $name: lockbench did not reach its second run" >&2
	wait "$pid" || echo "validate-marks: $name: lockbench exit $?" >&2
	RUN=
}
part_hog() { hog 1 "$2" busy; sleep "$2"; unhog; }
stop_for() { kill -STOP "$1"; sleep "$2"; kill -CONT "$1"; }

want() { [[ $SETS == *" $1 "* ]]; }
if want quiet; then
	echo "validate-marks: quiet, $INV invocations" >&2
	for i in $(seq "$INV"); do lb "quiet-$i" -t 1,2 -d "$DURATION" "${R[@]}"; done
fi
if want busy; then
	echo "validate-marks: busy loop on worker 0's CPU, $INV invocations" >&2
	for i in $(seq "$INV"); do
		hog 1 3600 busy
		lb "busy-$i" -t 1,2 -p cpus:1,0 -d "$DURATION" "${R[@]}"
		unhog
	done
fi
echo "validate-marks: causes inside one run, $REPS each" >&2
for i in $(seq "$REPS"); do
	want part && during "part-$i" 1.3 part_hog "$PART_S"
	want sigstop && during "sigstop-$i" 1.4 stop_for 0.1
	if want memory; then
		hog 0 3600 memory
		lb "memory-$i" -l tas -t 1 -p cpus:1 -d "$DURATION" "${R[@]}"
		unhog
		lb "memquiet-$i" -l tas -t 1 -p cpus:1 -d "$DURATION" "${R[@]}"
	fi
done

python3 - "$dir" "$PART_S" <<'PY'
import glob, json, os, statistics as st, sys
d, part_s = sys.argv[1], float(sys.argv[2])
RULES = ("shared_cpu", "stopped")

def load(prefix):
    out = []
    for f in sorted(glob.glob(os.path.join(d, prefix + "-*.json"))):
        try:
            out.append(json.load(open(f)))
        except (OSError, ValueError):
            pass
    return out

def points(docs):
    for doc in docs:
        for p in doc["points"]:
            if p.get("status", "ok") == "ok" and p.get("runs"):
                yield doc, p

def noisy(r):
    return bool(set(r.get("flags", [])) & set(RULES))

def pct(a, b):
    return "%d of %d (%.0f%%)" % (a, b, 100.0 * a / b) if b else "none"

quiet = load("quiet")
runs = [r for _, p in points(quiet) for r in p["runs"]]
pts = list(points(quiet))
print("machine: %s" % (quiet[0]["machine"].get("cpu_model", "?") if quiet else "?"))
print()
print("quiet (no cause): %d invocations, %d points, %d runs" % (len(quiet), len(pts), len(runs)))
print("  runs flagged:          %s   (target: at most 5%%)" % pct(sum(map(noisy, runs)), len(runs)))
print("  points marked !:       %s   (target: at most 10%%)"
      % pct(sum(p["noise"]["flagged_runs"] > 0 for _, p in pts), len(pts)))
for rule in RULES:
    print("  %-22s %s" % (rule + ":", pct(sum(rule in r.get("flags", []) for r in runs), len(runs))))
print("  left out:              %s" % pct(sum(r.get("excluded", False) for r in runs), len(runs)))

busy = [r for _, p in points(load("busy")) for r in p["runs"]]
caught = [r for r in busy if "shared_cpu" in r.get("flags", [])]
print()
print("busy loop pinned to worker 0's CPU for whole invocations (shared_cpu should fire):")
print("  caught:                %s   (target: at least 90%%)" % pct(len(caught), len(busy)))
print("  with a reason:         %s" % pct(sum(bool(r.get("reason")) for r in caught), len(caught)))
if caught:
    print("  e.g.:                  %s" % caught[len(caught) // 2]["reason"])
# The one rule for runs that lost their CPU (a quarter of the window or
# more: left out, at every point): the busy loop takes about half of
# worker 0's CPU, so each of its runs should be out, and a point left
# with none gives no verdict (-!), never a figure from half-speed runs.
waits = sorted(max(w["wait_share"] or 0 for w in r["workers"]) for r in busy if r.get("workers"))
bpts = list(points(load("busy")))
print("  left out (lost >= 1/4): %s   (target: every run that lost a quarter)"
      % pct(sum(r.get("excluded", False) for r in busy), len(busy)))
print("  runs that lost >= 1/4 but kept: %d" % sum(
      1 for r in busy if r.get("workers") and not r.get("excluded")
      and max(w["wait_share"] or 0 for w in r["workers"]) >= 0.25))
if waits:
    print("  worst worker's wait:   %.2f to %.2f of the window (median %.2f)"
          % (waits[0], waits[-1], st.median(waits)))
print("  points left no run:    %s (no verdict: shown -!)"
      % pct(sum(p["summary"]["n"] == 0 for _, p in bpts), len(bpts)))

def one_run(prefix, rule, what):
    hit, other, n, why, per = 0, 0, 0, [], []
    for _, p in points(load(prefix)):
        rs = p["runs"]
        if len(rs) < 2:
            continue
        n += 1
        hit += rule in rs[1].get("flags", [])
        other += sum(rule in r.get("flags", []) for i, r in enumerate(rs) if i != 1)
        if rs[1].get("reason"):
            why.append(rs[1]["reason"])
        per.append(", ".join("%.3f" % (max(w["wait_share"] or 0 for w in r["workers"])
                                       if rule == "shared_cpu" else r["stopped_s"])
                             for r in rs if r.get("workers")))
    print()
    print("%s (%s should fire on that run):" % (what, rule))
    print("  caught:                %s" % pct(hit, n))
    print("  other runs flagged:    %s" % pct(other, 2 * n))
    for line in per:
        print("  runs' %-16s %s" % ("wait:" if rule == "shared_cpu" else "stopped_s:", line))
    if why:
        print("  e.g.:                  %s" % why[0])

one_run("part", "shared_cpu", "a busy loop on worker 0's CPU for %.1f s of one 1 s window" % part_s)
one_run("sigstop", "stopped", "the process stopped for 100 ms in one run")

mem = [r for _, p in points(load("memory")) for r in p["runs"]]
mq = [r for _, p in points(load("memquiet")) for r in p["runs"]]
print()
print("a memory-hungry process on the other CPU (no rule claims to see it):")
print("  flagged:               %s" % pct(sum(map(noisy, mem)), len(mem)))
if mem and mq:
    m1 = st.median(r["ops_per_sec"] for r in mem)
    m0 = st.median(r["ops_per_sec"] for r in mq)
    print("  median rate:           %+.1f%% against the same runs without it" % (100 * (m1 / m0 - 1)))

# Distance of each run from its point's median, flagged against not:
# over the quiet set and the sets with a cause inside one run.
dev = {True: [], False: []}
for doc, p in points(quiet + load("part") + load("sigstop")):
    rates = [r["ops_per_sec"] for r in p["runs"] if r["ops_per_sec"] > 0]
    if len(rates) < 2:
        continue
    med = st.median(rates)
    for r in p["runs"]:
        if r["ops_per_sec"] > 0:
            dev[noisy(r)].append(abs(r["ops_per_sec"] / med - 1) * 100)
print()
print("distance from the point's median (quiet, part and sigstop sets):")
for k, name in ((True, "flagged"), (False, "unflagged")):
    print("  %-22s %s" % (name + ":", "median %.2f%% over %d runs" % (st.median(dev[k]), len(dev[k]))
                          if dev[k] else "no runs"))
if dev[True] and dev[False]:
    print("  flagged further:       %s" % ("yes" if st.median(dev[True]) > st.median(dev[False]) else "NO"))
PY
