#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault battery's input and command cases: what a user types that a
# command must refuse with one line (exit 2) or do exactly as it says:
# "--" on every command line, headings and names of any length, every
# list option's empty and repeated elements, numbers beyond their
# limits, options a command does not read, `system tune --dry-run`,
# `rerun` of files whose recorded command is not a plain run, --resume
# of a failed sweep, machine text that is not UTF-8, a copy given twice
# to merge, `completion`, and the watchdog's word on oversubscription.
# Machine settings go to a fake sysfs tree (mkfake), files to one
# temporary directory.  Usage: tests/e2e_faults_input.sh [./lockbench]
set -u
. "$(dirname "$0")/lib.sh"
e2e_setup "$@"
# Short runs: one thread count, one run, a short window, the machine
# left alone.
QUICK=(-l tas -t 1 -r 1 --warmup 0 -d 0.02 --no-probe --no-tune -q)

# refused WHAT PATTERN ARGS...: exit 2 with one line holding PATTERN.
refused() {
	local what=$1 pattern=$2
	shift 2
	expect_exit 2 "$what" -- "$BIN" "$@" && one_line "$what" "$pattern"
}

build_mkfake
# fresh_tree: a new fake machine with cpufreq; its state file inside it.

# ---- "--" ends the options, as getopt does ---------------------------------
refused "-- before run options" "unexpected argument (-l)" -- -l tas
refused "compare --" "compare: no results file given" compare --
refused "merge --" "merge: no results file given" merge --
refused "import locktorture --" "no log given" import locktorture --
refused "-- with many words" "unexpected argument (a)" -- a b c d e f g h i j k l m n
expect_exit 0 "an option's value may be --" -- "$BIN" --label -- --dry-run "${QUICK[@]}"

# ---- every list option: no empty or repeated element ----------------------
for args in "-l tas," "-l mcs,,ticket" "-l ,tas" "-t 1,,2" "-f table," "--cs-ns 1,,2" \
	"-p cpus:0,,1" "--lock-opt cna.threshold_ns=1,,2" "--counters cycles,"; do
	# shellcheck disable=SC2086
	refused "empty element: $args" "empty element in the list" $args --dry-run
done
refused "empty -l" "empty element in the list" -l "" --dry-run
refused "--counters cycles,cycles" "cycles given twice" --counters cycles,cycles "${QUICK[@]}"
refused "-t 1,1" "1 given twice" -t 1,1 -l tas --dry-run
refused "--layouts twice" "given twice" -w layout --layouts packed,packed -l tas -t 1 --dry-run
refused "compare -l a,,b" "empty element in the list" compare -l a,,b x.json
refused "merge -l tas," "empty element in the list" merge -l tas, x.json y.json

# ---- numbers over the limit --------------------------------------------------
refused "-t far too many" "out of range (max 65535)" -t 99999999999999999999 --dry-run
refused "-t above the maximum" "out of range (max 65535)" -t 70000 --dry-run
refused "-t range to infinity" "out of range (max 65535)" -t 1-99999999999999999 --dry-run
refused "-t 1x" "not a number" -t 1x --dry-run
refused "--cs-ns too long" "out of range (max 1000000000)" --cs-ns 99999999999 --dry-run
refused "-r too many" "out of range (max 10000)" -r 99999999999999999999999 --dry-run
refused "cpus: beyond any machine" "out of range (max 1000000)" -p cpus:99999999999 --dry-run

# ---- names of any length -----------------------------------------------------
long=$(printf 'x%.0s' $(seq 30000))
refused "--label of 30000 characters" "30000 characters; at most 256" --label "$long" --dry-run
refused "--row-name of 30000 characters" "at most 256" --row-name "$long" --dry-run
expect_exit 0 "--label of 256 characters" -- "$BIN" --label "${long:0:256}" --dry-run "${QUICK[@]}"
# A control character would break a table's lines (or reach the terminal).
refused "--label with a newline" "--label: a control character (0x0a) at byte 3" \
	--label $'k0\nk1' --dry-run
