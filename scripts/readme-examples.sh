#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The example outputs in README.md, rendered from committed results so
# they cannot drift: each block between <!-- example:NAME:begin --> and
# <!-- example:NAME:end --> is `lockbench compare` of a saved run (real
# runs of this project's VM, docs/examples/*.json) or of golden inputs.
#
# usage: scripts/readme-examples.sh [--check] [./lockbench]
#   --check   exit 1 (naming the block) when README.md differs; the
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
for e in "${EXAMPLES[@]}"; do
	name=${e%%|*}
	# shellcheck disable=SC2086
	"$LB" compare ${e#*|} 2>/dev/null | sed 's/^/    /; s/ *$//' >"$tmp/$name"
done

python3 - "$ROOT/README.md" "$tmp" "$CHECK" <<'EOF'
import os, re, sys
path, tmp, check = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
text = open(path).read()
out, bad = text, []
for name in sorted(os.listdir(tmp)):
    begin, end = "<!-- example:%s:begin -->" % name, "<!-- example:%s:end -->" % name
    if begin not in out or end not in out:
        sys.exit("readme-examples: README.md has no block %s" % name)
    a = out.index(begin) + len(begin)
    b = out.index(end)
    new = "\n\n" + open(os.path.join(tmp, name)).read() + "\n"
    if out[a:b] != new:
        bad.append(name)
        out = out[:a] + new + out[b:]
if check:
    if bad:
        sys.exit("readme-examples: README.md blocks differ from the binary: "
                 + ", ".join(bad) + " (run scripts/readme-examples.sh)")
elif out != text:
    open(path, "w").write(out)
    print("readme-examples: updated " + ", ".join(bad))
EOF
