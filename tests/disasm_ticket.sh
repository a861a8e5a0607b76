#!/usr/bin/env bash
# The ticket lock must take x86's ticket-spinlock instructions from
# before v4.2 (docs/locks.md; arch/x86/include/asm/spinlock.h of v3.x):
# one `lock xadd` of 1 << 16 on the word (the next ticket in the high
# half, the old word saying whether the lock was free), waiting with
# 16-bit loads of the head and `pause`, unlock a 16-bit store of the
# head and no locked instruction, and no `lock cmpxchg` loop anywhere.
# On arm64: ldadd of 0x10000 (LSE or the outline helper), ldarh to
# wait, stlrh to release.  Reads ticket_lock, ticket_unlock and the
# worker loop ticket_cs_loop (where both are inlined) in FILE.
#   disasm_ticket.sh native|arm64 FILE
set -u
arch=${1:-} file=${2:-}
. "$(dirname "$0")/disasm_lib.sh"
disasm_target disasm_ticket "$arch" "disasm_ticket.sh native|arm64 FILE"

unlock=$(body "$file" ticket_unlock)
declare -A text=([ticket_lock]="$(body "$file" ticket_lock)"
	[ticket_cs_loop]="$(body "$file" ticket_cs_loop)" [ticket_unlock]="$unlock")
for fn in "${!text[@]}"; do
	if [ -z "${text[$fn]}" ]; then
		echo "disasm_ticket: no $fn in $file" >&2
		exit 1
	fi
done
takers="ticket_lock ticket_cs_loop"
if [ "$kind" = x86 ]; then
	r16='%([a-d]x|[sd]i|bp|r[0-9]+w)'
	for fn in $takers; do
		t=${text[$fn]}
		has "$t" '^mov +\$0x10000,' "$fn: no ticket increment of 1 << 16"
		has "$t" '^lock +xadd' "$fn: the ticket not taken with lock xadd"
		has "$t" '^movzwl +\(' "$fn: the head not waited on with a 16-bit load"
		has "$t" '^pause' "$fn: no pause in the wait"
		hasnt "$t" '^lock +(cmpxchg|add|sub|or|and|inc|dec|bts)' "$fn: a locked op beside the xadd"
	done
	for fn in ticket_unlock ticket_cs_loop; do
		has "${text[$fn]}" "^mov +$r16,\(" "$fn: head not released with a 16-bit store"
	done
	hasnt "$unlock" '^lock' "ticket_unlock: a locked instruction"
else
	for fn in $takers; do
		t=${text[$fn]}
		has "$t" '^mov[[:space:]]+w[0-9]+, #0x10000' "$fn: no ticket increment of 1 << 16"
		has "$t" '__aarch64_ldadd4_acq|^ldadda?[[:space:]]' "$fn: the ticket not taken with ldadd"
		has "$t" '^ldarh[[:space:]]' "$fn: the head not waited on with ldarh"
		hasnt "$t" '__aarch64_cas|^cas|^ldaxr|^ldxr' "$fn: a CAS or LL/SC loop"
	done
	for fn in ticket_unlock ticket_cs_loop; do
		has "${text[$fn]}" '^stlrh[[:space:]]' "$fn: head not released with stlrh"
	done
	hasnt "$unlock" '^stlr[[:space:]]+w|__aarch64_' "ticket_unlock: a whole-word store or an atomic"
fi
echo "disasm_ticket ($arch): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
