#!/usr/bin/env bash
# End-to-end tests: run the binary as a user would and check what comes
# back (stdout, stderr, exit codes, JSON fields).  Usage: e2e.sh BINARY
# LB_E2E_QUICK=1 skips the slower runs (sanitizer builds).
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"
BAD_OUT=$OUT/bad.json

bad_input "unknown lock" "unknown lock (nosuch): valid: null, tas" -l nosuch
bad_input "zero threads" "at least 1" -t 0
bad_input "threads abc" "'abc' is not a number" -t abc
bad_input "negative duration" "duration (-1)" -d -1
bad_input "too many threads" "at most 65535 threads" -t 70000
bad_input "unknown format" "unknown format (xml)" -f xml
bad_input "unknown placement" "unknown placement (everywhere)" -p everywhere
bad_input "busted needs a flag" "without --include-broken" -l busted
bad_input "bad lock-opt" "ttas has no option nope" --lock-opt ttas.nope=1
bad_input "lock-opt range" "lock-opt ttas.backoff_min (0)" -l ttas --lock-opt ttas.backoff_min=0
bad_input "baseline not listed" "baseline (mcs)" -l tas,ticket --baseline mcs
bad_input "unknown option" "--frobnicate" --frobnicate
expect_exit 2 "unwritable output" -- "$BIN" -q -t 1 -d 0.05 -r 1 -o /nonexistent/dir/out.json
grep -q "cannot write output (/nonexistent/dir/out.json)" "$OUT/stderr" && ok || bad "unwritable message"

# Help, version, list.
expect_exit 0 "help" -- "$BIN" --help
for o in --locks --threads --duration --runs --warmup --cs-ns --ncs-ns --cs-lines \
	--placement --format --output --label --baseline --include-broken; do
	grep -q -- "$o" "$OUT/stdout" && ok || bad "--help lacks $o"
done
# The man page documents every option --help lists.
MAN=$(dirname "$0")/../lockbench.1
for o in $(grep -o -- '--[a-z][a-z-]*' "$OUT/stdout" | sort -u); do
	grep -q -- "${o//-/\\\\-}" "$MAN" && ok || bad "man page lacks $o"
done
# The README and docs/guide.md: every example output rendered from
# committed results, every lockbench command line naming options the
# binary has, the README within its budget (250 lines, its examples).
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/readme-examples.sh" --check "$BIN" >"$OUT/ex" 2>&1 && ok ||
	bad "README examples: $(cat "$OUT/ex")"
