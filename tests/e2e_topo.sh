#!/usr/bin/env bash
# Placement golden tests: `lockbench topo` for every policy on synthetic
# and XML topologies, compared with tests/golden/placement/*.txt.
# Smaller thread counts (1, 2, 3, 95) must be prefixes of the large one
# (a placement never reshuffles when threads are added).
#   tests/e2e_topo.sh [./lockbench] [--update]
set -u
BIN=${1:-./lockbench}
DIR=$(dirname "$0")/golden/placement
UPDATE=${2:-}
OUT_ERR=$(mktemp)
OUT_JSON=$(mktemp)
trap 'rm -f "$OUT_ERR" "$OUT_JSON"' EXIT
. "$(dirname "$0")/lib.sh"

# name|topology|pus
TOPOS="kunpeng-2x48|package:2 numa:2 core:24 pu:1|96
epyc-2x24-smt2|package:2 numa:4 l3:2 core:3 pu:2|96
x5-4x18-smt2|package:4 numa:1 core:18 pu:2|144
vm-2cpu|$DIR/vm-2cpu.xml|2"

cols() { awk '/^[0-9]/ { print $1, $2, $3, $4, $5, $6 }'; }

while IFS='|' read -r name spec pus; do
	big=$((pus + 1)); [ "$big" -lt 95 ] && big=95
	policies="cores smt spread none"
	case $name in
	vm-2cpu) policies="$policies cpus:1,0" ;;
	*) policies="$policies node:1 cpus:1-4,0" ;;
	esac
	for p in $policies; do
		gold="$DIR/$name.${p//[:,]/_}.txt"
		out=$("$BIN" topo --topology "$spec" -p "$p" -t "$big" 2>&1)
		rc=$?
		[ "$rc" -eq 0 ] || { bad "$name $p: exit $rc: $out"; continue; }
		if [ "$UPDATE" = "--update" ]; then
			printf '%s\n' "$out" >"$gold"
		fi
		if [ "$out" = "$(cat "$gold" 2>/dev/null)" ]; then ok; else
			bad "$name $p differs from $gold"; diff <(printf '%s\n' "$out") "$gold" | head -5 >&2
		fi
		for n in 1 2 3 95; do
			small=$("$BIN" topo --topology "$spec" -p "$p" -t "$n" | cols)
			# n rows, each the large placement's row: an empty or
			# short placement is no prefix
			[ "$(printf '%s\n' "$small" | grep -c .)" -eq "$n" ] &&
				[ "$small" = "$(printf '%s\n' "$out" | cols | head -n "$n")" ] && ok ||
				bad "$name $p: $n threads is not a prefix of $big"
		done
	done
done <<<"$TOPOS"

# Policies that cannot be met are one-line errors, exit 2.
"$BIN" topo --topology "package:2 core:4 pu:1" -p node:7 -t 2 >/dev/null 2>"$OUT_ERR"
[ $? -eq 2 ] && grep -q "node 7 does not exist" "$OUT_ERR" && ok || bad "node:7"
"$BIN" topo --topology "package:2 core:4 pu:1" -p cpus:99 -t 2 >/dev/null 2>"$OUT_ERR"
[ $? -eq 2 ] && grep -q "CPU 99 does not exist" "$OUT_ERR" && ok || bad "cpus:99"
"$BIN" topo --topology "bogus:2" -t 2 >/dev/null 2>"$OUT_ERR"
[ $? -eq 2 ] && grep -q "not a valid hwloc synthetic" "$OUT_ERR" && ok || bad "bogus topology"
"$BIN" topo --topology /nonexistent.xml -t 2 >/dev/null 2>"$OUT_ERR"
[ $? -eq 2 ] && ok || bad "missing xml"
out=$("$BIN" topo --topology "package:2 core:4 pu:1" -t 0 2>"$OUT_ERR")
[ $? -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <"$OUT_ERR")" -eq 1 ] && ok ||
	bad "topo -t 0: want exit 2, one line on stderr, nothing on stdout"
rm -f "$OUT_ERR"

# The SLIT distance matrix, from an XML file that carries one.
SLIT=$(dirname "$0")/fixtures/topo/numa4-slit.xml
out=$("$BIN" topo --topology "$SLIT")
want="numa distances (ACPI SLIT, from \\ to):
          0    1    2    3
     0   10   16   32   32
     1   16   10   32   32
     2   32   32   10   16
     3   32   32   16   10"
