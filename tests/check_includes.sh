#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check_includes.sh - the include arrows of docs/architecture.md, checked.
#
#   tests/check_includes.sh              check this tree, then prove the
#                                        checker fails on planted bad
#                                        includes (run by `make test`)
#   tests/check_includes.sh --tree DIR   check the tree at DIR only
#
# Every #include of a project file in the C sources of each part is
# resolved as the compiler does (the including file's folder first,
# then the -I folders of the Makefile's CPPFLAGS) and the folder it
# lands in must be one the part may use:
#
#   locks/            locks/ only (the worker loops that inline a
#                     built-in lock are instantiated in workloads/loops/)
#   topology/         topology/ only (no lock, no renderer, no results),
#                     and two leaves: locks/lockbench/atomics.h (fences,
#                     cpu_relax(): the clock and the host's probes) and
#                     output/stats/median.h (the one median)
#   output/results/   output/results/ only (the results model); inside
#                     it noise.* and stats.* do not include results.h
#   output/render/    output/render/, output/results/
#   workloads/        workloads/, locks/, topology/, output/results/
#   kernel/           kernel/, topology/, output/results/, and
#                     lib/sha256.h (the tree builder's cache keys)
#   cli/, main.c      anything (the front end)
#   output/           nothing but the two folders above
#   examples/, tests/plugins/, kernel/compat/   the installed lock
#                     headers only
#                     (locks/lockbench/, as an out-of-tree plugin;
#                     <lockbench/loop_template.h>, which loops.h
#                     includes, is generated into build/include/ from
#                     workloads/ headers and so not a tree file here:
#                     docs/architecture.md)
#
# A quoted include that resolves to no file is an error too (it would
# hide an arrow).  Angle-bracket includes that resolve to no project
# file are system headers and are ignored.  tests/ is not checked: a
# test may include whatever it tests.
set -u

