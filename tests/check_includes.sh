#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# check_includes.sh - the folders of docs/architecture.md and their
# include arrows, checked.
#
#   tests/check_includes.sh                 check this tree, then prove
#                                           the checker fails on planted
#                                           bad includes and tables (run
#                                           by `make test`)
#   tests/check_includes.sh --tree DIR      check the tree at DIR only
#   tests/check_includes.sh --diagram [DIR] print the folder diagram of
#                                           the tree (this one by default)
#
# The parts are folders, no file is an exception: tests/folders.txt
# lists every folder top to bottom with the folders it may include and
# its one-line job.  Every #include of a project file is resolved as the
# compiler does (the including file's folder first, then the -I folders
# of the Makefile's CPPFLAGS); the folder it lands in must be the
# including file's own or one its row allows.  The check fails when:
#
#   - an include lands in a folder its row does not allow, or in a
#     folder with no row; a quoted include resolves to no file (it would
#     hide an arrow); a file of the project sits in a folder with no row
#     (a new folder states its job first);
#   - the table allows an arrow up (to a folder listed above) or has a
#     circle, or the includes themselves make a circle of folders, or
#     of files (a .c and its .h counting as one);
#   - docs/architecture.md's copy of the diagram (between its marker
#     comments) is not `--diagram`'s output.
#
# Angle-bracket includes that resolve to no project file are system
# headers and are ignored (<lockbench/loop_template.h> is generated into
# build/include/, not a tree file).  tests/ is not checked: a test may
# include whatever it tests (tests/plugins/ is, as a plugin).
set -u

