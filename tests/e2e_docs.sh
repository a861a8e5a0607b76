#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The claims of README.md, docs/*.md and lockbench.1 that a program can
# check, checked against the binary and the tree (tests/docs_claims.py
# does the reading): every option they name is one of --help or
# `lockbench help CMD`, and every option of those is in the man page;
# the defaults they state are --help's, and --help's are what a run with
# the defaults records in its JSON `config`; the exit statuses the
# binary returns (run, compare, import, system check, seen here) are in
# the man page's EXIT STATUS and in the comments of cli/cmds.h that say
# what a command returns; docs/json.md's schema versions are the ones
# the binary writes; every path of the tree they name exists (and a
# FILE:LINE has that line); every section reference ("docs/method.md,
# \"Noise\"", in the docs and in the comments of the code) names a
# section; an example diff said to apply as it stands applies and
# compiles; and troff reads the man page without a warning.  Then each
# kind of drift is planted in a copy of the tree and must be reported.
#
# usage: tests/e2e_docs.sh [./lockbench]
set -u

BIN=$(realpath "${1:-./lockbench}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$(mktemp -d)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$OUT"' EXIT
. "$ROOT/tests/lib.sh"
F=$OUT/facts
mkdir -p "$F/help"
export LOCKBENCH_TIME_SCALE=0.05

# ---- what the binary says ---------------------------------------------------
"$BIN" --help >"$F/help/run.txt" || bad "--help"
for c in list build-kernel-lock topo system compare merge import locktorture rerun; do
	"$BIN" help $c >"$F/help/$c.txt" || bad "help $c"
done
: >"$F/exits.txt"
seen() { # COMMAND CODE: record an exit status the binary returned
	echo "$1 $2" >>"$F/exits.txt"
}
# run: 0 with the defaults (its config and schema kept), 2, 3
"$BIN" -l ticket,mcs -t 1 -r 3 --no-tune -q -f json -o "$OUT/run.json" 2>"$OUT/err"
rc=$?
[ $rc -eq 0 ] && ok || { bad "the run: exit $rc: $(cat "$OUT/err")"; exit 1; }
seen run 0
python3 - "$OUT/run.json" "$F" <<'EOF' || bad "the run's JSON"
import json, sys
d = json.load(open(sys.argv[1]))
json.dump(d["config"], open(sys.argv[2] + "/config.json", "w"))
open(sys.argv[2] + "/schemas.txt", "w").write("%s %s\n" % (d["schema"], d["schema_version"]))
EOF
expect_exit 2 "a bad option" -- "$BIN" --no-such-option && seen run 2
build_mkfake
fresh_tree
expect_exit 3 "an impossible --freq" -- "$BIN" -l tas -t 1 -r 1 -q --freq 99999MHz && seen run 3
# system check on a quiet fake machine: 0 (5 when the floor is refused)
quiet_proc "$LOCKBENCH_SYSROOT"
"$BIN" system check -d 0.02 -q -f json -o "$OUT/check.json" 2>"$OUT/err"
rc=$?
case $rc in 0 | 5) ok; seen system $rc ;; *) bad "system check: exit $rc: $(cat "$OUT/err")" ;; esac
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(d["schema"], d["schema_version"])' \
	"$OUT/check.json" >>"$F/schemas.txt" || bad "system check: no JSON"
unset LOCKBENCH_SYSROOT LOCKBENCH_STATE
# compare: 0, 2, and the gate's 4 and 5 (a copy at half the rate; the
# runs of a point within +-0.5% of its mean, so that the verdict is the
# rules' and not this busy machine's, as tests/e2e_compare.sh does)
python3 - "$OUT/run.json" "$OUT" <<'EOF' || bad "the edited copies"
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    m = sum(r["ops_per_sec"] for r in p["runs"]) / len(p["runs"])
    for k, r in enumerate(p["runs"]):
        r["ops_per_sec"], r["excluded"] = m * (1 + 0.005 * (k - 1)), False
json.dump(d, open(sys.argv[2] + "/a.json", "w"))
d["label"] = "slow"
for p in d["points"]:
    for r in p["runs"]:
        r["ops_per_sec"] /= 2
json.dump(d, open(sys.argv[2] + "/c.json", "w"))
EOF
expect_exit 0 "compare" -- "$BIN" compare "$OUT/a.json" && seen compare 0
expect_exit 2 "compare a missing file" -- "$BIN" compare "$OUT/none.json" && seen compare 2
expect_exit 5 "compare --fail-if-regressed, no floor" -- "$BIN" compare --fail-if-regressed 5% \
	"$OUT/a.json" "$OUT/c.json" && seen compare 5
expect_exit 4 "compare --fail-if-regressed --floor" -- "$BIN" compare --fail-if-regressed 5% \
	--floor 3% "$OUT/a.json" "$OUT/c.json" && seen compare 4
# import: 0, and 1 for a log that reports a failure
L=$ROOT/tests/fixtures/locktorture
expect_exit 0 "import" -- "$BIN" import locktorture -q "$L/new-kernel.log" && seen import 0
expect_exit 1 "import a failure" -- "$BIN" import locktorture -q "$L/fail.log" && seen import 1

