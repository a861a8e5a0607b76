#!/usr/bin/env bash
# lockbench side by side with its peers at 1 thread, empty critical and
# parallel sections, interleaved: run k of every contender, then run k+1.
# Prints ns per lock+unlock pair (median of the runs) and lockbench's
# throughput relative to the best peer's (peer ns / lockbench ns: 1.00
# is as fast, below 0.90 is a lockbench loop that costs more than the
# peer's).
#
#   scripts/bench-peers.sh [./lockbench]
#
# Peers, built from source folders you name (nothing is downloaded; no
# peer code is in this repository); any left unset is skipped:
#   LOCKHAMMER_DIR  ARM's synchronization-benchmarks checkout (the whole
#                   repository: lockhammer includes ../../ext)
#   CK_DIR          Concurrency Kit checkout (regressions/ck_spinlock)
#   LIBSLOCK_DIR    libslock checkout (bmarks/stress_one.c)
# or as arguments after the binary: lockhammer=DIR ck=DIR libslock=DIR.
# CPU: run every contender on that one CPU (lockbench -p cpus:CPU,
# lockhammer -o CPU, taskset for the others; default: lockbench's and
# lockhammer's first CPU, the scheduler's choice for ck and libslock).
# CLOCK: cpu (default) times the 1-thread runs by the CPU time of the
# thread (lockbench's task-clock counter per operation, lockhammer's
# cputime_ns_per_lock_acquire, getrusage of ck's and libslock's processes, whose one
# thread runs the loop): time spent waiting for a CPU on a loaded
# machine is not in it; wall, by the wall clock, as each tool reports.
# RUNS (default 5) runs of DURATION (default 1) seconds each; LB_ARGS:
# more lockbench options (e.g. LB_ARGS="--lat-sample 0": no latency
# sampling, whose two clock reads per 256 operations the default pays).
#
# The same section everywhere: lockbench --cs-lines 0 --ncs-ns 0 (the
# mutual-exclusion check stays on); lockhammer -c 0 -p 0 (not -c 0ns,
# which is a calibrated loop of 0-30 iterations, not an empty section);
# ck's LATENCY benchmarks (lock, unlock, nothing between); libslock's
# stress_one -n 1 -a 0 -p 0 -c 0.
# lh+check: lockhammer with lockbench's counter word patched into its
# loop (scripts/peers/lockhammer-handover.patch: a load, a store and a
# load of a line of its own per operation, as lockbench's check does), and
# lockbench's ratio against it: what is left of the difference from the
# best peer once both loops do the same work.
#
# THREADS (default: 1 and every count from 2 to the CPUs online): at
# each count above 1, ns per handover (the lock passing from one thread
# to another, docs/method.md, "Handovers"): lockbench's JSON
# (runs[].handover.ns_per_handover, -t N) beside lockhammer's and ck's
# loops with the same owner-word count and check patched in
# (scripts/peers/*-handover.patch, applied to copies: lockhammer's -D
# loop, ck's THROUGHPUT loop for DURATION whole seconds), all with empty
# sections, interleaved the same way.  Each also shows its handovers per
# acquisition (a lock that lets a thread retake it hands over less), and
# lockhammer unpatched its ns per acquisition, so that the check's cost
# per handover is (patched - unpatched ns per acquisition) / handovers
# per acquisition.  libslock has no such loop patched: not in this table.
set -euo pipefail
BIN=$(realpath "${1:-./lockbench}")
shift || true
. "$(dirname "$0")/peers-build.sh"
peers_args bench-peers "lockhammer ck libslock" "$@"
RUNS=${RUNS:-5}
CLOCK=${CLOCK:-cpu}
case $CLOCK in cpu | wall) ;; *) echo "bench-peers: CLOCK ($CLOCK): cpu or wall" >&2; exit 2 ;; esac
DURATION=${DURATION:-1}
PIN=() LB_PIN=() LH_PIN=()
if [ -n "${CPU:-}" ]; then
	PIN=(taskset -c "$CPU") LB_PIN=(-p "cpus:$CPU") LH_PIN=(-o "$CPU")
