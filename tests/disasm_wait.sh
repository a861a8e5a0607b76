#!/usr/bin/env bash
# The kernel-style example's smp_cond_load_acquire() must wait the way
# the kernel does: on arm64 a load-exclusive of the word and WFE
# (arch/arm64/include/asm/cmpxchg.h, __cmpwait), on x86 `pause`.  Reads
# the disassembly of kmcs_lock (mcs_spin_lock() inlined) in the built
# plugin; with FUNC, that function instead (a kernel tree's qspinlock:
# queued_spin_lock_slowpath).  Usage: disasm_wait.sh native|arm64 PLUGIN.so [FUNC]
set -u
arch=$1 so=$2 fn=${3:-kmcs_lock}
case $arch in
arm64) objdump=aarch64-linux-gnu-objdump want='wfe ldxr sevl' ;;
native)
	objdump=objdump
	case $(uname -m) in
	x86_64 | i?86) want='pause' ;;
	aarch64) want='wfe ldxr sevl' ;;
	*) echo "disasm_wait: no expectation for $(uname -m), skipped"; exit 0 ;;
	esac ;;
*) echo "usage: disasm_wait.sh native|arm64 PLUGIN.so" >&2; exit 2 ;;
esac
pass=0 fail=0
body=$($objdump -d "$so" | awk -v fn="<$fn>:" '$2 == fn { on = 1; next } on && /^$/ { exit } on')
if [ -z "$body" ]; then
	echo "FAIL: no $fn in $so" >&2
	fail=1
fi
for insn in $want; do
	if grep -qE "[[:space:]]$insn([[:space:]]|$)" <<<"$body"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $arch $fn has no $insn:" >&2
		echo "$body" >&2
		fail=$((fail + 1))
	fi
done
echo "disasm_wait ($arch): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
