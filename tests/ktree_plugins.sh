#!/usr/bin/env bash
# ktree_plugins.sh BINARY OUTDIR [CC [CFLAGS]]: build the locks of the
# kernel-style fixture trees (tests/fixtures/ktree-*) with BINARY's
# build-kernel-lock into OUTDIR (its own cache in OUTDIR/cache), with
# compiler CC (default cc) and extra flags CFLAGS (e.g. -fsanitize=thread),
# and write OUTDIR/plugins: the LB_PLUGINS list for tests/test_locks
# (TAG=FILE entries: qspinlock_one, qrwlock_one, osq_one, qspinlock_split).
set -eu
BIN=$1 OUT=$2
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export LOCKBENCH_CACHE=$OUT/cache LOCKBENCH_CC=${3:-cc} LOCKBENCH_KTREE_CFLAGS=${4:-}
mkdir -p "$OUT"
list=
for spec in onefile:qspinlock:one onefile:qrwlock:one onefile:osq:one split:qspinlock:split; do
	IFS=: read -r tree lock tag <<<"$spec"
	"$BIN" build-kernel-lock "$ROOT/tests/fixtures/ktree-$tree" --lock "$lock" -q \
		-o "$OUT/$lock-$tag.so"
	list=$list${list:+:}$tag=$OUT/$lock-$tag.so
done
echo "$list" >"$OUT/plugins"
