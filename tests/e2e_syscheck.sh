#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e_syscheck.sh - `lockbench system check` end to end, in its short
# mode (-d 0.02: each of its runs 20 ms), against a fake sysfs tree:
# every key of the JSON document present, the figures positive, the
# invocation floor consistent with its formula, verdict lines printed in
# text mode, nothing written to the (fake) sysfs tree or the state file,
# bad options refused with one line and exit 2 before anything runs.
#   tests/e2e_syscheck.sh [./lockbench]
set -u
here=$(cd "$(dirname "$0")" && pwd)
BIN=${1:-./lockbench}
[ -x "$BIN" ] || { echo "skip: no binary at $BIN"; exit 77; }
OUT=$(mktemp -d /tmp/lockbench-syscheck.XXXXXX)
mkfake=$OUT/mkfake
dirs=()
cleanup() { rm -rf "$OUT"; for d in "${dirs[@]}"; do rm -rf "$d"; done; }
trap cleanup EXIT
# shellcheck source=tests/lib.sh
. "$here/lib.sh"
build_mkfake

# A fake tree with cpufreq (a run that tuned would change its governor)
# and a /proc/stat with steal fields.
d=$("$mkfake" acpi) || exit 1
dirs+=("$d")
export LOCKBENCH_SYSROOT=$d/root LOCKBENCH_STATE=$d/state/state.json
{
	echo "cpu  100 0 100 1000 0 0 0 0 0 0"
	for c in $(seq 0 $(($(nproc) - 1))); do echo "cpu$c 50 0 50 500 0 0 0 0 0 0"; done
} >"$LOCKBENCH_SYSROOT/proc/stat"
# and a /proc/interrupts that does not move either (interrupts a second: 0)
{
	for c in $(seq 0 $(($(nproc) - 1))); do printf '  CPU%d' "$c"; done; echo
	printf 'LOC:'; for c in $(seq 0 $(($(nproc) - 1))); do printf ' %d' $((100 + c)); done
	echo "   Local timer interrupts"
} >"$LOCKBENCH_SYSROOT/proc/interrupts"
snapshot() {	# every path of the tree with its mode, size and content hash
	(cd "$d" && find . -printf '%p %m %s %y %T@\n' | sort &&
		find . -type f -exec sha256sum {} + | sort)
}
snapshot >"$OUT/before"

# ---- bad options: one line, exit 2, nothing measured -------------------
bad_input "-f csv" "valid: table (text), json" system check -f csv
bad_input "two formats without -o" "system check -f table,json: give -o FILE for the JSON" system check -f table,json
bad_input "three formats" "valid: table (text), json" system check -f table,json,csv -o "$OUT/x.json"
bad_input "an extra word" "unexpected argument (extra)" system check extra
bad_input "-d above 1 s" "at most 1 s" system check -d 2
bad_input "-d 0" "duration" system check -d 0
bad_input "-d not a number" "duration" system check -d soon
bad_input "an unknown option" "bogus" system check --bogus
bad_input "--topology" "not with --topology" system check --topology "pu:2"
bad_input "-o a directory" "Is a directory" system check -o "$OUT"
bad_input "-o /proc/version" "cannot write output (/proc/version): the file is read-only" \
	system check -o /proc/version
bad_input "-o in a missing directory" "cannot write output (/nonexistent/x.json): no directory" \
	system check -o /nonexistent/x.json
