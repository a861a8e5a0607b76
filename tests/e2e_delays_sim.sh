#!/usr/bin/env bash
# End-to-end: the delays hold on simulated hosts as well as on this one
# (a design tuned to one host's clock and pause cost fails here, not on a
# user's machine), the simulated-host knobs do what they say, and a
# request below what the host holds is said once, before the sweep.
# A tolerant version of scripts/bench-delays-hosts.sh, which holds the
# delays to 5% and reports (make report): here each delay within 50% of
# its request (LB_DELAY_TOL), sampled (the runner's section samples)
# and, where the machine lets the workers run (CPU share of the window
# at least 0.5), from outside (ns/op per CPU-second at the request less
# at 0).  50% passes on a busy machine and still fails a design whose
# delays are twice what was asked (or half); the tight figures are the
# benchmark's.
# Usage: e2e_delays_sim.sh BINARY
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"
SHORT=(-r 1 --warmup 0.1 -d 0.2 --no-tune -q -f json)
TOL=${LB_DELAY_TOL:-0.5}

# The calibration's constants (the block at the top of workloads/loop.c)
# are the ones docs/method.md's worker loop, json.md and loop.h state, and
# cpu_relax()'s timing (topology/host/clock.c) the one method.md states: a
# count or a gain changed in one place and not in the others fails here.
python3 - "$(dirname "$0")/.." <<'PY' && ok || bad "calibration constants and their docs disagree (above)"
import re, sys
root = sys.argv[1]
src = open(root + "/workloads/loop.c").read()
c = {k: v for k, v in re.findall(r"^#define ((?:CAL|LEARN)_\w+) (.+)$", src, re.M)}
want = ("CAL_ROUNDS CAL_BATCH_NS CAL_BATCH_MIN CAL_SINGLES CAL_OFF CAL_SETTLE "
        "CAL_ESTIMATES CAL_PASSES CAL_SPIN_STEPS CAL_MAX_NS LEARN_STEP LEARN_DRAWN "
        "LEARN_TURNS").split()
missing = [k for k in want if k not in c]
assert not missing, "workloads/loop.c has no %s" % missing
n = {k: int(float(v)) for k, v in c.items() if re.fullmatch(r"[0-9.]+", v)}
step = re.fullmatch(r"\(\(1 << WL_SUB\) / (\d+)\)", c["LEARN_STEP"])
assert step, c["LEARN_STEP"]
word = {2: "twice", 3: "three", 8: "eight", 9: "nine", 10: "ten"}
w = lambda k: word.get(n[k], str(n[k]))
flat = lambda t: " ".join(t.split())
doc = open(root + "/docs/method.md").read()
loop = flat(doc[doc.index("## The worker loop"):doc.index("## Correctness of every run")])
head = flat(open(root + "/workloads/loop.h").read())
claims = [
    (loop, "the least of %s batches" % w("CAL_ROUNDS")),
    (loop, "about %d us long and at least %d delays" % (n["CAL_BATCH_NS"] / 1000,
                                                        n["CAL_BATCH_MIN"])),
    (loop, "%d singles" % n["CAL_SINGLES"]),
    (loop, "more than %s reads off" % w("CAL_OFF")),
    (loop, "moves %s by what a pass measured" % w("CAL_SETTLE")),
    (loop, "median of %s more passes" % w("CAL_ESTIMATES")),
    (loop, "up to %s passes" % w("CAL_PASSES")),
    (loop, "spins of %s counter steps" % w("CAL_SPIN_STEPS")),
    (loop, "longer than %d us is not calibrated" % (n["CAL_MAX_NS"] / 1000)),
    (loop, "1/%s of a tick" % step.group(1)),
    (loop, "1/%d of its error" % n["LEARN_DRAWN"]),
    (loop, "1/%d of the error" % n["LEARN_TURNS"]),
    (loop, "median of %s calibrations" % w("CAL_ESTIMATES")),
    (flat(open(root + "/docs/json.md").read()), "median of %s calibrations" % w("CAL_ESTIMATES")),
    (head, "1/%s of a tick, a drawn length's by 1/%d of the error" % (step.group(1),
                                                                    n["LEARN_DRAWN"])),
    (head, "by 1/%d of it" % n["LEARN_TURNS"]),
    (head, "median of %s calibrations" % w("CAL_ESTIMATES")),
]
# and cpu_relax() as `system check` reports it: the clock's least of its rounds
clk = open(root + "/topology/host/clock.c").read()
assert "rlx = fmin(rlx" in clk, "topology/host/clock.c: the pause no longer the least"
rounds = int(re.search(r"double turns\[(\d+)\]", clk).group(1))
claims.append((flat(doc), "`cpu_relax()`**: one pause as every run calibrates it "
               "(`lb_clock_rate()`): the least of %s rounds" % word.get(rounds, rounds)))