# check_tree DIR: print one line per forbidden or unresolved include;
# exit 1 when there is any, else 0.  (Python: the shell version forked
# a few processes per include and took half a minute.)
check_tree() {
	python3 - "$1" <<'PY'
import os, re, sys

root = sys.argv[1]

def part_of(f):
    """The part a file (path relative to the tree) belongs to."""
    if f.startswith("locks/lockbench/"):
        return "public"
    # SHA-256 is a leaf the plugin loader and the kernel tree builder share.
    if re.fullmatch(r"locks/sha256\.[ch]", f):
        return "hash"
    # The one median: a leaf the statistics and topology/ share.
    if re.fullmatch(r"output/stats/median\.[ch]", f):
        return "median"
    for prefix, part in (("lib/", "lib"), ("locks/", "locks"), ("topology/", "topology"),
                         ("output/results/", "results"), ("output/stats/", "results"),
                         ("output/render/", "render"),
                         ("workloads/", "workloads"),
                         # The kernel compatibility layer is compiled into
                         # plugins, not into lockbench: installed headers only.
                         ("kernel/compat/", "plugin"), ("kernel/", "kernel"),
                         ("cli/", "cli"),
                         # output/ itself holds only its two layers.
                         ("output/", "stray"),
                         ("examples/", "plugin"), ("tests/plugins/", "plugin")):
        if f.startswith(prefix):
            return part
    return "cli" if f == "main.c" else "other"

ALLOWED = {("locks", "public"), ("public", "public"), ("locks", "hash"),
           ("kernel", "hash"), ("render", "results"), ("workloads", "locks"),
           ("workloads", "public"), ("workloads", "topology"),
           ("workloads", "results"), ("kernel", "topology"), ("kernel", "results"),
           ("plugin", "public")}

# The median leaf: for whoever may use the results model, and topology/.
MEDIAN_USERS = {"results", "render", "workloads", "kernel", "topology"}

def allowed(frm, to, target):
    if to == "lib":
        return frm not in ("public", "plugin")
    if to == "median":
        return frm == to or frm == "cli" or frm in MEDIAN_USERS
    # topology/ measures the host with the installed atomics (fences,
    # cpu_relax()), a leaf of system headers; no other public header.
    if frm == "topology" and target == "locks/lockbench/atomics.h":
        return True
    return frm == to or frm == "cli" or (frm, to) in ALLOWED

def below_results(f, target):
    """Inside the results model, noise.* and stats.* sit below results.h."""
    return (re.fullmatch(r"output/stats/(noise|stats)\.[ch]", f) is not None
            and target == "output/results/results.h")

os.chdir(root)
incdirs = []
for line in open("Makefile"):
    m = re.match(r"^CPPFLAGS[^=]*=(.*)", line)
    if m:
        incdirs += re.findall(r"-I(\S+)", m.group(1))
files = []
for d, subdirs, names in os.walk("."):
    rel = os.path.relpath(d)
    if rel == "build" or rel.startswith("build/") or rel == ".git" or rel.startswith(".git/"):
        subdirs[:] = []
        continue
    files += [os.path.normpath(os.path.join(rel, n)) for n in names
              if n.endswith((".c", ".h", ".def"))]
directive = re.compile(r'^\s*#\s*include\s*(["<])([^">]*)')
bad, n = False, 0
for f in sorted(files):
    part = part_of(f)
    if part == "other":
        continue
    if part == "stray":
        print(f + ": output/ holds only output/results/ and output/render/")
        bad = True
        continue
    for line in open(f, errors="replace"):
        m = directive.match(line)
        if not m:
            continue
        n += 1
        kind, inc = m.groups()
        target = None
        cands = ([os.path.join(os.path.dirname(f), inc)] if kind == '"' else []) + \
            [os.path.join(d, inc) for d in incdirs]
        for c in cands:
            if os.path.exists(c):
                target = os.path.relpath(os.path.realpath(c))
                break
        if target is None:
            if kind == '"':
                print(f'{f}: #include "{inc}" resolves to no file')
                bad = True
            continue
        tpart = part_of(target)
        if not allowed(part, tpart, target):
            print(f"{f}: {part} may not include {target} ({tpart})")
            bad = True
        elif below_results(f, target):
            print(f"{f}: the noise data and statistics may not include {target} "
                  "(results.h uses them, not the other way round)")
            bad = True
if n == 0:
    print(f"{root}: no #include lines found: not a lockbench tree?")
    sys.exit(1)
sys.exit(1 if bad else 0)
PY
}

if [ "${1:-}" = --tree ]; then
	check_tree "$2"
	exit
fi

here=$(cd "$(dirname "$0")/.." && pwd)
pass=0
fail=0

out=$(check_tree "$here")
if [ $? -eq 0 ]; then
	pass=$((pass + 1))
else
	echo "FAIL: forbidden includes in the tree:" >&2
	echo "$out" >&2
	fail=$((fail + 1))
fi

