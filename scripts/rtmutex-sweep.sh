#!/usr/bin/env bash
# The rtmutex ordering evaluation (docs/method.md, docs/formats.md "table") redone
# with lockbench: writers 1..all CPUs pinned one per CPU, 5 runs per
# point, a warm-up that is thrown away, a fixed window, the stock rtmutex
# and its five ordering variants as the columns, rows named like
# locktorture's, mean / std / rel% against k0-stock.
#
#   scripts/rtmutex-sweep.sh [./lockbench] [extra lockbench options]
#   WARMUP=5 DURATION=10 RUNS=3 scripts/rtmutex-sweep.sh   # a quicker pass
#
# Defaults follow the published runs (60 s first report dropped, 60 s
# window, 5 runs; frequency frozen where permitted, --freq 1500MHz to
# insist).  WORKLOAD=torture gives locktorture's writer loop instead of
# the cs benchmark.  The JSON goes to ${OUT:-rtmutex.json}; an
# interrupted sweep continues with RESUME=1.
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
OUT=${OUT:-rtmutex.json}
resume=()
[ -n "${RESUME:-}" ] && resume=(--resume "$OUT")
exec "$BIN" -w "${WORKLOAD:-cs}" \
	-l rtmutex,rtmutex_relaxed_owner,rtmutex_readonce,rtmutex_fetch_or,rtmutex_relaxed_owner_readonce,rtmutex_relaxed_owner_fetch_or \
	-t "${THREADS:-1-max}" -r "${RUNS:-5}" --warmup "${WARMUP:-60}" -d "${DURATION:-60}" \
	--stat-interval "${INTERVAL:-10}" -p cores --row-name nwriters_stress \
	--seed "${SEED:-1}" -f table,json -o "$OUT" "${resume[@]}" "$@"
