#!/usr/bin/env bash
# End-to-end tests of out-of-tree lock plugins, as a user meets them:
# build the example with cc, load it, run it against its built-in twin,
# see a broken plugin FAILED, see each bad plugin refused with one line
# and exit 2, then `make install` and build the example against the
# installed header through pkg-config.  Usage: e2e_plugin.sh BINARY
# LB_E2E_QUICK=1 skips the install step (sanitizer builds).
set -u
BIN=${1:-./lockbench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"

# The loop template <lockbench/loops.h> includes, as make generates it.
mkdir -p "$OUT/include/lockbench"
"$ROOT/scripts/gen-loop-template.sh" "$OUT/include/lockbench/loop_template.h" \
	&& ok || bad "generating the loop template"

# plugin SRC NAME [CFLAGS...]: build SRC as $OUT/NAME.so the way the
# README and docs/guide.md say, against the in-tree public headers.
plugin() {
	local src=$1 name=$2
	shift 2
	$CC -std=gnu11 -Wall -Wextra -Werror -O2 -shared -fPIC -I"$ROOT/locks" \
		-I"$OUT/include" "$@" \
		"$ROOT/$src" -o "$OUT/$name.so" && ok || bad "building $src"
}

# refused DESCRIPTION PATTERN ARGS...: exit 2 before any thread starts,
# one line "lockbench: plugin (PATH): ..." on stderr, no output file.
refused() {
	local what=$1 pattern=$2
	shift 2
	rm -f "$OUT/bad.json"
	expect_exit 2 "$what" -- "$BIN" "$@" -l ticket -t 1 -r 1 -d 0.05 --warmup 0 \
		--no-tune -q -o "$OUT/bad.json" || return
	if [ "$(wc -l <"$OUT/stderr")" -ne 1 ]; then
		bad "$what: want one line on stderr, got: $(cat "$OUT/stderr")"
	elif ! grep -q -- "^lockbench: plugin (.*): $pattern" "$OUT/stderr"; then
		bad "$what: stderr lacks '$pattern': $(cat "$OUT/stderr")"
	else
		ok
	fi
	if ls "$OUT"/bad.json* >/dev/null 2>&1; then bad "$what: left an output file"; else ok; fi
}

plugin examples/ticket_backoff.c ticket_backoff
plugin examples/broken_plugin.c broken_plugin
# The loop template: the TAS plugin, and the same built for another loop
# ABI (a plugin built against another lockbench's headers).
plugin tests/plugins/tas_loops.c tas_loops -Wl,--no-undefined
plugin tests/plugins/tas_loops.c tas_oldabi -DLOCKBENCH_LOOP_ABI=1
# A private per-thread context (LOCKBENCH_PLUGIN_LOOPS_PRIVATE): the CLH
# plugin, and the same with a ctx_size its loops' context type is not.
plugin tests/plugins/clh_loops.c clh_loops -Wl,--no-undefined
plugin tests/plugins/clh_loops.c clh_badsize -DCLH_LOOPS_CTX_SIZE=24
for p in wrong_abi no_symbol dup_builtin bad_ops nolock deadlock; do
	plugin tests/plugins/$p.c $p
done
TB=$OUT/ticket_backoff.so
TB_REAL=$(realpath "$TB")
TB_SHA=$(sha256sum "$TB" | cut -d' ' -f1)

# --help and list locks.
expect_exit 0 "help" -- "$BIN" --help
grep -q -- "--plugin \[TAG=\]FILE" "$OUT/stdout" && ok || bad "--help lacks --plugin"
expect_exit 0 "list locks --plugin" -- "$BIN" list locks --plugin "$TB"
grep -q "^ticket_backoff .* plugin: $TB_REAL\$" "$OUT/stdout" && ok \
	|| bad "list locks: no plugin line for ticket_backoff: $(grep backoff "$OUT/stdout")"
grep "^ticket " "$OUT/stdout" | grep -q "plugin:" && bad "built-in ticket marked plugin" || ok
expect_exit 0 "list locks -v --plugin" -- "$BIN" list locks -v --plugin "$TB"
grep -q "lock-opt ticket_backoff.backoff_max" "$OUT/stdout" && ok || bad "plugin options not listed"
# Which worker loop each lock runs: built-ins their own, inlined; a
# plugin with LOCKBENCH_PLUGIN_LOOPS() (the example) its own, inlined.
grep -A1 "^ticket_backoff " "$OUT/stdout" | grep -q "loop: inline" && ok \
	|| bad "plugin with LOCKBENCH_PLUGIN_LOOPS not listed as the inline loop"
grep -A1 "^ticket " "$OUT/stdout" | grep -q "loop: inline" && ok \
	|| bad "built-in ticket not listed as inlined"

# The plugin against its built-in twin: both measured, both checked, the
# JSON traces the plugin to its file.
expect_exit 0 "run vs twin" -- "$BIN" --plugin "$TB" -l ticket,ticket_backoff -t 1,2 -r 2 \
	--warmup 0.05 -d 0.2 --no-tune -q -f table,json -o "$OUT/twin.json" \
	--lock-opt ticket_backoff.backoff_max=16
grep -q "^Lock: *ticket *ticket_backoff" "$OUT/stdout" && ok || bad "twin table: $(head -2 "$OUT/stdout")"
python3 - "$OUT/twin.json" "$TB_REAL" "$TB_SHA" <<'PY' && ok || bad "twin json"
import json, sys
d = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in d["variants"]}
assert v["ticket"]["plugin"] is None and v["ticket"]["plugin_sha256"] is None
assert v["ticket_backoff"]["plugin"] == sys.argv[2], v["ticket_backoff"]
assert v["ticket_backoff"]["plugin_sha256"] == sys.argv[3], v["ticket_backoff"]
assert v["ticket"]["loop"] == "inline" and v["ticket_backoff"]["loop"] == "inline", v
assert d["config"]["lock_opts"]["ticket_backoff"]["backoff_max"] == 16
assert len(d["points"]) == 4
for p in d["points"]:
    assert p["status"] == "ok", p
    for r in p["runs"]:
        e = r["exclusion"]
        assert e["checked"] and e["ok"] and e["counter"] == e["total_ops"], e