refused "--label with an escape" "--label: a control character (0x1b)" --label $'\e[31mk0' --dry-run
refused "--row-name with a tab" "--row-name: a control character (0x09)" --row-name $'a\tb' --dry-run
refused "compare --baseline with DEL" "--baseline: a control character (0x7f)" \
	compare --baseline $'k0\x7f' x.json y.json
refused "import --label with CR" "--label: a control character (0x0d)" \
	import locktorture --label $'k0\r' x.log
expect_exit 0 "--label of UTF-8 text and spaces" -- "$BIN" --label 'k0 é' --dry-run "${QUICK[@]}"
# A plugin lock whose name would head a 300-character column.
name=$(printf 'n%.0s' $(seq 300))
cat >"$OUT/longname.c" <<EOF
#include <lockbench/lock.h>
static void nop(void *lock, void *ctx) { (void)lock; (void)ctx; }
static const struct lock_ops ops = {
	.name = "$name", .desc = "a long name", .ref = "tests",
	.caps = LOCK_CAP_EXCLUSIVE, .lock = nop, .unlock = nop,
};
LOCKBENCH_PLUGIN(&ops);
EOF
if "$CC" -std=gnu11 -O2 -shared -fPIC -I"$ROOT/locks" "$OUT/longname.c" -o "$OUT/longname.so"; then
	ok
	refused "plugin lock name of 300 characters" "name longer than 128 characters" \
		--plugin "$OUT/longname.so" --dry-run "${QUICK[@]}"
else
	bad "building the long-name plugin"
fi
# A results file whose label is 30000 characters: every format renders
# it (the table cuts the heading), none crashes.
expect_exit 0 "two-lock run" -- "$BIN" -l tas,ticket -t 1 -r 2 --warmup 0 -d 0.02 --no-probe \
	--no-tune -q -f json -o "$OUT/two.json" --label k0