# ---- negative checks: a small tree with every part, clean, then one
# planted bad include at a time; the checker must name it and fail. ----
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tmp=$work/tree
mk() { mkdir -p "$(dirname "$tmp/$1")" && printf '%s\n' "$2" >"$tmp/$1"; }
make_template() {
	mk Makefile 'CPPFLAGS   += -DX -Ilocks -Ioutput/results -Ioutput/render'
	mk locks/lockbench/lock.h '/* public */'
	mk locks/mcs.h '#include "lockbench/lock.h"'
	mk locks/mcs.c '#include "mcs.h"'
	mk workloads/loop.h '#include "workload.h"'
	mk workloads/loops/mcs.c '#include "../../locks/mcs.h"
#include "../loop.h"'
	mk workloads/workload.h '#include "lockbench/lock.h"'
	mk locks/registry.h '#include <stdio.h>'
	mk topology/topo.h '#include <hwloc.h>'
	mk topology/placement.c '#include "topo.h"'
	mk locks/lockbench/atomics.h '#include <stdatomic.h>'
	mk output/stats/median.h '/* leaf */'
	mk topology/host/clock.h '#include "lockbench/atomics.h"
#include "../output/stats/median.h"'
	mk output/results/results.h '#include "../stats/stats.h"'
	mk output/stats/stats.h '#include <stdbool.h>'
	mk output/stats/noise.c '#include "stats.h"'
	mk output/render/render.h '#include "../results/results.h"'
	mk output/render/render_table.c '#include "render.h"
#include "results.h"'
	mk workloads/runner.c '#include "../locks/registry.h"
#include "../topology/topo.h"
#include "../output/results/results.h"
#include "lockbench/lock.h"'
	mk cli/run.c '#include "../output/render/render.h"
#include "../workloads/runner.c"'
	mk main.c '#include "cli/run.c"'
	mk examples/plugin.c '#include <lockbench/lock.h>'
}
# clean_tree: $tmp becomes the template tree (made once, copied).
tmp_tpl=$work/tpl
make_template
mv "$tmp" "$tmp_tpl"
clean_tree() {
	rm -rf "${tmp:?}" && cp -a "$tmp_tpl" "$tmp"
}

clean_tree
if out=$(check_tree "$tmp"); then
	pass=$((pass + 1))
else
	echo "FAIL: the checker rejects a clean tree: $out" >&2
	fail=$((fail + 1))
fi

# plant FILE LINE WHAT: FILE gets LINE; the checker must fail naming FILE.
plant() {
	clean_tree
	printf '%s\n' "$2" >>"$tmp/$1"
	out=$(check_tree "$tmp")
	if [ $? -ne 0 ] && grep -q "^$1: " <<<"$out"; then
		pass=$((pass + 1))
	else
		echo "FAIL: not caught: $3 ($1: $2) -> '$out'" >&2
		fail=$((fail + 1))
	fi
}
plant locks/mcs.c '#include "../topology/topo.h"' "lock includes topology"
plant locks/mcs.c '#include "../workloads/runner.c"' "lock includes a workload"
plant locks/mcs.c '#include "../workloads/workload.h"' "lock includes a workload header"
plant locks/mcs.c '#include "../workloads/loop.h"' "lock includes the worker-loop template"
plant locks/mcs.h '#include "../workloads/loops/mcs.c"' "lock header includes its loops"
plant topology/placement.c '#include "../locks/registry.h"' "topology includes a lock"
plant topology/placement.c '#include "../output/render/render.h"' "topology includes a renderer"
plant topology/placement.c '#include "results.h"' "topology includes the results model (-I path)"
plant topology/host/clock.h '#include "lockbench/lock.h"' "topology includes a public header other than atomics.h"
plant output/render/render_table.c '#include "../../topology/host/clock.h"' "renderer includes topology's clock"
plant output/stats/stats.h '#include "../../workloads/runner.c"' "results include a workload"
plant output/results/results.h '#include "../../locks/registry.h"' "results include a lock"
plant output/results/results.h '#include "../../topology/topo.h"' "results include topology"
plant output/results/results.h '#include "render.h"' "results include a renderer (-I path)"
plant output/stats/noise.c '#include "results.h"' "noise includes results.h (the old cycle)"
plant output/render/render_table.c '#include "../../locks/registry.h"' "renderer includes the lock registry"
plant output/render/render_table.c '#include "../../workloads/runner.c"' "renderer includes a workload"
plant output/render/render_table.c '#include "../../topology/topo.h"' "renderer includes topology"
plant workloads/runner.c '#include "../output/render/render.h"' "workload includes a renderer"
plant workloads/runner.c '#include "../cli/run.c"' "workload includes the front end"
plant examples/plugin.c '#include "../locks/registry.h"' "plugin includes a private lock header"
plant output/render/render_table.c '#include "no_such.h"' "unresolved include"
plant output/list.c '/* a command */' "a file directly in output/"
plant output/render/render_table.c '  #  include "../../locks/registry.h"' "spaced directive"

echo "check_includes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