PY

# Two builds of one source in one process: a TAG names the second copy.
cp "$TB" "$OUT/patched.so"
expect_exit 0 "stock and patched" -- "$BIN" --plugin "$TB" --plugin patched="$OUT/patched.so" \
	-l ticket_backoff,ticket_backoff_patched -t 2 -r 1 --warmup 0.05 -d 0.1 --no-tune -q \
	-f json -o "$OUT/tag.json"
python3 - "$OUT/tag.json" "$TB_REAL" "$(realpath "$OUT/patched.so")" "$TB_SHA" <<'PY' && ok || bad "tag json"
import json, sys
d = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in d["variants"]}
assert v["ticket_backoff"]["plugin"] == sys.argv[2]
assert v["ticket_backoff_patched"]["plugin"] == sys.argv[3]
assert v["ticket_backoff_patched"]["plugin_sha256"] == sys.argv[4]
assert all(p["status"] == "ok" for p in d["points"])
PY
expect_exit 0 "tag renames a built-in's twin" -- "$BIN" list locks --plugin mine="$OUT/dup_builtin.so"
grep -q "^ticket_mine .* plugin: " "$OUT/stdout" && ok || bad "ticket_mine not listed"

# A plugin lock that does not exclude is FAILED, exit 1, as a built-in.
# Three runs: an overlap needs both workers on a CPU at once, which a
# machine busy with other work can deny for a whole 0.2 s window.
expect_exit 1 "broken plugin fails" -- "$BIN" --plugin "$OUT/broken_plugin.so" \
	-l ticket,broken_plugin -t 2 -r 3 --warmup 0.05 -d 0.2 --cs-ns 300 --no-tune -q \
	-f table,json -o "$OUT/broken.json"
grep -q "FAILED" "$OUT/stdout" && ok || bad "broken plugin not FAILED in table"
grep -q "broken_plugin .*mutual exclusion violated" "$OUT/stderr" && ok || bad "broken plugin stderr"
python3 -c "
import json; d=json.load(open('$OUT/broken.json'))
p=[p for p in d['points'] if p['variant']=='broken_plugin'][0]
assert p['status']=='failed' and any(not r['exclusion']['ok'] for r in p['runs'])" && ok || bad "broken plugin json"

# LOCKBENCH_PLUGIN_LOOPS(): the plugin's locks run the inline loop (the
# one without it in the same file the generic loop), checked like any
# other; the table says once that the columns ran different loops.
TL=$OUT/tas_loops.so
expect_exit 0 "template plugin" -- "$BIN" -v --plugin "$TL" -l tas,tas_inline,tas_generic \
	-t 1,2 -r 1 --warmup 0.05 -d 0.1 --cs-lines 0 --ncs-ns 0 --no-tune -q \
	-f table,json -o "$OUT/tl.json"