fi
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
log() { echo "bench-peers: $*" >&2; }

# contender table: NAME LOCK COMMAND... (lines in $W/contenders)
: >"$W/contenders"
add() { echo "$*" >>"$W/contenders"; }

THREADS=${THREADS:-1 $(seq 2 "$(getconf _NPROCESSORS_ONLN)" | tr '\n' ' ')}
ONE=0 MANY=()
for t in $THREADS; do
	[[ $t =~ ^[1-9][0-9]*$ ]] || { echo "bench-peers: THREADS ($THREADS): want thread counts" >&2; exit 2; }
	if [ "$t" = 1 ]; then ONE=1; else MANY+=("$t"); fi
done
if [ "$ONE" = 1 ]; then
	for l in null tas ttas ticket anderson mcs clh qspinlock pthread_mutex; do
		add "lockbench $l lb $l"
	done
fi
# the handover contenders: NAME LOCK hKIND ARGS, run once per count in MANY
: >"$W/hcontenders"
hadd() { echo "$*" >>"$W/hcontenders"; }
HLOCKS="tas ticket anderson mcs clh qspinlock pthread_mutex"
for l in $HLOCKS; do hadd "lockbench $l hlb $l"; done

# ---- build the peers (in copies under $W) ----------------------------------
# STEPS x 4 pairs per ck run: about DURATION seconds at ~5 ns a pair.
steps=$(awk -v d="$DURATION" 'BEGIN {printf "%d", d * 5e7}')
if [ -n "${LOCKHAMMER_DIR:-}" ]; then
	log "building lockhammer from $LOCKHAMMER_DIR"
	peers_build_lockhammer "$LOCKHAMMER_DIR" >"$W/lh.list" ||
		log "lockhammer did not build (see its make output): skipped"
	[ "$ONE" = 1 ] && while read -r lock bin; do add "lockhammer $lock lh $bin"; done <"$W/lh.list"
	# unpatched at N threads: its ns per acquisition, for the check's cost
	[ ${#MANY[@]} -gt 0 ] && while read -r lock bin; do
		[ "$lock" = null ] || hadd "lockhammer-plain $lock hlp $bin"
	done <"$W/lh.list"
	log "building lockhammer with the handover count patched in"
	peers_build_lockhammer_handover "$LOCKHAMMER_DIR" >"$W/lhh.list" ||
		log "patched lockhammer did not build: skipped"
	# at 1 thread too: lockhammer's loop doing what lockbench's does
	[ "$ONE" = 1 ] && while read -r lock bin; do add "lockhammer+check $lock lh $bin"; done <"$W/lhh.list"
	[ ${#MANY[@]} -gt 0 ] && while read -r lock bin; do hadd "lockhammer $lock hlh $bin"; done <"$W/lhh.list"
fi
if [ -n "${CK_DIR:-}" ]; then
	log "building Concurrency Kit's spinlock benchmarks from $CK_DIR"
	peers_build_ck "$CK_DIR" "$steps" >"$W/ck.list" || log "ck did not build: skipped"
	[ "$ONE" = 1 ] && while read -r lock bin; do add "ck $lock ck $steps $bin"; done <"$W/ck.list"
	if [ ${#MANY[@]} -gt 0 ]; then
		secs=$(awk -v d="$DURATION" 'BEGIN {s = int(d + 0.5); print s < 1 ? 1 : s}')
		log "building Concurrency Kit's THROUGHPUT benchmarks with the handover count patched in"
		peers_build_ck_handover "$CK_DIR" "$secs" >"$W/ckh.list" ||
			log "patched ck did not build: skipped"
		while read -r lock bin; do hadd "ck $lock hck $bin"; done <"$W/ckh.list"
	fi
fi
if [ -n "${LIBSLOCK_DIR:-}" ]; then
	log "building libslock's stress_one from $LIBSLOCK_DIR (one binary per lock)"
	if [ "$ONE" = 1 ]; then
		peers_build_libslock "$LIBSLOCK_DIR" >"$W/sl.list"
		while read -r lock bin; do add "libslock $lock sl $bin"; done <"$W/sl.list"
	fi
fi

# ---- one run of one contender: ns per pair on stdout -------------------------
# cpu_s OUT CMD...: run CMD (stdout and stderr to OUT); print the CPU
# seconds (user + system) it used, from getrusage (microseconds).
cpu_s() {
	python3 -c 'import resource, subprocess, sys
with open(sys.argv[1], "w") as o:
    subprocess.run(sys.argv[2:], stdout=o, stderr=subprocess.STDOUT)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.6f" % (r.ru_utime + r.ru_stime))' "$@"
}
run_one() {
	local kind=$1 c
	shift
	case $kind in
	lb)
		"$BIN" -l "$1" -t 1 -r 1 --warmup 0.2 -d "$DURATION" --cs-lines 0 --ncs-ns 0 \
			--no-tune --no-probe -q -f json -o "$W/lb.json" "${LB_PIN[@]}" \
			--counters "$([ "$CLOCK" = cpu ] && echo task-clock || echo off)" \
			${LB_ARGS:-} >/dev/null # split on purpose
		CLOCK=$CLOCK python3 -c 'import json,os,sys; d=json.load(open(sys.argv[1]));
r=d["points"][0]["runs"][0]
assert d["points"][0]["status"] == "ok", d["points"][0]["status"]
if os.environ["CLOCK"] == "cpu": print("%.3f" % r["perf"]["events"]["task-clock"]["per_op"])
else: print("%.3f" % (1e9 / r["ops_per_sec"]))' "$W/lb.json"
		;;
	lh) # its cputime_ns_per_lock_acquire (-v: to the decimal) or locks/wall_sec
		if [ "$CLOCK" = cpu ]; then
			"$1" -c 0 -p 0 -t 1 -D "$DURATION" -v "${LH_PIN[@]}" 2>&1 |
				awk '/^cputime_ns_per_lock_acquire = / {v = $3} END {if (v > 0) printf "%.3f\n", v}'
		else
			"$1" -c 0 -p 0 -t 1 -D "$DURATION" "${LH_PIN[@]}" 2>&1 |
				awk '/locks\/wall_sec/ {h = 1; next} h && NF {v = $NF} END {if (v > 0) printf "%.3f\n", 1e9 / v}'
		fi
		;;
	ck)
		local steps=$1 t0 t1
		t0=$(date +%s%N)
		c=$(cpu_s "$W/ck.out" "${PIN[@]}" "$2")
		t1=$(date +%s%N)
		[ "$CLOCK" = cpu ] && t0=0 t1=$(awk -v c="$c" 'BEGIN {printf "%.0f", c * 1e9}')
		awk -v a="$t0" -v b="$t1" -v s="$steps" 'BEGIN {printf "%.3f\n", (b - a) / (4 * s)}'
		;;
	sl)
		c=$(cpu_s "$W/sl.out" "${PIN[@]}" "$1" -n 1 -a 0 -p 0 -c 0 \
			-d "$(awk -v d="$DURATION" 'BEGIN {printf "%d", d * 1000}')")
		awk -F'[( ]+' -v cpu="$([ "$CLOCK" = cpu ] && echo "$c" || echo 0)" \
			'/^#acquires/ {n = $3; for (i = 1; i <= NF; i++) if ($i == "/") v = $(i - 1)}
			END {if (cpu > 0 && n > 0) printf "%.3f\n", cpu * 1e9 / n; else if (!cpu && v > 0) printf "%.3f\n", 1e9 / v}' "$W/sl.out"
		;;
	esac
}

# ---- one run at N threads: "NS_PER_HANDOVER HANDOVERS_PER_ACQUISITION" -------
# (lockhammer-plain: "- NS_PER_ACQUISITION"); the wall time of the run over
# the handovers (or acquisitions) of all its threads.
hand_sum() { # the lb-handover lines on stdin
	awk '/^lb-handover:/ {for (i = 2; i < NF; i++) {if ($i == "acquires") a += $(i + 1);
		if ($i == "handovers") h += $(i + 1); if ($i == "violations") v += $(i + 1);
		if ($i == "walltime_ns" && $(i + 1) > w) w = $(i + 1)}}
	END {if (v > 0) {print "bench-peers: mutual exclusion violated " v " times" > "/dev/stderr"; exit 1}
		if (h > 0 && a > 0) printf "%.3f %.4f\n", w / h, h / a}'
}
run_hand() {
	local kind=$1 n=$2
	shift 2
	case $kind in
	hlb)
		"$BIN" -l "$1" -t "$n" -r 1 --warmup 0.2 -d "$DURATION" --cs-lines 0 --ncs-ns 0 \
			--no-tune --no-probe -q -f json -o "$W/lb.json" ${LB_ARGS:-} >/dev/null # split on purpose
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
p=d["points"][0]; assert p["status"] == "ok", p["status"]
h=p["runs"][0]["handover"]
if h["handovers"]: print("%.3f %.4f" % (h["ns_per_handover"], h["handovers"] / p["runs"][0]["ops"]))' "$W/lb.json"
		;;
	hlh) "$1" -c 0 -p 0 -t "$n" -D "$DURATION" 2>&1 >/dev/null | hand_sum ;;
	hlp) # "-" and its ns per acquisition in the second field
		"$1" -c 0 -p 0 -t "$n" -D "$DURATION" 2>&1 |
			awk '/locks\/wall_sec/ {h = 1; next} h && NF {v = $NF} END {if (v > 0) printf "- %.3f\n", 1e9 / v}'
		;;
	hck) "$1" "$n" 1 0 2>&1 >/dev/null | hand_sum ;;
	esac
}

