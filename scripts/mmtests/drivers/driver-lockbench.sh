$SHELLPACK_TOPLEVEL/shellpack_src/src/refresh.sh lockbench

run_bench() {
	$SHELLPACK_INCLUDE/shellpack-bench-lockbench			\
		--locks		$LOCKBENCH_LOCKS			\
		--min-threads	$LOCKBENCH_MIN_THREADS			\
		--max-threads	$LOCKBENCH_MAX_THREADS			\
		--duration	$LOCKBENCH_DURATION			\
		--iterations	$LOCKBENCH_ITERATIONS			\
		${LOCKBENCH_CS_NS:+--cs-ns $LOCKBENCH_CS_NS}		\
		${LOCKBENCH_NCS_NS:+--ncs-ns $LOCKBENCH_NCS_NS}		\
		${LOCKBENCH_WORKLOAD:+--workload $LOCKBENCH_WORKLOAD}	\
		${LOCKBENCH_PLACEMENT:+--placement $LOCKBENCH_PLACEMENT}
	return $?
}
