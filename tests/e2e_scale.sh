#!/usr/bin/env bash
# Scale: placement of every policy on a synthetic machine of 8,192 PUs
# (package:8 numa:4 l3:4 core:32 pu:2) within a time bound, -t max on
# it, CPU lists of a million entries, the thread-count limit, and the
# memory compare, merge and rerun take on a results file of ~20 MB
# (docs/method.md, Placement; docs/guide.md "Input limits and memory").
# The planning takes well under a second each; the 20 s bound is for a
# loaded CI machine, where a quadratic step would take minutes.
#   tests/e2e_scale.sh [./lockbench]
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"

BIG='package:8 numa:4 l3:4 core:32 pu:2'
LIMIT=20

# Every policy plans 1 thread and every PU (-t max) on 8,192 PUs.
for p in cores smt spread none node:5,31 cpus:4096-8191,0-4095; do
	for t in 1 max; do
		expect_exit 0 "$p -t $t on 8192 PUs (timeout $LIMIT s)" -- \
			timeout "$LIMIT" "$BIN" --topology "$BIG" -p "$p" -t "$t" --dry-run -q || continue
		want=$t
		[ "$t" = max ] && want=8192
		[ "$t" = max ] && [ "$p" = node:5,31 ] && want=512
		grep -q "^threads $want: cpus " "$OUT/stdout" && ok ||
			bad "$p -t $t: no 'threads $want' line: $(tail -c 300 "$OUT/stdout")"
	done
done

# The order on 8,192 PUs: spread alternates packages and visits every
# node before any node's second PU; every pinned policy gives each PU
# once (the full order is compared with the old code by hand; the
# golden files of e2e_topo.sh hold it on smaller machines).
for p in spread cores smt; do
	expect_exit 0 "topo -p $p -t max -f json" -- \
		timeout "$LIMIT" "$BIN" topo --topology "$BIG" -p "$p" -t max -f json || continue
	python3 - "$OUT/stdout" "$p" <<'EOF' && ok || bad "topo -p $p: order on 8192 PUs"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["placement"]["threads"]
assert len(t) == 8192, len(t)
assert sorted(x["cpu"] for x in t) == list(range(8192)), "not every PU once"
assert not any(x["shared_cpu"] for x in t)
if sys.argv[2] == "spread":
    for i in range(32):
        assert t[i]["package"] == i % 8, (i, t[i])
        assert t[i]["node"] == (i % 8) * 4 + i // 8, (i, t[i])
if sys.argv[2] == "cores":
    # One PU per core first: the first 4096 threads are on 4096 cores.
    assert len({x["core"] for x in t[:4096]}) == 4096
if sys.argv[2] == "smt":
    assert [x["cpu"] for x in t[:4]] == [0, 1, 2, 3]
EOF
done

# A CPU list of a million entries: refused at the first CPU the machine
# lacks, one line, quickly.
expect_exit 2 "cpus:0-1000000 (timeout $LIMIT s)" -- \
	timeout "$LIMIT" "$BIN" --topology "$BIG" -p cpus:0-1000000 --dry-run -q