# ---- interleaved runs ---------------------------------------------------------
for k in $(seq 1 "$RUNS"); do
	log "round $k of $RUNS"
	while read -r peer lock kind args; do
		# shellcheck disable=SC2086
		ns=$(run_one "$kind" $args) || ns=
		[ -n "$ns" ] && echo "$peer $lock $ns" >>"$W/results"
	done <"$W/contenders"
	for n in "${MANY[@]}"; do
		while read -r peer lock kind args; do
			# shellcheck disable=SC2086
			v=$(run_hand "$kind" "$n" $args) || v=
			[ -n "$v" ] && echo "$n $peer $lock $v" >>"$W/hresults"
		done <"$W/hcontenders"
	done
done

# ---- tables ---------------------------------------------------------------------
if [ "$ONE" = 1 ]; then
touch "$W/results"
CLOCK=$CLOCK LB_ARGS=${LB_ARGS:-} CPU=${CPU:-} python3 - "$W/results" "$RUNS" "$BIN" <<'PY'
import collections, statistics, subprocess, sys
res = collections.defaultdict(list)
for line in open(sys.argv[1]):
    peer, lock, ns = line.split()
    res[(lock, peer)].append(float(ns))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "?")
import os
print("%s per lock+unlock pair at 1 thread, empty sections, median of %s interleaved runs; %s%s%s"
      % ("CPU-time ns" if os.environ["CLOCK"] == "cpu" else "ns", sys.argv[2], cpu,
         "; CPU " + os.environ["CPU"] if os.environ.get("CPU") else "",
         "; lockbench " + os.environ["LB_ARGS"] if os.environ.get("LB_ARGS") else ""))
