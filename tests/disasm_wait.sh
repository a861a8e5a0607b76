#!/usr/bin/env bash
# The kernel-style example's smp_cond_load_acquire() must wait the way
# the kernel does: on arm64 a load-exclusive of the word and WFE
# (arch/arm64/include/asm/cmpxchg.h, __cmpwait), on x86 `pause`.  Reads
# the disassembly of kmcs_lock (mcs_spin_lock() inlined) in the built
# plugin.  Usage: disasm_wait.sh native|arm64 PLUGIN.so
set -u
arch=$1 so=$2
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
body=$($objdump -d "$so" | awk '/<kmcs_lock>:$/ { on = 1; next } on && /^$/ { exit } on')
if [ -z "$body" ]; then
	echo "FAIL: no kmcs_lock in $so" >&2
	fail=1
fi
for insn in $want; do
	if grep -qE "[[:space:]]$insn([[:space:]]|$)" <<<"$body"; then
		pass=$((pass + 1))
	else
		echo "FAIL: $arch kmcs_lock has no $insn:" >&2
		echo "$body" >&2
		fail=$((fail + 1))
	fi
done
echo "disasm_wait ($arch): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
