# Builders of the peers for scripts/bench-peers.sh and
# scripts/insn-peers.sh (sourced; nothing is downloaded: each copies the
# source folder the user named into the scratch directory $W and builds
# there).  Each prints one line per binary on stdout,
#   LOCK BINARY
# (LOCK: lockbench's name for the algorithm) and returns non-zero, with
# the tail of the build log on stderr, if the build failed.

# The patches of the peers' loops (scripts/peers/).
PEERS_PATCHES=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/peers

# peers_args PROG "WORDS" ARGS...: LOCKHAMMER_DIR, CK_DIR, LIBSLOCK_DIR
# from ARGS of the form lockhammer=DIR, ck=DIR, libslock=DIR (only those
# whose word is in WORDS); anything else: one line and exit 2.
peers_args() {
	local prog=$1 ok=$2 a k
	shift 2
	for a in "$@"; do
		k=${a%%=*}
		if [[ $a != *=* || " $ok " != *" $k "* ]]; then
			echo "$prog: unknown argument ($a): want ${ok// /=, }=DIR" >&2
			exit 2
		fi
		case $k in
		lockhammer) LOCKHAMMER_DIR=${a#*=} ;;
		ck) CK_DIR=${a#*=} ;;
		libslock) LIBSLOCK_DIR=${a#*=} ;;
		esac
	done
}

# ARM's lockhammer: the whole synchronization-benchmarks checkout
# (lockhammer includes ../../ext).
peers_build_lockhammer() {
	local src=$1 lh b
	cp -r "$src" "$W/sb"
	lh=$W/sb/benchmarks/lockhammer
	if ! make -C "$lh" -j2 >"$W/lh.log" 2>&1; then
		tail -5 "$W/lh.log" >&2
		return 1
	fi
	b=$(ls -d "$lh"/build.relax_pause 2>/dev/null || ls -d "$lh"/build.* | head -1)
	printf '%s\n' "null $b/lh_empty" "tas $b/lh_swap_mutex" \
		"ticket $b/lh_ticket_spinlock" "clh $b/lh_clh_spinlock" \
		"qspinlock $b/lh_queued_spinlock" "pthread_mutex $b/lh_pthread_mutex_lock"
}

# Concurrency Kit's LATENCY benchmarks (lock, unlock, four pairs a turn,
# STEPS turns) built with STEPS=$2 into $W/ck.$2.  Not its pthread one:
# that benchmark runs in a process that never starts a thread, where
# glibc (2.32 and later: __libc_single_threaded) takes and drops a mutex
# with plain stores instead of locked instructions: a cheaper
# operation, not the same lock as in a threaded harness.
peers_build_ck() {
	local src=$1 steps=$2 d
	rm -rf "$W/ck.$steps"
	cp -r "$src" "$W/ck.$steps"
	d=$W/ck.$steps/regressions/ck_spinlock/benchmark
	if ! (cd "$W/ck.$steps" && ./configure >/dev/null 2>&1) ||
	   ! make -B -C "$d" ck_fas.LATENCY ck_ticket.LATENCY ck_mcs.LATENCY \
		ck_clh.LATENCY ck_anderson.LATENCY \
		CFLAGS="-O2 -I../../../include -D_GNU_SOURCE -DSTEPS=$steps" >"$W/ck.log" 2>&1; then
		tail -5 "$W/ck.log" >&2
		return 1
	fi
	printf '%s\n' "tas $d/ck_fas.LATENCY" "ticket $d/ck_ticket.LATENCY" \
		"mcs $d/ck_mcs.LATENCY" "clh $d/ck_clh.LATENCY" \
		"anderson $d/ck_anderson.LATENCY"
}

# libslock's stress_one, one binary per lock.
peers_build_libslock() {
	local src=$1 v
	for v in SPINLOCK:tas TTAS:ttas TICKET:ticket MCS:mcs CLH:clh ARRAY:anderson MUTEX:pthread_mutex; do
		rm -rf "$W/sl"
		cp -r "$src" "$W/sl"
		if make -B -C "$W/sl" stress_one LOCK_VERSION=-DUSE_${v%%:*}_LOCKS >"$W/sl.log" 2>&1; then
			cp "$W/sl/stress_one" "$W/sl_${v#*:}"
			echo "${v#*:} $W/sl_${v#*:}"
		else
			echo "libslock ${v%%:*} did not build: skipped" >&2
			tail -3 "$W/sl.log" >&2
		fi
	done
	rm -rf "$W/sl"
}

# The same peers with lockbench's handover count and exclusion check
# patched into their timed loops (scripts/peers/*-handover.patch; the
# owner word that lockbench's worker loop keeps, docs/method.md,
# "Handovers"): each thread prints
#   lb-handover: ... acquires A handovers H violations V walltime_ns W
# on stderr.  lockhammer: the whole checkout, patched, in $W/sbh.
peers_build_lockhammer_handover() {
	local src=$1 lh b
	rm -rf "$W/sbh"
	cp -r "$src" "$W/sbh"
	lh=$W/sbh/benchmarks/lockhammer
	if ! patch -s -d "$W/sbh" -p1 <"$PEERS_PATCHES/lockhammer-handover.patch" >"$W/lhh.log" 2>&1 ||
	   ! make -C "$lh" -j2 >>"$W/lhh.log" 2>&1; then
		tail -5 "$W/lhh.log" >&2
		return 1
	fi
	b=$(ls -d "$lh"/build.relax_pause 2>/dev/null || ls -d "$lh"/build.* | head -1)
	printf '%s\n' "tas $b/lh_swap_mutex" \
		"ticket $b/lh_ticket_spinlock" "clh $b/lh_clh_spinlock" \
		"qspinlock $b/lh_queued_spinlock" "pthread_mutex $b/lh_pthread_mutex_lock"
}

# Concurrency Kit's THROUGHPUT benchmarks (threads taking the lock for
# LB_SECONDS=$2 seconds; argv: threads, affinity delta, critical), patched,
# in $W/ckh.
peers_build_ck_handover() {
	local src=$1 secs=$2 d
	rm -rf "$W/ckh"
	cp -r "$src" "$W/ckh"
	d=$W/ckh/regressions/ck_spinlock/benchmark
	if ! patch -s -d "$W/ckh" -p1 <"$PEERS_PATCHES/ck-handover.patch" >"$W/ckh.log" 2>&1 ||
	   ! (cd "$W/ckh" && ./configure >/dev/null 2>&1) ||
	   ! make -B -C "$d" ck_fas.THROUGHPUT ck_ticket.THROUGHPUT ck_mcs.THROUGHPUT \
		ck_clh.THROUGHPUT ck_anderson.THROUGHPUT \
		CFLAGS="-O2 -I../../../include -D_GNU_SOURCE -DLB_SECONDS=$secs -pthread -lm" \
		>>"$W/ckh.log" 2>&1; then
		tail -5 "$W/ckh.log" >&2
		return 1
	fi
	printf '%s\n' "tas $d/ck_fas.THROUGHPUT" "ticket $d/ck_ticket.THROUGHPUT" \
		"mcs $d/ck_mcs.THROUGHPUT" "clh $d/ck_clh.THROUGHPUT" \
		"anderson $d/ck_anderson.THROUGHPUT"
}