# ---- the docs against it -------------------------------------------------------
claims() { # TREE [KIND]: tests/docs_claims.py over TREE, its report in $OUT/claims
	python3 "$ROOT/tests/docs_claims.py" "$1" "$F" "${@:2}" >"$OUT/claims" 2>"$OUT/checked"
}
claims "$ROOT" && ok || bad "the docs disagree with the binary or the tree:
$(cat "$OUT/claims")"
# every kind of claim was found (a form the reader no longer recognises
# would otherwise check nothing)
for k in option default exit schema path section diff; do
	grep -q "[:,] $k [1-9]" "$OUT/checked" && ok || bad "no $k claim found: $(cat "$OUT/checked")"
done

# The man page as troff reads it: no warning (a line that starts with a
# dot is a request, and an unknown one loses its text), where groff is
# installed (.ci/run installs no man tools).
man_warnings() { # MAN-FILE: groff's warnings on it
	groff -man -Tutf8 -ww "$1" 2>&1 >/dev/null
}
if command -v groff >/dev/null; then
	w=$(man_warnings "$ROOT/lockbench.1")
	[ -z "$w" ] && ok || bad "lockbench.1: $w"
	{ cat "$ROOT/lockbench.1"; echo "...), and so on"; } >"$OUT/planted.1"
	man_warnings "$OUT/planted.1" | grep -q "macro '\.\.),'" &&
		ok || bad "a line starting with ... planted in lockbench.1, no warning"
else
	echo "e2e_docs: no groff: the man page's troff warnings not checked"
fi

# ---- a drift of each kind, planted in a copy, is reported ----------------------
T=$OUT/tree
mkdir -p "$T"
(cd "$ROOT" && tar cf - --exclude=./build --exclude=./.git .) | (cd "$T" && tar xf -)
plant() { # FILE SED-EXPRESSION PATTERN: FILE of the copy edited, PATTERN reported
	cp "$ROOT/$1" "$T/$1"
	sed -i "$2" "$T/$1"
	cmp -s "$ROOT/$1" "$T/$1" && { bad "plant: $2 changed nothing in $1"; return; }
	local kind=${3#^}
	claims "$T" "${kind%%:*}"
	grep -q -- "$3" "$OUT/claims" && ok || bad "planted in $1 ($2), not reported ($3): $(cat "$OUT/claims")"
	cp "$ROOT/$1" "$T/$1"
}
plant docs/method.md '0,/`--lat-sample`/s//`--lat-samples`/' \
	"^option: docs/method.md:[0-9]*: --lat-samples is not an option"
plant lockbench.1 's/\\-\\-max\\-runs/\\-\\-max\\-rnus/g' \
	"^option: lockbench.1:1: --max-runs of --help is not in the man page"
plant docs/guide.md 's/1 in 256 by default/1 in 128 by default/' \
	"^default: docs/guide.md:[0-9]*: --lat-sample: the docs say 128 by default, --help says \[256\]"
plant lockbench.1 '/^\.BR \\-\\-max\\-runs/,/^\.TP/s/Default 30\./Default 31./' \
	"^default: lockbench.1:[0-9]*: --max-runs: the man page says Default 31, --help says \[30\]"
plant lockbench.1 '/^\.SH EXIT STATUS/,/^\.SH/s/; 4 (compare/; (compare/' \
	"^exit: lockbench.1:[0-9]*: the binary returns 4 (compare), EXIT STATUS does not list it"
plant cli/cmds.h 's/regressed; 5 (compare/regressed; (compare/' \
	"^exit: cli/cmds.h:[0-9]*: cmd_compare() returns 5, its comment does not say so"
plant docs/json.md '/lockbench-system-check/s/`"1\.1"`/`"1.0"`/' \
	"^schema: docs/json.md:[0-9]*: lockbench-system-check 1.0, but the binary writes 1.1"
plant docs/vm.md '0,/`scripts\/vm.sh`/s//`scripts\/vm2.sh`/' \
	"^path: docs/vm.md:[0-9]*: \`scripts/vm2.sh\` is not in the tree"
plant output/render/render.h 's/"Handovers"/"Handing over"/' \
	"^section: output/render/render.h:[0-9]*: docs/method.md has no section \"Handing over\""
plant docs/guide.md '0,/^## Benchmark your own lock/s//## Benchmarking your own lock/' \
	"^section: docs/[a-z]*.md:[0-9]*: docs/guide.md has no section \"Benchmark your own lock\""
plant docs/architecture.md 's/^ WORKLOAD(layout)$/ WORKLOAD(layouts)/' \
	"^diff: docs/architecture.md:[0-9]*: git apply refuses the diff"
plant docs/architecture.md 's/try_relax = w->p->try_relax;/try_relax = w->p->try_relaxed;/' \
	"^diff: docs/architecture.md:[0-9]*: with the diff applied workloads/trylock.c does not compile"
claims "$T" && ok || bad "the copy, restored, is reported: $(cat "$OUT/claims")"

echo "e2e_docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