print("%-14s %10s %11s %11s %11s  %-11s %-15s %11s %s" % ("lock", "lockbench", "lockhammer", "ck",
      "libslock", "best peer", "lockbench/best", "lh+check", "lockbench/lh+check"))
locks = ["null", "tas", "ttas", "ticket", "anderson", "mcs", "clh", "qspinlock", "pthread_mutex"]
for lock in locks:
    med = {p: statistics.median(v) for (l, p), v in res.items() if l == lock}
    if "lockbench" not in med:
        continue
    peers = {p: v for p, v in med.items() if p not in ("lockbench", "lockhammer+check")}
    cell = lambda p: "%11.2f" % med[p] if p in med else "%11s" % "-"
    if peers:
        best = min(peers, key=peers.get)
        ratio = "%.2f" % (peers[best] / med["lockbench"])
    else:
        best, ratio = "-", "-"
    same = ("%.2f" % (med["lockhammer+check"] / med["lockbench"])
            if "lockhammer+check" in med else "-")
    print("%-14s %10.2f %s %s %s  %-11s %-15s %s %s" % (lock, med["lockbench"], cell("lockhammer"),
          cell("ck"), cell("libslock"), best, ratio, cell("lockhammer+check"), same))
PY
fi
if [ ${#MANY[@]} -gt 0 ]; then
touch "$W/hresults"
RUNS=$RUNS LB_ARGS=${LB_ARGS:-} python3 - "$W/hresults" <<'PY'
import collections, os, statistics, sys
res = collections.defaultdict(list)
for line in open(sys.argv[1]):
    n, peer, lock, a, b = line.split()
    res[(int(n), lock, peer)].append((None if a == "-" else float(a), float(b)))
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
            if l.startswith("model name")), "?")
