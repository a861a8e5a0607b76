#!/usr/bin/env bash
# The arm64 binary end to end under qemu-user: a short sweep of the
# spinning, queued, reader-writer and sleeping locks at 1 and 2 threads
# (real threads: qemu runs each on a host thread, so the exclusion
# check sees real contention), the broken lock caught, and the JSON.
# Each run is bounded by `timeout`: a hang fails instead of stalling CI.
# Usage: e2e_arm64.sh BINARY QEMU-COMMAND...
set -u
ARM_BIN=$1
shift
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# BIN, for lib.sh: the binary under qemu as one command.
BIN=$OUT/lockbench
printf '#!/bin/sh\nexec timeout 120 %s %s "$@"\n' "$*" "$(realpath "$ARM_BIN")" >"$BIN"
chmod +x "$BIN"
. "$(dirname "$0")/lib.sh"
SHORT=(--warmup 0.05 -d 0.2 --stat-interval 0.05 --no-tune -q)

# Every lock family; 1 thread runs every delay calibration (a counter
# coarser than a clock read, as arm64's are, once hung it).
expect_exit 0 "sweep" -- "$BIN" -l tas,ticket,qspinlock,mcs,clh,cna,pthread_mutex \
	-t 1,2 -r 2 --ncs-ns 100 --cs-ns 50 "${SHORT[@]}" -f table,json -o "$OUT/a.json"
grep -q "^Lock: *tas *ticket" "$OUT/stdout" && ok || bad "no table: $(head -3 "$OUT/stdout")"
python3 - "$OUT/a.json" <<'PY' && ok || bad "sweep json"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["points"]) == 14, len(d["points"])
for p in d["points"]:
    assert p["status"] == "ok", p["status"]
    for r in p["runs"]:
        # a run starved by a busy host is left out, not counted as 0
        assert r["exclusion"]["ok"] and (r["ops"] > 0 or r.get("excluded")), r
PY

# The default workload's empty section (no delay at all) and rw.
expect_exit 0 "no delays" -- "$BIN" -l null,tas -t 1 -r 1 --ncs-ns 0 "${SHORT[@]}"
expect_exit 0 "rw" -- "$BIN" -w rw -l qrwlock -t 2 -r 1 "${SHORT[@]}"

# A lock that breaks mutual exclusion fails the run, loudly.
expect_exit 1 "busted" -- "$BIN" -l busted --include-broken -t 2 -r 1 --cs-ns 500 "${SHORT[@]}"
grep -q "mutual exclusion violated" "$OUT/stderr" && ok || bad "busted not reported: $(cat "$OUT/stderr")"

e2e_done
