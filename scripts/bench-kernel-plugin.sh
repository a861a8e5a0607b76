#!/usr/bin/env bash
# The kernel-style example plugin (examples/kernel_mcs.c, the kernel's
# MCS on <lockbench/kernel.h>) against the built-in `mcs` at 1 thread,
# where only the code path differs.  A plugin runs in the harness's
# indirect-call loop while a built-in lock is inlined into its own loop,
# so the same locks/mcs.c is also built as a plugin (`mcs_plugin`): the
# like-for-like comparison is kernel_mcs against mcs_plugin; `mcs` shows
# what inlining is worth.  Prints the text table (rel% against
# mcs_plugin with its Welch test: `~` marks a difference within noise)
# and ns per lock+unlock.
#   scripts/bench-kernel-plugin.sh [./lockbench] [extra lockbench options]
set -euo pipefail
BIN=${1:-./lockbench}
shift || true
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
flags=(-std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$ROOT/locks")
"$CC" "${flags[@]}" "$ROOT/examples/kernel_mcs.c" -o "$tmp/kernel_mcs.so"
printf '#include "%s/locks/mcs.c"\nLOCKBENCH_PLUGIN(&lock_mcs_ops);\n' "$ROOT" >"$tmp/mcs_plugin.c"
"$CC" "${flags[@]}" "$tmp/mcs_plugin.c" -o "$tmp/mcs_plugin.so"
"$BIN" --plugin "$tmp/kernel_mcs.so" --plugin "plugin=$tmp/mcs_plugin.so" \
	-l mcs_plugin,kernel_mcs,mcs --baseline mcs_plugin -t 1 -r "${RUNS:-10}" \
	--warmup 0.3 -d "${DURATION:-1}" --ncs-ns 0 --cs-lines 0 --no-tune -q \
	-f json -o "$tmp/r.json" "$@"
"$BIN" compare "$tmp/r.json" 2>/dev/null || true
python3 "$ROOT/scripts/bench-table.py" "$tmp/r.json" ns