off = [c for t, c in claims if c not in t]
assert not off, "not stated: %s" % off
PY

# check FILE KEY HOST: every nonzero request of the sweep in FILE within
# TOL, sampled and (CPU share permitting) from outside.
check() {
	python3 - "$1" "$2" "$3" "$TOL" <<'PY'
import json, sys
path, key, host, tol = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
d = json.load(open(path))
def per_op(r):
    # per thread, per CPU-second of the window: the threads' mean (None
    # when a thread made no operation in it: the machine gave it none)
    x = [r["window_s"] * (w.get("cpu_share") or 1) / n * 1e9
         for w, n in zip(r["workers"], r["thread_ops"]) if n]
    return sum(x) / len(x) if len(x) == len(r["workers"]) else None
pts = {p["runs"][0][key + "_ns_requested"]: p["runs"][0] for p in d["points"]}
base = pts[0]
busy = (min((w.get("cpu_share") or 0) for r in pts.values() for w in r["workers"]) < 0.5
        or any(per_op(r) is None for r in pts.values()))
bad = 0
for req, r in sorted(pts.items()):
    if not req:
        continue
    s = r[key + "_ns_actual_median"]
    out = -1 if busy else per_op(r) - per_op(base)
    okay = s is not None and abs(s - req) <= tol * req and (busy or abs(out - req) <= tol * req)
    bad += not okay
    print("%-10s %-4s %5.0f sampled %6.1f outside %6.1f%s %s" % (host, key, req, s or -1, out,
          " (not checked: the machine is busy)" if busy else "", "ok" if okay else "OFF"),
          file=sys.stderr if not okay else sys.stdout)
sys.exit(1 if bad else 0)
PY
}

# host_checks HOST [VAR=VALUE]: the delays on one host; 0 if all held.
host_checks() {
	local host=$1 f=$OUT/$1 rc=0
	shift
	# the default parallel section (exponential) and the critical section
	env "$@" "$BIN" -l null -t 1 --cs-lines 1 --ncs-ns 0,100,400 "${SHORT[@]}" \
		-o "$f.exp.json" 2>"$OUT/stderr" && check "$f.exp.json" ncs "$host" || rc=1
	env "$@" "$BIN" -l null -t 1 --cs-lines 1 --cs-ns 0,100,400 --ncs-ns 0 "${SHORT[@]}" \
		-o "$f.cs.json" 2>"$OUT/stderr" && check "$f.cs.json" cs "$host" || rc=1
	# beside a waiter: both sections from their samples
	env "$@" "$BIN" -l ticket -t 2 --cs-ns 100 --ncs-ns 100 "${SHORT[@]}" \
		-o "$f.two.json" 2>"$OUT/stderr" &&
		python3 - "$f.two.json" "$TOL" "$host" <<'PY' || rc=1
import json, sys
r = json.load(open(sys.argv[1]))["points"][0]["runs"][0]
tol = float(sys.argv[2])
for k in ("cs", "ncs"):
    a = r[k + "_ns_actual_median"]
    okay = a is not None and abs(a - 100) <= tol * 100
    print("%-10s %-4s   100 sampled %6.1f beside a waiter (ticket) %s" % (
          sys.argv[3], k, a or -1, "ok" if okay else "OFF"),
          file=sys.stdout if okay else sys.stderr)
    assert okay
PY
	return $rc
}

