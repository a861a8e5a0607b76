#!/usr/bin/env bash
# Every lock side by side in one interleaved run (issue: catalogue):
#  1. ns per lock+unlock pair at 1 thread (the uncontended cost, which is
#     what matters most in the kernel), with no parallel section and no
#     shared lines, null and pthread_mutex as references;
#  2. throughput at 2 threads with --cs-lines 1 --ncs-ns 0.
#   scripts/bench-locks.sh [./lockbench] [extra lockbench options]
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
all=$("$BIN" list locks | awk 'NR > 1 { print $1 }' | paste -sd, -)
LOCKS=${LOCKS:-$all}
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$BIN" -l "$LOCKS" -t 1 -r "${RUNS:-3}" --warmup 0.2 -d "${DURATION:-0.5}" \
	--ncs-ns 0 --cs-lines 0 --no-tune -q -f json -o "$json" "$@"
python3 "$(dirname "$0")/bench-table.py" "$json" ns
echo
"$BIN" -l "$LOCKS" -t 2 -r "${RUNS:-3}" --warmup 0.2 -d "${DURATION:-0.5}" \
	--ncs-ns 0 --cs-lines 1 --no-tune -q -f json -o "$json" "$@"
python3 "$(dirname "$0")/bench-table.py" "$json" kops