# ... and the check fails when the README grows, loses an example, shows
# an option that does not exist or an example output that drifted (a
# copy of the files it reads, mutated).
RX=$OUT/rx
mkdir -p "$RX/scripts" "$RX/docs/examples" "$RX/tests/golden"
cp "$ROOT/scripts/readme-examples.sh" "$RX/scripts/"
cp "$ROOT/docs/guide.md" "$RX/docs/"
cp "$ROOT"/docs/examples/*.json "$RX/docs/examples/"
cp -r "$ROOT/tests/golden/rtmutex" "$RX/tests/golden/"
rx_fails() { # what, sed expression on the README or the guide, expected message
	cp "$ROOT/README.md" "$RX/README.md"; cp "$ROOT/docs/guide.md" "$RX/docs/guide.md"
	sed -i "$3" "$RX/$2"
	"$RX/scripts/readme-examples.sh" --check "$BIN" >"$OUT/rx.out" 2>&1 &&
		bad "readme check passed with $1" || { grep -q "$4" "$OUT/rx.out" && ok ||
		bad "readme check, $1: $(cat "$OUT/rx.out")"; }
}
rx_fails "251 lines" README.md '$r '"$ROOT/tests/e2e.sh" "at most 250"
rx_fails "the sweep example gone" README.md '/--cs-ns 0,100,1000/d' "lost its example: --cs-ns"
rx_fails "the compare example gone" README.md '/compare --floor/d' "lost its example: compare --floor"
rx_fails "an unknown option" docs/guide.md '0,/^    \.\/lockbench list locks -v/s//    .\/lockbench --no-such-opt/' "uses --no-such-opt"
rx_fails "a drifted output" README.md '0,/^    1  /s/^\(    1  *\)[0-9]/\1X/' "differ from the binary: quickstart"
cp "$ROOT/README.md" "$RX/README.md"; cp "$ROOT/docs/guide.md" "$RX/docs/guide.md"
"$RX/scripts/readme-examples.sh" --check "$BIN" >"$OUT/rx.out" 2>&1 && ok ||
	bad "readme check fails on the copy itself: $(cat "$OUT/rx.out")"
expect_exit 0 "version" -- "$BIN" --version
grep -q "^lockbench [0-9]" "$OUT/stdout" && ok || bad "version output"
expect_exit 0 "list locks" -- "$BIN" list locks
for l in null tas ttas ticket mcs pthread_mutex pthread_spin; do
	grep -q "^$l " "$OUT/stdout" && ok || bad "list locks lacks $l"
done
grep -q "^busted " "$OUT/stdout" && bad "busted listed without --include-broken" || ok
expect_exit 0 "list -v" -- "$BIN" list locks -v
grep -q "lock-opt ttas.backoff_max" "$OUT/stdout" && ok || bad "list -v lacks ttas options"
expect_exit 2 "list bogus" -- "$BIN" list bogus

# Provenance in every JSON; rerun runs it again with the same seed and
# without its -o; --header heads text tables with it.
expect_exit 0 "provenance run" -- "$BIN" -l ticket,mcs -t 1 -r 2 --warmup 0.02 -d 0.05 -q \
	-f json -o "$OUT/prov.json" --label p1
python3 - "$OUT/prov.json" <<'EOF' && ok || bad "provenance members"
import json, sys
p = json.load(open(sys.argv[1]))["provenance"]
assert p["command"][0] == "lockbench" and "--label" in p["command"], p
assert p["version"] and p["git"] and p["compiler"] and "cflags" in p, p
assert p["kernel"] and p["host"] is not None and p["date"].endswith("Z"), p
assert isinstance(p["seed"], int)
EOF
expect_exit 0 "rerun" -- "$BIN" rerun "$OUT/prov.json" -o "$OUT/prov2.json"
python3 - "$OUT/prov.json" "$OUT/prov2.json" <<'EOF' && ok || bad "rerun: same configuration and seed"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["config"]["seed"] == b["config"]["seed"] and a["run_order"] == b["run_order"]
assert a["config"]["locks"] == b["config"]["locks"] and b["label"] == "p1"
EOF
"$BIN" compare -f json -o "$OUT/provc.json" "$OUT/prov.json"
# One schema version: the code's constant (results.h), what a run
# writes, and what docs/json.md says in its title, its table and its
# reader's range.
python3 - "$ROOT/output/results/results.h" "$ROOT/docs/json.md" "$OUT/prov.json" <<'EOF' && ok || bad "schema version: code, JSON and docs/json.md disagree"
import json, re, sys
h, doc = open(sys.argv[1]).read(), open(sys.argv[2]).read()
v = "%s.%s" % (re.search(r"#define RESULTS_SCHEMA_MAJOR (\d+)", h).group(1),
               re.search(r"#define RESULTS_SCHEMA_MINOR (\d+)", h).group(1))
assert json.load(open(sys.argv[3]))["schema_version"] == v
assert doc.splitlines()[0].endswith("schema " + v), doc.splitlines()[0]
assert "| `schema_version` | string | `\"%s\"` |" % v in doc, "table row"
assert "A %s reader" % v in doc and "to %s files" % v in doc, "reader range"
EOF
bad_input "rerun of a compare" "made by 'lockbench compare', not by a run" rerun "$OUT/provc.json"
bad_input "rerun without provenance" "no provenance.command" rerun "$(dirname "$0")/golden/rtmutex/k0.json"
expect_exit 2 "rerun without a file" -- "$BIN" rerun
[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "rerun: no results file given" "$OUT/stderr" &&
	ok || bad "rerun without a file: $(cat "$OUT/stderr")"
# A misspelt format before '=' in -o is refused, not taken as a file name.
(ABS=$(realpath "$BIN"); cd "$OUT" && "$ABS" -o jsn=x.json -t 1 >/dev/null 2>"$OUT/jsn.err"; echo $? >"$OUT/jsn.rc")
[ "$(cat "$OUT/jsn.rc")" = 2 ] && [ "$(wc -l <"$OUT/jsn.err")" -eq 1 ] &&
	grep -q "unknown format in -o (jsn): did you mean json" "$OUT/jsn.err" &&
	[ ! -e "$OUT/jsn=x.json" ] && ok || bad "-o jsn=x.json: $(cat "$OUT/jsn.rc" "$OUT/jsn.err")"
expect_exit 0 "header" -- "$BIN" -l ticket -t 1 -r 1 --warmup 0.02 -d 0.05 -q --header
head -1 "$OUT/stdout" | grep -q "^# kernel .*, lockbench .* (git .*): lockbench -l ticket .* --header$" &&
	sed -n 2p "$OUT/stdout" | grep -q "^# measured: workload cs, sections cs 0 ns ncs 100 ns exp, 1 line, 1 run of 0.05 s after 0.02 s warm-up, placement cores, host .* ([0-9]* PUs)$" &&
	sed -n 3p "$OUT/stdout" | grep -q "^Lock:" && ok || bad "--header: $(head -3 "$OUT/stdout")"

# The JSON run of the issue, shortened: every field a user relies on.
expect_exit 0 "json run" -- "$BIN" -l pthread_mutex,ticket,mcs -t 1,2,4 -r 3 --warmup 0.1 \
	-d 0.2 -f table,json -o "$OUT/out.json" --label k0 --seed 7
# Three locks, in one table or split within 80 columns (the baseline
# in each piece), as the numbers' widths decide.
grep -q "^Lock: *pthread_mutex *ticket\( *mcs\)\?$" "$OUT/stdout" &&
	grep -q "^Lock: *pthread_mutex .*mcs$" "$OUT/stdout" && ok || bad "table header: $(head -2 "$OUT/stdout")"
grep -q "^Statistic (kops/s): mean *std *mean *std *rel" "$OUT/stdout" && ok || bad "statistic header"
grep -q "^4\* " "$OUT/stdout" && ok || bad "oversubscribed row not marked"
grep -q "more threads than CPUs" "$OUT/stdout" && ok || bad "oversubscription note"
grep -q "lockbench: \[" "$OUT/stderr" && ok || bad "no progress on stderr"
python3 - "$OUT/out.json" <<'PY' && ok || bad "json fields"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "lockbench-results" and d["schema_version"].startswith("1.")
assert d["label"] == "k0" and d["std"] == "sample" and d["unit"] == "ops/s"
m = d["machine"]; assert m["kernel"] and m["pus"] >= 1 and "cpu_model" in m
c = d["config"]; assert c["locks"] == ["pthread_mutex", "ticket", "mcs"]
assert c["threads"] == [1, 2, 4] and c["runs"] == 3 and c["seed"] == 7
pl = d["placement"]["threads"]; assert len(pl) == 4
for t in pl:
    for k in ("cpu", "core", "node", "package"): assert k in t
    if m["numa_nodes"] == 1: assert t["node"] == 0
cal = d["calibration"]
assert cal["clock"] in ("tsc", "cntvct", "vdso") and cal["ticks_per_ns"] > 0, cal
assert cal["cs_delay"] == "none" and cal["ncs_delay"].startswith("deadline"), cal
assert [v["loop"] for v in d["variants"]] == ["inline"] * 3
assert len(d["run_order"]) == 27
assert [v["name"] for v in d["variants"]] == ["pthread_mutex", "ticket", "mcs"]
assert len(d["points"]) == 9
for p in d["points"]:
    assert p["status"] == "ok", p
    assert len(p["runs"]) == 3
    for r in p["runs"]:
        # A FIFO lock with more threads than CPUs may complete nothing in a
        # short window (preempted waiters); below that, every run counts.
        assert r["window_s"] > 0.15 and len(r["thread_ops"]) == p["threads"]
        # A worker starved for the window (a busy host) is left out.
        assert r["ops"] > 0 or p["oversubscribed"] or r.get("excluded"), r
        assert sum(r["thread_ops"]) == r["ops"]
        assert r["exclusion"]["checked"] and r["exclusion"]["ok"]
        # One NUMA node here: the lock's memory and every thread on node 0.
        if m["numa_nodes"] == 1:
            assert r["lock_node"] in (0, None), r["lock_node"]
        assert r["exclusion"]["counter"] == r["exclusion"]["total_ops"]
    s = p["summary"]
    for k in ("n", "mean", "std", "median", "min", "max", "cv", "ci95"): assert k in s
    # a run whose worker lost a quarter of its window or more is left
    # out (a busy machine: docs/method.md, "Noise"), even every run
    assert len(p["runs"]) == 3 and s["n"] == sum(not r.get("excluded") for r in p["runs"])
    # over no kept run there is no mean: null, never 0
    assert s["n"] > 0 or (s["mean"] is None and s["median"] is None and s["min"] is None), s
    assert s["n"] == 0 or s["min"] <= s["median"] <= s["max"], s
    base = [q for q in d["points"] if q["variant"] == "pthread_mutex" and q["threads"] == p["threads"]][0]
    if p["variant"] != "pthread_mutex" and not (s["n"] and base["summary"]["n"]):
        assert p["vs_baseline"] is None
    elif p["variant"] != "pthread_mutex":
        vb = p["vs_baseline"]; assert vb["baseline"] == "pthread_mutex" and "rel_pct" in vb
        assert vb["welch"] is not None and 0 <= vb["welch"]["p"] <= 1
    else:
        assert p["vs_baseline"] is None
    assert p["oversubscribed"] == (p["threads"] > d["ncpus"])
PY
ls "$OUT"/out.json.tmp.* >/dev/null 2>&1 && bad "temp file left" || ok
# The notes under it fit a screen: at most 6 lines, each within 72
# columns and whole (docs/formats.md, "Notes"); -v prints every note in full, more
# lines when some were cut.
# The notes: the lines after the last blank one, unless those are a table.
notes() { awk '/^$/ { n = 0; next } { l[++n] = $0 } END { if (n && l[1] !~ /^(Lock|Kernel):/) for (i = 1; i <= n; i++) print l[i] }' "$1"; }
# Past 6 lines only the notes of what the table shows (FAILED, a mark: a
# noisy host adds '!' and '^'); anything else waits behind "more notes".
marks_only() { awk '/^   / || /more notes? \(-v/ { next } !/^(FAILED|[*#~_!?^] )/ { exit 1 }' "$1"; }
notes "$OUT/stdout" >"$OUT/notes"
{ [ "$(wc -l <"$OUT/notes")" -le 6 ] || marks_only "$OUT/notes"; } && [ -s "$OUT/notes" ] &&
	ok || bad "quickstart notes: $(cat "$OUT/notes")"
awk 'length > 72 { exit 1 }' "$OUT/notes" && ok || bad "quickstart notes wider than 72: $(cat "$OUT/notes")"
# ... each whole: wrapped, never cut with "..."
grep -q '\.\.\.$' "$OUT/notes" && bad "a quickstart note cut: $(cat "$OUT/notes")" || ok
"$BIN" compare "$OUT/out.json" >"$OUT/brief.txt" 2>/dev/null && "$BIN" compare -v "$OUT/out.json" >"$OUT/full.txt" 2>/dev/null
nb=$(notes "$OUT/brief.txt" | wc -l); nf=$(notes "$OUT/full.txt" | wc -l)
notes "$OUT/brief.txt" >"$OUT/brief.notes"
if grep -q "more notes\? (-v prints them all)" "$OUT/brief.txt"; then
	{ [ "$nb" -le 6 ] || marks_only "$OUT/brief.notes"; } && [ "$nf" -gt 6 ] && [ "$nf" -ge "$nb" ]
else [ "$nf" -ge "$nb" ]; fi && ok || bad "compare -v: $nf note lines against $nb: $(cat "$OUT/brief.txt" "$OUT/full.txt")"

# A broken lock is reported FAILED, never as a fast lock, and exits 1.
expect_exit 1 "busted fails" -- "$BIN" -l tas,busted --include-broken -t 2 -r 1 \
	--warmup 0.05 -d 0.2 --cs-ns 300 -q -f table,json -o "$OUT/busted.json"
grep -q "FAILED" "$OUT/stdout" && ok || bad "busted not FAILED in table"
# Among the quickstart's notes, the failed lock's comes first: never cut.
expect_exit 1 "busted among the quickstart locks" -- "$BIN" -l pthread_mutex,ticket,busted,mcs \
	--include-broken -t 1,2,4 -r 3 --warmup 0.05 -d 0.1 -q
notes "$OUT/stdout" >"$OUT/notes"
head -1 "$OUT/notes" | grep -q "^FAILED busted .*: mutual exclusion violated" &&
	ok || bad "FAILED note not first: $(cat "$OUT/notes")"
# Past 6 lines only the notes of what the table shows (marks_only).
[ "$(wc -l <"$OUT/notes")" -le 6 ] || marks_only "$OUT/notes" &&
	ok || bad "notes over 6 lines hold more than the marks: $(cat "$OUT/notes")"
grep -q "mutual exclusion violated" "$OUT/stderr" && ok || bad "busted stderr"
python3 -c "
import json,sys; d=json.load(open('$OUT/busted.json'))
p=[p for p in d['points'] if p['variant']=='busted'][0]
assert p['status']=='failed' and not p['runs'][0]['exclusion']['ok']" && ok || bad "busted json"

# Thread list forms and oversubscription.
expect_exit 0 "dry run" -- "$BIN" --dry-run -t 1-3,max -l tas
grep -q "points: 1 lock x 3 thread counts" "$OUT/stdout" && ok || bad "dry-run points: $(cat "$OUT/stdout")"
expect_exit 0 "dry run synthetic" -- "$BIN" --dry-run --topology "package:2 core:48 pu:1" -t 95 -l tas
grep -q "threads 95: cpus 0,1,2" "$OUT/stdout" && ok || bad "dry-run placement"
expect_exit 2 "synthetic without dry-run" -- "$BIN" --topology "package:2 core:4 pu:1" -q

if [ -z "${LB_E2E_QUICK:-}" ]; then
	expect_exit 0 "oversubscribed 16 threads" -- "$BIN" -l mcs,pthread_mutex -t 16 -r 1 \
		--warmup 0.05 -d 0.3 -q
	grep -q "^16\*" "$OUT/stdout" && ok || bad "16 threads not flagged"
	# Sleeping locks never lose a wakeup: 16 threads on this 2-CPU
	# machine, short critical sections, 2 s per lock, 5 s watchdog.
	sleepers=$("$BIN" list locks | awk '$2 == "sleep" { print $1 }' | paste -sd, -)
	expect_exit 0 "sleeping locks oversubscribed" -- "$BIN" -l "$sleepers" -t 16 -r 1 \
		--warmup 0.2 -d 2 --cs-ns 0 --ncs-ns 0 --watchdog 5 -q --no-tune
	grep -qE "HUNG|FAILED|ERROR" "$OUT/stdout" && bad "sleeping lock hung: $(cat "$OUT/stdout")" || ok
	# The default sweep: no arguments, about a minute (4 locks x 2 thread
	# counts x 10 runs of 0.25 s warm-up and a 0.5 s window on 2 CPUs),
	# as its dry run estimates; then the same sweep with short windows,
	# which prints the table.  (How close the estimate comes to the wall
	# clock depends on the machine's load: not a pass/fail test here.)
	expect_exit 0 "default sweep, dry run" -- "$BIN" --dry-run
	est=$(sed -n 's/^estimated duration: \([0-9]*\) s.*/\1/p' "$OUT/stdout")
	[ -n "$est" ] && [ "$est" -lt 90 ] && ok || bad "default sweep estimate: $(cat "$OUT/stdout")"
	expect_exit 0 "short sweep, dry run" -- "$BIN" --dry-run -d 0.05 --warmup 0.05
	est=$(sed -n 's/^estimated duration: \([0-9]*\) s.*/\1/p' "$OUT/stdout")
	[ -n "$est" ] && ok || bad "short sweep: no estimate: $(cat "$OUT/stdout")"
	expect_exit 0 "default sweep, short windows" -- "$BIN" -d 0.05 --warmup 0.05
	grep -q "^Lock: " "$OUT/stdout" && ok || bad "default sweep table"
fi

# SIGINT mid-sweep: completed points are written, JSON valid and marked.
# The signal waits for the second run's progress line (a fixed sleep
# missed the first run on a slow or loaded machine, e.g. under ASan).
"${SIGDFL[@]}" "$BIN" -l tas,ticket -t 1,2 -r 3 --warmup 0.1 -d 0.3 -f json \
	-o "$OUT/int.json" >"$OUT/int.out" 2>"$OUT/int.err" &
pid=$!
until_stderr "$OUT/int.err" "^lockbench: \[1/" || bad "SIGINT: the second run never started"
sleep 0.2
kill -INT $pid
wait $pid
rc=$?
[ "$rc" -eq 1 ] && ok || bad "SIGINT exit $rc"
python3 -c "
import json; d=json.load(open('$OUT/int.json'))
assert d['incomplete'] is True
assert any(p['runs'] for p in d['points'])" && ok || bad "SIGINT json"

e2e_done