python3 - "$OUT/tl.json" <<'PY' && ok || bad "template plugin json"
import json, sys
d = json.load(open(sys.argv[1]))
v = {x["name"]: x["loop"] for x in d["variants"]}
assert v == {"tas": "inline", "tas_inline": "inline", "tas_generic": "generic"}, v
assert len(d["points"]) == 6
for p in d["points"]:
    assert p["status"] == "ok", p
    for r in p["runs"]:
        e = r["exclusion"]
        assert e["checked"] and e["ok"] and e["counter"] == e["total_ops"] > 0, e
PY
[ "$(grep -c "^loops differ: tas_generic ran the generic worker" "$OUT/stdout")" = 1 ] && ok \
	|| bad "mixed-loop note not once: $(cat "$OUT/stdout")"
expect_exit 0 "template plugin, all inline" -- "$BIN" -v --plugin "$TL" -l tas,tas_inline \
	-t 1 -r 1 --warmup 0.05 -d 0.1 --no-tune -q
grep -q "loops differ" "$OUT/stdout" && bad "mixed-loop note with every column inline" || ok
grep -q "warning" "$OUT/stderr" && bad "template plugin warned: $(cat "$OUT/stderr")" || ok
# A lock with the template that does not exclude is still FAILED.
expect_exit 1 "busted template plugin fails" -- "$BIN" --plugin "$TL" -l busted_inline \
	-t 2 -r 1 --warmup 0.05 -d 0.2 --cs-ns 300 --no-tune -q -f json -o "$OUT/bi.json"
python3 - "$OUT/bi.json" <<'PY' && ok || bad "busted template plugin json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["variants"][0]["loop"] == "inline", d["variants"]
p = d["points"][0]
assert p["status"] == "failed" and not p["runs"][0]["exclusion"]["ok"], p
PY
# Built for another loop ABI: one warning line, the generic loop, a result.
expect_exit 0 "loop ABI mismatch" -- "$BIN" --plugin "$OUT/tas_oldabi.so" -l tas_inline \
	-t 1,2 -r 2 --warmup 0.05 -d 0.1 --no-tune -q -f json -o "$OUT/old.json"
[ "$(grep -c "warning" "$OUT/stderr")" = 1 ] && grep -q "^lockbench: warning: plugin lock \
tas_inline: its inline loops were built for loop ABI 0x1, .*running the generic loop" \
	"$OUT/stderr" && ok || bad "loop ABI mismatch warning: $(cat "$OUT/stderr")"
python3 -c "
import json; d=json.load(open('$OUT/old.json'))
assert d['variants'][0]['loop'] == 'generic', d['variants']
assert all(p['status'] == 'ok' for p in d['points'])" && ok || bad "loop ABI mismatch json"

# LOCKBENCH_PLUGIN_LOOPS_PRIVATE(): the CLH plugin's private-context
# lock on its inline loop, beside the built-in clh and its shared-context
# twin, each checked for exclusion, in the cs and torture workloads.
CL=$OUT/clh_loops.so
expect_exit 0 "list locks -v, private-context plugin" -- "$BIN" list locks -v --plugin "$CL"
for l in clh_inline clh_plain; do
	grep -A1 "^$l " "$OUT/stdout" | grep -q "loop: inline" && ok \
		|| bad "$l not listed on the inline loop: $(grep -A1 "^$l " "$OUT/stdout")"
done
expect_exit 0 "private-context plugin" -- "$BIN" --plugin "$CL" -l clh,clh_inline,clh_plain \
	-t 1,2 -r 1 --warmup 0.05 -d 0.1 --cs-lines 0 --ncs-ns 0 --no-tune -q \
	-f json -o "$OUT/cl.json"
grep -q "warning" "$OUT/stderr" && bad "private-context plugin warned: $(cat "$OUT/stderr")" || ok
expect_exit 0 "private-context plugin, torture" -- "$BIN" --plugin "$CL" -l clh_inline -w torture \
	-t 2 -r 1 --warmup 0.05 -d 0.1 --no-tune -q -f json -o "$OUT/clt.json"
python3 - "$OUT/cl.json" "$OUT/clt.json" <<'PY' && ok || bad "private-context plugin json"
import json, sys
for f, want in (sys.argv[1], 6), (sys.argv[2], 1):
    d = json.load(open(f))
    v = {x["name"]: x["loop"] for x in d["variants"]}
    assert set(v.values()) == {"inline"} and "clh_inline" in v, v
    assert len(d["points"]) == want, d["points"]
    for p in d["points"]:
        assert p["status"] == "ok", p
        for r in p["runs"]:
            e = r["exclusion"]
            assert e["checked"] and e["ok"] and e["counter"] == e["total_ops"] > 0, e
