#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# try-kernel-tree.sh [-t THREADS] [-d SECONDS] [TAG=]DIR... [-- BINARY]
#
# Try your own kernel checkouts with lockbench's kernel tree builder
# (docs/kernel-tree.md): for each tree, build every lock it holds
# (qspinlock, qrwlock, osq) with `build-kernel-lock`, and run each at
# THREADS (default 1,2,8) with the exclusion check, qrwlock also under
# the rw workload.  One line per lock: built (and on which worker loop)
# and validated, or the one line that stopped it (the compiler's first
# error with the tree's file and line).  Then, for two or more trees, one
# table of their qspinlocks side by side at 1 thread, the first as the
# baseline.  Builds go to $LOCKBENCH_CACHE when set, else to a private
# cache removed at the end.  Exit status: 0 when every lock built and
# excluded, 1 otherwise, 2 on bad usage.
#
#   scripts/try-kernel-tree.sh stock=~/linux cna=~/linux-cna
set -u
THREADS=1,2,8 D=0.2
while getopts t:d: o; do
	case $o in
	t) THREADS=$OPTARG ;;
	d) D=$OPTARG ;;
	*) echo "usage: $0 [-t THREADS] [-d SECONDS] [TAG=]DIR... [-- BINARY]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/lockbench
specs=()
while [ $# -gt 0 ]; do
	if [ "$1" = -- ]; then
		BIN=${2:?"$0: -- needs the binary"}
		break
	fi
	specs+=("$1")
	shift
done
if [ ${#specs[@]} -eq 0 ]; then
	echo "usage: $0 [-t THREADS] [-d SECONDS] [TAG=]DIR... [-- BINARY]" >&2
	exit 2
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
export LOCKBENCH_CACHE=${LOCKBENCH_CACHE:-$OUT/cache}
fails=0 qspins=() plugins=()

# check JSON LOCK WORKLOAD: every point ok, every run's exclusion checked and
# held; prints the operations checked.
check() {
	python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pts = [p for p in d["points"] if p["variant"] == sys.argv[2]]
assert pts, "no points"
ops = 0
for p in pts:
    assert p["status"] == "ok", (p["threads"], p["status"])
    for r in p["runs"]:
        e = r["exclusion"]
        # (under rw the counter counts the writers' sections only)
        assert e["checked"] and e["ok"] and e["total_ops"] > 0, e
        assert sys.argv[3] == "rw" or e["counter"] == e["total_ops"], e
        ops += e["total_ops"]
print(ops)
PY
}

# try TAG DIR LOCK: build, then validate at THREADS.
try() {
	local tag=$1 dir=$2 lock=$3 so=$OUT/$1-$3.so name=$3_$1 loop ops wl
	if ! "$BIN" build-kernel-lock "$dir" --lock "$lock" -q -o "$so" 2>"$OUT/err"; then
		echo "$tag $lock: $(tail -n 1 "$OUT/err")"
		return 1
	fi
	loop=$("$BIN" list locks -v --plugin "$tag=$so" 2>/dev/null | grep -A1 "^$name " |
		sed -n 's/.*loop: \([a-z]*\).*/\1/p')
	for wl in cs $([ "$lock" = qrwlock ] && echo rw); do
		if ! "$BIN" --plugin "$tag=$so" -l "$name" -w "$wl" -t "$THREADS" -r 1 \
			--warmup 0.02 -d "$D" --no-tune --watchdog 60 -q -f json \
			-o "$OUT/$name-$wl.json" >"$OUT/log" 2>&1; then
			echo "$tag $lock: built, $loop loop; run ($wl) failed: $(tail -n 3 "$OUT/log")"
			return 1
		fi
		if ! ops=$(check "$OUT/$name-$wl.json" "$name" "$wl" 2>"$OUT/err"); then
			echo "$tag $lock: built, $loop loop; $wl: exclusion check: $(tail -n 1 "$OUT/err")"
			return 1
		fi
		echo "$tag $lock: built, $loop loop; $wl at $THREADS threads: exclusion ok ($ops operations)"
	done
	[ "$lock" = qspinlock ] && { qspins+=("$name"); plugins+=(--plugin "$tag=$so"); }
	return 0
}

for spec in "${specs[@]}"; do
	if [[ $spec == *=* && ${spec%%=*} != */* ]]; then
		tag=${spec%%=*} dir=${spec#*=}
	else
		dir=$spec tag=$(basename "$spec" | tr -c 'a-zA-Z0-9\n' _ | tr '[:upper:]' '[:lower:]')
	fi
	if [ ! -d "$dir/kernel/locking" ]; then
		echo "$tag: $dir is not a kernel source tree (no kernel/locking/)"
		fails=$((fails + 1))
		continue
	fi
	desc='not a git work tree'
	if [ "$(git -C "$dir" rev-parse --show-toplevel 2>/dev/null)" = "$(cd "$dir" && pwd -P)" ]; then
		desc=$(git -C "$dir" describe --always --tags --dirty 2>/dev/null)
	fi
	ver=$(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p;s/^SUBLEVEL = //p' "$dir/Makefile" 2>/dev/null |
		paste -sd. -)
	echo "== $tag: $dir (Makefile ${ver:-?}; $desc)"
	for lock in qspinlock qrwlock osq; do
		case $lock in
		qspinlock) f=kernel/locking/qspinlock.c ;;
		qrwlock) f=kernel/locking/qrwlock.c ;;
		osq) f=kernel/locking/osq_lock.c ;;
		esac
		[ -f "$dir/$f" ] || { echo "$tag $lock: the tree has no $f"; continue; }
		try "$tag" "$dir" "$lock" || fails=$((fails + 1))
	done
done

if [ ${#qspins[@]} -ge 2 ]; then
	list=$(IFS=,; echo "${qspins[*]}")
	echo "== the trees' qspinlocks side by side (1 thread, empty sections)"
	"$BIN" "${plugins[@]}" -l "$list" -t 1 -r 5 -d 0.3 --warmup 0.05 --cs-lines 0 \
		--ncs-ns 0 -q || fails=$((fails + 1))
fi
[ "$fails" -eq 0 ]
