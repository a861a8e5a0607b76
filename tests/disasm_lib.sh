# Shared by the disassembly checks (tests/disasm_*.sh): source it, then
# call disasm_target; the checks count into $pass and $fail.
pass=0 fail=0

# disasm_target NAME ARCH USAGE: $objdump and $kind (x86 or arm64) for
# ARCH, native (this machine's) or arm64 (the cross objdump); a native
# machine with no expectation skips (exit 0), a bad ARCH is a usage
# error (exit 2).
disasm_target() {
	case $2 in
	native)
		objdump=objdump
		case $(uname -m) in
		x86_64 | i?86) kind=x86 ;;
		aarch64) kind=arm64 ;;
		*) echo "$1: no expectation for $(uname -m), skipped"; exit 0 ;;
		esac ;;
	arm64) objdump=aarch64-linux-gnu-objdump kind=arm64 ;;
	*) echo "usage: $3" >&2; exit 2 ;;
	esac
}
bad() { echo "FAIL: $*" >&2; fail=$((fail + 1)); }
good() { pass=$((pass + 1)); }

# body FILE FUNC: the instructions of FUNC's first copy in FILE
# (mnemonic and operands).
body() {
	$objdump -d --no-show-raw-insn "$1" |
		awk -v fn="<$2>:" '$2 == fn { on = 1; next } on && /^$/ { exit }
			on { sub(/^[^\t]*\t/, ""); print }'
}
# has TEXT REGEX WHAT: one check that REGEX matches a line of TEXT;
# hasnt: that it matches none.
has() {
	if grep -qE "$2" <<<"$1"; then good; else bad "$3"; fi
}
hasnt() {
	if grep -qE "$2" <<<"$1"; then bad "$3: $(grep -E "$2" <<<"$1" | head -3 | tr '\n' ';')"; else good; fi
}