[ "$(printf '%s\n' "$out" | tail -6)" = "$want" ] && ok || bad "SLIT matrix: $out"
printf '%s\n' "$out" | grep -qx "node 3: cpus 12-15" && ok || bad "node cpus as a range: $out"
printf '%s\n' "$out" | grep -qx "caches: L3 16 MiB x 4" && ok || bad "cache sizes: $out"

# shared-cpu only on threads that share a PU: 3 threads on 2 PUs.
out=$("$BIN" topo --topology "core:2 pu:1" -t 3 | awk '/^[0-9]/ { print $1, $NF }')
[ "$out" = "0 shared-cpu
1 0
2 shared-cpu" ] && ok || bad "shared-cpu marks: $out"

# Validation before output: --c2c on a described topology prints nothing.
out=$("$BIN" topo --topology "core:2 pu:1" --c2c 2>"$OUT_ERR")
[ $? -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <"$OUT_ERR")" -eq 1 ] &&
	grep -q "not with --topology" "$OUT_ERR" && ok || bad "topo --topology --c2c: $out"
out=$("$BIN" topo -f csv 2>"$OUT_ERR")
[ $? -eq 2 ] && [ -z "$out" ] && grep -q "topo -f (csv): valid: table (text), json" "$OUT_ERR" &&
	ok || bad "topo -f csv"

# -f json: the same facts as one document.
"$BIN" topo --topology "$SLIT" -t 17 -f json >"$OUT_JSON" && ok || bad "topo -f json"
python3 - "$OUT_JSON" <<'PY' && ok || bad "topo JSON content"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["numa_nodes"] == 4 and d["pus"] == 16 and d["distances_reported"], d
assert [n["cpus"] for n in d["nodes"]] == ["0-3", "4-7", "8-11", "12-15"], d["nodes"]
assert d["nodes"][2]["distances"] == [32, 32, 10, 16], d["nodes"][2]
assert d["caches"] == [{"level": 3, "size_bytes": 16 << 20, "count": 4}], d["caches"]
t = d["placement"]["threads"]
assert len(t) == 17 and d["placement"]["policy"] == "cores"
assert [x["thread"] for x in t if x["shared_cpu"]] == [0, 16], t
assert d["c2c"] is None
PY

# `help topo` documents what topo takes: -t one count (as topo parses
# it), -f json; `help system` its -f json too.
h=$("$BIN" help topo)
grep -qE -- '-t, --threads N +one thread count' <<<"$h" && ok || bad "help topo: -t is not one count: $h"
grep -q -- '-f, --format json' <<<"$h" && ok || bad "help topo lacks -f json"
"$BIN" help system | grep -q -- '-f, --format json' && ok || bad "help system lacks -f json"
# its shared list holds what show and tune take; -o, -d and --topology
# are system check's and listed in its own usage (one -o line in all)
h=$("$BIN" help system)
[ "$(grep -c -- '-o, --output' <<<"$h")" = 1 ] && ! grep -q -- '--topology' <<<"$h" && ok ||
	bad "help system lists check's options as everybody's: $h"
grep -q -- '--dry-run  *tune: print what it would change' <<<"$h" && ok ||
	bad "help system: --dry-run not said as tune's"
"$BIN" topo --topology "package:1 core:4 pu:1" -t 3 >/dev/null 2>&1 && ok || bad "topo -t 3 refused"
"$BIN" topo --topology "package:1 core:4 pu:1" -t 3 -f json | python3 -c 'import json,sys; json.load(sys.stdin)' &&
	ok || bad "topo -f json: not JSON"

# --map-topology (docs/guide.md, "Placement"): a synthetic 2-node
# machine run here, on real CPUs 0 and 1 (taskset: the same on any
# machine of 2 or more CPUs), worker i on CPU i mod 2; the nodes and
# synthetic CPUs from the placement, the machine record and the CPUs
# described (and tuned) the real ones, 4 threads marked oversubscribed.
SYN="numa:2 core:2 pu:1"
MAPD=$(mktemp -d)
trap 'rm -f "$OUT_ERR" "$OUT_JSON"; rm -rf "$MAPD"' EXIT
# refused: one line on stderr, exit 2, naming what it wants
refused() {
	local what=$1 pattern=$2
	shift 2
	"$BIN" "$@" -q >"$MAPD/out" 2>"$OUT_ERR"
	local rc=$?
	[ "$rc" = 2 ] && [ "$(wc -l <"$OUT_ERR")" = 1 ] && grep -q -- "$pattern" "$OUT_ERR" && ok ||
		bad "$what: exit $rc, stderr $(cat "$OUT_ERR")"
}
refused "synthetic run without --map-topology" "give --map-topology (its placement on this machine's CPUs) or --fake-nodes 2" \
	--topology "$SYN" -l tas -t 4
refused "one-node synthetic run without --map-topology" "or run here with --map-topology" \
	--topology "package:1 core:2 pu:1" -l tas -t 2
refused "--map-topology with --fake-nodes" "--fake-nodes (2) and --map-topology both set" \
	--topology "$SYN" --map-topology --fake-nodes 2 -l tas -t 4
refused "--fake-nodes over a synthetic --topology" "--fake-nodes (2) gives nodes on this machine, not on --topology" \
	--topology "$SYN" --fake-nodes 2 -l tas -t 4
refused "--map-topology without --topology" "--map-topology: .*give --topology SPEC" \
	--map-topology -l tas -t 2
if taskset -c 0,1 true 2>/dev/null; then
	taskset -c 0,1 "$BIN" --topology "$SYN" --map-topology -l tas,pthread_mutex -t 2,4 -r 1 \
		--warmup 0.02 -d 0.1 --no-tune -q -f table,json -o "$MAPD/m.json" >"$MAPD/out" 2>"$OUT_ERR" &&
		ok || bad "mapped run: exit $?: $(cat "$OUT_ERR")"
	python3 - "$MAPD/m.json" "$SYN" <<'PY' && ok || bad "mapped run's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
th = d["placement"]["threads"]
assert [t["node"] for t in th] == [0, 0, 1, 1], th
assert [t["cpu"] for t in th] == [0, 1, 0, 1], th
assert [t["synthetic_cpu"] for t in th] == [0, 1, 2, 3], th
assert [t["shared_cpu"] for t in th] == [True] * 4, th
m = d["config"]["map_topology"]
assert m["topology"] == sys.argv[2] and m["cpus"] == [0, 1], m
assert d["placement"]["mapped"] == m
assert d["machine"]["topology"] == "this machine", d["machine"]["topology"]
assert [c["cpu"] for c in d["machine"]["state_before"]["cpus"]] == [0, 1]
runs = [r for p in d["points"] for r in p["runs"]]
assert len(runs) == 4 and all(r["exclusion"]["checked"] and r["exclusion"]["ok"] for r in runs)
over = {p["threads"]: p["oversubscribed"] for p in d["points"]}
assert over == {2: False, 4: True} and d["ncpus"] == 2, (over, d["ncpus"])
PY
	grep -q '^4\*' "$MAPD/out" && ok || bad "4 threads on 2 real CPUs not marked *: $(cat "$MAPD/out")"
	grep -qx "placement on synthetic \"$SYN\" mapped onto 2 real CPUs (0,1): worker i on the (i mod 2)-th (--map-topology)" \
		"$MAPD/out" && ok || bad "no mapped note: $(cat "$MAPD/out")"
	taskset -c 0,1 "$BIN" --topology "$SYN" --map-topology -l tas -t 4 -r 1 --warmup 0.02 -d 0.1 \
		--no-tune -q -v --header >"$MAPD/out" 2>"$OUT_ERR"
	grep -q "^# measured: .*placement cores on synthetic \"$SYN\" mapped onto 2 real CPUs (0,1)" "$MAPD/out" &&
		ok || bad "-v --header does not say the placement is mapped: $(head -3 "$MAPD/out")"
	# its dry run shows the CPUs the workers will run on
	taskset -c 0,1 "$BIN" --topology "$SYN" --map-topology -l tas -t 4 --dry-run >"$MAPD/out" 2>"$OUT_ERR"
	grep -q "^threads 4 (oversubscribed): cpus 0,1,0,1 nodes 0,0,1,1\$" "$MAPD/out" &&
	grep -q "^mapped onto this machine.s 2 usable CPUs" "$MAPD/out" && ok || bad "mapped dry run: $(cat "$MAPD/out")"
fi

e2e_done
