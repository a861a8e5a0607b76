#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs inside a scripts/vm.sh guest (busybox sh) for tests/e2e_vm.sh:
# each argument names a step (NAME/ARG/ARG), whose raw facts (sysfs, /proc, lockbench's
# files and exit statuses) go into the working directory /out for the
# host to check (tests/vm/check.py).  Nothing here judges.
#   place/POLICY/T   a run's workers' affinity and last CPU, from /proc
#   mem/MODE/POLICY  a run's numa_maps with --mem-node MODE
#   locks/T,../L,..  locks L (default all) at T threads: exit, wall time
#   sig/SIG          SIGTERM, SIGHUP or SIGINT to a 16-thread run
#   numab            numa_balancing across a normal end, SIGTERM, SIGKILL
#   cna/T            cna's handoffs over the real nodes
#   ktree/T          a kernel tree's stock and CNA qspinlock (plugins the
#                    host built, in /in/ktree) over the real nodes
#   lt/T,..          lockbench locktorture on the real module, its dmesg
LB=${LB:-lockbench}
WIN=${WIN:-0.1}
# the watchdog (s): TCG may leave a lock's next waiter unscheduled for
# long (docs/vm.md); tests/e2e_vm.sh raises it for 64 threads
WD=${WD:-30}

now() { cut -d' ' -f1 /proc/uptime; }

