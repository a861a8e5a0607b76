#!/usr/bin/env bash
# Harness overhead and uncontended cost (issue: core), side by side in one
# interleaved run: ns per lock+unlock pair of null (the harness loop
# itself), tas, ticket, mcs and pthread_mutex at 1 thread and at all CPUs.
#   scripts/bench-overhead.sh [./lockbench] [extra lockbench options]
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
json=$(mktemp)
trap 'rm -f "$json"' EXIT
"$BIN" -l "${LOCKS:-null,tas,ticket,mcs,pthread_mutex}" -t 1,max -r "${RUNS:-5}" \
	--warmup 0.3 -d "${DURATION:-1}" --ncs-ns 0 --cs-lines 0 --no-tune -q \
	-f json -o "$json" "$@"
python3 "$(dirname "$0")/bench-table.py" "$json" ns
