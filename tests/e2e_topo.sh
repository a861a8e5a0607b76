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
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

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
			[ "$small" = "$(printf '%s\n' "$out" | cols | head -n "$n")" ] && ok ||
				bad "$name $p: $n threads is not a prefix of $big"
		done
	done
done <<<"$TOPOS"

# Policies that cannot be met are one-line errors, exit 2.
"$BIN" topo --topology "package:2 core:4 pu:1" -p node:7 -t 2 >/dev/null 2>"$DIR/../../.topo.err"
[ $? -eq 2 ] && grep -q "node 7 does not exist" "$DIR/../../.topo.err" && ok || bad "node:7"
"$BIN" topo --topology "package:2 core:4 pu:1" -p cpus:99 -t 2 >/dev/null 2>"$DIR/../../.topo.err"
[ $? -eq 2 ] && grep -q "CPU 99 does not exist" "$DIR/../../.topo.err" && ok || bad "cpus:99"
"$BIN" topo --topology "bogus:2" -t 2 >/dev/null 2>"$DIR/../../.topo.err"
[ $? -eq 2 ] && grep -q "not a valid hwloc synthetic" "$DIR/../../.topo.err" && ok || bad "bogus topology"
"$BIN" topo --topology /nonexistent.xml -t 2 >/dev/null 2>"$DIR/../../.topo.err"
[ $? -eq 2 ] && ok || bad "missing xml"
out=$("$BIN" topo --topology "package:2 core:4 pu:1" -t 0 2>"$DIR/../../.topo.err")
[ $? -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <"$DIR/../../.topo.err")" -eq 1 ] && ok ||
	bad "topo -t 0: want exit 2, one line on stderr, nothing on stdout"
rm -f "$DIR/../../.topo.err"

echo "e2e_topo: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
