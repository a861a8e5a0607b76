#!/usr/bin/env bash
# The instruction-count guard: instructions per operation of the cs
# worker loop of `null` and of the locks that have a peer implementation
# (1 thread, empty critical section) counted by valgrind's callgrind,
# against a budget a little above the count measured when the loop was
# last trimmed (README, "Performance of the harness").  Counts
# are deterministic where time is not: a change that puts work back on
# the common path of the loop fails here, on any machine.
#   tests/e2e_insn.sh ./lockbench
# Budgets: see `budgets` below (override: LB_INSN_BUDGET="null=30 ...").
# Needs valgrind (Debian: apt-get install valgrind).
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"

if ! command -v valgrind >/dev/null; then
	echo "e2e_insn: valgrind not installed (apt-get install valgrind)" >&2
	exit 1
fi

# At the default --lat-sample 256 (x86_64, gcc 12): null 12.1, tas 17.1,
# ttas 20.1, ticket 21.1, anderson 29.1, mcs 24.1, clh 24.1, qspinlock
# 18.1; each budget is that plus 3.
budgets=${LB_INSN_BUDGET:-"null=15 tas=20 ttas=23 ticket=24 anderson=32 mcs=27 clh=27 qspinlock=21"}
for b in $budgets; do
	lock=${b%%=*} max=${b#*=}
	cg=$OUT/cg.$lock json=$OUT/$lock.json
	# The loop instantiated for this lock (workloads/loops/: LB_LOOPS):
	# every instruction executed inside it, the lock and the sampled
	# operations included, over every operation of the run; not its
	# once-per-run set-up (wl_loop_begin: calibration), which would make
	# the figure depend on how many operations valgrind got through.
	# --fair-sched: valgrind runs one thread at a time, and without it the
	# spinning worker keeps the CPU from the thread that ends the window
	# (a 0.1 s window then ran a billion operations, a minute a lock).
	if ! valgrind -q --tool=callgrind --fair-sched=yes --callgrind-out-file="$cg" \
		--toggle-collect="${lock}_cs_loop*" --toggle-collect=wl_loop_begin \
		"$BIN" -l "$lock" -t 1 -r 1 --warmup 0.02 -d 0.1 --ncs-ns 0 \
		--cs-lines 0 --no-tune --no-probe -q -f json -o "$json" \
		>"$OUT/stdout" 2>"$OUT/stderr"; then
		bad "$lock: the run under valgrind failed: $(head -c 300 "$OUT/stderr")"
		continue
	fi
	ir=$(awk '/^(summary|totals):/ {print $2; exit}' "$cg")
	ops=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]));
print(d["points"][0]["runs"][0]["exclusion"]["total_ops"])' "$json")
	if [ -z "$ir" ] || [ -z "$ops" ] || [ "$ops" -le 0 ]; then
		bad "$lock: no instruction or operation count (ir '$ir', ops '$ops')"
		continue
	fi
	per=$(awk -v i="$ir" -v o="$ops" 'BEGIN {printf "%.1f", i / o}')
	echo "e2e_insn: $lock: $per instructions per operation (budget $max; $ir over $ops ops)"
	# Fewer than one instruction per operation means the loop was not
	# found (renamed, or not the loop that ran): that is a failure too.
	if awk -v p="$per" -v m="$max" 'BEGIN {exit !(p >= 1 && p <= m)}'; then
		ok
	else
		bad "$lock: $per instructions per operation, budget $max"
	fi
done
echo "e2e_insn: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