# folders MODE DIR: MODE check prints one line per problem and exits 1
# when there is any; MODE diagram prints the diagram.  (Python: the
# shell version forked a few processes per include and took half a
# minute.)
folders() {
	python3 - "$1" "$2" <<'PY'
import os, re, sys

mode, root = sys.argv[1], sys.argv[2]
os.chdir(root)
TABLE, DOC = "tests/folders.txt", "docs/architecture.md"
BEGIN = "<!-- the folders: tests/check_includes.sh --diagram, pasted -->"
END = "<!-- end of the folders -->"
problems = []


def read_table():
    """Rows in order: folder -> (may include, or None: not checked; job; line)."""
    rows = {}
    for n, line in enumerate(open(TABLE), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        f = [x.strip() for x in line.split("|")]
        if len(f) != 3 or not f[0] or not f[2]:
            problems.append(f"{TABLE}:{n}: not 'folder | may include | its job'")
            continue
        name = f[0].rstrip("/") or "."
        if name in rows:
            problems.append(f"{TABLE}:{n}: {f[0]} has a row already")
        may = None if f[1] == "*" else [] if f[1] == "-" else [x.rstrip("/") for x in f[1].split()]
        rows[name] = (may, f[2], n)
    return rows


def shown(folder):
    return "./" if folder == "." else folder + "/"


def circle(graph):
    """A circle of the graph {node: [node]} as a list of nodes, or None."""
    state = {}

    def visit(v, path):
        state[v] = 1
        for w in graph.get(v, ()):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state:
                c = visit(w, path + [w])
                if c:
                    return c
        state[v] = 2
        return None
    for v in graph:
        if v not in state:
            c = visit(v, [v])
            if c:
                return c
    return None


def check_table(rows):
    order = list(rows)
    for a, (may, _, n) in rows.items():
        for b in may or ():
            if b not in rows:
                problems.append(f"{TABLE}:{n}: {shown(a)} may include {shown(b)}, which has no row")
            elif order.index(b) < order.index(a):
                problems.append(f"{TABLE}:{n}: {shown(a)} may include {shown(b)}, listed above it (an arrow up)")
    c = circle({a: [b for b in (r[0] or ()) if b in rows and b != a] for a, r in rows.items()})
    if c:
        problems.append(f"{TABLE}: a circle of arrows: " + " -> ".join(map(shown, c)))


def part_of(rows, path):
    """The row covering file or folder `path`: its deepest row folder."""
    d = os.path.dirname(path) or "."
    if d == ".":
        return "." if "." in rows else None
    best = None
    for k in rows:
        if k != "." and (d == k or d.startswith(k + "/")) and (best is None or len(k) > len(best)):
            best = k
    return best


def sources():
    out = []
    for d, subdirs, names in os.walk("."):
        rel = os.path.relpath(d)
        if rel.split("/")[0] in ("build", ".git"):
            subdirs[:] = []
            continue
        out += [os.path.normpath(os.path.join(rel, x)) for x in names
                if x.endswith((".c", ".h", ".def"))]
    return sorted(out)


def includes(f, incdirs):
    """(line, target or None) of each #include of a project file in f."""
    directive = re.compile(r'^\s*#\s*include\s*(["<])([^">]*)')
    for line in open(f, errors="replace"):
        m = directive.match(line)
        if not m:
            continue
        kind, inc = m.groups()
        cands = ([os.path.join(os.path.dirname(f), inc)] if kind == '"' else []) + \
            [os.path.join(d, inc) for d in incdirs]
        target = next((os.path.relpath(os.path.realpath(c)) for c in cands
                       if os.path.exists(c)), None)
        if target or kind == '"':
            yield inc, target


def check_files(rows):
    """The folder graph the includes draw: {folder: {folder: first file}}."""
    incdirs = []
    for line in open("Makefile"):
        m = re.match(r"^CPPFLAGS[^=]*=(.*)", line)
        if m:
            incdirs += re.findall(r"-I(\S+)", m.group(1))
    graph, mods, n = {}, {}, 0
    for f in sources():
        part = part_of(rows, f)
        if part is None:
            problems.append(f"{f}: its folder has no row in {TABLE} (give it its one-line job)")
            continue
        may = rows[part][0]
        if may is None:
            continue
        graph.setdefault(part, {})
        for inc, target in includes(f, incdirs):
            n += 1
            to = part_of(rows, target) if target else None
            if target is None:
                problems.append(f'{f}: #include "{inc}" resolves to no file')
            elif to != part and to not in may:
                problems.append(f"{f}: {shown(part)} may not include {target} "
                                f"({shown(to) if to else 'a folder with no row'})")
            elif to != part:
                graph[part].setdefault(to, f)
            if target and module(target) != module(f):
                mods.setdefault(module(f), {}).setdefault(module(target), f)
    if n == 0:
        problems.append(f"{root}: no #include lines found: not a lockbench tree?")
    c = circle({a: list(b) for a, b in graph.items()})
    if c:
        problems.append(f"{graph[c[0]][c[1]]}: its include makes a circle of folders: " + " -> ".join(map(shown, c)))
    c = circle({a: list(b) for a, b in mods.items()})
    if c:
        problems.append(f"{mods[c[0]][c[1]]}: its include makes a circle of files: " + " -> ".join(c))
    return graph


def module(f):
    """A file's module: a .c and its .h are one (x.c includes x.h)."""
    return os.path.splitext(f)[0]


def diagram(rows, graph):
    """One line per folder with files, top to bottom: job, what it includes."""
    lines = ["| folder | its job | includes |", "|---|---|---|"]
    for a, (may, job, _) in rows.items():
        if a in graph:
            to = [b for b in rows if b in graph[a]]
            lines.append(f"| `{shown(a)}` | {job} | " +
                         (", ".join(f"`{shown(b)}`" for b in to) or "nothing") + " |")
    return "\n".join(lines) + "\n"


def check_doc(text):
    doc = open(DOC).read() if os.path.exists(DOC) else ""
    m = re.search(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END), doc, re.S)
    if not m or m.group(1) != text:
        problems.append(f"{DOC}: its folder diagram is not `tests/check_includes.sh --diagram`'s "
                        f"output (paste it between {BEGIN} and {END})")


rows = read_table()
check_table(rows)
graph = check_files(rows)
if mode == "diagram":
    sys.stdout.write(diagram(rows, graph))
    sys.exit(0)
check_doc(diagram(rows, graph))
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
}

here=$(cd "$(dirname "$0")/.." && pwd)
case ${1:-} in
--tree)
	folders check "$2"
	exit
	;;
--diagram)
	folders diagram "${2:-$here}"
	exit
	;;
esac

