#!/bin/sh
# SPDX-License-Identifier: MIT
# The /init of scripts/vm.sh's guest (busybox): mount what a real system
# has, run /in/run.sh in /out with its stdout on ttyS1 and stderr on
# ttyS2, then "VMEXIT status" and /out (tar, gzip, base64) on ttyS3; power off.
export PATH=/bin:/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run
mkdir -p /dev/pts /dev/shm
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
for t in 1 2 3; do stty -F /dev/ttyS$t 115200 raw -echo -opost; done
hostname lockbench-vm
cd /out
sh /in/run.sh </dev/null >/dev/ttyS1 2>/dev/ttyS2
st=$?
sync
{
	echo "VMEXIT $st"
	tar -C /out -cf - . | gzip -1 | base64
} >/dev/ttyS3
poweroff -f