PY
# Its context type not ctx_size bytes: one warning line, the generic
# loop, a result (the other lock of the file keeps its inline loop).
expect_exit 0 "private context of the wrong size" -- "$BIN" --plugin "$OUT/clh_badsize.so" \
	-l clh_inline,clh_plain -t 1,2 -r 1 --warmup 0.05 -d 0.1 --no-tune -q -f json \
	-o "$OUT/clbad.json"
[ "$(grep -c "warning" "$OUT/stderr")" = 1 ] && grep -q "^lockbench: warning: plugin lock \
clh_inline: its inline loops keep a private context of 16 bytes, its ctx_size is 24: running \
the generic loop" "$OUT/stderr" && ok || bad "private context size warning: $(cat "$OUT/stderr")"
python3 -c "
import json; d=json.load(open('$OUT/clbad.json'))
v = {x['name']: x['loop'] for x in d['variants']}
assert v == {'clh_inline': 'generic', 'clh_plain': 'inline'}, v
assert all(p['status'] == 'ok' for p in d['points'])" && ok || bad "private context size json"

# The loop macros' arguments, checked at compile time: a call with the
# wrong number stops the build with the macro's usage.  The same file
# with a right call builds (the scaffold is not what fails).
cat >"$OUT/macro.c" <<'EOF'
#include <lockbench/loops.h>
struct mc { void *p; };
static inline void mlk(void *l, void *c) { (void)l; (void)c; }
static const struct lock_ops mo = {.name = "mo", .caps = LOCK_CAP_EXCLUSIVE,
	.ctx_size = sizeof(struct mc), .lock = mlk, .unlock = mlk};
LOCKBENCH_PLUGIN(&mo);
CALL;
EOF
# macro CALL [PATTERN]: compile macro.c with CALL; with PATTERN it must
# fail with that on stderr, without it must build.
macro() {
	if $CC -std=gnu11 -Wall -Wextra -Werror -fPIC -I"$ROOT/locks" -I"$OUT/include" \
		-c "$OUT/macro.c" -o "$OUT/macro.o" -DCALL="$1" 2>"$OUT/cc.err"; then
		[ -z "${2:-}" ] && ok || bad "$1: built, want '$2'"
	elif [ -z "${2:-}" ]; then
		bad "$1: did not build: $(head -c 300 "$OUT/cc.err")"
	else
		grep -qF -- "$2" "$OUT/cc.err" && ok || bad "$1: no '$2': $(head -c 300 "$OUT/cc.err")"
	fi
}
P_USE="LOCKBENCH_PLUGIN_LOOPS_PRIVATE(ops, ctx_type, lock, unlock[, read_lock, read_unlock])"
S_USE="LOCKBENCH_PLUGIN_LOOPS(ops, lock, unlock[, read_lock, read_unlock])"
macro "LOCKBENCH_PLUGIN_LOOPS_PRIVATE(mo, struct mc, mlk, mlk)"
macro "LOCKBENCH_PLUGIN_LOOPS_PRIVATE(mo, struct mc, mlk, mlk, mlk, mlk)"
macro "LOCKBENCH_PLUGIN_LOOPS_PRIVATE(mo, mlk, mlk)" "$P_USE"
macro "LOCKBENCH_PLUGIN_LOOPS_PRIVATE(mo)" "$P_USE"
macro "LOCKBENCH_PLUGIN_LOOPS_PRIVATE(mo, struct mc, mlk, mlk, mlk)" \
	"LOCKBENCH_PLUGIN_LOOPS_PRIVATE: read_lock without read_unlock"
macro "LOCKBENCH_PLUGIN_LOOPS_PRIVATE(mo, struct mc, mlk, mlk, mlk, mlk, mlk)" "$P_USE"
macro "LOCKBENCH_PLUGIN_LOOPS(mo, mlk, mlk)"
macro "LOCKBENCH_PLUGIN_LOOPS(mo, mlk)" "$S_USE"
macro "LOCKBENCH_PLUGIN_LOOPS(mo, mlk, mlk, mlk)" "LOCKBENCH_PLUGIN_LOOPS: read_lock without read_unlock"
macro "LOCKBENCH_PLUGIN_LOOPS(mo, mlk, mlk, mlk, mlk, mlk)" "$S_USE"

