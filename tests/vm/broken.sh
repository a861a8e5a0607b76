#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e_vm.sh --self-test: lockbench in a scripts/vm.sh guest with
# real-kernel facts broken, to show the checks catch each: -p spread
# becomes -p cores (a placement that ignores every node but the first),
# --mem-node N becomes --mem-node 0, numa_balancing is left at 0 after a
# run (a restore skipped), locktorture is gone from modules.dep (the
# module not found), and a run of plugins gets --fake-nodes 1 (a kernel
# tree's CNA lock run without the nodes: every worker's cpu_to_node() 0).
# tests/vm/guest.sh runs it as $LB.
sed -i '/locktorture/d' /lib/modules/*/modules.dep
n=$#
prev=
plugin=
for a in "$@"; do
	[ "$a" = --plugin ] && plugin=1
	b=$a
	case "$prev:$a" in
	-p:spread) b=cores ;;
	--mem-node:[0-9]*) b=0 ;;
	esac
	set -- "$@" "$b"
	prev=$a
done
shift "$n"
[ -n "$plugin" ] && set -- "$@" --fake-nodes 1
lockbench "$@"
rc=$?
case $1 in
system | topo | list | import | locktorture) ;;
*) echo 0 >/proc/sys/kernel/numa_balancing ;;
esac
exit $rc
