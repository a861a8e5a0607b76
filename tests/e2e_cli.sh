#!/usr/bin/env bash
# End-to-end tests of the command line's habits: "did you mean", units
# on durations, `lockbench help`, the generated bash completion, the
# one-line missing-dependency message of make, and the README's first
# command working without sudo.  Usage: e2e_cli.sh BINARY
set -u
BIN=${1:-./lockbench}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
ROOT=$(dirname "$0")/..
. "$(dirname "$0")/lib.sh"

# Misspelt names: one line, exit 2, the close name suggested.
bad_input "lock typo" "unknown lock (qspinlok): did you mean qspinlock?" -l qspinlok
bad_input "workload typo" "did you mean torture?" -w tortue
bad_input "format typo" "unknown format (jsno): did you mean json?" -f jsno
bad_input "placement typo" "unknown placement (corse): did you mean cores?" -p corse
bad_input "layout typo" "did you mean aligned?" -w layout --layouts packed,alinged
bad_input "option typo" "did you mean --locks?" --lokcs tas
bad_input "enum prefix" "did you mean sequential?" --order seq
bad_input "command typo" "did you mean list?" lsit
bad_input "lock-opt key typo" "did you mean backoff_min?" --lock-opt ttas.backof_min=3
bad_input "help after an option" "help: the command comes first" -l tas help
bad_input "list target typo" "did you mean workloads?" list workload
expect_exit 2 "help typo" -- "$BIN" help tpo
grep -q "unknown command (tpo): did you mean topo?" "$OUT/stderr" && ok || bad "help tpo"
bad_input "no suggestion when nothing is close" "unknown lock (zzzzzzzz): valid:" -l zzzzzzzz
grep -q "did you mean" "$OUT/stderr" && bad "suggested a far name" || ok

# Durations with units; plain numbers keep their meaning.
expect_exit 0 "units" -- "$BIN" --dry-run -l tas -t 1 -d 500ms --warmup 1s --cs-ns 1us --ncs-ns 2
grep -q "cs-ns 1000  ncs-ns 2 " "$OUT/stdout" && ok || bad "--cs-ns 1us is not 1000 ns: $(cat "$OUT/stdout")"
grep -q "(1.00 s warm-up + 0.50 s window per run)" "$OUT/stdout" && ok || bad "-d 500ms / --warmup 1s"
expect_exit 0 "plain seconds" -- "$BIN" --dry-run -l tas -t 1 -d 2 --warmup 0.25
grep -q "(0.25 s warm-up + 2.00 s window per run)" "$OUT/stdout" && ok || bad "plain seconds"
bad_input "unknown unit" "duration (5x)" -d 5x
bad_input "fraction of a ns" "cs-ns (1.5ns)" --cs-ns 1.5ns
bad_input "unit out of range" "cs-ns (2s)" --cs-ns 2s
bad_input "negative with unit" "warmup (-1s)" --warmup -1s

# --min-runs (the example of docs/architecture.md, "Adding an option").
bad_input "min-runs without auto" "need -r auto" --min-runs 4
bad_input "min-runs above max-runs" "min-runs (40): more than --max-runs (30)" -r auto --min-runs 40
expect_exit 0 "min-runs" -- "$BIN" --dry-run -r auto --min-runs 5 -t 1 -l tas
grep -q "(at least 5)" "$OUT/stdout" && ok || bad "--min-runs 5 not used"

# --long-hold takes units too (ms by default): 1s is 1000 in the JSON.
expect_exit 0 "long-hold 1s" -- "$BIN" -q -l null -w torture --long-hold 1s -t 1 -r 1 \
	--warmup 0 -d 0.05 --no-probe --freq off --numa-balancing keep -f json -o "$OUT/t.json"
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['config']; \
	sys.exit(0 if c['long_hold_ms'] == 1000 else 1)" "$OUT/t.json" && ok || bad "long_hold_ms"

# help: the commands, each command's options, run's help is --help.
expect_exit 0 "help" -- "$BIN" help
for c in run list topo system compare import help; do
	grep -q "^  $c " "$OUT/stdout" && ok || bad "help lacks $c"
done
"$BIN" --help >"$OUT/long"
expect_exit 0 "help run" -- "$BIN" help run
cmp -s "$OUT/stdout" "$OUT/long" && ok || bad "help run differs from --help"
expect_exit 0 "help compare" -- "$BIN" help compare
grep -q -- "--baseline LABEL" "$OUT/stdout" && ok || bad "help compare"
expect_exit 0 "compare --help" -- "$BIN" compare --help
grep -q "^usage: lockbench compare" "$OUT/stdout" && ok || bad "compare --help"
expect_exit 0 "help topo" -- "$BIN" help topo
grep -q -- "--c2c" "$OUT/stdout" && ok || bad "help topo lacks --c2c"