# A plugin lock that never releases: the watchdog ends the run, exit 1.
expect_exit 1 "deadlocked plugin" -- timeout 20 "$BIN" --plugin "$OUT/deadlock.so" -l deadlock \
	-t 1 -r 1 --warmup 0.05 -d 0.1 --watchdog 0.5 --no-tune -q
grep -q "deadlock at 1 thread: workers did not stop" "$OUT/stderr" && ok || bad "watchdog message: $(cat "$OUT/stderr")"

# Refusals: one line naming the file and the problem, exit 2.
refused "ABI mismatch" "built for ABI version 2, this lockbench has 1" --plugin "$OUT/wrong_abi.so"
refused "bad path" "cannot open: No such file or directory" --plugin "$OUT/nosuch.so"
echo "not a library" >"$OUT/text.so"
refused "not a shared object" "not a shared object (no ELF header)" --plugin "$OUT/text.so"
refused "executable" "cannot load: " --plugin "$BIN"
refused "missing symbol" "no lockbench_plugin symbol" --plugin "$OUT/no_symbol.so"
refused "duplicate of a built-in" "duplicate lock name ticket (already built in); load it as --plugin TAG=" \
	--plugin "$OUT/dup_builtin.so"
refused "duplicate of another plugin" "duplicate lock name ticket_backoff (already loaded from $TB_REAL)" \
	--plugin "$TB" --plugin "$OUT/patched.so"
refused "incomplete ops" "lock 0 (bad_ops): lock and unlock are required" --plugin "$OUT/bad_ops.so"
refused "nolock claim" "lock sneaky_nolock: LOCK_CAP_NOLOCK is reserved" --plugin "$OUT/nolock.so"
refused "bad tag" "tag (Patched) must be" --plugin "Patched=$TB"
expect_exit 2 "list refuses too" -- "$BIN" list locks --plugin "$OUT/wrong_abi.so"
# A file dlopen() would map and then die on (SIGBUS past a truncated end),
# or refuse in words of its own: checked before dlopen.
size=$(stat -c %s "$TB")
head -c $((size / 2)) "$TB" >"$OUT/half.so"
refused "truncated plugin" "truncated" --plugin "$OUT/half.so"
head -c 100 "$TB" >"$OUT/head.so"
refused "plugin cut inside its headers" "truncated or malformed" --plugin "$OUT/head.so"
head -c 10 "$TB" >"$OUT/ten.so"
refused "plugin shorter than a header" "truncated: shorter than an ELF header" --plugin "$OUT/ten.so"
mkdir -p "$OUT/dir.so"
refused "a directory" "not a regular file" --plugin "$OUT/dir.so"
# patch FILE OFFSET BYTES...: a copy of the plugin with bytes replaced.
patch() {
	cp "$TB" "$1" && python3 - "$@" <<'PY'
import sys
f, off, vals = sys.argv[1], int(sys.argv[2]), [int(v) for v in sys.argv[3:]]
b = bytearray(open(f, "rb").read())
b[off:off + len(vals)] = bytes(vals)
open(f, "wb").write(b)
PY
}
case $(uname -m) in
x86_64) other=183; other_name=aarch64 ;;   # EM_AARCH64
*) other=62; other_name=x86_64 ;;          # EM_X86_64
esac
patch "$OUT/machine.so" 18 $other 0
refused "plugin for another machine" "built for $other_name (ELF machine $other)" --plugin "$OUT/machine.so"
if [ -f "$ROOT/build/arm64/examples/ticket_backoff.so" ] && [ "$(uname -m)" = x86_64 ]; then
	refused "arm64 build of the plugin" "built for aarch64" \
		--plugin "$ROOT/build/arm64/examples/ticket_backoff.so"
fi
patch "$OUT/class.so" 4 1
refused "32-bit plugin" "a 32-bit object" --plugin "$OUT/class.so"
patch "$OUT/exec.so" 16 2 0
refused "ELF executable" "not a shared object (ELF, but not ET_DYN)" --plugin "$OUT/exec.so"