python3 - "$OUT/two.json" "$OUT/long.json" "$long" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["label"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
EOF
for f in table box lkp mmtests csv json; do
	expect_exit 0 "compare -f $f, 30000-character label" -- "$BIN" compare -f "$f" \
		"$OUT/long.json" "$OUT/two.json"
done
expect_exit 0 "compare -f table --width 0, long label" -- "$BIN" compare --width 0 \
	"$OUT/long.json" "$OUT/two.json"
# The heading is cut to a cell; the notes under the table, to their
# bounded line.
w=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$OUT/stdout")
h=$(head -1 "$OUT/stdout" | awk '{ print length($0) }')
[ "$w" -le 2100 ] && [ "$h" -le 600 ] && ok ||
	bad "table with a 30000-character label: a line of $w characters, heading of $h"
for f in speedup lkp-compare; do
	expect_exit 0 "compare -f $f, long label" -- "$BIN" compare -l tas -f "$f" \
		"$OUT/long.json" "$OUT/two.json"
done
# A name or heading in a results file with a control character (a
# newline splits a table's heading, an escape reaches the terminal):
# refused by every reader, naming the field.
for field in 'label=k0\nk1' 'variants.0.name=t\nas' 'variants.0.label=k\x1b[31m' \
	'row_heading=thr\teads' 'variant_heading=Lo\x7fck'; do
	python3 - "$OUT/two.json" "$OUT/ctl.json" "$field" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
key, val = sys.argv[3].split("=", 1)
val = val.encode().decode("unicode_escape")
*path, last = key.split(".")
o = d
for k in path:
    o = o[int(k)] if k.isdigit() else o[k]
o[last] = val
json.dump(d, open(sys.argv[2], "w"))
EOF
	name=${field%%=*}
	name=${name//.0./\\[0\\].}
	refused "compare: a control character in $name" "ctl.json): .*$name: a control character" \
		compare "$OUT/ctl.json" "$OUT/two.json"
	refused "merge: a control character in $name" "$name: a control character" \
		merge -o "$OUT/m.json" "$OUT/ctl.json" "$OUT/two.json"
done
[ -e "$OUT/m.json" ] && bad "merge of a file with a control character wrote" || ok

# ---- commands refuse the options they do not read ----------------------------
refused "topo -o" "-o/--output is not an option of 'topo'" topo -f json -o "$OUT/topo.json"
[ -e "$OUT/topo.json" ] && bad "topo -o wrote a file" || ok
expect_exit 0 "topo -f json" -- "$BIN" topo -f json
refused "list -l" "-l/--locks is not an option of 'list'" list -l tas
refused "list -d" "--duration is not an option of 'list'" -d 1 list locks
refused "topo -d" "--duration is not an option of 'topo'" topo -d 1
refused "a run with topo's --c2c" "--c2c is an option of 'topo'" --c2c --dry-run "${QUICK[@]}"
fresh_tree
refused "system show --freq" "--freq is not an option of 'system show'" system show --freq auto
refused "system tune -f json" "--format is not an option of 'system tune'" system tune -f json
refused "system reset --dry-run" "--dry-run is not an option of 'system reset'" system reset --dry-run
refused "system -l" "--locks is not an option of 'system'" system -l tas show
[ -e "$LOCKBENCH_STATE" ] && bad "a refused system command left a state file" || ok

# ---- system tune --dry-run changes nothing -------------------------------------
before=$(tree_sum "$TREE")
expect_exit 0 "system tune --dry-run" -- "$BIN" system tune --dry-run
grep -q "would change (nothing changed)" "$OUT/stdout" && ok || bad "dry run output: $(cat "$OUT/stdout")"
grep -q "scaling_" "$OUT/stdout" && ok || bad "dry run lists no cpufreq change: $(cat "$OUT/stdout")"
[ "$(tree_sum "$TREE")" = "$before" ] && ok || bad "system tune --dry-run changed the fake machine"
[ -e "$LOCKBENCH_STATE" ] && bad "system tune --dry-run wrote a state file" || ok
# What the dry run listed is what tune then changes.
grep -o '^  [^:]*' "$OUT/stdout" | sed 's/^  //' | sort >"$OUT/planned"
expect_exit 0 "system tune" -- "$BIN" system tune
python3 - "$LOCKBENCH_STATE" "$OUT/planned" <<'EOF' && ok || bad "tune changed other settings than the dry run listed"
import json, sys
done = sorted(c["path"] for c in json.load(open(sys.argv[1]))["changes"])
planned = open(sys.argv[2]).read().split()
assert done == planned, (done, planned)
EOF
expect_exit 0 "system reset" -- "$BIN" system reset
[ "$(tree_sum "$TREE")" = "$before" ] && ok || bad "system reset left the fake machine changed"

# ---- rerun replays only a run, never over its input ---------------------------
expect_exit 0 "run to rerun" -- "$BIN" "${QUICK[@]}" -f json -o "$OUT/base.json"
# recorded NAME WORDS...: a copy of base.json whose recorded command is WORDS.
recorded() {
	local name=$1
	shift
	python3 - "$OUT/base.json" "$OUT/$name" "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["provenance"]["command"] = ["lockbench"] + sys.argv[3:]
json.dump(d, open(sys.argv[2], "w"))
EOF
	cp "$OUT/$name" "$OUT/$name.orig"
}
Q=(-l tas -t 1 -r 1 --warmup 0 -d 0.02 --no-probe --no-tune)
recorded sys.json -q system tune
before=$(tree_sum "$TREE")
refused "rerun of 'system tune'" "made by 'lockbench system', not by a run" rerun "$OUT/sys.json"
[ "$(tree_sum "$TREE")" = "$before" ] && [ ! -e "$LOCKBENCH_STATE" ] && ok || bad "rerun tuned the machine"
recorded lt.json "${Q[@]}" locktorture
refused "rerun reaching locktorture" "made by 'lockbench locktorture'" rerun "$OUT/lt.json"
recorded imp.json -q import locktorture x.log
refused "rerun of an import" "made by 'lockbench import'" rerun "$OUT/imp.json"
recorded outp.json "${Q[@]}" --outp "$OUT/outp.json"
refused "rerun of an abbreviated --outp" "recorded unknown option (--outp)" rerun "$OUT/outp.json"
recorded dd.json "${Q[@]}" -- -x
refused "rerun of a command with --" "recorded end of options" rerun "$OUT/dd.json"
recorded stray.json "${Q[@]}" extra
refused "rerun of a stray word" "argument that is not an option (extra)" rerun "$OUT/stray.json"
# Every spelling of -o, recorded by a run that wrote the file itself.
k=0
for spelling in "-qo @" "-qo@" "--output @" "--output=@" "-o @" "-o@"; do
	k=$((k + 1))
	f=$OUT/out$k.json
	# shellcheck disable=SC2086
	recorded "out$k.json" "${Q[@]}" -f json ${spelling//@/$f}
	expect_exit 0 "rerun of '$spelling'" -- "$BIN" rerun "$f"
	cmp -s "$f" "$f.orig" && ok || bad "rerun of '$spelling' overwrote its input"
done
recorded multi.json "${Q[@]}" -f table,json -o "$OUT/multi.json"
expect_exit 0 "rerun of '-f table,json -o FILE'" -- "$BIN" rerun "$OUT/multi.json"
grep -q "several formats" "$OUT/stderr" && bad "rerun imposed -o rules on options not typed" || ok
grep -q "^Lock:" "$OUT/stdout" && ok || bad "rerun of a table,json file printed no table"
cmp -s "$OUT/multi.json" "$OUT/multi.json.orig" && ok || bad "rerun overwrote multi.json"
refused "rerun -o onto its input" "names the file being rerun" rerun "$OUT/multi.json" -o "$OUT/multi.json"
refused "rerun with an abbreviated option" "unknown option (--dur)" rerun "$OUT/base.json" --dur 0.1
recorded run.json run "${Q[@]}"
expect_exit 0 "rerun replaces a recorded option" -- "$BIN" rerun "$OUT/run.json" -d 0.03 -q \
	-f json -o "$OUT/again.json"
python3 - "$OUT/again.json" <<'EOF' && ok || bad "rerun -d 0.03: the recorded -d won"
import json, sys
assert json.load(open(sys.argv[1]))["config"]["duration_s"] == 0.03
EOF
expect_exit 0 "rerun -- FILE" -- "$BIN" rerun -- "$OUT/run.json" -d 0.03 -q -f json \
	-o "$OUT/again2.json"
[ -s "$OUT/again2.json" ] && ok || bad "rerun -- FILE wrote nothing"

# ---- --resume keeps the status of what it resumes -----------------------------
R=(-l tas,ticket -t 1 -r 2 --warmup 0 -d 0.02 --no-probe --no-tune -q)
expect_exit 0 "run to resume" -- "$BIN" "${R[@]}" -f json -o "$OUT/res.json"
python3 - "$OUT/res.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["points"][0]
p["status"] = "failed"
p["error"] = "mutual exclusion violated (made by the test)"
json.dump(d, open(sys.argv[1], "w"))
EOF
expect_exit 1 "--resume of a failed sweep exits 1" -- "$BIN" "${R[@]}" -f json \
	-o "$OUT/res2.json" --resume "$OUT/res.json"
grep -q "kept from --resume" "$OUT/stderr" && ok || bad "resume: no line on the failed point"

# ---- machine text that is not UTF-8 --------------------------------------------
printf 'BOOT_IMAGE=/vmlinuz quiet mitigations=\351t\377\n' >"$LOCKBENCH_SYSROOT/proc/cmdline"
expect_exit 0 "system show, cmdline not UTF-8" -- "$BIN" system show
expect_exit 0 "system show -f json, cmdline not UTF-8" -- "$BIN" system show -f json
python3 - "$OUT/stdout" <<'EOF' && ok || bad "system show -f json lost the command line"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["cmdline"]["line"].endswith("mitigations=\\xe9t\\xff"), d["cmdline"]
EOF
expect_exit 0 "run, cmdline not UTF-8" -- "$BIN" "${QUICK[@]}" -f json -o "$OUT/utf.json"
python3 - "$OUT/utf.json" <<'EOF' && ok || bad "run JSON lost machine or provenance"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["machine"]["environment"]["cmdline"]["line"].endswith("\\xe9t\\xff")
assert d["provenance"]["command"][0] == "lockbench"
EOF
# A hostname that is not UTF-8, in a UTS namespace of its own.
if unshare -u true 2>/dev/null; then
	unshare -u python3 -c 'import os, socket, sys
socket.sethostname(b"h\xe9st")
os.execv(sys.argv[1], sys.argv[1:])' "$BIN" "${QUICK[@]}" -f json -o "$OUT/host.json" &&
	python3 - "$OUT/host.json" <<'EOF' && ok || bad "hostname not UTF-8: machine or provenance lost"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["provenance"]["host"] == "h\\xe9st", d["provenance"]
assert d["machine"]["hostname"] == "h\\xe9st", d["machine"].get("hostname")
EOF
else
	echo "skip: no UTS namespace here (unshare -u)"
fi
unset LOCKBENCH_SYSROOT LOCKBENCH_STATE

# ---- merge and compare refuse a copy ----------------------------------------------
cp "$OUT/two.json" "$OUT/copy.json"
refused "merge of an identical copy" "^lockbench: cannot merge (.*copy.json): the same runs as .*two.json (an identical copy)" \
	merge "$OUT/two.json" "$OUT/copy.json"
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1])), open(sys.argv[2], "w"), indent=1)' \
	"$OUT/two.json" "$OUT/reindented.json"