sysfs() {
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		n=${c##*cpu}
		echo "cpu $n $(cat "$c/topology/physical_package_id") $(cat "$c/topology/core_id") $(cat "$c/topology/thread_siblings_list")"
	done
	for d in /sys/devices/system/node/node[0-9]*; do
		echo "node ${d##*node} $(cat "$d/cpulist") $(cat "$d/distance")"
	done
}

# lbpid PID: PID, or its child when PID is a wrapper ($LB, broken.sh)
lbpid() {
	if [ "$(cat "/proc/$1/comm" 2>/dev/null)" = lockbench ]; then
		echo "$1"
	else
		c=$(cat "/proc/$1/task/$1/children" 2>/dev/null)
		echo "${c%% *}"
	fi
}

# workers PID N: wait until a look at every task of PID finds N of them
# pinned to one CPU (N+1 tasks for N=-K: K workers, none pinned), then
# print that look, a task a line: "tid allowed-list last-cpu" (the last
# from /proc/PID/task/TID/stat, field 39).
workers() {
	i=0
	while [ $i -lt 600 ]; do
		wp=$(lbpid "$1")
		# one grep and one cat for all tasks: quick, so one moment
		snap=$( (grep -H '^Cpus_allowed_list' /proc/$wp/task/*/status 2>/dev/null |
			sed 's|^/proc/[0-9]*/task/\([0-9]*\)/status:[^:]*:[[:space:]]*|A \1 |'
			cat /proc/$wp/task/*/stat 2>/dev/null | awk '{ print "S", $1, $39 }') |
			awk '$1 == "A" { a[$2] = $3 } $1 == "S" { s[$2] = $3 }
			     END { for (t in a) if (t in s) print t, a[t], s[t] }')
		if [ "$2" -lt 0 ]; then
			n=$(echo "$snap" | grep -c .)
			[ "$n" -gt $((-$2)) ] && break
		else
			n=$(echo "$snap" | grep -c '^[0-9]* [0-9]* [0-9]*$')
			[ "$n" -ge "$2" ] && break
		fi
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
		i=$((i + 1))
	done
	echo "$snap"
}

# place POLICY T: a 2 s rtmutex window, its workers read from /proc.
place() {
	f=place-$(echo "$1" | tr ':,' '__')-$2
	$LB -q --no-probe -l rtmutex -t "$2" -p "$1" -r 1 --warmup 0.2 -d 2 --watchdog "$WD" \
		-f json -o "$f.json" 2>"$f.err" &
	pid=$!
	# none pins nothing: wait for the workers to exist instead
	if [ "$1" = none ]; then workers $pid "-$2" >"$f.tasks"; else workers $pid "$2" >"$f.tasks"; fi
	wait $pid
	echo $? >"$f.rc"
}

# mem MODE POLICY: the run's numa_maps while its workers run.
mem() {
	f=mem-$1-$(echo "$2" | tr ':,' '__')
	$LB -q --no-probe -l ticket -t 2 -p "$2" --mem-node "$1" -r 1 --warmup 0.2 -d 1 \
		-f json -o "$f.json" 2>"$f.err" &
	pid=$!
	workers $pid 2 >"$f.tasks"
	# the workers may be pinned before the lock's memory is placed: wait
	# (10 s at most) for a mapping with a policy, then keep that look
	i=0
	while [ $i -lt 100 ] && kill -0 $pid 2>/dev/null; do
		cat "/proc/$(lbpid $pid)/numa_maps" >"$f.maps" 2>/dev/null
		grep -qE ' (bind|interleave):' "$f.maps" && break
		sleep 0.1
		i=$((i + 1))
	done
	wait $pid
	echo $? >"$f.rc"
}

# locks T,.. [LOCKS]: one sweep of LOCKS (default: every built-in lock,
# the null control and the broken one aside) at T threads, a run each; the watchdog at 30 s, as TCG may leave a FIFO
# lock's next waiter unscheduled for a while (docs/vm.md).
locks() {
	ls=${2:-$($LB list locks | sed '1d; /^null /d; s/ .*//' | tr '\n' ',' | sed 's/,$//')}
	t0=$(now)
	$LB -q --no-probe -l "$ls" -t "$1" -r 1 --warmup 0.05 -d "$WIN" --watchdog "$WD" -f json \
		-o locks.json 2>locks.err
	echo "$? $t0 $(now)" >locks.rc
}

# sig SIG: a 16-thread ticket run signalled in its window.  A job in
# the background of this shell (no job control) starts with SIGINT
# ignored, which lockbench keeps (lockbench.1): its 3 s window then ends.
sig() {
	f=sig-$1
	d=60
	[ "$1" = INT ] && d=3
	$LB -l ticket -t 16 -r 1 --warmup 0.2 -d $d -f json -o "$f.json" 2>"$f.err" &
	pid=$!
	workers $pid 16 >/dev/null
	t0=$(now)
	kill -"$1" "$(lbpid $pid)"
	wait $pid
	echo "$? $t0 $(now)" >"$f.rc"
}

numab() {
	nb=/proc/sys/kernel/numa_balancing
	echo "before $(cat $nb)" >numab.txt
	$LB -l ticket -t 4 -r 1 --warmup 0.2 -d 1 -o numab-end.json 2>numab-end.err &
	pid=$!
	workers $pid 4 >/dev/null
	echo "during $(cat $nb)" >>numab.txt
	wait $pid
	echo "end $? $(cat $nb)" >>numab.txt
	$LB -q -l ticket -t 4 -r 1 --warmup 0.2 -d 60 -o numab-term.json 2>numab-term.err &
	pid=$!
	workers $pid 4 >/dev/null
	echo "during-term $(cat $nb)" >>numab.txt
	kill -TERM "$(lbpid $pid)"
	wait $pid
	echo "term $? $(cat $nb)" >>numab.txt
	$LB -q -l ticket -t 4 -r 1 --warmup 0.2 -d 60 -o numab-kill.json 2>numab-kill.err &
	pid=$!
	workers $pid 4 >/dev/null
	echo "during-kill $(cat $nb)" >>numab.txt
	kill -KILL "$(lbpid $pid)"
	wait $pid 2>/dev/null
	echo "kill $? $(cat $nb)" >>numab.txt
	$LB system reset >numab-reset.out 2>numab-reset.err
	echo "reset $? $(cat $nb)" >>numab.txt
	$LB system show >numab-show.out 2>numab-show.err
	echo "show $?" >>numab.txt
}

cna() {
	# a 2 us section: the holder keeps the lock while waiters of both
	# nodes queue (with the default, a quiet host's single-threaded TCG
	# handed over before a third waiter came: 0 moves in both guests)
	$LB -q -l cna -t "$1" -p spread -r 1 --warmup 0.1 -d 0.5 --cs-ns 2000 -f json -o cna.json 2>cna.err
	echo $? >cna.rc
}

# ktree T: the stock and CNA builds of a kernel tree, made on the host by
# build-kernel-lock -o (the guest has no compiler) and loaded with
# --plugin, as docs/kernel-tree.md has a user on a NUMA machine without
# one do; the 2 us section of cna() so that waiters of several nodes queue.
ktree() {
	t0=$(now)
	$LB -q --no-probe --plugin stock=/in/ktree/stock.so --plugin cna=/in/ktree/cna.so \
		-l qspinlock_stock,qspinlock_cna -t "$1" -p spread -r 1 --warmup 0.1 -d 0.5 \
		--cs-ns 2000 --watchdog "$WD" -f json -o ktree.json 2>ktree.err
	echo "$? $t0 $(now)" >ktree.rc
}

lt() {
	$LB locktorture --check >lt-check.out 2>lt-check.err
	echo $? >lt-check.rc
	for ty in rtmutex_lock mutex_lock spin_lock rwsem_lock; do
		dmesg -c >/dev/null
		$LB locktorture -q --torture-type "$ty" -t "$1" -r 1 --warmup 0 -d 2 \
			-p spread -f table,json -o "table=lt-$ty.txt,json=lt-$ty.json" 2>"lt-$ty.err"
		echo $? >"lt-$ty.rc"
		dmesg >"lt-$ty.dmesg"
		$LB import locktorture -f table,json -o "table=lt-$ty-import.txt,json=lt-$ty-import.json" \
			"lt-$ty.dmesg" 2>"lt-$ty-import.err"
		echo $? >"lt-$ty-import.rc"
	done
	cat /proc/modules >lt-modules.txt
}

for step in "$@"; do
	name=${step%%/*}
	args=$(echo "${step#"$name"}" | sed 's|^/||; s|/| |g')
	t0=$(now)
	# shellcheck disable=SC2086
	$name $args
	echo "$step $t0 $(now)" >>steps.txt
	awk -v a="$t0" -v b="$(now)" -v s="$step" 'BEGIN { printf "guest: %s: %.1f s\n", s, b - a }' >&2
done
$LB topo -f json >topo.json 2>topo.err
echo $? >topo.rc
# the guest kernel's topology as sysfs has it, for topo and placements
sysfs >sysfs.txt
