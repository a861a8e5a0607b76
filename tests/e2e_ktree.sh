#!/usr/bin/env bash
# End-to-end tests of kernel-tree locks (docs/kernel-tree.md), on the
# kernel-style fixture trees of tests/fixtures/ (lockbench's own code in
# the kernel's paths and idiom, one-file and split layouts; no kernel
# tree is needed): build-kernel-lock, the cache (hit, miss on a changed
# file), a tree the layer cannot build (one line, exit 2, nothing left
# behind), --kernel-tree runs at 1, 2 and 8 threads with the exclusion
# check, two trees in one table, their provenance in the JSON, a broken
# tree lock FAILED, the git state of a tree, the CNA wiring on the
# fixture's own CNA-like patch.  Usage: e2e_ktree.sh BINARY
set -u
BIN=${1:-./lockbench}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$(dirname "$0")/lib.sh"
export LOCKBENCH_CACHE=$OUT/cache
ONE=$ROOT/tests/fixtures/ktree-onefile
SPLIT=$ROOT/tests/fixtures/ktree-split
RUN=(-r 1 --warmup 0.02 -d 0.1 --no-tune -q)
# The fixture trees hold no arch/: their locks are built with the
# generic headers, which the tree line says on a target with an arch.
case $(${LOCKBENCH_CC:-cc} -dumpmachine) in
x86_64-* | i?86-*) ARCH=x86 GEN=" [generic: no arch/x86/include/asm]" ;;
aarch64-*) ARCH=arm64 GEN=" [generic: no arch/arm64/include/asm]" ;;
*) ARCH= GEN= ;;
esac