refused "compare of a re-indented copy" "^lockbench: cannot compare (.*): the same runs as" compare "$OUT/two.json" "$OUT/reindented.json"
python3 - "$OUT/two.json" "$OUT/half.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["points"]:
    for r in p.get("runs", []):
        r["ops"] //= 2
        r["ops_per_sec"] /= 2
json.dump(d, open(sys.argv[2], "w"))
EOF
expect_exit 0 "compare of a copy with other runs" -- "$BIN" compare "$OUT/two.json" "$OUT/half.json"

# ---- completion ---------------------------------------------------------------------
expect_exit 0 "help completion" -- "$BIN" help completion
cp "$OUT/stdout" "$OUT/completion"
expect_exit 0 "completion" -- "$BIN" completion
cmp -s "$OUT/stdout" "$OUT/completion" && ok || bad "completion differs from help completion"
expect_exit 0 "completion bash" -- "$BIN" completion bash
cmp -s "$OUT/stdout" "$OUT/completion" && ok || bad "completion bash differs"
bash -n "$OUT/completion" && ok || bad "completion script is not bash"
refused "completion zsh" "completion (zsh): valid: bash" completion zsh
expect_exit 0 "help" -- "$BIN" help
grep -q "^  completion " "$OUT/stdout" && ok || bad "help does not list completion"

