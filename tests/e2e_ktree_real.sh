#!/usr/bin/env bash
# A real kernel tree end to end (docs/kernel-tree.md): Debian's
# linux-source-6.12 package (kernel.org source with Debian's patches,
# /usr/src/linux-source-6.12.tar.xz).  Only what the build reads is
# extracted (kernel/, include/, arch/x86/include, arch/arm64/include and
# the top Makefile), once, into build/ktree-real/ (again when the
# package changes).  The tree's qspinlock, qrwlock and osq are built
# and run at 1, 2 and 8 threads with the exclusion check
# (scripts/try-kernel-tree.sh); on x86-64 the qspinlock is the tree's
# x86 one (arch/x86/include/asm/qspinlock.h in its source files, the
# `lock bts` pending fast path in its code); with --lock-events its own
# counters count the pending or the slow path at 2 threads.
#
#   e2e_ktree_real.sh BINARY
#   e2e_ktree_real.sh --arm64 ARM64-BINARY QEMU-COMMAND...
#
# The second form builds the same tree for arm64 (LOCKBENCH_CC, the cross
# compiler) with the arm64 binary under qemu-user and runs it there.
# Skips, saying so, when the package is not installed (LB_KSRC: another
# tarball of the same layout).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARM=0
if [ "${1:-}" = --arm64 ]; then
	ARM=1
	shift
fi
BIN=${1:-./lockbench}
shift || true
SRC=${LB_KSRC:-/usr/src/linux-source-6.12.tar.xz}
if [ ! -f "$SRC" ]; then
	echo "e2e_ktree_real: skipped: $SRC not found (apt-get install linux-source-6.12)"
	exit 0
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"
export LOCKBENCH_CACHE=$OUT/cache
start=$(date +%s)

# The extraction, kept while the tarball is the same (size and mtime).
X=$ROOT/build/ktree-real
top=$(basename "$SRC" .tar.xz)
stamp="$(stat -c '%s %Y' "$SRC") $SRC"
TREE=$X/$top
if [ "$(cat "$X/stamp" 2>/dev/null)" != "$stamp" ] || [ ! -d "$TREE/kernel/locking" ]; then
	rm -rf "$X" && mkdir -p "$X"
	if ! tar -xJf "$SRC" -C "$X" --wildcards "$top/Makefile" "$top/kernel/*" \
		"$top/include/*" "$top/arch/x86/include/*" "$top/arch/arm64/include/*"; then
		echo "e2e_ktree_real: cannot extract $SRC" >&2
		exit 1
	fi
	echo "$stamp" >"$X/stamp"
fi

if [ $ARM -eq 1 ]; then
	# The arm64 binary under qemu, building with the cross compiler
	# (qemu-user runs the host's compiler natively) and running there.
	printf '#!/bin/sh\nLOCKBENCH_CC=${LOCKBENCH_CC:-aarch64-linux-gnu-gcc} exec timeout 300 %s %s "$@"\n' \
		"$*" "$(realpath "$BIN")" >"$OUT/lockbench"
	chmod +x "$OUT/lockbench"
	ARMBIN=$BIN
	BIN=$OUT/lockbench
	TAG=realarm
else
	TAG=real
fi

# Every lock of the tree, 1, 2 and 8 threads, the exclusion check.
expect_exit 0 "try-kernel-tree.sh" -- "$ROOT/scripts/try-kernel-tree.sh" -t 1,2,8 -d 0.1 \
	"$TAG=$TREE" -- "$BIN"
for want in "$TAG qspinlock: built, inline loop; cs at 1,2,8 threads: exclusion ok" \
	"$TAG qrwlock: built, inline loop; cs at 1,2,8 threads: exclusion ok" \
	"$TAG qrwlock: built, inline loop; rw at 1,2,8 threads: exclusion ok" \
	"$TAG osq: built, inline loop; cs at 1,2,8 threads: exclusion ok"; do
	grep -q "^$want" "$OUT/stdout" && ok || bad "lacks '$want': $(cat "$OUT/stdout" "$OUT/stderr")"
done