load = open("/proc/loadavg").read().split()[0]
ncpu = os.cpu_count() or 1
if float(load) >= ncpu:
    print("bench-peers: load average %s on %d CPUs: threads seldom run at once, so the times "
          "below are the scheduler's more than the locks'; rerun on a quiet machine" % (load, ncpu))
med = lambda v, i: statistics.median(x[i] for x in v)
for n in sorted({k[0] for k in res}):
    print()
    print("ns per handover at %d threads, empty sections, median of %s interleaved runs "
          "(handovers per acquisition in brackets); %s; load average %s%s"
          % (n, os.environ["RUNS"], cpu, load,
             "; lockbench " + os.environ["LB_ARGS"] if os.environ.get("LB_ARGS") else ""))
    print("%-14s %16s %16s %16s  %-10s %-8s %s" % ("lock", "lockbench", "lockhammer", "ck",
          "best peer", "lb/best", "check ns/handover (lockhammer)"))
    for lock in ["tas", "ticket", "anderson", "mcs", "clh", "qspinlock", "pthread_mutex"]:
        got = {p: v for (m, l, p), v in res.items() if m == n and l == lock}
        if "lockbench" not in got:
            continue
        ns = {p: med(v, 0) for p, v in got.items() if p != "lockhammer-plain"}
        share = {p: med(v, 1) for p, v in got.items()}  # plain: its ns/acquisition
        cell = lambda p: "%9.1f [%.2f]" % (ns[p], share[p]) if p in ns else "%16s" % "-"
        peers = {p: x for p, x in ns.items() if p != "lockbench"}
        best = min(peers, key=peers.get) if peers else None
        ratio = "%.2f" % (peers[best] / ns["lockbench"]) if best else "-"
        check = "-"
        if "lockhammer" in got and "lockhammer-plain" in got:
            # per acquisition: patched wall/acq = ns/handover * share
            pa = ns["lockhammer"] * share["lockhammer"]
            check = "%.1f" % ((pa - share["lockhammer-plain"]) / share["lockhammer"])
        print("%-14s %s %s %s  %-10s %-8s %s" % (lock, cell("lockbench"), cell("lockhammer"),
              cell("ck"), best or "-", ratio, check))
PY
fi