# sos: the .so files in the cache.
sos() { ls "$LOCKBENCH_CACHE"/*.so 2>/dev/null | wc -l; }

# Build once (built), again (cached, the same file), and with -o.
expect_exit 0 "build qspinlock" -- "$BIN" build-kernel-lock "$ONE"
grep -q "^built $LOCKBENCH_CACHE/ktree-qspinlock-[0-9a-f]*\.so (qspinlock)\$" "$OUT/stdout" && ok \
	|| bad "first build not 'built': $(cat "$OUT/stdout")"
first=$(cut -d' ' -f2 "$OUT/stdout")
expect_exit 0 "build again" -- "$BIN" build-kernel-lock "$ONE"
[ "$(cat "$OUT/stdout")" = "cached $first (qspinlock)" ] && ok || bad "second build not cached: $(cat "$OUT/stdout")"
expect_exit 0 "build -o" -- "$BIN" build-kernel-lock "$ONE" --lock qrwlock -o "$OUT/qrw.so"
grep -q "^built $OUT/qrw.so (qrwlock)\$" "$OUT/stdout" && ok || bad "-o: $(cat "$OUT/stdout")"
[ -x "$OUT/qrw.so" ] && ok || bad "-o file missing"
expect_exit 0 "build osq, split" -- sh -c "'$BIN' build-kernel-lock '$ONE' --lock osq &&
	'$BIN' build-kernel-lock '$SPLIT'"
[ "$(sos)" -eq 4 ] && ok || bad "cache holds $(sos) plugins, want 4"

# A changed lock file is a miss; the copy of the tree is another tree
# only by content, so the untouched copy hits.
cp -r "$ONE" "$OUT/tree"
expect_exit 0 "copy of the tree" -- "$BIN" build-kernel-lock "$OUT/tree"
grep -q "^cached $first " "$OUT/stdout" && ok || bad "identical copy not cached: $(cat "$OUT/stdout")"
echo "/* a patch */" >>"$OUT/tree/kernel/locking/mcs_spinlock.h"
expect_exit 0 "changed header" -- "$BIN" build-kernel-lock "$OUT/tree"
grep -q "^built " "$OUT/stdout" && ! grep -q "$first" "$OUT/stdout" && ok \
	|| bad "changed header not rebuilt: $(cat "$OUT/stdout")"

# The tree's arch directory is compiled, ahead of the layer's generic-y
# wrappers (docs/kernel-tree.md): a copy of the tree in a folder with a
# space (the dependency output escapes it as `\ `) with an
# arch/x86/include/asm/qspinlock.h of its own that takes the generic
# header, as x86's does.  source.files lists it, and a change to it
# alone builds again.
if [ "$(uname -m)" = x86_64 ]; then
	A="$OUT/arch tree"
	cp -r "$ONE" "$A"
	mkdir -p "$A/arch/x86/include/asm"
	printf '/* the arch: x86 */\n#include <asm-generic/qspinlock.h>\n' \
		>"$A/arch/x86/include/asm/qspinlock.h"
	expect_exit 0 "arch tree" -- "$BIN" build-kernel-lock "$A" -o "$OUT/arch.so"
	"$BIN" list locks -v --plugin a="$OUT/arch.so" >"$OUT/list" 2>&1
	grep -q "   arch/x86/include/asm/qspinlock.h sha256:$(sha256sum \
		"$A/arch/x86/include/asm/qspinlock.h" | cut -c1-16)" "$OUT/list" && ok \
		|| bad "source.files lacks the arch header: $(cat "$OUT/list")"
	echo "/* an arch patch */" >>"$A/arch/x86/include/asm/qspinlock.h"
	expect_exit 0 "changed arch header" -- "$BIN" build-kernel-lock "$A"
	grep -q "^built " "$OUT/stdout" && ok || bad "changed arch header not rebuilt: $(cat "$OUT/stdout")"
fi

# A v6.15-layout tree without kernel/locking/qspinlock.h: the error
# names the missing file; no header of lockbench's stands in for it.
cp -r "$SPLIT" "$OUT/nosplit"
rm "$OUT/nosplit/kernel/locking/qspinlock.h"
bad_input "missing tree file" "cannot build qspinlock: kernel/locking/qspinlock.c:[0-9]*:[0-9]*: fatal error: qspinlock.h: No such file" \
	build-kernel-lock "$OUT/nosplit"

# The plugin loads anywhere and says where it came from.
expect_exit 0 "list -v of a built plugin" -- "$BIN" list locks -v --plugin kt="$OUT/qrw.so"
grep -q "^qrwlock_kt .*reader-writer" "$OUT/stdout" && ok || bad "qrwlock_kt not listed"
grep -q "tree: $ONE (not a git work tree)" "$OUT/stdout" && ok || bad "list -v: no tree line"
grep -q "   kernel/locking/qrwlock.c sha256:$(sha256sum "$ONE/kernel/locking/qrwlock.c" | cut -c1-16)" \
	"$OUT/stdout" && ok || bad "list -v: qrwlock.c and its hash not listed"

# Tree locks carry their own worker loops (<lockbench/loops.h>), built
# from this binary's loop template: lock and unlock inlined as the
# built-ins' are.
expect_exit 0 "list -v: loops" -- "$BIN" list locks -v --kernel-tree one="$ONE"
for l in qspinlock_one qrwlock_one osq_one; do
	grep -A1 "^$l " "$OUT/stdout" | grep -q "loop: inline (lock and unlock inlined)" && ok \
		|| bad "$l not on the inline loop: $(grep -A1 "^$l " "$OUT/stdout")"
done
# A template of another loop ABI (a layer beside another lockbench):
# built without loops, one warning line, the generic loop.
mkdir -p "$OUT/layer"
cp -r "$ROOT/kernel/compat" "$OUT/layer/compat"
mkdir -p "$OUT/layer/compat/include/lockbench"
cp "$ROOT"/locks/lockbench/*.h "$OUT/layer/compat/include/lockbench/"
sed 's/^#define LOCKBENCH_LOOP_ABI .*/#define LOCKBENCH_LOOP_ABI 0x1u/' \
	"$ROOT/build/include/lockbench/loop_template.h" \
	>"$OUT/layer/compat/include/lockbench/loop_template.h"
expect_exit 0 "template of another ABI" -- env LOCKBENCH_COMPAT_DIR="$OUT/layer/compat" \
	"$BIN" build-kernel-lock "$ONE" -o "$OUT/oldtmpl.so"
[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "^lockbench: warning: kernel tree ($ONE): the worker-loop template $OUT/layer/compat/include/lockbench/loop_template.h is for loop ABI 0x1, this lockbench has 0x[0-9a-f]*: qspinlock runs the generic loop" "$OUT/stderr" \
	&& ok || bad "other template ABI: $(cat "$OUT/stderr")"
"$BIN" list locks -v --plugin o="$OUT/oldtmpl.so" >"$OUT/list" 2>&1
grep -A1 "^qspinlock_o " "$OUT/list" | grep -q "loop: generic" && ok \
	|| bad "other template ABI: not on the generic loop: $(cat "$OUT/list")"
# Without any template: the same, saying so.
rm "$OUT/layer/compat/include/lockbench/loop_template.h"
expect_exit 0 "no template" -- env LOCKBENCH_COMPAT_DIR="$OUT/layer/compat" \
	"$BIN" build-kernel-lock "$ONE" --lock osq -o "$OUT/notmpl.so"
grep -q "no worker-loop template (lockbench/loop_template.h) beside the layer $OUT/layer/compat: osq runs the generic loop" \
	"$OUT/stderr" && ok || bad "no template: $(cat "$OUT/stderr")"
# A plugin whose loops carry another ABI (built by another lockbench,
# loaded here): the loader runs the generic loop and says why.
expect_exit 0 "loops of another ABI" -- env LOCKBENCH_KTREE_CFLAGS=-DLOCKBENCH_LOOP_ABI=0x2u \
	"$BIN" build-kernel-lock "$ONE" -o "$OUT/oldabi.so"
expect_exit 0 "run loops of another ABI" -- "$BIN" --plugin o="$OUT/oldabi.so" -l qspinlock_o \
	-t 1 "${RUN[@]}" -f json -o "$OUT/oldabi.json"
grep -q "^lockbench: warning: plugin lock qspinlock_o: its inline loops were built for loop ABI 0x2, this lockbench has" \
	"$OUT/stderr" && ok || bad "other loop ABI: no warning: $(cat "$OUT/stderr")"
python3 -c "
import json; d=json.load(open('$OUT/oldabi.json'))
assert d['variants'][0]['loop'] == 'generic', d['variants'][0]" && ok || bad "other loop ABI: not generic"

# Trees the layer cannot build: one line naming the file and the
# compiler's first error, exit 2, no plugin and no build directory left.
cp -r "$ONE" "$OUT/bad"
sed -i 's/^static DEFINE_PER_CPU_ALIGNED/static DEFINE_STATIC_KEY_FALSE(qspinlock_key);\n&/' \
	"$OUT/bad/kernel/locking/qspinlock.c"
n=$(sos)
bad_input "unknown construct" \
	"^lockbench: kernel tree ($OUT/bad): cannot build qspinlock: kernel/locking/qspinlock.c:[0-9]*:[0-9]*: error: " \
	build-kernel-lock "$OUT/bad"
[ "$(sos)" -eq "$n" ] && ok || bad "a failed build left a plugin"
ls -d "$LOCKBENCH_CACHE"/build-* >/dev/null 2>&1 && bad "a failed build left its directory" || ok
bad_input "failed build, -o" "cannot build qspinlock" build-kernel-lock "$OUT/bad" -o "$OUT/bad.so"
[ -e "$OUT/bad.so" ] && bad "failed build wrote -o" || ok
bad_input "run on a bad tree" "cannot build qspinlock" --kernel-tree x="$OUT/bad" -l qspinlock_x -t 1
bad_input "not a tree" "not a kernel source tree (no kernel/locking/)" build-kernel-lock "$OUT"
bad_input "no such lock" "no lock rwsem (valid: qspinlock, qrwlock, osq)" \
	build-kernel-lock "$ONE" --lock rwsem
bad_input "tree without the lock" "cannot build osq: the tree lacks kernel/locking/osq_lock.c" \
	build-kernel-lock "$SPLIT" --lock osq
bad_input "no tree" "no tree given" build-kernel-lock
bad_input "missing dir" "kernel tree ($OUT/nosuch): No such file or directory" \
	--kernel-tree "$OUT/nosuch" -l ticket -t 1

# scripts/try-kernel-tree.sh, what a developer runs on their checkouts:
# a line per lock, built and validated, or the line that stopped it;
# exit 1 when one did not build.
expect_exit 1 "try-kernel-tree.sh" -- "$ROOT/scripts/try-kernel-tree.sh" -d 0.05 one="$ONE" \
	split="$SPLIT" bad="$OUT/bad" -- "$BIN"
for want in "one qspinlock: built, inline loop; cs at 1,2,8 threads: exclusion ok ([0-9]* operations)" \
	"one qrwlock: built, inline loop; rw at 1,2,8 threads: exclusion ok" \
	"one osq: built, inline loop; cs at 1,2,8 threads: exclusion ok" \
	"split qspinlock: built, inline loop; cs at 1,2,8 threads: exclusion ok" \
	"split osq: the tree has no kernel/locking/osq_lock.c" \
	"bad qspinlock: lockbench: kernel tree ($OUT/bad): cannot build qspinlock: kernel/locking/qspinlock.c:[0-9]*:[0-9]*: error: " \
	"^Lock: *qspinlock_one *qspinlock_split"; do
	grep -q "$want" "$OUT/stdout" && ok || bad "try-kernel-tree.sh lacks '$want': $(cat "$OUT/stdout")"
done

# Two trees in one run, every lock of the one-file tree, 1, 2 and 8
# threads: the exclusion check passes, one table with rel%, and the JSON
# carries each tree's provenance.
expect_exit 0 "two trees" -- "$BIN" --kernel-tree one="$ONE" --kernel-tree split="$SPLIT" \
	-l qspinlock_one,qspinlock_split,qrwlock_one,osq_one -t 1,2,8 --watchdog 60 "${RUN[@]}" \
	-f table,json -o "$OUT/two.json"
grep -q "^Lock: *qspinlock_one *qspinlock_split" "$OUT/stdout" && ok || bad "no two-tree table"
grep -q "rel" "$OUT/stdout" && ok || bad "table lacks rel%"
python3 - "$OUT/two.json" "$ONE" "$SPLIT" <<'PY' && ok || bad "two trees json"
import hashlib, json, sys
d = json.load(open(sys.argv[1]))
v = {x["name"]: x for x in d["variants"]}
for name, tree, f in (("qspinlock_one", sys.argv[2], "kernel/locking/qspinlock.c"),
                      ("qspinlock_split", sys.argv[3], "kernel/locking/qspinlock.h"),
                      ("qrwlock_one", sys.argv[2], "kernel/locking/qrwlock.c"),
                      ("osq_one", sys.argv[2], "kernel/locking/osq_lock.c")):
    s = v[name]["source"]
    assert s["tree"] == tree and s["git"] is None, s
    want = hashlib.sha256(open(tree + "/" + f, "rb").read()).hexdigest()
    assert s["files"][f] == want, (name, s["files"])
    assert s["compiler"] and "-DCONFIG_NR_CPUS=" in s["cflags"], s
    assert s["loop"] == "inline" and v[name]["loop"] == "inline", (name, s, v[name]["loop"])
pts = d["points"]
assert sorted({p["threads"] for p in pts}) == [1, 2, 8], pts
for p in pts:
    assert p["status"] == "ok", p
    for r in p["runs"]:
        e = r["exclusion"]
        assert e["checked"] and e["ok"] and e["counter"] == e["total_ops"] > 0, (p["variant"], e)
PY
# compare keeps the provenance of a saved run.
expect_exit 0 "compare keeps source" -- "$BIN" compare -f json -o "$OUT/cmp.json" \
	"$OUT/two.json"
python3 -c "
import json; d=json.load(open('$OUT/cmp.json'))
assert any(v.get('source', {}).get('tree') == '$SPLIT' for v in d['variants'])" && ok \
	|| bad "compare dropped the source"

# --lock-events: the tree's own counters (CONFIG_LOCK_EVENT_COUNTS), by
# the names of its lock_events_list.h, per run in the JSON, and the
# slow-path share under the table; another build than without; a tree
# without the counters (v4 layout) and a run without a tree refused.
python3 -c "
import json; d = json.load(open('$OUT/two.json'))
assert all('lock_events' not in r for p in d['points'] for r in p['runs'])" && ok \
	|| bad "lock_events in a run without --lock-events"
expect_exit 0 "--lock-events" -- "$BIN" --kernel-tree split="$SPLIT" -l qspinlock_split \
	--lock-events -t 1,8 --cs-ns 300 --watchdog 60 "${RUN[@]}" -f table,json -o "$OUT/ev.json"
python3 - "$OUT/ev.json" "$SPLIT/kernel/locking/lock_events_list.h" <<'PY' && ok || bad "lock_events json"
import json, re, sys
d = json.load(open(sys.argv[1]))
names = re.findall(r"^LOCK_EVENT\((\w+)\)", open(sys.argv[2]).read(), re.M)
assert d["variants"][0]["source"]["lock_events"] is True
assert "-DCONFIG_LOCK_EVENT_COUNTS" in d["variants"][0]["source"]["cflags"]
slow = {}
for p in d["points"]:
    for r in p["runs"]:
        assert sorted(r["lock_events"]) == sorted(names), (r["lock_events"], names)
        slow[p["threads"]] = slow.get(p["threads"], 0) + r["lock_events"]["lock_slowpath"]
assert slow[1] == 0 and slow[8] > 0, slow
PY
tr '\n' ' ' <"$OUT/stdout" | tr -s ' ' | grep -q "lock events of qspinlock_split, the share of acquisitions that took the slow path: 0% at 1 thread, [0-9.e+-]*% at 8 threads" \
	&& ok || bad "no slow-path share under the table: $(tail -4 "$OUT/stdout")"
"$BIN" build-kernel-lock "$SPLIT" >"$OUT/plain" 2>&1
expect_exit 0 "build --lock-events" -- "$BIN" build-kernel-lock "$SPLIT" --lock-events
[ "$(cut -d' ' -f2 "$OUT/plain")" != "$(cut -d' ' -f2 "$OUT/stdout")" ] && ok \
	|| bad "--lock-events not another build: $(cat "$OUT/plain" "$OUT/stdout")"
bad_input "--lock-events without a tree" "^lockbench: --lock-events: the tree's counters need --kernel-tree" \
	-l ticket -t 1 --lock-events
bad_input "--lock-events, v4 tree" "--lock-events: the tree has no kernel/locking/lock_events_list.h" \
	--kernel-tree one="$ONE" -l qspinlock_one -t 1 --lock-events

# The CNA wiring (docs/kernel-tree.md, "The CNA series"): the fixture's
# own CNA-like patch mail, applied by scripts/make-cna-tree.sh with its
# Message-Id kept, makes a tree with kernel/locking/qspinlock_cna.h,
# built with CONFIG_NUMA_AWARE_SPINLOCKS and run through its CNA slow
# path: stock and CNA in one table, exclusion at 1, 2 and 4 threads;
# over two (fake) nodes, MCS handoffs carrying a secondary queue; on one
# node none; the threshold a lock option.
CNAMAIL=$ROOT/tests/fixtures/ktree-cna
expect_exit 0 "make-cna-tree.sh" -- "$ROOT/scripts/make-cna-tree.sh" "$ONE" "$CNAMAIL" "$OUT/cna"
grep -q "^applied: <lockbench-fixture-cna-1@lockbench.invalid>\$" "$OUT/stdout" && \
	git -C "$OUT/cna" log -1 --format=%B | grep -q "^Message-Id: <lockbench-fixture-cna-1@lockbench.invalid>\$" \
	&& ok || bad "make-cna-tree.sh: $(cat "$OUT/stdout" "$OUT/stderr")"
expect_exit 2 "make-cna-tree.sh, no mails" -- "$ROOT/scripts/make-cna-tree.sh" "$ONE" "$OUT" "$OUT/cna2"
[ ! -e "$OUT/cna2" ] && ok || bad "make-cna-tree.sh left $OUT/cna2"
expect_exit 0 "stock and cna" -- "$BIN" --kernel-tree stock="$ONE" --kernel-tree cna="$OUT/cna" \
	-l qspinlock_stock,qspinlock_cna -t 1,2,4 --fake-nodes 2 --cs-ns 300 --watchdog 60 \
	-r 2 --warmup 0.02 -d 0.3 --no-tune -f table,json -o "$OUT/cna.json"
# cnachk FILE [cflags] [spin_yield=N] [nodes=A,B,...]: a stock and CNA
# run's JSON: every point ok, every run's exclusion checked and held,
# the CNA lock's handoffs at 4 threads carried a secondary queue; then
# the facts asked (the CNA build's flag, the spin_yield recorded, the
# workers' nodes).
cat >"$OUT/cnachk.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
want = dict((a + "=").split("=")[:2] for a in sys.argv[2:])
second = 0
for p in d["points"]:
    assert p["status"] == "ok", p["status"]
    for r in p["runs"]:
        assert r["exclusion"]["checked"] and r["exclusion"]["ok"]
        if p["variant"] == "qspinlock_cna" and p["threads"] == 4:
            second += r["counters"]["mcs_handoff_2nd"]
assert second > 0, second
if "cflags" in want:
    v = {x["name"]: x for x in d["variants"]}
    assert "-DCONFIG_NUMA_AWARE_SPINLOCKS" in v["qspinlock_cna"]["source"]["cflags"]
    assert "-DCONFIG_NUMA_AWARE_SPINLOCKS" not in v["qspinlock_stock"]["source"]["cflags"]
if "spin_yield" in want:
    o = d["config"]["lock_opts"]
    n = int(want["spin_yield"])
    assert o["qspinlock_stock"]["spin_yield"] == n and o["qspinlock_cna"]["spin_yield"] == n, o
if "nodes" in want:
    nodes = [int(x) for x in want["nodes"].split(",")]
    assert [t["node"] for t in d["placement"]["threads"]] == nodes, d["placement"]
PY
python3 "$OUT/cnachk.py" "$OUT/cna.json" cflags && ok || bad "stock and cna json"
grep -q "qspinlock_stock.*qspinlock_cna" "$OUT/stdout" && ok || bad "no table of both: $(cat "$OUT/stdout")"
# The tree locks' spin_yield option (docs/kernel-tree.md): off unless
# given, recorded in the config; on, the waits yield the CPU and the
# lock still excludes, and over two nodes the secondary queue is used.
python3 - "$OUT/cna.json" <<'PY' && ok || bad "spin_yield not 0 by default in the config"
import json, sys
o = json.load(open(sys.argv[1]))["config"]["lock_opts"]
assert o["qspinlock_stock"]["spin_yield"] == 0 and o["qspinlock_cna"]["spin_yield"] == 0, o
PY
expect_exit 0 "stock and cna, spin_yield" -- "$BIN" --kernel-tree stock="$ONE" --kernel-tree cna="$OUT/cna" \
	-l qspinlock_stock,qspinlock_cna -t 1,4,8 --fake-nodes 2 --cs-ns 1000 --watchdog 60 \
	--lock-opt qspinlock_stock.spin_yield=1 --lock-opt qspinlock_cna.spin_yield=1 \
	-r 2 --warmup 0.02 -d 0.3 --no-tune -f json -o "$OUT/cnay.json"
python3 "$OUT/cnachk.py" "$OUT/cnay.json" spin_yield=1 && ok || bad "stock and cna with spin_yield json"
# The same over a synthetic 2-node machine mapped onto this one
# (--map-topology): each worker's node from the placement on it (nodes
# 0, 0, 1, 1 at 4 threads), so the secondary queue is used here too.
expect_exit 0 "stock and cna, synthetic 2 nodes" -- "$BIN" --kernel-tree stock="$ONE" \
	--kernel-tree cna="$OUT/cna" -l qspinlock_stock,qspinlock_cna -t 1,4 \
	--topology "numa:2 core:2 pu:1" --map-topology --cs-ns 1000 --watchdog 60 \
	--lock-opt qspinlock_stock.spin_yield=1 --lock-opt qspinlock_cna.spin_yield=1 \
	-r 2 --warmup 0.02 -d 0.3 --no-tune -f json -o "$OUT/cnat.json"
python3 "$OUT/cnachk.py" "$OUT/cnat.json" nodes=0,0,1,1 && ok || bad "stock and cna over a synthetic topology json"
expect_exit 0 "qrwlock and osq, spin_yield" -- "$BIN" --kernel-tree one="$ONE" -l qrwlock_one,osq_one -t 4 \
	--lock-opt qrwlock_one.spin_yield=1 --lock-opt osq_one.spin_yield=1 --cs-ns 300 --watchdog 60 \
	"${RUN[@]}" -f json -o "$OUT/rwy.json"
python3 - "$OUT/rwy.json" <<'PY' && ok || bad "qrwlock/osq with spin_yield json"
import json, sys
d = json.load(open(sys.argv[1]))
assert all(v["spin_yield"] == 1 for v in d["config"]["lock_opts"].values()), d["config"]["lock_opts"]
assert len(d["points"]) == 2
assert all(r["exclusion"]["ok"] for p in d["points"] for r in p["runs"])
PY
# The harness's own pauses (the section delays, compiled into the tree
# lock's inline loop) are not the tree's cpu_relax(): with spin_yield on
# a 1 us section is still 1 us (it read half when they yielded).
expect_exit 0 "spin_yield, 1 thread, --cs-ns 1000" -- "$BIN" --kernel-tree one="$ONE" -l qspinlock_one -t 1 \
	--lock-opt qspinlock_one.spin_yield=1 --cs-ns 1000 -r 2 -d 0.2 --warmup 0.1 --no-tune -q -f json -o "$OUT/csy.json"
python3 - "$OUT/csy.json" <<'PY' && ok || bad "spin_yield moved the section delay"
import json, sys
d = json.load(open(sys.argv[1]))
cs = [r["cs_ns_actual_median"] for p in d["points"] for r in p["runs"]]
assert cs and all(750 <= c <= 1500 for c in cs), cs
PY
# The layer's waits themselves: compiled as a tree file is (the layer
# first, linux/kconfig.h included first), with a sched_yield() of the
# probe's own that ends the wait on its third call; with the flag off
# cpu_relax() does not yield (and a layer whose waits never yield would
# spin until the timeout).
cat >"$OUT/yprobe.c" <<'C'
int lb_kc_spin_yield;
__thread unsigned long lb_kc_resched_budget;
static int yields;
static atomic_t word;

int sched_yield(void)
{
	if (++yields == 3)
		atomic_set(&word, 1);
	return 0;
}

int main(void)
{
	atomic_t a = ATOMIC_INIT(0);

	cpu_relax();
	printf("off %d\n", yields);
	lb_kc_spin_yield = 1;
	cpu_relax();
	(void)smp_cond_load_acquire(&word.counter, VAL != 0);
	printf("on %d\n", yields);
	yields = 0;
	atomic_set(&word, 0);
	(void)atomic_cond_read_relaxed(&word, VAL != 0);
	atomic_set(&a, 1);
	(void)atomic_cond_read_acquire(&a, VAL == 1);
	printf("cond %d\n", yields);
	return 0;
}
C
expect_exit 0 "spin_yield probe" -- sh -c "cc -O2 -I'$ROOT/kernel/compat/include' -I'$ROOT/locks' \
	-include linux/kconfig.h '$OUT/yprobe.c' -o '$OUT/yprobe' && timeout 20 '$OUT/yprobe'"
[ "$(tr '\n' ' ' <"$OUT/stdout")" = "off 0 on 3 cond 3 " ] && ok || bad "spin_yield probe: $(cat "$OUT/stdout")"
# Built with -DLB_KC_NO_SPIN_YIELD (scripts/bench-ktree.sh), the waits
# are the kernel's pause alone: the flag is never read, so setting it
# yields nothing (the wait on a word already set ends at once).
cat >"$OUT/nyprobe.c" <<'C'
int lb_kc_spin_yield;
__thread unsigned long lb_kc_resched_budget;
static int yields;

int sched_yield(void)
{
	yields++;
	return 0;
}

int main(void)
{
	atomic_t a = ATOMIC_INIT(1);

	lb_kc_spin_yield = 1;
	cpu_relax();
	(void)atomic_cond_read_acquire(&a, VAL == 1);
	printf("on %d\n", yields);
	return 0;
}
C
expect_exit 0 "no-yield probe" -- sh -c "cc -O2 -DLB_KC_NO_SPIN_YIELD -I'$ROOT/kernel/compat/include' \
	-I'$ROOT/locks' -include linux/kconfig.h '$OUT/nyprobe.c' -o '$OUT/nyprobe' && timeout 20 '$OUT/nyprobe'"
[ "$(cat "$OUT/stdout")" = "on 0" ] && ok || bad "no-yield probe: $(cat "$OUT/stdout")"
# A tree lock built so: its slow path reads no flag (x86: no load of
# lb_kc_spin_yield in its disassembly) and spin_yield=1 is refused in
# one line, where a build that ignored the option would run it.
LOCKBENCH_KTREE_CFLAGS=-DLB_KC_NO_SPIN_YIELD expect_exit 0 "build without spin_yield" -- \
	"$BIN" build-kernel-lock "$ONE" -q -o "$OUT/ny.so"
if [ "$ARCH" = x86 ]; then
	objdump -d --no-show-raw-insn "$OUT/ny.so" |
		awk '$2 == "<queued_spin_lock_slowpath>:" { on = 1; next } on && /^$/ { exit } on' >"$OUT/ny.s"
	[ -s "$OUT/ny.s" ] && ! grep -q lb_kc_spin_yield "$OUT/ny.s" && ok ||
		bad "the no-yield build's slow path reads the flag: $(grep lb_kc_spin_yield "$OUT/ny.s" | head -2)"
fi
bad_input "spin_yield=1 on a no-yield build" "spin_yield (1): out of range (max 0)" \
	--plugin ny="$OUT/ny.so" -l qspinlock_ny -t 1 --lock-opt qspinlock_ny.spin_yield=1
# A synthetic 2-node machine is not run here without --map-topology;
# its refusal names that and the --fake-nodes that gives a run its two
# nodes.
bad_input "synthetic 2-node --topology" "give --map-topology .* or --fake-nodes 2 (thread t on node t%2)\$" \
	--topology "package:1 numa:2 core:2 pu:1" -l tas -t 4
bad_input "spin_yield 2" "spin_yield" --kernel-tree cna="$OUT/cna" -l qspinlock_cna \
	-t 1 --lock-opt qspinlock_cna.spin_yield=2
expect_exit 0 "cna, one node" -- "$BIN" --kernel-tree cna="$OUT/cna" -l qspinlock_cna -t 4 \
	--cs-ns 300 --watchdog 60 -r 2 --warmup 0.02 -d 0.3 --no-tune -f json -o "$OUT/cna1.json" \
	--lock-opt qspinlock_cna.numa_spinlock_threshold_ns=1
python3 - "$OUT/cna1.json" <<'PY' && ok || bad "cna on one node moved waiters"
import json, sys
d = json.load(open(sys.argv[1]))
runs = [r for p in d["points"] for r in p["runs"]]
assert runs and all(r["exclusion"]["ok"] for r in runs)
assert sum(r["counters"]["mcs_handoff"] for r in runs) > 0
assert all(r["counters"]["mcs_handoff_2nd"] == 0 for r in runs)
PY
# Its table says that CNA's NUMA win cannot show on one node, and what
# gives the workers two; the run over two fake nodes above does not.
"$BIN" compare "$OUT/cna1.json" >"$OUT/o" 2>&1
tr -s ' \n' '  ' <"$OUT/o" | grep -q "CNA on one NUMA node: every waiter is of the lock's node, so the CNA series never forms its secondary queue and its NUMA win cannot show here; give the workers two nodes with --topology \"numa:2 core:2 pu:1\" --map-topology" &&
	ok || bad "cna on one node: the caveat under the table: $(cat "$OUT/o")"
"$BIN" compare "$OUT/cna.json" >"$OUT/o" 2>&1
! grep -q "CNA on one NUMA node" "$OUT/o" && ok || bad "cna over two fake nodes: no caveat"
bad_input "cna threshold 0" "numa_spinlock_threshold_ns" --kernel-tree cna="$OUT/cna" -l qspinlock_cna \
	-t 1 --lock-opt qspinlock_cna.numa_spinlock_threshold_ns=0

# A tree whose lock does not exclude is FAILED, exit 1, like any lock.
cp -r "$ONE" "$OUT/broken"
sed -i 's/if (likely(atomic_try_cmpxchg_acquire(&lock->val, &val, _Q_LOCKED_VAL)))/if (1)/' \
	"$OUT/broken/include/asm-generic/qspinlock.h"
expect_exit 1 "broken tree lock" -- "$BIN" --kernel-tree broken="$OUT/broken" -l qspinlock_broken \
	-t 2 --cs-ns 300 "${RUN[@]}"
grep -q "FAILED" "$OUT/stdout" && ok || bad "broken tree lock not FAILED"

# A git work tree: its describe, commit and dirty state are recorded,
# and a new commit is another build.
if command -v git >/dev/null; then
	cp -r "$ONE" "$OUT/git"
	git -C "$OUT/git" init -q && git -C "$OUT/git" add -A &&
		git -C "$OUT/git" -c user.name=t -c user.email=t@t commit -qm v1
	expect_exit 0 "git tree" -- "$BIN" build-kernel-lock "$OUT/git" -o "$OUT/git.so"
	head=$(git -C "$OUT/git" rev-parse HEAD)
	"$BIN" list locks -v --plugin g="$OUT/git.so" >"$OUT/list" 2>&1
	grep -q "tree: $OUT/git (git ${head:0:12}, commit ${head:0:12})" "$OUT/list" && ok \
		|| bad "git state: $(grep tree: "$OUT/list")"
	echo "/* dirty */" >>"$OUT/git/kernel/locking/qspinlock.c"
	expect_exit 0 "dirty git tree" -- "$BIN" build-kernel-lock "$OUT/git" -o "$OUT/git.so"
	"$BIN" list locks -v --plugin g="$OUT/git.so" >"$OUT/list" 2>&1
	grep -q "tree: $OUT/git (git ${head:0:12}-dirty, commit ${head:0:12}, dirty)" "$OUT/list" \
		&& ok || bad "dirty state: $(grep tree: "$OUT/list")"
	# Without -l the tree's locks join the default sweep, and under the
	# table each tree is named: tag, path, git state, commit, dirty.
	expect_exit 0 "tree without -l" -- "$BIN" --kernel-tree g="$OUT/git" \
		--kernel-tree one="$ONE" -t 1 "${RUN[@]}" -f table,json -o "$OUT/sweep.json"
	python3 -c "
import json; d = json.load(open('$OUT/sweep.json'))
names = [v['name'] for v in d['variants']]
want = ['pthread_mutex', 'ticket', 'mcs', 'qspinlock', 'qspinlock_g', 'qrwlock_g', 'osq_g',
        'qspinlock_one', 'qrwlock_one', 'osq_one']
assert names == want, names" && ok || bad "the sweep without -l lacks the tree's locks"
	grep -qFx "tree g: $OUT/git (git ${head:0:12}-dirty, commit ${head:0:12}, dirty)$GEN" "$OUT/stdout" \
		&& ok || bad "no line for the git tree: $(tail -4 "$OUT/stdout")"
	grep -qFx "tree one: $ONE (not a git work tree)$GEN" "$OUT/stdout" && ok \
		|| bad "no line for the tree outside git: $(tail -4 "$OUT/stdout")"
	# osq_g reads none of the changed files: its git state is clean,
	# and its tree line says so (the dirty check covers the files each
	# lock's build reads).
	grep -qFx "tree g: $OUT/git (git ${head:0:12}, commit ${head:0:12})$GEN" "$OUT/stdout" \
		&& ok || bad "no clean line for osq_g: $(tail -4 "$OUT/stdout")"
	[ "$(grep -c "^tree " "$OUT/stdout")" -eq 3 ] && ok || bad "a tree line twice"

	# The layer's stand-ins: a tree file the layer replaces
	# (include/linux/atomic.h, asm/barrier.h through asm-generic/)
	# changed against the commit is a warning naming it and dirties the
	# tree: another build, not "cached" and clean.  A change to a file
	# the build does not read (kernel/locking/mutex.c) neither rebuilds
	# nor dirties (the dirty check covers what the key hashes).
	S=$OUT/stand
	cp -r "$ONE" "$S"
	mkdir -p "$S/include/linux" "$S/include/asm-generic"
	echo "/* the tree's */" >"$S/include/linux/atomic.h"
	echo "/* the tree's */" >"$S/include/asm-generic/barrier.h"
	echo "/* the tree's */" >"$S/kernel/locking/mutex.c"
	git -C "$S" init -q && git -C "$S" add -A &&
		git -C "$S" -c user.name=t -c user.email=t@t commit -qm v1
	shead=$(git -C "$S" rev-parse HEAD)
	expect_exit 0 "stand-ins clean" -- "$BIN" build-kernel-lock "$S" -o "$OUT/stand.so"
	[ ! -s "$OUT/stderr" ] && ok || bad "a clean tree warned: $(cat "$OUT/stderr")"
	echo "/* unrelated */" >>"$S/kernel/locking/mutex.c"
	expect_exit 0 "unrelated change" -- "$BIN" build-kernel-lock "$S" -o "$OUT/stand.so"
	grep -q "^cached $OUT/stand.so" "$OUT/stdout" && ok \
		|| bad "mutex.c changed: rebuilt: $(cat "$OUT/stdout")"
	"$BIN" list locks -v --plugin s="$OUT/stand.so" >"$OUT/list" 2>&1
	grep -q "tree: $S (git ${shead:0:12}, commit ${shead:0:12})\$" "$OUT/list" && ok \
		|| bad "mutex.c changed: dirty: $(grep tree: "$OUT/list")"
	git -C "$S" checkout -q -- .
	echo "#error changed" >>"$S/include/linux/atomic.h"
	echo "#error changed" >>"$S/include/asm-generic/barrier.h"
	expect_exit 0 "stand-ins changed" -- "$BIN" build-kernel-lock "$S" -o "$OUT/stand.so"
	grep -q "^built $OUT/stand.so" "$OUT/stdout" && ok \
		|| bad "changed stand-ins: not a new build: $(cat "$OUT/stdout")"
	for f in include/linux/atomic.h include/asm-generic/barrier.h; do
		grep -q "warning: kernel tree ($S): $f differs from the tree's commit, but lockbench's layer stands in for it" \
			"$OUT/stderr" && ok || bad "no warning naming $f: $(cat "$OUT/stderr")"
	done
	"$BIN" list locks -v --plugin s="$OUT/stand.so" >"$OUT/list" 2>&1
	grep -q "tree: $S (git ${shead:0:12}-dirty, commit ${shead:0:12}, dirty)" "$OUT/list" && ok \
		|| bad "changed stand-ins: not dirty: $(grep tree: "$OUT/list")"
fi

# The tree settings mistyped: one line and exit 2, never a silent default.
for v in abc 0 99999 300s ""; do
	expect_exit 2 "LOCKBENCH_KTREE_TIMEOUT='$v'" -- env LOCKBENCH_KTREE_TIMEOUT="$v" \
		"$BIN" build-kernel-lock "$ONE"
	one_line "LOCKBENCH_KTREE_TIMEOUT='$v'" "LOCKBENCH_KTREE_TIMEOUT=$v: want whole seconds"
done
expect_exit 2 "LOCKBENCH_KTREE_ARCH=x86" -- env LOCKBENCH_KTREE_ARCH=x86 "$BIN" build-kernel-lock "$ONE"
one_line "LOCKBENCH_KTREE_ARCH=x86" "LOCKBENCH_KTREE_ARCH=x86: the one value is generic"

# A tree with arch/ but not the compiler's target's is refused in one
# line; LOCKBENCH_KTREE_ARCH=generic builds it with the generic headers,
# which its identity and the table's tree line name.
if [ -n "$ARCH" ]; then
	A=$OUT/noarch
	cp -r "$ONE" "$A"
	other=$([ "$ARCH" = x86 ] && echo arm64 || echo x86)
	mkdir -p "$A/arch/$other/include/asm"
	expect_exit 2 "no arch/$ARCH" -- "$BIN" build-kernel-lock "$A"
	one_line "no arch/$ARCH" "cannot build qspinlock: the tree has no arch/$ARCH/include/asm for the compiler's target"
	expect_exit 0 "LOCKBENCH_KTREE_ARCH=generic" -- env LOCKBENCH_KTREE_ARCH=generic \
		"$BIN" build-kernel-lock "$A" -o "$OUT/noarch.so"
	"$BIN" list locks -v --plugin na="$OUT/noarch.so" >"$OUT/list" 2>&1
	grep -q "arch: generic: no arch/$ARCH/include/asm" "$OUT/list" && ok \
		|| bad "generic build not named: $(cat "$OUT/list" | tail -5)"
	expect_exit 0 "generic in the table" -- "$BIN" --plugin na="$OUT/noarch.so" -l qspinlock_na \
		-t 1 "${RUN[@]}"
	# (the same content as $ONE: one cache entry, named by the tree
	# that built it first)
	grep -qx "tree na: .* (not a git work tree) \[generic: no arch/$ARCH/include/asm\]" "$OUT/stdout" \
		&& ok || bad "tree line lacks the generic headers: $(tail -3 "$OUT/stdout")"
fi

# A failed link names the undefined symbols, in one line.
cp -r "$ONE" "$OUT/empty"
: >"$OUT/empty/kernel/locking/qspinlock.c"
expect_exit 2 "empty qspinlock.c" -- "$BIN" build-kernel-lock "$OUT/empty"
one_line "empty qspinlock.c" "cannot build qspinlock: the link failed: undefined symbol: queued_spin_lock_slowpath"

# -v prints each compiler command: its flags and include path in order,
# the same the plugin records; --kernel-tree -v too.
expect_exit 0 "build -v" -- env LOCKBENCH_CACHE="$OUT/vcache" "$BIN" build-kernel-lock -v "$ONE" \
	-o "$OUT/v.so"
c=$(grep -m1 -- " -c .*kernel/locking/qspinlock.c -o " "$OUT/stderr")
incs=$(grep -o -- " -I[^ ]*" <<<"$c" | tr -d ' ' | tr '\n' ' ')
case $incs in
"-I$ROOT/kernel/compat/include -I"*"/inc "*"-I$ROOT/kernel/compat/generic -I$ONE/include -I$ROOT/kernel/compat ") ok ;;
*) bad "-v: no compile command with the include path in order: $c" ;;
esac
grep -q -- "-include linux/kconfig.h" <<<"$c" && ok || bad "-v: no -include: $c"
"$BIN" list locks -v --plugin v="$OUT/v.so" >"$OUT/list" 2>&1
grep -q -- "flags: .*-include linux/kconfig.h -I$ROOT/kernel/compat/include -IBUILD/inc .*-I$ONE/include" \
	"$OUT/list" && ok || bad "recorded flags lack the include path: $(grep flags: "$OUT/list")"
expect_exit 0 "--kernel-tree -v" -- "$BIN" --kernel-tree v="$ONE" -l qspinlock_v -t 1 -v \
	"${RUN[@]}"
grep -q -- "-I$ONE/include" "$OUT/stderr" && ok || bad "--kernel-tree -v: no command"

# help and usage name the command and the option.
expect_exit 0 "help build-kernel-lock" -- "$BIN" help build-kernel-lock
grep -q "^usage: lockbench build-kernel-lock DIR \[--lock L\] \[-o FILE.so\]" "$OUT/stdout" && ok \
	|| bad "help build-kernel-lock"
expect_exit 0 "--help" -- "$BIN" --help
grep -q -- "--kernel-tree \[TAG=\]DIR" "$OUT/stdout" && ok || bad "--help lacks --kernel-tree"

e2e_done
