#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/e2e_vm.sh --self-test: lockbench in a scripts/vm.sh guest with
# real-kernel facts broken, to show the checks catch each: -p spread
# becomes -p cores (a placement that ignores every node but the first),
# --mem-node N becomes --mem-node 0, numa_balancing is left at 0 after a
# run (a restore skipped), and locktorture is gone from modules.dep (the
# module not found).  tests/vm/guest.sh runs it as $LB.
sed -i '/locktorture/d' /lib/modules/*/modules.dep
n=$#
prev=
for a in "$@"; do
	b=$a
	case "$prev:$a" in
	-p:spread) b=cores ;;
	--mem-node:[0-9]*) b=0 ;;
	esac
	set -- "$@" "$b"
	prev=$a
done
shift "$n"
lockbench "$@"
rc=$?
case $1 in
system | topo | list | import | locktorture) ;;
*) echo 0 >/proc/sys/kernel/numa_balancing ;;
esac
exit $rc