# The man page's option headings are all options of the table (e2e.sh
# checks the other direction: every --help option is in the man page).
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$ROOT/lockbench.1" |
	sed -n 's/^\.BR* \(\\-[a-zA-Z] ", " \)\{0,1\}\\-\\-\([a-z0-9\\-]*\).*/--\2/p' |
	sed 's/\\-/-/g' | sort -u >"$OUT/manopts"
[ -s "$OUT/manopts" ] && ok || bad "no option headings found in the man page"
while read -r o; do
	grep -q -- "$o[ ,]" "$OUT/long" && ok || bad "man page documents $o, not an option"
done <"$OUT/manopts"

# Workloads declare their options; list workloads -v shows them.
expect_exit 0 "list workloads -v" -- "$BIN" list workloads -v
sed -n '/^rw /,/^torture /p' "$OUT/stdout" | grep -q -- "--readers N" && ok || bad "rw's options"
sed -n '/^torture /,/^layout /p' "$OUT/stdout" | grep -q -- "--stutter S" && ok || bad "torture's options"

# The bash completion: generated from the tables, valid bash, and it
# completes options, commands and values.
expect_exit 0 "completion" -- "$BIN" help completion
cp "$OUT/stdout" "$OUT/lb.bash"
bash -n "$OUT/lb.bash" && ok || bad "completion is not valid bash"
for o in $(grep -o -- '--[a-z][a-z0-9-]*' "$OUT/long" | sort -u); do
	grep -q -- "$o" "$OUT/lb.bash" && ok || bad "completion lacks $o"
done
complete_test() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _lockbench;
		 echo "${COMPREPLY[*]}"' _ "$OUT/lb.bash" "$@"
}
[ "$(complete_test lockbench -l mcs,qspin)" = "mcs,qspinlock" ] && ok || bad "complete -l mcs,qspin"
[ "$(complete_test lockbench --wor)" = "--workload" ] && ok || bad "complete --wor"
[ "$(complete_test lockbench lis)" = "list" ] && ok || bad "complete lis"
[ "$(complete_test lockbench -f js)" = "json" ] && ok || bad "complete -f js"
[ "$(complete_test lockbench import lock)" = "locktorture" ] && ok || bad "complete import"

# make install puts the completion where bash-completion looks; uninstall
# takes it away again (a scratch DESTDIR, never the real /usr).
make -s -C "$ROOT" install DESTDIR="$OUT/root" PREFIX=/usr >/dev/null 2>&1 && ok || bad "make install"
cmp -s "$OUT/root/usr/share/bash-completion/completions/lockbench" "$OUT/lb.bash" &&
	ok || bad "installed completion differs from 'help completion'"
make -s -C "$ROOT" uninstall DESTDIR="$OUT/root" PREFIX=/usr >/dev/null 2>&1 && ok || bad "make uninstall"
[ -z "$(find "$OUT/root" -type f)" ] && ok || bad "uninstall left: $(find "$OUT/root" -type f)"

# make without a dependency: one line naming the Debian packages.
got=$(PKG_CONFIG_LIBDIR=/nonexistent make -s -C "$ROOT" -n lockbench 2>&1)
[ "$(printf '%s\n' "$got" | wc -l)" -eq 1 ] && ok || bad "make without deps: not one line: $got"
grep -q "apt-get install -y libhwloc-dev libjansson-dev" <<<"$got" && ok || bad "make without deps: $got"

# The README's first command runs as root where sudo is not installed.
first=$(sed -n '/^## Set-up/,/^## /{/^    /{p;q}}' "$ROOT/README.md")
grep -q "apt-get install" <<<"$first" && ok || bad "README's first command moved: $first"
sed 's/\$(command -v sudo)//g' <<<"$first" | grep -qw sudo && bad "README's first command needs sudo" || ok

# ... and installs what .ci/run installs (its native packages; the
# :arm64 and cross ones are for `make arm64` only).
ci=$(sed -n '/apt-get install/,/>\/dev\/null/p' "$ROOT/.ci/run" | tr ' \t\\' '\n\n\n' |
	grep -E '^[a-z0-9][a-z0-9.+-]+$' | grep -vE 'arm64|aarch64|^qemu-user$|^apt-get$|^install$' | sort -u)
readme=$(sed 's/.*install -y//; s/&&.*//' <<<"$first" | tr ' ' '\n' | grep . | sort -u)
[ -n "$ci" ] && [ "$ci" = "$readme" ] && ok ||
	bad "README's packages and .ci/run's differ: $(diff <(echo "$ci") <(echo "$readme") | grep '^[<>]' | tr '\n' ' ')"

e2e_done
