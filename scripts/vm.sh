#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# vm.sh [options] TOPOLOGY SCRIPT          run SCRIPT (a shell file) in a guest
# vm.sh [options] TOPOLOGY -- COMMAND...   run one command in a guest
# vm.sh [options] --prepare                only download and build the guest
#
# Try lockbench on a machine you don't have: a QEMU guest of TOPOLOGY
# (NODESxCPUS[xTHREADS]: NODES sockets, each its own NUMA node of CPUS
# CPUs, THREADS hardware threads per core, default 1; e.g. 4x4, 2x8x2,
# 8x8) running Debian's own kernel (the current linux-image-amd64 ABI,
# never installed on this host), busybox, the real locktorture and
# torture modules built from the matching linux-source against that
# kernel's headers, and lockbench with its shared libraries.  A
# CORRECTNESS check, never a timing one: under TCG the guest's CPUs are
# emulated one after another on one host thread (docs/vm.md).
#
# In the guest, every file root's (as on a real system, whoever runs
# vm.sh): /proc, /sys, /dev, /tmp, /run mounted; lockbench,
# modprobe (with a modules.dep naming locktorture) and busybox on PATH;
# the files of -i in /in; the working directory /out, whose contents -o
# copies back.  The command's stdout and stderr come back as this
# script's, and its exit status as this script's; 125 (one line on
# stderr) when the guest ended without one (a panic, a hang past -T).
#
# Options:
#   -b BIN     the lockbench binary [./lockbench]
#   -c DIR     cache of the kernel, modules and initramfs, reused across
#              runs [$LOCKBENCH_VM_CACHE, else $XDG_CACHE_HOME/lockbench-vm,
#              else ~/.cache/lockbench-vm]
#   -i FILE    copy FILE into the guest's /in (repeatable)
#   -o DIR     copy the guest's /out into DIR afterwards
#   -a ACCEL   kvm, tcg or auto: KVM when a test guest boots under it
#              within 30 s (remembered in the cache), else TCG [auto]
#   -m MB      guest memory, split evenly over the nodes [max(1024, 256 x NODES)]
#   -T S       end the guest after S seconds [900]
#   -k         print the guest kernel's console on stderr too
#
# The first run needs Debian's package mirror (apt-get download, about
# 225 MB) and a compiler; later runs reuse the cache.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=./lockbench
CACHE=${LOCKBENCH_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lockbench-vm}
ACCEL=auto MEM= LIMIT=900 OUTDIR= KCONS=0 PREPARE=0
INS=()

die() { echo "vm.sh: $*" >&2; exit 2; }
usage() { die "usage: $0 [-b BIN] [-c DIR] [-i FILE] [-o DIR] [-a kvm|tcg|auto] [-m MB] [-T S] [-k] NODESxCPUS[xTHREADS] SCRIPT | -- COMMAND..."; }

while [ $# -gt 0 ]; do
	case $1 in
	-b) BIN=${2:?}; shift 2 ;;
	-c) CACHE=${2:?}; shift 2 ;;
	-i) INS+=("${2:?}"); shift 2 ;;
	-o) OUTDIR=${2:?}; shift 2 ;;
	-a) ACCEL=${2:?}; shift 2 ;;
	-m) MEM=${2:?}; shift 2 ;;
	-T) LIMIT=${2:?}; shift 2 ;;
	-k) KCONS=1; shift ;;
	--prepare) PREPARE=1; shift ;;
	-h|--help) sed -n '4,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	-*) usage ;;
	*) break ;;
	esac
done
case $ACCEL in kvm|tcg|auto) ;; *) die "-a: kvm, tcg or auto, not '$ACCEL'" ;; esac
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 not found (Debian: apt-get install qemu-system-x86)"
command -v busybox >/dev/null || die "busybox not found (Debian: apt-get install busybox-static)"
command -v cpio >/dev/null || die "cpio not found (Debian: apt-get install cpio)"
BUSYBOX=$(command -v busybox)
if ldd "$BUSYBOX" >/dev/null 2>&1; then
	die "$BUSYBOX is dynamically linked; the guest needs busybox-static"
fi
mkdir -p "$CACHE" || die "cannot make the cache $CACHE"
CACHE=$(cd "$CACHE" && pwd)

# ---- the kernel, its modules and the base initramfs (cached) -------------

