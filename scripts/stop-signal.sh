#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# Does a stop signal end a run of many threads at once, with the points
# measured written?  N times (20): on a fake machine (tests/fakesys),
#   lockbench -l pthread_mutex -t 1,THREADS -d 30 -r 1 -f json -o FILE
# gets SIGINT (SIG) DELAY seconds (default 1.5) after the progress line
# of the THREADS point (while its threads start, or later in its window
# with a larger DELAY), and each try prints the exit status, the seconds
# from the signal until the fake machine's governor is restored and
# until the process is gone, and the points the JSON holds.  A try
# holds when lockbench exits 1, its JSON is complete and marked
# incomplete with the 1-thread point ok, and the machine is restored;
# the last line counts them, and the exit status is 1 unless all held.
#   scripts/stop-signal.sh [./lockbench] [THREADS (2000)] [extra options]
#   N (20)  DELAY (1.5)  SIG (INT)
# The thread count is bounded by ulimit -u, kernel.threads-max and
# kernel.pid_max (every thread takes an id; 32768 by default) and
# memory (a thread's stack is reserved, 8 MiB by default, mostly
# untouched); above about 16,000 threads pass --counters off, as the
# counters take a descriptor per thread (ulimit -n).
set -u
BIN=$(realpath "${1:-./lockbench}")
T=${2:-2000}
shift 2 2>/dev/null || shift $#
N=${N:-20}
DELAY=${DELAY:-1.5}
SIG=${SIG:-INT}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"${CC:-cc}" -std=gnu11 -O2 -I"$ROOT/tests/fakesys" "$ROOT/tests/fakesys/mkfake.c" \
	"$ROOT/tests/fakesys/fakesys.c" -o "$W/mkfake" || exit 2
now() { date +%s.%N; }
held=0
for i in $(seq "$N"); do
	rm -rf "$W/tree"
	d=$("$W/mkfake" acpi) || exit 2
	mv "$d" "$W/tree"
	export LOCKBENCH_SYSROOT=$W/tree/root LOCKBENCH_STATE=$W/tree/state/state.json
	gov=$W/tree/root/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
	want=$(cat "$gov")
	rm -f "$W/o.json" "$W/err"	# the last try's progress lines are not this one's
	env --default-signal=INT,QUIT "$BIN" -l pthread_mutex -t "1,$T" -d 30 --warmup 0.2 -r 1 \
		-f json -o "$W/o.json" "$@" >"$W/out" 2>"$W/err" &
	pid=$!
	for _ in $(seq 12000); do
		grep -q "threads=$T " "$W/err" 2>/dev/null && break
		sleep 0.01
	done
	sleep "$DELAY"
	t0=$(now)
	kill -"$SIG" "$pid"
	while [ "$(cat "$gov")" != "$want" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.01; done
	t1=$(now)
	wait "$pid"
	rc=$?
	t2=$(now)
	pts=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
ok = d["incomplete"] and d["points"][0]["status"] == "ok"
print(("ok" if ok else "bad"), [p["status"] for p in d["points"]])' "$W/o.json" 2>/dev/null || echo "no JSON")
	verdict=bad
	[ $rc -eq 1 ] && [ "${pts%% *}" = ok ] && [ "$(cat "$gov")" = "$want" ] &&
		[ ! -e "$LOCKBENCH_STATE" ] && verdict=held && held=$((held + 1))
	printf '%2d %s exit %d  restored %.2f s  gone %.2f s  json %s\n' "$i" "$verdict" "$rc" \
		"$(python3 -c "print($t1 - $t0)")" "$(python3 -c "print($t2 - $t0)")" "$pts"
	[ "$verdict" = held ] || tail -n 3 "$W/err" | sed 's/^/   /'
done
echo "stop-signal: $T threads, SIG$SIG: $held of $N held"
[ "$held" -eq "$N" ]