bad_input "an unknown subcommand lists check" "check" system frob
# (Nothing measured before a refusal: without -q a measurement prints
# its progress first, and bad_input takes one line on stderr alone; no
# wall-clock bound, which a loaded machine would break.)
ls "$OUT"/*.json* >/dev/null 2>&1 && bad "a refused -o left a file" || ok

# ---- help -----------------------------------------------------------------
expect_exit 0 "help system" -- "$BIN" help system
grep -q "^usage: lockbench system check" "$OUT/stdout" && ok || bad "help system lacks check"
expect_exit 0 "--help" -- "$BIN" --help
grep -q "lockbench system check" "$OUT/stdout" && ok || bad "--help lacks system check"
grep -q "^\.SH SYSTEM CHECK" "$here/../lockbench.1" && ok || bad "the man page lacks system check"
"$BIN" help completion | grep -q "show tune reset check" && ok || bad "completion lacks check"

# ---- JSON ----------------------------------------------------------------
expect_exit 0 "system check -f json" -- "$BIN" system check -d 0.02 -q -f json \
	-o "$OUT/check.json"
[ -s "$OUT/check.json" ] && ok || bad "no -o file"
[ -s "$OUT/stdout" ] && bad "-o FILE also printed on stdout" || ok
python3 - "$OUT/check.json" <<'EOF' && ok || bad "the JSON document (above)"
import json, math, sys
d = json.load(open(sys.argv[1]))
errs = []
def need(cond, what):
    if not cond:
        errs.append(what)
def pos(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 and math.isfinite(v)
for k in ("schema", "schema_version", "lockbench", "machine", "clock", "relax_ns",
          "empty_loop_ns", "delay_floor_ns", "c2c", "tas_cv_pct", "floor", "verdicts",
          "delays", "steal", "host_takes", "hypervisor"):
    need(k in d, "missing key " + k)
need(d.get("schema") == "lockbench-system-check", "schema")
need(d.get("schema_version") == "1.1", "schema_version")
need("version" in d.get("lockbench", {}), "lockbench.version")
for k in ("cpu_model", "pus", "kernel", "environment"):
    need(k in d.get("machine", {}), "machine." + k)
need(pos(d["clock"].get("read_ns")), "clock.read_ns positive")
need(pos(d["clock"].get("tick_ns")), "clock.tick_ns positive")
need(pos(d["relax_ns"]), "relax_ns positive")
need(pos(d["empty_loop_ns"]), "empty_loop_ns positive")
need(pos(d["tas_cv_pct"]), "tas_cv_pct positive")
f = d["floor"]
need(set(f) >= {"rel_pct", "invocations", "sd_between_pct", "lock", "threads",
                "workload", "source"}, "floor keys")
# a run whose worker never ran in its window (an overloaded machine) is
# left out and named in errors; anything else that fails is a failure
starved = [e for e in d["errors"] if "counted no operation" in e]
need(d["errors"] == starved, "no run failed: %s" % d["errors"])
N = f["invocations"]
need(N == 12 or (starved and 2 <= N < 12), "floor.invocations 12 (%s)" % N)
need((f["lock"], f["threads"], f["workload"], f["source"]) ==
     ("tas", 1, "cs", "system check"), "floor lock/threads/workload/source")
need(pos(f["rel_pct"]) and pos(f["sd_between_pct"]), "floor figures positive")
need(f["duration_s"] >= 0.99 * min(300 * f["window_s"], 30),
     "the floor's invocations spread over 300 windows, at most 30 s (%s s)" % f.get("duration_s"))
m = f["medians_ops_per_sec"]
need(len(m) == N and all(pos(x) for x in m), "floor means")
if len(m) < 2 or not all(pos(x) for x in m):
    m = [1, 1]
mean = sum(m) / len(m)
sd = math.sqrt(sum((x - mean) ** 2 for x in m) / (len(m) - 1))
need(abs(100 * sd / mean - f["sd_between_pct"]) < 1e-6 * f["sd_between_pct"],
     "sd_between_pct is the sd of the invocation means")
# z(0.975) sqrt(2) sqrt((N-1) / chi2(0.05, N-1)), chi-square from tables
chi05 = {1: 0.00393214, 2: 0.1025866, 3: 0.3518463, 4: 0.7107230, 5: 1.1454762,
         6: 1.6353829, 7: 2.1673499, 8: 2.7326368, 9: 3.3251128, 10: 3.9402991,
         11: 4.5748131}
want = 1.959964 * math.sqrt(2) * f["sd_between_pct"] * math.sqrt((N - 1) / chi05.get(N - 1, 1e9))
need(abs(f["rel_pct"] - want) < 1e-5 * f["rel_pct"],
     "rel_pct = z(0.975) * sqrt(2) * sd_between_pct * sqrt((N-1) / chi2(0.05, N-1))")
df = d["delay_floor_ns"]
need(df is None or df in (25, 50, 100, 200, 400), "delay_floor_ns from the ladder or null")
for dist in ("fixed", "exp"):
    need(len(d["delays"][dist]) == 5, "five delays " + dist)
    for x in d["delays"][dist]:
        need(pos(x["sampled_ns"]), "delay sampled positive")
        if df is not None and x["request_ns"] >= df:
            need(x["holds"], "a delay above the floor holds")
c = d["c2c"]
for k in ("cpu0", "probes", "classes", "bimodal", "typical_ns"):
    need(k in c, "c2c." + k)
if d["machine"]["pus"] > 1:
    need(c["classes"] and pos(c["typical_ns"]), "c2c figures on a multi-CPU machine")
    for name, cl in c["classes"].items():
        need(pos(cl["median_ns"]) and cl["min_ns"] <= cl["median_ns"] <= cl["max_ns"],
             "c2c class " + name)
need(d["steal"]["fraction"] == 0, "steal 0 from a /proc/stat that did not move")
# host takes: every usable CPU read at once, figures in range, consistent
h = d["host_takes"]
for k in ("fraction", "per_s", "irqs_per_s", "longest_us", "ms", "level", "hist_from_us",
          "hist", "per_cpu", "error"):
    need(k in h, "host_takes." + k)
need(h["error"] is None, "host_takes.error: %s" % h["error"])
need(0 <= h["fraction"] < 1 and h["per_s"] >= 0, "host_takes fraction, per_s in range")
need(h["ms"] == 500 and h["level"] == 0.005, "host_takes ms 500, level 0.005")
need(h["irqs_per_s"] == 0, "host_takes.irqs_per_s 0 from a fake file that did not move")
need(h["hist_from_us"] == [1, 2, 4, 8, 16, 32, 64, 128], "host_takes.hist_from_us")
need((h["longest_us"] == 0) == (sum(h["hist"]) == 0) and
     (h["longest_us"] == 0 or h["longest_us"] >= 1), "host_takes.longest_us")
pc = h["per_cpu"]
need(len(pc) >= 1 and len({c["cpu"] for c in pc}) == len(pc), "host_takes.per_cpu: one a CPU")
need([sum(x) for x in zip(*[c["hist"] for c in pc])] == h["hist"], "hist: the CPUs' sum")
need(abs(sum(c["fraction"] for c in pc) / max(len(pc), 1) - h["fraction"]) < 1e-9,
     "fraction: the CPUs' mean")
for c in pc:
    need(c["error"] is None and 0 <= c["fraction"] < 1, "cpu %s: fraction" % c["cpu"])
    need(c["threshold_ns"] >= 1000 and c["threshold_ns"] >= 50 * c["read_ns"] > 0,
         "cpu %s: threshold from its read" % c["cpu"])
    need(sum(c["hist"]) == c["takes"], "cpu %s: hist sums to takes" % c["cpu"])
    # Other work on the CPU takes its share of the 500 ms, so only the
    # bounds the window sets hold on a shared machine.
    need(0 < c["run_ms"] and c["run_ms"] + c["guest_ms"] < 700,
         "cpu %s: run and guest time within the window" % c["cpu"])
    need((c["takes"] == 0) == (c["fraction"] == 0), "cpu %s: takes and fraction" % c["cpu"])
    need(c["irqs_per_s"] == 0, "cpu %s: no interrupts from a fake file that did not move"
         % c["cpu"])
    need(c["takes"] == 0 or c["fraction"] * c["run_ms"] * 1e3 >= c["takes"] * 1.0,
         "cpu %s: each take at least 1 us" % c["cpu"])
takes = h["fraction"] >= h["level"]
v = d["verdicts"]
need(isinstance(v, list) and all(isinstance(x, str) and x for x in v), "verdict strings")
want = "1-thread differences below %.1f%% are not resolvable here" % f["rel_pct"]
need(any(x.startswith(want) for x in v), "the floor's verdict: " + want)
need(any(x.startswith("delays from %d ns hold within 5%%" % df) if df else
         x.startswith("no delay up to 400 ns holds") for x in v), "the delays' verdict")
need(any("core-to-core" in x or "bimodal" in x or "one usable CPU" in x for x in v),
     "the core-to-core verdict")
if takes:
    need(any(x.startswith("steal reads 0.00% during the check, yet each CPU lost")
             for x in v), "the steal verdict names the host takes: %s" % v)
    need(not any(x.startswith("no steal") for x in v), "no 'no steal' beside takes")
    want = "the host takes %.1f%% of each CPU" % (100 * h["fraction"])
    need(any(x.startswith(want) and "reports no steal" in x for x in v),
         "the takes' verdict: " + want)
else:
    need(any(x.startswith("no steal above 1%") for x in v), "the steal verdict")
    need(any(x.startswith("no host takes above 0.5%") for x in v), "the takes' verdict")
need(any("hypervisor" in x for x in v), "the hypervisor verdict")
# how long it took is the machine's load's, not the code's: recorded,
# not bounded (the report prints it)
need(d["elapsed_s"] > 0, "elapsed_s recorded (%s)" % d["elapsed_s"])
for e in errs:
    print("  " + e, file=sys.stderr)
sys.exit(1 if errs else 0)
EOF

# ---- text ----------------------------------------------------------------
expect_exit 0 "system check (text)" -- "$BIN" system check -d 0.02
for w in "clock" "cpu_relax()" "empty loop" "delays" "core-to-core" "run-to-run" \
	"invocations" "host takes" "steal" "What can be trusted here:"; do
	grep -qF -- "$w" "$OUT/stdout" && ok || bad "the report lacks '$w'"
done
grep -q "^  1-thread differences below [0-9.]*% are not resolvable here" "$OUT/stdout" &&
	ok || bad "no floor verdict line in the text: $(cat "$OUT/stdout")"
grep -Eq "^  (delays from [0-9]+ ns hold within 5%|no delay up to)" "$OUT/stdout" &&
	ok || bad "no delay verdict line in the text"
grep -q "system check: invocation floor" "$OUT/stderr" && ok || bad "no progress on stderr"
grep -Eq "^host takes +[0-9.]+% of each CPU: [0-9]+ a second, up to [0-9]+ us.*interrupts: 0 a" \
	"$OUT/stdout" && ok || bad "no host takes line in the text"
grep -Eq "^  (the host takes [0-9.]+% of each CPU|no host takes above 0.5%)" "$OUT/stdout" &&
	ok || bad "no host takes verdict line in the text"

# ---- one usable CPU: no core-to-core figures, said so ----------------------
if command -v taskset >/dev/null; then
	expect_exit 0 "system check on one CPU" -- taskset -c "$(cut -d- -f1 \
		/sys/devices/system/cpu/online | cut -d, -f1)" "$BIN" system check -d 0.02 -q -f json
	python3 - "$OUT/stdout" <<'EOF' && ok || bad "one CPU: $(head -c 300 "$OUT/stdout")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["c2c"]["classes"] == {} and d["c2c"]["probes"] == 0, d["c2c"]
assert d["c2c"]["typical_ns"] is None
assert len(d["host_takes"]["per_cpu"]) == 1, d["host_takes"]
assert 0 <= d["host_takes"]["fraction"] < 1, d["host_takes"]
assert any(v.startswith("one usable CPU") for v in d["verdicts"]), d["verdicts"]
EOF
fi

# ---- nothing written -------------------------------------------------------
snapshot >"$OUT/after"
if cmp -s "$OUT/before" "$OUT/after"; then ok; else
	bad "the sysfs tree changed: $(diff "$OUT/before" "$OUT/after" | head -5)"
fi
[ -e "$LOCKBENCH_STATE" ] && bad "a machine state file was written" || ok

# ---- a busy machine: the floor is refused, with the load and what to do ----
# Another fake tree whose /proc/stat moves as if other processes kept
# every CPU busy (a writer here adds 100 ticks a CPU every 10 ms or so,
# many CPUs' worth at USER_HZ 100): the floor is refused, its figures
# kept, the check says so on stderr in one line even with -q and -o and
# exits 5 (cannot assess; not 1, a failure), and compare --floor refuses
# it.  -f table,json gives the text on stdout and the JSON to -o.
d2=$("$mkfake" acpi) || exit 1
dirs+=("$d2")
busy_stat() {	# busy_stat TICKS: the stat file with TICKS of user time a CPU
	{
		echo "cpu  $1 0 100 1000 0 0 0 0 0 0"
		for c in $(seq 0 $(($(nproc) - 1))); do echo "cpu$c $1 0 50 500 0 0 0 0 0 0"; done
	} >"$d2/root/proc/stat.new" && mv "$d2/root/proc/stat.new" "$d2/root/proc/stat"
}
busy_stat 100
( u=100; while [ -e "$d2/root/proc" ]; do u=$((u + 100)); busy_stat $u 2>/dev/null; sleep 0.01; done ) &
writer=$!
LOCKBENCH_SYSROOT=$d2/root LOCKBENCH_STATE=$d2/state/state.json \
	"$BIN" system check -d 0.02 -q -f table,json -o "$OUT/busy.json" >"$OUT/stdout" 2>"$OUT/stderr"
rc=$?
kill "$writer" 2>/dev/null; wait "$writer" 2>/dev/null
[ "$(wc -l <"$OUT/stderr")" -eq 1 ] &&
	grep -q "^lockbench: system check: invocation floor refused (exit 5): the machine was busy: other processes ran .* CPUs beside it .*; meanwhile compare takes --floor PCT$" "$OUT/stderr" &&
	ok || bad "busy, -q -o: one line on stderr: $(cat "$OUT/stderr")"
grep -q "invocation floor not measured: the machine was busy" "$OUT/stdout" &&
	! grep -q '"floor"' "$OUT/stdout" && ok || bad "busy, -f table,json: the text on stdout"
python3 - "$OUT/busy.json" "$rc" <<'EOF' && ok || bad "busy: the floor not refused (exit $rc)"
import json, sys
d = json.load(open(sys.argv[1]))
f = d["floor"]
assert int(sys.argv[2]) == 5, sys.argv[2]
assert f["rel_pct"] is None and f["sd_between_pct"] is not None, f
assert f["refused"].startswith("the machine was busy: other processes ran "), f
assert "run `lockbench system check` again when it is quiet" in f["refused"], f
assert f["load"]["others_cpus"] > f["load"]["others_max_cpus"] == 0.25, f["load"]
assert f["invocations"] >= 2 and f["duration_s"] > 0 and f["measured_at"].endswith("Z"), f
assert f["host"]["pus"] == d["machine"]["pus"], f["host"]
v = [x for x in d["verdicts"] if "floor" in x]
assert len(v) == 1 and v[0].startswith("invocation floor not measured: the machine was busy"), v
EOF
"$BIN" -l tas,ticket -t 1 -r 2 -d 0.01 --warmup 0.01 --no-tune -q -f json -o "$OUT/r.json" &&
	"$BIN" compare --floor "$OUT/busy.json" "$OUT/r.json" >"$OUT/stdout" 2>"$OUT/stderr"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$OUT/stderr")" -eq 1 ] &&
	grep -q "the system check refused its floor: the machine was busy" "$OUT/stderr" && ok ||
	bad "compare --floor of a refused floor: exit $rc: $(cat "$OUT/stderr")"
# The quiet check above: its floor records when, how and beside what.
python3 - "$OUT/check.json" <<'EOF' && ok || bad "the floor's provenance"
import json, sys
f = json.load(open(sys.argv[1]))["floor"]
assert f["refused"] is None and f["rel_pct"] > 0, f
assert f["load"]["others_cpus"] == 0, f["load"]   # a /proc/stat that did not move
assert f["runs_each"] == 3 and f["window_s"] == 0.02 and f["duration_s"] > 0, f
assert f["measured_at"][:2] == "20" and f["host"]["hostname"], f
EOF

e2e_done