# A design that depends on the host is off on every try; a busy
# machine's preemption is not: a host whose delays were off is measured
# once more before it counts as a failure.
for host in here clock+10 clock+30 pause+20 pause+120; do
	case $host in
	here) env=() ;;
	clock+*) env=(LOCKBENCH_SIM_CLOCK_NS=${host#clock+}) ;;
	pause+*) env=(LOCKBENCH_SIM_PAUSE_NS=${host#pause+}) ;;
	esac
	if host_checks "$host" "${env[@]}"; then
		ok
	else
		echo "e2e_delays_sim: $host: delays off, measuring again" >&2
		host_checks "$host" "${env[@]}" && ok || bad "$host: delays off twice (above)"
	fi
done

# Below the floor (a read 30 ns dearer: 50 ns is loop turns, no read):
# the turns keep near the length at 1 thread and beside a busy sibling
# at 2, where a count of turns calibrated alone made 50 ns of 133.
subfloor() {
	local t
	for t in 1 2; do
		env LOCKBENCH_SIM_CLOCK_NS=30 "$BIN" -l null -t $t --cs-lines 1 --cs-ns 0,50 \
			--ncs-ns 0 "${SHORT[@]}" -o "$OUT/sub.$t.json" 2>"$OUT/stderr" &&
			check "$OUT/sub.$t.json" cs "turns/$t" || return 1
	done
}
if subfloor; then
	ok
else
	echo "e2e_delays_sim: turns: off, measuring again" >&2
	subfloor && ok || bad "turns below the floor off twice (above)"
fi
env LOCKBENCH_SIM_CLOCK_NS=30 "$BIN" -l null -t 1 --cs-ns 30 --ncs-ns 0 "${SHORT[@]}" \
	-o "$OUT/sub.json" 2>"$OUT/stderr"
python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["calibration"]
assert c["cs_delay"] == "turns" and c["ncs_delay"] == "none", c
assert c["delay_floor_ns"] > 30, c' "$OUT/sub.json" && ok || bad "turns not in the calibration"

# The knobs reach the calibration: a read 30 ns dearer, a pause 120 ns
# dearer, recorded as simulated; the real host has no "simulated".  The
# differences within 2x (half to twice the knob): timing figures.
python3 - "$OUT" <<'PY' && ok || bad "simulated hosts not in the calibration"
import json, sys
c = {h: json.load(open("%s/%s.exp.json" % (sys.argv[1], h)))["calibration"]
     for h in ("here", "clock+30", "pause+120")}
assert "simulated" not in c["here"], c["here"]
assert c["clock+30"]["simulated"]["clock_ns"] == 30
d = c["clock+30"]["clock_read_ns"] - c["here"]["clock_read_ns"]
assert 15 <= d <= 60, d
d = c["pause+120"]["relax_ns"] - c["here"]["relax_ns"]
assert 60 <= d <= 240, d
for k in ("clock_read_ns", "clock_resolution_ns", "relax_ns", "empty_loop_ns",
          "delay_floor_ns", "delay_overhead_ns", "sample_span_ns", "core_speed_ghz"):
    assert c["here"][k] > 0, k
# the core's clock at calibration: a core of 0.2-10 GHz, the same core
# on the simulated hosts (the knobs slow reads and pauses, not the core)
assert 0.2 < c["here"]["core_speed_ghz"] < 10, c["here"]
assert 0.5 < c["clock+30"]["core_speed_ghz"] / c["here"]["core_speed_ghz"] < 2, c
assert c["here"]["clock_read_ns"] >= c["here"]["empty_loop_ns"]
PY

# A request below what the host holds: one note before the sweep, no
# warning after any point, whatever the thread counts.
expect_exit 0 "short delay" -- env LOCKBENCH_SIM_CLOCK_NS=30 "$BIN" -l null -t 1,2 -r 1 \
	--warmup 0.05 -d 0.1 --no-tune --ncs-ns 5 --ncs-dist fixed -f csv
n=$(grep -c "below the shortest delay this host holds" "$OUT/stderr")
[ "$n" = 1 ] && ok || bad "short delay: $n notes, want 1: $(cat "$OUT/stderr")"
grep -q "warning:" "$OUT/stderr" && bad "short delay warned: $(cat "$OUT/stderr")" || ok

# A knob that is not a number: said, ignored.
expect_exit 0 "bad knob" -- env LOCKBENCH_SIM_PAUSE_NS=lots "$BIN" -l null -t 1 -r 1 \
	--warmup 0.05 -d 0.1 --no-tune -q -f json -o "$OUT/bad.json"
grep -q "LOCKBENCH_SIM_PAUSE_NS (lots): not a number" "$OUT/stderr" && ok ||
	bad "bad knob not said: $(cat "$OUT/stderr")"

e2e_done
