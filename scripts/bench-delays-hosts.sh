#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Do --cs-ns and --ncs-ns hold whatever the host?  The delay check of
# scripts/bench-delays.sh, on this host and on simulated ones
# (LOCKBENCH_SIM_CLOCK_NS: every clock read costs that much more;
# LOCKBENCH_SIM_PAUSE_NS: every pause of the delays; lockbench.1,
# ENVIRONMENT).  For each host, each kind of delay (--cs-ns; --ncs-ns
# fixed; --ncs-ns exp, the default) at 1 and 2 threads, and each request:
#   sampled  the section lengths the runner samples (JSON
#            cs_ns_actual_median / ncs_ns_actual_median), median over
#            the runs;
#   outside  what the delay added to an operation, from throughput alone:
#            ns/op at the request less ns/op at 0, no clock read
#            involved.  ns/op is per thread and per CPU-second (the
#            window over the thread's operations, times its CPU share,
#            workers[].cpu_share), so a machine shared with other jobs
#            does not read as long delays.  The null lock, so a thread
#            waits for nobody: at 2 threads the delays run beside
#            another thread, and outside still means something.
#   out/host outside * (1 - f), f the fraction of a CPU the host takes
#            away without reporting steal (host_takes.fraction of
#            `lockbench system check`, run before and after all the
#            hosts, the mean of the two).  The guest counts those takes
#            as the worker's running time, so the CPU share does not take
#            them out and a request R reads R / (1 - f) from outside;
#            no delay can hold time it was not given the CPU for (its
#            debt is capped: docs/method.md, "Host takes").  A simulated
#            host adds cost to reads and pauses, not takes: the real
#            host's f applies to every row.
# A row PASSes when the sampled length and out/host are within TOL of
# the request (5%; TOL50, 10%, at 50 ns); the raw outside stays beside
# them.  Beside a waiter on a real lock (ticket, 2 threads) the
# critical section is checked from its samples.  Exit 1 on a FAIL.
#   scripts/bench-delays-hosts.sh [./lockbench] [extra lockbench options]
#   REQ (50,100,400,1000)  RUNS (3)  DURATION (0.3)  TOL (0.05)  TOL50 (0.10)
#   HOSTS ("here clock+10 clock+30 pause+20 pause+120")
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
REQ=${REQ:-50,100,400,1000}
HOSTS=${HOSTS:-here clock+10 clock+30 pause+20 pause+120}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
common=(-l null -r "${RUNS:-3}" --warmup 0.1 -d "${DURATION:-0.3}" --cs-lines 1
	--no-tune -q -f json)
# host takes: a system check's JSON into $W/check-$1.json (exit 1, a
# measure it could not take, still writes it; one that fails leaves f
# unknown, and the report says so); its short runs at -d 0.02, since only
# host_takes is read here and -d does not shorten that
check() { "$BIN" system check -q -d 0.02 -f json -o "$W/check-$1.json" || true; }
check before
for h in $HOSTS; do
	case $h in
	here) env=() ;;
	clock+*) env=(LOCKBENCH_SIM_CLOCK_NS=${h#clock+}) ;;
	pause+*) env=(LOCKBENCH_SIM_PAUSE_NS=${h#pause+}) ;;
	*) echo "bench-delays-hosts: unknown host ($h): here, clock+N, pause+N" >&2; exit 2 ;;
	esac
	for t in 1 2; do
		env "${env[@]}" "$BIN" "${common[@]}" -t $t --cs-ns "0,$REQ" --ncs-ns 0 \
			-o "$W/$h.cs.$t.json" "$@"
		env "${env[@]}" "$BIN" "${common[@]}" -t $t --ncs-ns "0,$REQ" --ncs-dist fixed \
			-o "$W/$h.fixed.$t.json" "$@"
		env "${env[@]}" "$BIN" "${common[@]}" -t $t --ncs-ns "0,$REQ" \
			-o "$W/$h.exp.$t.json" "$@"
	done
	env "${env[@]}" "$BIN" -l ticket -t 2 -r "${RUNS:-3}" --warmup 0.1 -d "${DURATION:-0.3}" \
		--cs-ns "$REQ" --no-tune -q -f json -o "$W/$h.ticket.json" "$@"
done
check after
PYTHONPATH="$(dirname "$0")" python3 - "$W" "${TOL:-0.05}" "${TOL50:-0.10}" $HOSTS <<'PY'
import json, statistics, sys
from host_takes import host_takes
W, tol, tol50, hosts = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4:]

def ns_per_op(run):
    """Per thread, per CPU-second: window * share / ops, the threads' mean."""
    ws = run["workers"]
    x = []
    for i, ops in enumerate(run["thread_ops"]):
        share = ws[i].get("cpu_share") if i < len(ws) else None
        x.append(run["window_s"] * (share or 1) / ops * 1e9)
    return statistics.mean(x)

def verdict(req, *vals):
    lim = tol50 if req <= 50 else tol
    ok = all(v is not None and abs(v - req) <= lim * req for v in vals)
    return "PASS" if ok else "FAIL"

bad = 0
take, known, said = host_takes(W)
if known:
    print("host takes: f = %.2f%% of each CPU (system check %s); out/host = outside * (1 - f)"
          % (100 * take, said))
else:
    print("host takes unknown (system check failed before and after): out/host = outside")
print("ns per delay, median over the runs; outside = ns/op (per thread, per CPU-second)"
      " at the request less at 0")
print("%-10s %-7s %3s %7s %9s %9s %9s  %s" % ("host", "delay", "thr", "request", "sampled",
                                             "outside", "out/host", "verdict"))
for h in hosts:
    for kind, key in (("cs", "cs"), ("fixed", "ncs"), ("exp", "ncs")):
        for t in (1, 2):
            d = json.load(open("%s/%s.%s.%d.json" % (W, h, kind, t)))
            byreq = {p["runs"][0][key + "_ns_requested"]: p for p in d["points"]}
            base = statistics.median(ns_per_op(r) for r in byreq[0]["runs"])
            for req in sorted(byreq):
                if not req:
                    continue
                runs = byreq[req]["runs"]
                s = [r[key + "_ns_actual_median"] for r in runs if r.get(key + "_ns_actual_median")]
                samp = statistics.median(s) if s else None
                out = statistics.median(ns_per_op(r) - base for r in runs)
                v = verdict(req, samp, out * (1 - take))
                bad += v == "FAIL"
                print("%-10s %-7s %3d %7.0f %9s %9.1f %9.1f  %s" % (h, kind, t, req,
                      "%.1f" % samp if samp else "-", out, out * (1 - take), v))
    d = json.load(open("%s/%s.ticket.json" % (W, h)))
    for p in d["points"]:
        runs = p["runs"]
        req = runs[0]["cs_ns_requested"]
        samp = statistics.median(r["cs_ns_actual_median"] for r in runs)
        v = verdict(req, samp)
        bad += v == "FAIL"
        print("%-10s %-7s %3d %7.0f %9.1f %9s %9s  %s (ticket, beside a waiter)" % (
              h, "cs", p["threads"], req, samp, "-", "-", v))
print("%d row%s failed" % (bad, "" if bad == 1 else "s"))
sys.exit(1 if bad else 0)
PY
