$SHELLPACK_TOPLEVEL/shellpack_src/src/refresh.sh lockbench

# LOCKBENCH_WARMUP, LOCKBENCH_EXTRA_OPTS, LOCKBENCH_BINARY and
# LOCKBENCH_SRC reach the shellpack through the environment.
run_bench() {
	$SHELLPACK_INCLUDE/shellpack-bench-lockbench			\
		${LOCKBENCH_VERSION:+-v "$LOCKBENCH_VERSION"}		\
		--locks		"$LOCKBENCH_LOCKS"			\
		--min-threads	"$LOCKBENCH_MIN_THREADS"		\
		--max-threads	"$LOCKBENCH_MAX_THREADS"		\
		--duration	"$LOCKBENCH_DURATION"			\
		--iterations	"$LOCKBENCH_ITERATIONS"			\
		${LOCKBENCH_CS_NS:+--cs-ns "$LOCKBENCH_CS_NS"}		\
		${LOCKBENCH_NCS_NS:+--ncs-ns "$LOCKBENCH_NCS_NS"}	\
		${LOCKBENCH_WORKLOAD:+--workload "$LOCKBENCH_WORKLOAD"}	\
		${LOCKBENCH_PLACEMENT:+--placement "$LOCKBENCH_PLACEMENT"}
	return $?
}
