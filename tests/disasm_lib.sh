# Shared by the disassembly checks (tests/disasm_*.sh): source it after
# setting $objdump; it counts into $pass and $fail.
pass=0 fail=0
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