[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "CPU 8192 does not exist" "$OUT/stderr" && ok ||
	bad "cpus:0-1000000: $(cat "$OUT/stderr")"
expect_exit 2 "cpus:0-1000001" -- timeout "$LIMIT" "$BIN" --topology "$BIG" -p cpus:0-1000001 --dry-run -q
[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && ok || bad "cpus:0-1000001: $(cat "$OUT/stderr")"

# Threads: more than PUs is planned (shared), beyond the limit refused.
expect_exit 0 "-t 8193 on 8192 PUs" -- \
	timeout "$LIMIT" "$BIN" --topology "$BIG" -t 8193 --dry-run -q
grep -q "^threads 8193 (oversubscribed): cpus " "$OUT/stdout" && ok || bad "-t 8193: $(tail -c 200 "$OUT/stdout")"
expect_exit 0 "-t 65535" -- timeout "$LIMIT" "$BIN" --topology "$BIG" -t 65535 --dry-run -q
for t in 65536 70000 1-70000; do
	expect_exit 2 "-t $t" -- "$BIN" --topology "$BIG" -t "$t" --dry-run -q
	[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "at most 65535 threads" "$OUT/stderr" && ok ||
		bad "-t $t: $(cat "$OUT/stderr")"
done
expect_exit 2 "topo -t 70000" -- "$BIN" topo --topology "$BIG" -t 70000
grep -q "at most 65535" "$OUT/stderr" && ok || bad "topo -t 70000: $(cat "$OUT/stderr")"

# Memory: compare and merge hold the runs once (the model, not the
# text, not a second copy): about 1.1x the file, where a copy of the
# model made it 2x; rerun reads the recorded command only (it took 4x).
# Peak RSS of the child, from getrusage (no /usr/bin/time needed).
maxrss_mb() {
	python3 -c '
import resource, subprocess, sys
with open("/dev/null", "w") as null:
    rc = subprocess.call(sys.argv[1:], stdout=null, stderr=null)
print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)' "$@"
}
expect_exit 0 "a small results file" -- "$BIN" -l ticket,mcs -t 1,2 -r 2 --warmup 0.01 \
	-d 0.02 -q --no-tune -f json -o "$OUT/small.json"
python3 - "$OUT/small.json" "$OUT/big.json" <<'EOF' || bad "cannot make a large results file"
import json, sys
d = json.load(open(sys.argv[1]))
runs = len(json.dumps([r for p in d["points"] for r in p["runs"]], indent=2))
k = 1 + 20_000_000 // max(1, runs)
for p in d["points"]:
    p["runs"] = [dict(r, seq=i) for i, r in enumerate(p["runs"] * k)]
json.dump(d, open(sys.argv[2], "w"), indent=2)
EOF
# A second invocation, not a copy (merge refuses a copy of a file).
python3 - "$OUT/big.json" "$OUT/big2.json" <<'EOF' || bad "cannot make a second large file"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for r in p["runs"]:
        r["ops_per_sec"] *= 1.01
json.dump(d, open(sys.argv[2], "w"), indent=2)
EOF
size_mb=$(($(stat -c %s "$OUT/big.json") / 1048576))
if [ "$size_mb" -lt 16 ]; then
	bad "the large results file has $size_mb MB"
else
	read -r rc mb < <(maxrss_mb "$BIN" compare "$OUT/big.json")
	[ "$rc" = 0 ] && python3 -c "import sys; sys.exit(not $mb < 1.5 * $size_mb)" && ok ||
		bad "compare of $size_mb MB: exit $rc, $mb MB peak (want under 1.5x)"
	read -r rc mb < <(maxrss_mb "$BIN" merge -o "$OUT/m.json" "$OUT/big.json" "$OUT/big2.json")
	[ "$rc" = 0 ] && python3 -c "import sys; sys.exit(not $mb < 1.5 * 2 * $size_mb)" && ok ||
		bad "merge of 2 x $size_mb MB: exit $rc, $mb MB peak (want under 1.5x)"
	read -r rc mb < <(maxrss_mb "$BIN" rerun "$OUT/big.json" --dry-run)
	[ "$rc" = 0 ] && python3 -c "import sys; sys.exit(not $mb < $size_mb)" && ok ||
		bad "rerun of $size_mb MB: exit $rc, $mb MB peak (want under the file's size)"
	python3 - "$OUT/m.json" "$OUT/big.json" <<'EOF' && ok || bad "merge lost runs"
import json, sys
m, b = (json.load(open(f)) for f in sys.argv[1:])
count = lambda d: sum(len(p["runs"]) for p in d["points"])
assert count(m) == 2 * count(b), (count(m), count(b))
EOF
fi

e2e_done