pass=0
fail=0
if out=$(folders check "$here"); then
	pass=$((pass + 1))
else
	echo "FAIL: the tree breaks its folders' rules:" >&2
	echo "$out" >&2
	fail=$((fail + 1))
fi

# ---- negative checks: a small tree with every folder and this tree's
# table, clean, then one planted bad include or table at a time; the
# checker must name the file and fail. ----
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tmp=$work/tree
mk() { mkdir -p "$(dirname "$tmp/$1")" && printf '%s\n' "$2" >"$tmp/$1"; }
make_template() {
	mk Makefile 'CPPFLAGS   += -DX -Ilocks -Ioutput/results -Ioutput/render'
	mkdir -p "$tmp/tests" && cp "$here/tests/folders.txt" "$tmp/tests/"
	mk lib/sha256.h '#include <stddef.h>'
	mk lib/sha256.c '#include "sha256.h"'
	mk locks/lockbench/lock.h '/* public */'
	mk locks/lockbench/atomics.h '#include <stdatomic.h>'
	mk locks/mcs.h '#include "lockbench/lock.h"'
	mk locks/mcs.c '#include "mcs.h"'
	mk locks/plugin.c '#include "../lib/sha256.h"'
	mk locks/registry.h '#include <stdio.h>'
	mk workloads/loop.h '#include "workload.h"'
	mk workloads/loops/mcs.c '#include "../../locks/mcs.h"
#include "../loop.h"'
	mk workloads/workload.h '#include "lockbench/lock.h"'
	mk topology/topo.h '#include <hwloc.h>'
	mk topology/placement.c '#include "topo.h"'
	mk output/stats/median.h '/* leaf */'
	mk output/stats/stats.h '#include "median.h"'
	mk output/stats/noise.c '#include "stats.h"'
	mk topology/host/clock.h '#include "lockbench/atomics.h"
#include "../../output/stats/median.h"'
	mk topology/host/hostcheck.h '#include "../topo.h"'
	mk output/results/results.h '#include "../stats/stats.h"'
	mk output/render/render.h '#include "../results/results.h"'
	mk output/render/render_table.c '#include "render.h"
#include "results.h"'
	mk workloads/runner.c '#include "../locks/registry.h"
#include "../topology/topo.h"
#include "../topology/host/clock.h"
#include "../output/results/results.h"
#include "lockbench/lock.h"'
	mk cli/run.c '#include "../output/render/render.h"
#include "../workloads/runner.c"'
	mk main.c '#include "cli/run.c"'
	mk examples/plugin.c '#include <lockbench/lock.h>'
	mk tests/test_x.c '#include "../workloads/runner.c"'
	mkdir -p "$tmp/docs"
	{
		echo '<!-- the folders: tests/check_includes.sh --diagram, pasted -->'
		folders diagram "$tmp"
		echo '<!-- end of the folders -->'
	} >"$tmp/docs/architecture.md"
}
# clean_tree: $tmp becomes the template tree (made once, copied).
tmp_tpl=$work/tpl
make_template
mv "$tmp" "$tmp_tpl"
clean_tree() {
	rm -rf "${tmp:?}" && cp -a "$tmp_tpl" "$tmp"
}

clean_tree
if out=$(folders check "$tmp"); then
	pass=$((pass + 1))
else
	echo "FAIL: the checker rejects a clean tree: $out" >&2
	fail=$((fail + 1))
fi