# The ABI of Debian's current kernel (6.1.0-57), from apt; offline, the
# newest one already in the cache.
kernel_abi() {
	local abi
	abi=${LOCKBENCH_VM_KERNEL:-$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/.*Depends: linux-image-\(.*\)-amd64$/\1/p' | head -1)}
	[ -n "$abi" ] || abi=$(ls -d "$CACHE"/*-amd64 2>/dev/null | sed 's|.*/||; s/-amd64$//' | sort -V | tail -1)
	[ -n "$abi" ] || die "no Debian kernel ABI: apt-cache knows no linux-image-amd64 and the cache is empty"
	echo "$abi"
}

# build_modules WORK KDIR: torture.ko and locktorture.ko of the kernel
# source that matches the headers (Debian builds its kernel without
# CONFIG_LOCK_TORTURE_TEST), out of tree.
build_modules() {
	local w=$1 k=$2 abi=$3 ver=${3%%.0-*} hdr src
	hdr=$w/x/usr/src/linux-headers-$abi
	src=linux-source-$ver
	# The headers' Makefile includes the common headers by absolute path.
	sed -i "s|^include /usr/src/|include $w/x/usr/src/|" "$hdr/Makefile" || return 1
	tar -xJf "$w/x/usr/src/$src.tar.xz" -C "$w" "$src/kernel/locking/locktorture.c" \
		"$src/kernel/torture.c" "$src/kernel/rcu/rcu.h" || return 1
	mkdir -p "$w/mod/rcu"
	cp "$w/$src/kernel/torture.c" "$w/$src/kernel/locking/locktorture.c" "$w/mod/" &&
		cp "$w/$src/kernel/rcu/rcu.h" "$w/mod/rcu/" || return 1
	echo 'obj-m += torture.o locktorture.o' >"$w/mod/Kbuild"
	make -s -C "$hdr" M="$w/mod" modules >"$w/make.log" 2>&1 ||
		{ tail -20 "$w/make.log" >&2; return 1; }
	mkdir -p "$k/extra"
	cp "$w/mod/torture.ko" "$w/mod/locktorture.ko" "$k/extra/"
}

# base_root ROOT ABI K: busybox, the modules with their modules.dep.
base_root() {
	local r=$1 abi=$2 k=$3 a
	mkdir -p "$r"/{bin,sbin,proc,sys,dev,tmp,run,in,out,etc,lib/modules/"$abi"}
	cp "$BUSYBOX" "$r/bin/busybox"
	for a in $("$BUSYBOX" --list); do
		[ "$a" = busybox ] || ln -sf busybox "$r/bin/$a"
	done
	cp -r "$k/extra" "$r/lib/modules/$abi/"
	cp "$k/modules.builtin" "$r/lib/modules/$abi/"
	printf 'extra/torture.ko:\nextra/locktorture.ko: extra/torture.ko\n' \
		>"$r/lib/modules/$abi/modules.dep"
	cp "$ROOT/scripts/vm-init.sh" "$r/init" && chmod 755 "$r/init"
}

prepare() {
	local abi=$1 k=$CACHE/$1-amd64 w ver=${1%%.0-*}
	[ -f "$k/base.cpio" ] && [ "$k/base.cpio" -nt "$ROOT/scripts/vm-init.sh" ] && return 0
	w=$(mktemp -d "$CACHE/work.XXXXXX") || return 1
	echo "vm.sh: preparing the guest kernel $abi in $k" >&2
	mkdir -p "$k"
	if [ ! -f "$k/extra/locktorture.ko" ] || [ ! -f "$k/vmlinuz" ]; then
		(cd "$w" && apt-get download -q "linux-image-$abi-amd64" "linux-headers-$abi-amd64" \
			"linux-headers-$abi-common" "linux-kbuild-$ver" "linux-source-$ver" >"$w/apt.log" 2>&1) ||
			{ tail -5 "$w/apt.log" >&2; rm -rf "$w"; die "apt-get download of kernel $abi failed"; }
		for d in "$w"/*.deb; do dpkg-deb -x "$d" "$w/x" || { rm -rf "$w"; die "dpkg-deb -x $d failed"; }; done
		cp "$w/x/boot/vmlinuz-$abi-amd64" "$k/vmlinuz" &&
			cp "$w/x/lib/modules/$abi-amd64/modules.builtin" "$k/" ||
			{ rm -rf "$w"; die "the image package lacks vmlinuz or modules.builtin"; }
		build_modules "$w" "$k" "$abi-amd64" || { rm -rf "$w"; die "building locktorture.ko failed"; }
	fi
	base_root "$w/root" "$abi-amd64" "$k"
	(cd "$w/root" && find . | cpio -o -H newc -R 0:0 --quiet >"$k/base.cpio.new") &&
		mv "$k/base.cpio.new" "$k/base.cpio"
	rm -rf "$w"
}

# ---- the topology (checked before anything is downloaded) --------------

if [ "$PREPARE" != 1 ]; then
	[ $# -ge 1 ] || usage
	TOPO=$1
	shift
	[[ $TOPO =~ ^([1-9][0-9]*)x([1-9][0-9]*)(x([1-9][0-9]*))?$ ]] ||
		die "topology '$TOPO': want NODESxCPUS[xTHREADS], e.g. 4x4 or 2x8x2"
	NODES=${BASH_REMATCH[1]} PER=${BASH_REMATCH[2]} THR=${BASH_REMATCH[4]:-1}
	[ $((PER % THR)) -eq 0 ] || die "topology '$TOPO': $PER CPUs per node is not a multiple of $THR threads per core"
	NCPU=$((NODES * PER))
	[ "$NCPU" -le 255 ] || die "topology '$TOPO': $NCPU CPUs, at most 255"
	[ -n "$MEM" ] || MEM=$((NODES * 256 > 1024 ? NODES * 256 : 1024))
	[[ $MEM =~ ^[0-9]+$ ]] || die "-m: a number of MB, not '$MEM'"
fi

ABI=$(kernel_abi) || exit 2
prepare "$ABI" || exit 2
KDIR=$CACHE/$ABI-amd64
[ "$PREPARE" = 1 ] && { echo "$KDIR"; exit 0; }

PERMEM=$((MEM / NODES))
[ "$PERMEM" -ge 64 ] || die "-m: $MEM MB is less than 64 MB a node"

if [ $# -eq 0 ]; then
	usage
elif [ "$1" = -- ]; then
	shift
	[ $# -ge 1 ] || usage
	CMD=$(printf '%q ' "$@")
else
	[ -f "$1" ] || die "script '$1': no such file"
	SCRIPT=$1
fi
[ -x "$BIN" ] || die "lockbench binary '$BIN' not found (-b)"

# topo_args: -smp, one socket and one memory backend per node, ACPI
# distances 10 on the node and 20 between nodes.
topo_args() {
	local n m
	echo "-smp $NCPU,sockets=$NODES,cores=$((PER / THR)),threads=$THR -m ${MEM}M"
	for ((n = 0; n < NODES; n++)); do
		echo "-object memory-backend-ram,id=m$n,size=${PERMEM}M"
		echo "-numa node,nodeid=$n,memdev=m$n -numa cpu,node-id=$n,socket-id=$n"
	done
	for ((n = 0; n < NODES; n++)); do
		for ((m = 0; m < NODES; m++)); do
			[ $n -eq $m ] || echo "-numa dist,src=$n,dst=$m,val=20"
		done
	done
}
MEM=$((PERMEM * NODES))

# ---- one guest -----------------------------------------------------------

RUN=$(mktemp -d "${TMPDIR:-/tmp}/lockbench-vm.XXXXXX") || exit 2
QPID=
cleanup() {
	[ -n "$QPID" ] && kill "$QPID" 2>/dev/null
	rm -rf "$RUN"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run_root DIR: lockbench with its libraries (from ldd) and the loader,
# the script and the -i files.
run_root() {
	local r=$1 lib f
	mkdir -p "$r/bin" "$r/in"
	cp "$BIN" "$r/bin/lockbench" || return 1
	for lib in $(ldd "$BIN" | grep -o '/[^ ]*'); do
		mkdir -p "$r$(dirname "$lib")"
		cp -L "$lib" "$r$lib" || return 1
	done
	if [ -n "${SCRIPT:-}" ]; then
		cp "$SCRIPT" "$r/in/run.sh"
	else
		printf '%s\n' "$CMD" >"$r/in/run.sh"
	fi
	for f in "${INS[@]}"; do cp -r "$f" "$r/in/" || return 1; done
}

# try_boot ACCEL LIMIT: boot the guest, its three output ports into
# $RUN/{console,stdout,stderr,status}; 0 when the guest reported a status.
try_boot() {
	local acc=$1 lim=$2 cpu=max
	[ "$acc" = kvm ] && cpu=host
	[ "$acc" = tcg ] && acc=tcg,thread=single
	: >"$RUN/console"; : >"$RUN/stdout"; : >"$RUN/stderr"; : >"$RUN/status"
	# no_timer_check: on a loaded host the emulated timer may not tick
	# within the kernel's boot-time check, which then panics in
	# x86_late_time_init() ("IO-APIC + timer doesn't work!"); the check
	# is for broken timer hardware (kernel-parameters.txt, no_timer_check)
	# shellcheck disable=SC2046
	qemu-system-x86_64 -nodefaults -no-reboot -display none -accel "$acc" -cpu "$cpu" \
		$(topo_args) -kernel "$KDIR/vmlinuz" -initrd "$RUN/initrd" \
		-append "console=ttyS0 rdinit=/init quiet panic=-1 mitigations=off no_timer_check" \
		-serial "file:$RUN/console" -serial "file:$RUN/stdout" \
		-serial "file:$RUN/stderr" -serial "file:$RUN/status" \
		</dev/null >"$RUN/qemu.log" 2>&1 &
	QPID=$!
	# the command's output as it comes (the guest's ports are raw: no CR)
	tail -n +1 -f --pid="$QPID" "$RUN/stdout" &
	tail -n +1 -f --pid="$QPID" "$RUN/stderr" >&2 &
	for ((i = 0; i < lim * 5; i++)); do
		kill -0 "$QPID" 2>/dev/null || break
		sleep 0.2
	done
	kill "$QPID" 2>/dev/null
	wait 2>/dev/null
	QPID=
	grep -q '^VMEXIT [0-9]' "$RUN/status"
}

mkdir -p "$RUN/root"
run_root "$RUN/root" || die "cannot copy lockbench or its libraries into the guest"
(cd "$RUN/root" && find . | cpio -o -H newc -R 0:0 --quiet >"$RUN/run.cpio") || die "cpio failed"
cat "$KDIR/base.cpio" "$RUN/run.cpio" >"$RUN/initrd"

if [ "$ACCEL" = auto ]; then
	ACCEL=$(cat "$CACHE/accel-$(uname -r)" 2>/dev/null)
	if [ -z "$ACCEL" ]; then
		ACCEL=tcg
		if [ -w /dev/kvm ]; then
			SAVE=$(cat "$RUN/root/in/run.sh")
			echo true >"$RUN/root/in/run.sh"
			(cd "$RUN/root" && find . | cpio -o -H newc -R 0:0 --quiet) | cat "$KDIR/base.cpio" - >"$RUN/initrd"
			try_boot kvm 30 && ACCEL=kvm
			printf '%s\n' "$SAVE" >"$RUN/root/in/run.sh"
			cat "$KDIR/base.cpio" "$RUN/run.cpio" >"$RUN/initrd"
		fi
		echo "$ACCEL" >"$CACHE/accel-$(uname -r)"
		echo "vm.sh: accelerator $ACCEL (remembered in $CACHE/accel-$(uname -r))" >&2
	fi
fi

try_boot "$ACCEL" "$LIMIT"
booted=$?
if [ "$KCONS" = 1 ] || [ $booted -ne 0 ]; then
	tr -d '\r' <"$RUN/console" | tail -n "$([ "$KCONS" = 1 ] && echo +1 || echo 15)" >&2
	[ $booted -ne 0 ] && tail -5 "$RUN/qemu.log" >&2
fi
if [ $booted -ne 0 ]; then
	echo "vm.sh: the guest ($TOPO, $ACCEL) ended without an exit status (a panic, or past -T $LIMIT s)" >&2
	exit 125
fi
if [ -n "$OUTDIR" ]; then
	mkdir -p "$OUTDIR" &&
		tr -d '\r' <"$RUN/status" | sed '1d' | base64 -d | gzip -dc | tar -C "$OUTDIR" -xf - ||
		{ echo "vm.sh: could not copy the guest's /out into $OUTDIR" >&2; exit 125; }
fi
exit "$(sed -n '1s/^VMEXIT \([0-9]*\).*/\1/p' "$RUN/status")"