# make install, then build the example against the installed header.
if [ -z "${LB_E2E_QUICK:-}" ]; then
	D=$OUT/dest
	expect_exit 0 "make install" -- make -C "$ROOT" --no-print-directory install DESTDIR="$D" PREFIX=/usr/local
	for f in bin/lockbench share/man/man1/lockbench.1 include/lockbench/lock.h \
		include/lockbench/atomics.h include/lockbench/kernel.h include/lockbench/loops.h \
		include/lockbench/loop_template.h share/pkgconfig/lockbench.pc \
		share/lockbench/compat/include/lockbench/loop_template.h; do
		[ -f "$D/usr/local/$f" ] && ok || bad "make install lacks $f"
	done
	export PKG_CONFIG_PATH=$D/usr/local/share/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D
	cflags=$(pkg-config --cflags lockbench) && ok || bad "pkg-config --cflags lockbench"
	[ "${cflags%% }" = "-I$D/usr/local/include" ] && ok || bad "pkg-config cflags: $cflags"
	[ "$(pkg-config --variable=abi_version lockbench)" = 1 ] && ok || bad "pkg-config abi_version"
	# shellcheck disable=SC2086
	expect_exit 0 "build against installed header" -- $CC -std=gnu11 -Wall -Wextra -Werror -O2 \
		-shared -fPIC $cflags "$ROOT/examples/ticket_backoff.c" -o "$OUT/installed.so"
	expect_exit 0 "installed binary loads it" -- "$D/usr/local/bin/lockbench" --plugin "$OUT/installed.so" \
		-l ticket_backoff -t 1 -r 1 --warmup 0 -d 0.05 --no-tune -q
	grep -q "^Lock: *ticket_backoff" "$OUT/stdout" && ok || bad "installed run table"
	expect_exit 0 "installed: the example's loop" -- "$D/usr/local/bin/lockbench" list locks -v \
		--plugin "$OUT/installed.so"
	grep -A1 "^ticket_backoff " "$OUT/stdout" | grep -q "loop: inline" && ok \
		|| bad "example built against the installed headers not on the inline loop"
	# The installed binary finds its installed kernel compatibility layer.
	expect_exit 0 "installed build-kernel-lock" -- env LOCKBENCH_CACHE="$OUT/kcache" \
		"$D/usr/local/bin/lockbench" build-kernel-lock "$ROOT/tests/fixtures/ktree-onefile"
	grep -q "^built $OUT/kcache/ktree-qspinlock-" "$OUT/stdout" && ok || bad "installed build-kernel-lock"
	# ... with the installed worker-loop template: the tree lock's own
	# loops, no warning.
	[ ! -s "$OUT/stderr" ] && ok || bad "installed build-kernel-lock warned: $(cat "$OUT/stderr")"
	kso=$(cut -d' ' -f2 "$OUT/stdout")
	expect_exit 0 "installed: the tree lock's loop" -- "$D/usr/local/bin/lockbench" list locks -v \
		--plugin i="$kso"
	grep -A1 "^qspinlock_i " "$OUT/stdout" | grep -q "loop: inline" && ok \
		|| bad "tree lock built by the installed binary not on the inline loop"
	# The kernel-style example against the installed <lockbench/kernel.h>:
	# every run checks mutual exclusion (exit 1 on a violation), here at
	# 2, 8 and 32 threads on this machine's CPUs.  A queue lock whose
	# waiters only spin drains 32 threads on 2 CPUs slowly when the
	# machine is busy (a waiter's turn comes with its time slice): the
	# watchdog is given a minute, still far short of a hang.
	# shellcheck disable=SC2086
	expect_exit 0 "build kernel_mcs against installed headers" -- $CC -std=gnu11 -Wall -Wextra \
		-Werror -O2 -shared -fPIC $cflags "$ROOT/examples/kernel_mcs.c" -o "$OUT/kmcs.so"
	expect_exit 0 "kernel_mcs validated at 2,8,32 threads" -- "$D/usr/local/bin/lockbench" \
		--plugin "$OUT/kmcs.so" -l kernel_mcs -t 2,8,32 -r 1 --warmup 0.02 -d 0.1 --no-tune -q \
		--watchdog 60 \
		-f json -o "$OUT/kmcs.json"
	python3 - "$OUT/kmcs.json" <<'PY' && ok || bad "kernel_mcs runs: exclusion not checked or no progress"
import json, sys
d = json.load(open(sys.argv[1]))
pts = [p for p in d["points"] if p["variant"] == "kernel_mcs"]
assert sorted(p["threads"] for p in pts) == [2, 8, 32], pts
for p in pts:
    assert p["status"] == "ok" and p["runs"], p
    for r in p["runs"]:
        x = r["exclusion"]
        assert x["checked"] and x["ok"] and x["total_ops"] == x["counter"] > 0, x
PY
fi

e2e_done