# The tree's arch: its qspinlock header among the files compiled, and
# on x86 its pending fast path (queued_fetch_set_pending_acquire's
# `lock bts`) in the plugin.
expect_exit 0 "build qspinlock" -- "$BIN" build-kernel-lock "$TREE" -o "$OUT/q.so"
expect_exit 0 "list -v" -- "$BIN" list locks -v --plugin "t=$OUT/q.so"
if [ $ARM -eq 1 ]; then
	grep -q "   include/asm-generic/qspinlock.h sha256:" "$OUT/stdout" && ok \
		|| bad "source files lack include/asm-generic/qspinlock.h"
	! grep -q "   arch/x86/" "$OUT/stdout" && ok || bad "an x86 header in the arm64 build"
elif [ "$(uname -m)" = x86_64 ]; then
	grep -q "   arch/x86/include/asm/qspinlock.h sha256:" "$OUT/stdout" && ok \
		|| bad "source files lack arch/x86/include/asm/qspinlock.h: $(cat "$OUT/stdout")"
	objdump -d "$OUT/q.so" | grep -q "lock bts" && ok || bad "no lock bts: not x86's pending path"
fi
# The built-in qspinlock's slow path takes the same kinds of atomic
# instructions and stores as the tree's (docs/locks.md).
if [ $ARM -eq 1 ]; then
	"$ROOT/tests/disasm_qspin.sh" arm64 "$ARMBIN" "$OUT/q.so" && ok || bad "built-in qspinlock is not arm64's"
elif [ "$(uname -m)" = x86_64 ]; then
	"$ROOT/tests/disasm_qspin.sh" native "$BIN" "$OUT/q.so" && ok || bad "built-in qspinlock is not x86's"
fi

# -v: the compile command, the tree's arch directory on the include
# path after the layer's shims and before the generic-y wrappers and the
# tree's include/, as the kernel orders them.
if [ $ARM -eq 0 ] && [ "$(uname -m)" = x86_64 ]; then
	expect_exit 0 "build -v" -- "$BIN" build-kernel-lock -v "$TREE"
	c=$(grep -m1 -- "-M.*$TREE/kernel/locking/qspinlock.c" "$OUT/stderr")
	incs=$(grep -o -- " -I[^ ]*" <<<"$c" | tr -d ' ' | tr '\n' ' ')
	case $incs in
	"-I$ROOT/kernel/compat/include "*"-I$TREE/arch/x86/include -I$ROOT/kernel/compat/generic -I$TREE/include "*) ok ;;
	*) bad "-v: the include path is not in the kernel's order: $incs" ;;
	esac
	# The same tree without arch/x86 (the other directories linked in):
	# refused in one line, not built against the generic headers.
	mkdir -p "$OUT/nox86/arch"
	for d in kernel include Makefile; do ln -s "$TREE/$d" "$OUT/nox86/$d"; done
	ln -s "$TREE/arch/arm64" "$OUT/nox86/arch/arm64"
	expect_exit 2 "no arch/x86" -- "$BIN" build-kernel-lock "$OUT/nox86"
	one_line "no arch/x86" "the tree has no arch/x86/include/asm for the compiler's target"
fi

# The tree's own lock events at 2 threads: the pending or the slow path
# counted, by the tree's names, and their share under the table.
expect_exit 0 "--lock-events" -- "$BIN" --kernel-tree "$TAG=$TREE" -l "qspinlock_$TAG" \
	--lock-events -t 2 -r 2 --cs-ns 200 --warmup 0.02 -d 0.1 --no-tune -q --watchdog 60 \
	-f table,json -o "$OUT/ev.json"
python3 - "$OUT/ev.json" <<'PY' && ok || bad "lock events: $(cat "$OUT/stderr")"
import json, sys
d = json.load(open(sys.argv[1]))
runs = [r for p in d["points"] for r in p["runs"]]
assert runs and all(r["exclusion"]["ok"] for r in runs)
ev = runs[0]["lock_events"]
for name in ("lock_pending", "lock_slowpath", "lock_use_node2", "lock_no_node"):
    assert name in ev, sorted(ev)
assert sum(r["lock_events"]["lock_pending"] + r["lock_events"]["lock_slowpath"] for r in runs) > 0
PY
tr '\n' ' ' <"$OUT/stdout" | tr -s ' ' | grep -q "lock events of qspinlock_$TAG, the share of acquisitions that took the slow path: [0-9.e+-]*% at 2 threads" \
	&& ok || bad "no slow-path share: $(tail -4 "$OUT/stdout")"

echo "e2e_ktree_real$([ $ARM -eq 1 ] && echo ' (arm64)'): $pass passed, $fail failed" \
	"($(($(date +%s) - start)) s)"
[ "$fail" -eq 0 ]
