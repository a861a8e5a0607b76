#!/usr/bin/env bash
# The built-in qspinlock must take the kernel's instructions on the
# compiler's target (docs/locks.md): on x86 the pending bit set with
# `lock bts` (queued_fetch_set_pending_acquire() in
# arch/x86/include/asm/qspinlock.h), the 16-bit tail swapped with one
# `xchg`, clear_pending_set_locked() a half-word store, set_locked() and
# clear_pending() byte stores, unlock a byte store, and no whole-word
# locked RMW (`lock or/and/add/xadd/sub`) nor a `lock cmpxchg` loop in
# their place; on arm64 asm-generic's atomics (ldset, swp on a half-word,
# cas) and strb/strh stores, waiting with ldxr+WFE.  Reads the
# disassembly of qspin_lock_slowpath (and, when FILE has it, the
# worker loop qspinlock_cs_loop, where unlock is inlined) in FILE; with
# TREE.so (a kernel tree's qspinlock built by build-kernel-lock for the
# same target) its queued_spin_lock_slowpath must use the same kinds of
# atomic instructions and stores.
#   disasm_qspin.sh native|arm64 FILE [TREE.so]
set -u
arch=${1:-} file=${2:-} tree=${3:-}
. "$(dirname "$0")/disasm_lib.sh"
disasm_target disasm_qspin "$arch" "disasm_qspin.sh native|arm64 FILE [TREE.so]"

# atomics TEXT: the kinds of atomic instruction, one a line, sorted and
# unique (x86: "lock <op>" without its size suffix, and xchg; arm64: the
# outline atomic helpers and LSE instructions without their ordering,
# the stores by size).
atomics() {
	if [ "$kind" = x86 ]; then
		# (`xchg %ax,%ax` is a 2-byte nop: only an xchg with memory)
		grep -vE '^xchg +%[a-z0-9]+,%' <<<"$1" | grep -oE '^(lock +[a-z]+|xchg)' | tr -s ' ' |
			sed -E 's/^lock (bts|cmpxchg|xadd|or|and|add|sub|inc|dec|xchg)[bwlq]?$/lock \1/'
	else
		grep -oE '__aarch64_[a-z]+[0-9]+|^(ldset|ldclr|ldadd|swp|cas)[a-z]*|^str[bh]\b|^wfe\b' <<<"$1" |
			sed -E 's/^(__aarch64_[a-z]+[0-9]+).*/\1/; s/^(ldset|ldclr|ldadd|swp|cas)[a-z]*/\1/'
	fi | sort -u
}

slow=$(body "$file" qspin_lock_slowpath)
if [ -z "$slow" ]; then
	echo "disasm_qspin: no qspin_lock_slowpath in $file" >&2
	exit 1
fi
if [ "$kind" = x86 ]; then
	has "$slow" '^lock +btsl? +\$0x8,' "pending not set with lock bts \$0x8"
	hasnt "$slow" '^lock +(or|and|add|xadd|sub)' "a whole-word locked RMW in the slow path"
	n=$(grep -cE '^lock +cmpxchg' <<<"$slow")
	# trylock once more before queueing, and the queue head's n,0,0 ->
	# 0,0,1: two; a fetch_or or an xchg_tail as a CAS loop adds more.
	[ "$n" -le 2 ] && good || bad "$n lock cmpxchg in the slow path (2: trylock, clear tail)"
	has "$slow" '^xchg +%([a-d]x|[sd]i|bp|r[0-9]+w),(-?0x[0-9a-f]+)?\(' \
		"the tail not swapped with a 16-bit xchg"
	has "$slow" '^movw +\$0x1,' "clear_pending_set_locked() not a half-word store"
	has "$slow" '^movb +\$0x1,' "set_locked() not a byte store"
	has "$slow" '^movb +\$0x0,' "clear_pending() not a byte store"
	loop=$(body "$file" qspinlock_cs_loop)
	if [ -n "$loop" ]; then
		has "$loop" '^movb +\$0x0,' "unlock not a byte store in qspinlock_cs_loop"
		hasnt "$loop" '^lock +(sub|xadd|and)' "unlock a locked RMW in qspinlock_cs_loop"
	fi
else
	has "$slow" '__aarch64_ldset4|^ldset' "pending not set with ldset (atomic_fetch_or_acquire)"
	has "$slow" '__aarch64_swp2|^swp[a-z]*h' "the tail not swapped as a half-word"
	hasnt "$slow" '__aarch64_(ldclr|ldadd)|^(ldclr|ldadd)' "a whole-word RMW where the kernel stores"
	has "$slow" '^strh\b' "clear_pending_set_locked() not a half-word store"
	has "$slow" '^strb\b' "set_locked()/clear_pending() not byte stores"
	has "$slow" '^wfe\b' "no WFE wait"
fi
if [ -n "$tree" ]; then
	tslow=$(body "$tree" queued_spin_lock_slowpath)
	if [ -z "$tslow" ]; then
		bad "no queued_spin_lock_slowpath in $tree"
	else
		mine=$(atomics "$slow") theirs=$(atomics "$tslow")
		if [ "$mine" = "$theirs" ]; then
			good
		else
			bad "atomic instructions differ: built-in [$(echo $mine)], tree [$(echo $theirs)]"
		fi
		if [ "$kind" = x86 ]; then
			for re in '^movw +\$0x1,' '^movb +\$0x1,' '^movb +\$0x0,'; do
				has "$tslow" "$re" "the tree's slow path lacks $re (not the layout compared)"
			done
		fi
	fi
fi
echo "disasm_qspin ($arch${tree:+, against the tree}): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
