#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The example outputs in README.md and docs/guide.md, rendered from
# committed results so they cannot drift: each block between
# <!-- example:NAME:begin --> and <!-- example:NAME:end --> (in either
# file) is `lockbench compare` of a saved run (docs/examples/*.json) or
# of golden inputs.  With --check it also checks the README's budget
# (at most 250 lines, its example commands all there) and that every
# lockbench command shown in README.md and docs/guide.md names a command
# and options the binary has (`lockbench help COMMAND`).
#
# usage: scripts/readme-examples.sh [--check] [./lockbench]
#   --check   exit 1 (naming the problem) when a file differs; the
#             end-to-end tests run this
set -euo pipefail

CHECK=0
if [ "${1:-}" = "--check" ]; then CHECK=1; shift; fi
LB=$(realpath "${1:-./lockbench}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

# name | arguments of `lockbench compare`
EXAMPLES=(
	"quickstart|docs/examples/quickstart.json"
	"plugin|docs/examples/plugin.json"
	"sweep|--rows cs-ns docs/examples/sweep.json"
	"patch|tests/golden/rtmutex/k0.json tests/golden/rtmutex/k1.json"
	"mmtests|-f mmtests tests/golden/rtmutex/k0.json tests/golden/rtmutex/k1.json"
)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/ex" "$tmp/help"
for e in "${EXAMPLES[@]}"; do
	name=${e%%|*}
	# shellcheck disable=SC2086
	"$LB" compare ${e#*|} 2>/dev/null | sed 's/^/    /; s/ *$//' >"$tmp/ex/$name"
done
# What each command accepts, for the command-line check.
"$LB" --help >"$tmp/help/run"
for c in list build-kernel-lock topo system compare merge import locktorture rerun help; do
	"$LB" help "$c" >"$tmp/help/$c" 2>&1 || true
done

python3 - "$tmp" "$CHECK" README.md docs/guide.md <<'EOF2'
import os, re, sys
tmp, check, files = sys.argv[1], sys.argv[2] == "1", sys.argv[3:]
texts = {f: open(f).read() for f in files}
outs = dict(texts)
bad = []
for name in sorted(os.listdir(os.path.join(tmp, "ex"))):
    begin, end = "<!-- example:%s:begin -->" % name, "<!-- example:%s:end -->" % name
    where = [f for f in files if begin in outs[f] and end in outs[f]]
    if len(where) != 1:
        sys.exit("readme-examples: block %s is in %d of %s (want one)"
                 % (name, len(where), ", ".join(files)))
    f = where[0]
    out = outs[f]
    a = out.index(begin) + len(begin)
    b = out.index(end)
    new = "\n\n" + open(os.path.join(tmp, "ex", name)).read() + "\n"
    if out[a:b] != new:
        bad.append("%s (%s)" % (name, f))
        outs[f] = out[:a] + new + out[b:]

def problems_readme(text):
    """The README's budget: 250 lines, and its examples all there."""
    p = []
    n = text.count("\n")
    if n > 250:
        p.append("README.md has %d lines (at most 250)" % n)
    must = ["./lockbench -l pthread_mutex,ticket,mcs -t 1,2,4",
            "--cs-ns 0,100,1000", "jq ", "python3 -c", "--plugin stock=",
            "--kernel-tree", "system check", "compare --floor",
            "import locktorture", "locktorture --torture-type", "topo ",
            "docs/fleet.md", "make test", "apt-get install",
            "<!-- example:quickstart:begin -->"]
    for m in must:
        if m not in text:
            p.append("README.md lost its example: %s" % m)
    return p

def commands(text):
    """Every lockbench command line in the indented code blocks."""
    for line in text.split("\n"):
        if not line.startswith("    "):
            continue
        m = re.search(r"(?:^|[\s;&|(])(?:sudo\s+)?(?:\./)?lockbench(\s.*)?$", line.strip())
        if m:
            yield line.strip(), (m.group(1) or "").split("#")[0]

SUBS = ["list", "build-kernel-lock", "topo", "system", "compare", "merge",
        "import", "locktorture", "rerun", "help", "run"]
def problems_commands(f, text):
    p = []
    for line, args in commands(text):
        words = args.split()
        sub = words[0] if words and words[0] in SUBS else "run"
        helptext = open(os.path.join(tmp, "help", sub)).read()
        if sub == "run" and "-o" in words and "..." not in words:
            pass
        for o in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", args):
            if o not in helptext and o not in ("--help", "--version"):
                p.append("%s: '%s' uses %s, which 'lockbench help %s' lacks"
                         % (f, line, o, sub))
    return p

probs = problems_readme(texts["README.md"])
for f in files:
    probs += problems_commands(f, texts[f])
if check:
    if bad:
        probs.append("example blocks differ from the binary: " + ", ".join(bad)
                     + " (run scripts/readme-examples.sh)")
    if probs:
        sys.exit("readme-examples: " + "\nreadme-examples: ".join(probs))
else:
    for f in files:
        if outs[f] != texts[f]:
            open(f, "w").write(outs[f])
    if bad:
        print("readme-examples: updated " + ", ".join(bad))
    for q in probs:
        print("readme-examples: " + q, file=sys.stderr)
EOF2