# caught PATTERN WHAT: the checker must fail with a line matching PATTERN.
caught() {
	out=$(folders check "$tmp")
	if [ $? -ne 0 ] && grep -q -- "$1" <<<"$out"; then
		pass=$((pass + 1))
	else
		echo "FAIL: not caught: $2 ($1) -> '$out'" >&2
		fail=$((fail + 1))
	fi
}
# plant FILE LINE WHAT: FILE gets LINE; the checker must name FILE.
plant() {
	clean_tree
	mkdir -p "$(dirname "$tmp/$1")" && printf '%s\n' "$2" >>"$tmp/$1"
	caught "^$1: " "$3"
}
# table SED PATTERN WHAT [FILE LINE]: the table edited by SED (and FILE
# given LINE); the checker must print a line matching PATTERN.
table() {
	clean_tree
	sed -i "$1" "$tmp/tests/folders.txt"
	[ -z "${4:-}" ] || printf '%s\n' "$5" >>"$tmp/$4"
	caught "$2" "$3"
}
plant locks/mcs.c '#include "../topology/topo.h"' "lock includes topology"
plant locks/mcs.c '#include "../workloads/runner.c"' "lock includes a workload"
plant locks/mcs.c '#include "../workloads/workload.h"' "lock includes a workload header"
plant locks/mcs.c '#include "../workloads/loop.h"' "lock includes the worker-loop template"
plant locks/mcs.h '#include "../workloads/loops/mcs.c"' "lock header includes its loops"
plant locks/lockbench/lock.h '#include "../../lib/sha256.h"' "an installed header includes a leaf"
plant lib/sha256.c '#include "../topology/topo.h"' "a leaf includes the project"
plant topology/placement.c '#include "../locks/registry.h"' "topology includes a lock"
plant topology/placement.c '#include "../output/render/render.h"' "topology includes a renderer"
plant topology/placement.c '#include "results.h"' "topology includes the results model (-I path)"
plant topology/placement.c '#include "host/clock.h"' "the machine includes the host's measures (arrow up)"
plant topology/placement.c '#include "../output/stats/median.h"' "the machine includes the statistics"
plant topology/host/clock.h '#include "../../locks/mcs.h"' "the host's clock includes a lock"
plant topology/host/clock.h '#include "../../output/results/results.h"' "the host includes the results model"
plant output/render/render_table.c '#include "../../topology/host/clock.h"' "renderer includes the host's clock"
plant output/stats/stats.h '#include "../../workloads/runner.c"' "statistics include a workload"
plant output/stats/noise.c '#include "results.h"' "noise includes results.h (-I path: the old circle)"
plant output/results/results.h '#include "../../locks/registry.h"' "results include a lock"
plant output/results/results.h '#include "../../topology/topo.h"' "results include topology"
plant output/results/results.h '#include "render.h"' "results include a renderer (-I path)"
plant output/render/render_table.c '#include "../../locks/registry.h"' "renderer includes the lock registry"
plant output/render/render_table.c '#include "../../workloads/runner.c"' "renderer includes a workload"
plant output/render/render_table.c '#include "../../topology/topo.h"' "renderer includes topology"
plant workloads/runner.c '#include "../output/render/render.h"' "workload includes a renderer"
plant workloads/runner.c '#include "../cli/run.c"' "workload includes the front end"
plant examples/plugin.c '#include "../locks/registry.h"' "plugin includes a private lock header"
plant examples/plugin.c '#include "../lib/sha256.h"' "plugin includes a leaf of lockbench's"
plant output/render/render_table.c '#include "no_such.h"' "unresolved include"
plant output/list.c '/* a command */' "a file directly in output/, which has no row"
plant newpart/x.c '/* a folder */' "a folder with no row"
plant output/render/render_table.c '  #  include "../../locks/registry.h"' "spaced directive"
table 's#^\(locks/  *| \)#\1workloads/ #' '^tests/folders.txt: a circle of arrows: ' \
	"locks/ may include workloads/, which includes locks/"
table 's#^\(locks/  *| \)#\1workloads/ #' ': its include makes a circle of folders: ' \
	"an include circle" locks/mcs.c '#include "../workloads/workload.h"'
table 's/^$//' ': its include makes a circle of files: topology/' \
	"two files of one folder that include each other" topology/topo.h '#include "placement.c"'
table '/^lib\//d; /^\.  /i lib/ | - | leaves' '^tests/folders.txt:[0-9]*: locks/ may include lib/, listed above it' \
	"the leaves listed at the top (every arrow to them up)"
table 's#^\(topology/  *| \)#\1nowhere/ #' '^tests/folders.txt:[0-9]*: topology/ may include nowhere/, which has no row' \
	"an arrow to a folder with no row"
table 's#^\(cli/  *|[^|]*| \)the front end#\1the back end#' '^docs/architecture.md: ' \
	"a job changed, the doc's diagram not regenerated"

echo "check_includes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