# ---- the watchdog on an oversubscribed spinning lock --------------------------------
# tests/plugins/deadlock.c never releases: a hang at any thread count.
# Alone, it is called what it looks like; with more threads than CPUs,
# the message names the oversubscription as a possible cause.
cpus=$(nproc)
if "$CC" -std=gnu11 -O2 -shared -fPIC -I"$ROOT/locks" "$ROOT/tests/plugins/deadlock.c" \
	-o "$OUT/deadlock.so"; then
	expect_exit 1 "hung at 1 thread" -- timeout 30 "$BIN" --plugin "$OUT/deadlock.so" -l deadlock \
		-t 1 -r 1 --warmup 0.02 -d 0.05 --watchdog 0.3 --no-tune --no-probe -q
	grep -q "(deadlock or lost wakeup?)\|(deadlock?)" "$OUT/stderr" && ok ||
		bad "hang at 1 thread: $(cat "$OUT/stderr")"
	grep -q "oversubscribed" "$OUT/stderr" && bad "1 thread called oversubscribed" || ok
	n=$((cpus * 4 > 1024 ? 1024 : cpus * 4))
	[ "$cpus" -lt 1024 ] && expect_exit 1 "hung at $n threads on $cpus CPUs" -- timeout 60 "$BIN" --plugin "$OUT/deadlock.so" \
		-l deadlock -t "$n" -r 1 --warmup 0.02 -d 0.05 --watchdog 0.3 --no-tune --no-probe -q
	grep -q "oversubscribed: $n threads on $cpus CPU" "$OUT/stderr" && ok ||
		bad "oversubscribed hang: $(cat "$OUT/stderr")"
else
	bad "building tests/plugins/deadlock.c"
fi

e2e_done
