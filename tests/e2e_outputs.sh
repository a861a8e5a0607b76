#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of where each format goes and how wide text is
# (docs/formats.md, "Where each format goes" and "Width"): -o FILE,
# -o FMT=FILE,..., -o -, the refusals, every file written whole or not
# at all with the umask's mode; tables split within --width columns with
# the baseline repeated, notes within 72; singular counts; -q leaving
# stderr empty.  Runs the binary as a user would, in a scratch directory.
#
# usage: tests/e2e_outputs.sh [./lockbench]
set -u

BIN=$(realpath "${1:-./lockbench}")
HERE=$(cd "$(dirname "$0")" && pwd)
G=$HERE/golden
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
. "$HERE/lib.sh"

K0=$G/rtmutex/k0.json
K1=$G/rtmutex/k1.json
RT="$G/rtmutex/k0.json $G/rtmutex/k1.json $G/rtmutex/k2.json $G/rtmutex/k3.json $G/rtmutex/k4.json $G/rtmutex/k5.json"
LT=$HERE/fixtures/locktorture/new-kernel.log
QUICK=(-l tas,ticket -t 1 -r 2 --warmup 0 -d 0.05 --no-tune)

# refused WHAT PATTERN ARGS...: exit 2, one stderr line with PATTERN,
# nothing on stdout, nothing created in $OUT/d.
refused() {
	local what=$1 pat=$2
	shift 2
	rm -rf "$OUT/d" && mkdir "$OUT/d"
	expect_exit 2 "$what" -- "$BIN" "$@" || return
	if [ "$(wc -l <"$OUT/stderr")" -ne 1 ] || ! grep -q -- "$pat" "$OUT/stderr"; then
		bad "$what: want one line with '$pat': $(cat "$OUT/stderr")"
	elif [ -s "$OUT/stdout" ]; then
		bad "$what: wrote to stdout"
	elif [ -n "$(ls -A "$OUT/d")" ]; then
		bad "$what: left $(ls -A "$OUT/d")"
	else
		ok
	fi
}

is_json() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }
is_csv() { head -1 "$1" | grep -q '^variant,lock,label,row,threads,'; }

# ---- several formats on stdout: refused unless asked for ------------------
refused "compare -f table,json" "several formats on standard output" compare -f table,json "$K0"
refused "run -f table,csv" "several formats on standard output" "${QUICK[@]}" -q -f table,csv
refused "import -f table,json" "several formats on standard output" import locktorture -f table,json "$LT"
refused "locktorture -f table,json" "several formats on standard output" locktorture -f table,json --dry-run
refused "compare -f table,box -o json=F" "(table,box): several formats" compare -f table,box -o "json=$OUT/d/x" "$K0"
expect_exit 0 "-f table,json -o -" -- "$BIN" compare -f table,json -o - "$K0" "$K1"
grep -q '^Kernel:' "$OUT/stdout" && grep -q '"schema": "lockbench-results"' "$OUT/stdout" &&
	ok || bad "-o -: both formats on stdout"
expect_exit 0 "-f table,box -o table=-,box=-" -- "$BIN" compare -f table,box -o table=-,box=- "$K0" "$K1"
grep -q '^Kernel:' "$OUT/stdout" && grep -q '^| Kernel ' "$OUT/stdout" && ok || bad "FMT=-: both on stdout"

# ---- a plain -o FILE: the only format, or the one json or csv ---------------
expect_exit 0 "-f table -o F" -- "$BIN" compare -o "$OUT/t.txt" "$K0" "$K1"
grep -q '^Kernel:' "$OUT/t.txt" && [ ! -s "$OUT/stdout" ] && ok || bad "-o FILE: the only format"
expect_exit 0 "-f table,json -o F" -- "$BIN" compare -f table,json -o "$OUT/r.json" "$K0" "$K1"
is_json "$OUT/r.json" && grep -q '^Kernel:' "$OUT/stdout" && ok || bad "-f table,json -o F: JSON in F, table on stdout"
expect_exit 0 "-f table,csv -o F" -- "$BIN" compare -f table,csv -o "$OUT/r.csv" "$K0" "$K1"
is_csv "$OUT/r.csv" && grep -q '^Kernel:' "$OUT/stdout" && ! grep -q '^Kernel:' "$OUT/r.csv" &&
	ok || bad "-f table,csv -o F: the CSV in F, not the table"
refused "-f table,box -o F" "which of table,box goes there" compare -f table,box -o "$OUT/d/x" "$K0"
refused "-f json,csv -o F" "which of json,csv goes there" compare -f json,csv -o "$OUT/d/x" "$K0"
refused "-f table,json,csv -o F" "which of table,json,csv" compare -f table,json,csv -o "$OUT/d/x" "$K0"
refused "-f table,box,json -o F" "(table,box): several formats on standard output; .*-o box=FILE" \
	compare -f table,box,json -o "$OUT/d/x.json" "$K0"

# ---- -o FMT=FILE,...: each format to its own file ---------------------------
rm -f "$OUT"/e*
expect_exit 0 "-o json=A,csv=B" -- "$BIN" compare -o "json=$OUT/e.json,csv=$OUT/e.csv" "$K0" "$K1"
is_json "$OUT/e.json" && is_csv "$OUT/e.csv" && grep -q '^Kernel:' "$OUT/stdout" &&
	ok || bad "-o json=A,csv=B: both files, the default table on stdout"
expect_exit 0 "-f json -o csv=B" -- "$BIN" compare -f json -o "csv=$OUT/e2.csv" "$K0"
is_csv "$OUT/e2.csv" && python3 -c 'import json,sys; json.load(sys.stdin)' <"$OUT/stdout" &&
	ok || bad "-f json -o csv=B: CSV added, JSON on stdout"
expect_exit 0 "a comma in a file name" -- "$BIN" compare -o "json=$OUT/a,b.json,csv=$OUT/c.csv" "$K0"
is_json "$OUT/a,b.json" && is_csv "$OUT/c.csv" && ok || bad "json=a,b.json,csv=c.csv: $(ls "$OUT")"
expect_exit 0 "run -o json=A,csv=B" -- "$BIN" "${QUICK[@]}" -q -o "json=$OUT/run.json,csv=$OUT/run.csv"
is_json "$OUT/run.json" && is_csv "$OUT/run.csv" && grep -q '^Lock:' "$OUT/stdout" &&
	ok || bad "run: json and csv files, table on stdout"
expect_exit 0 "import -o json=A,table=B" -- "$BIN" import locktorture -q \
	-o "json=$OUT/imp.json,table=$OUT/imp.txt" "$LT"
is_json "$OUT/imp.json" && grep -q '^nwriters_stress:' "$OUT/imp.txt" && [ ! -s "$OUT/stdout" ] &&
	ok || bad "import: json and table files"
refused "one file for two formats" "json and csv would both be written there" \
	compare -o "json=$OUT/d/s,csv=$OUT/d/s" "$K0"
refused "one file, two spellings" "would both be written there" \
	compare -o "json=$OUT/d/s,csv=$OUT/d/./s" "$K0"
ln -sf "$OUT/d2.json" "$OUT/lnk" && echo '{}' >"$OUT/d2.json"
refused "a symlink and its target" "would both be written there" \
	compare -o "json=$OUT/d2.json,csv=$OUT/lnk" "$K0"
refused "a format twice in -o" "json given twice" compare -o "json=$OUT/d/a,json=$OUT/d/b" "$K0"
refused "FMT= without a file" "no file after json=" compare -o "json=,csv=$OUT/d/b" "$K0"
refused "a format twice in -f" "table given twice" compare -f table,table "$K0"
refused "an empty -o" "empty file name" compare -o "" "$K0"

# ---- all or nothing, with the umask's mode ----------------------------------
# The second destination fails while writing (/dev/full): the first file
# is neither created nor, when it exists, replaced; no twin is left.
rm -rf "$OUT/d" && mkdir "$OUT/d"
expect_exit 2 "a failing second destination" -- "$BIN" compare -o "json=$OUT/d/new.json,csv=/dev/full" "$K0"
[ -z "$(ls -A "$OUT/d")" ] && [ "$(wc -l <"$OUT/stderr")" -eq 1 ] &&
	ok || bad "failing csv: left $(ls -A "$OUT/d"); $(cat "$OUT/stderr")"
echo old >"$OUT/d/old.json"
expect_exit 2 "a failing destination keeps the old file" -- "$BIN" compare -o "json=$OUT/d/old.json,csv=/dev/full" "$K0"
[ "$(cat "$OUT/d/old.json")" = old ] && [ "$(ls -A "$OUT/d")" = old.json ] &&
	ok || bad "the old file was replaced: $(ls -A "$OUT/d")"
refused "an unwritable second destination (nothing measured)" "cannot write output" \
	"${QUICK[@]}" -q -o "json=$OUT/d/r.json,csv=$OUT/none/r.csv"
for mask in 022 027 077; do
	rm -f "$OUT/m.json" "$OUT/m.csv"
	(umask $mask && "$BIN" compare -o "json=$OUT/m.json,csv=$OUT/m.csv" "$K0" >/dev/null)
	want=$(printf '%o' $((0666 & ~0$mask)))
	[ "$(stat -c %a "$OUT/m.json")" = "$want" ] && [ "$(stat -c %a "$OUT/m.csv")" = "$want" ] &&
		ok || bad "umask $mask: $(stat -c %a "$OUT/m.json" "$OUT/m.csv"), want $want"
done

# ---- every target checked before any run ----------------------------------
# A run of 60 s must be refused within 10: one line, exit 2, nothing left.
LONG=(-l tas -t 1 -r 1 --warmup 0 -d 60 --no-tune -q)
early() {	# early WHAT PATTERN ARGS...
	local what=$1 pat=$2
	shift 2
	rm -rf "$OUT/d" && mkdir "$OUT/d"
	expect_exit 2 "$what" -- timeout 10 "$BIN" "${LONG[@]}" "$@" || return
	if [ "$(wc -l <"$OUT/stderr")" -ne 1 ] || ! grep -q -- "$pat" "$OUT/stderr"; then
		bad "$what: want one line with '$pat': $(cat "$OUT/stderr")"
	elif [ -n "$(ls -A "$OUT/d")" ]; then
		bad "$what: left $(ls -A "$OUT/d")"
	else
		ok
	fi
}
early "-o /proc/version" "cannot write output (/proc/version)" -o /proc/version
early "-o /nonexistent/x" "cannot write output (/nonexistent-$$/x)" -o "/nonexistent-$$/x"
early "-o a directory" "Is a directory" -o "$OUT/d"
# The temporary twin is NAME.tmp.XXXXXX: 245 characters and more cannot
# have one in a 255-byte directory entry; 244 can.
long=$(printf 'a%.0s' $(seq 246))
early "-o a 246-character name" "File name too long" -o "$OUT/d/$long"
early "-o a 245-character name" "File name too long" -o "$OUT/d/${long:0:245}"
expect_exit 0 "-o a 244-character name" -- "$BIN" compare -f json -o "$OUT/d/${long:0:244}" "$K0"
is_json "$OUT/d/${long:0:244}" && ok || bad "the 244-character name was not written"
early "a non-UTF-8 --label" "--label: not UTF-8" --label $'k0-\xff\xfe' -o "$OUT/d/l.json"
early "a non-UTF-8 --row-name" "--row-name: not UTF-8" --row-name $'\xe9' -f csv -o "$OUT/d/l.csv"
refused "import: a non-UTF-8 --label" "--label: not UTF-8" import locktorture --label $'\xff' \
	-o "$OUT/d/i.json" "$LT"
# A read-only file is not overwritten, not even by root.
rm -f "$OUT/ro.json" && echo old >"$OUT/ro.json" && chmod 444 "$OUT/ro.json"
early "-o a read-only file" "read-only (mode 0444)" -o "$OUT/ro.json"
[ "$(cat "$OUT/ro.json")" = old ] && ok || bad "the read-only file was replaced"
# A directory nothing may be created in, even by root (immutable).
mkdir -p "$OUT/imm"
if chattr +i "$OUT/imm" 2>/dev/null; then
	early "-o into an immutable directory" "cannot write output" -o "$OUT/imm/x.json"
	chattr -i "$OUT/imm"
fi
# A directory this user may not write.
chmod 755 "$OUT" && mkdir -p "$OUT/rootonly" && chmod 755 "$OUT/rootonly"
AS_NOBODY=()
if setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
	AS_NOBODY=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	expect_exit 2 "-o into a directory not writable" -- timeout 10 "${AS_NOBODY[@]}" "$BIN" "${LONG[@]}" \
		-o "$OUT/rootonly/x.json"
	grep -q "Permission denied" "$OUT/stderr" && ok || bad "as nobody: $(cat "$OUT/stderr")"
fi

# ---- an existing file keeps its mode, owner and links -------------------------
# (docs/formats.md): the complete twin is renamed over a file with one
# link after taking its mode and owner, and copied into one with several.
rm -f "$OUT"/h*.json
echo old >"$OUT/h1.json" && chmod 600 "$OUT/h1.json" && chown 65534:65534 "$OUT/h1.json" &&
	ln "$OUT/h1.json" "$OUT/h2.json"
ino=$(stat -c %i "$OUT/h1.json")
expect_exit 0 "-o onto a file with two links" -- "$BIN" compare -f json -o "$OUT/h1.json" "$K0"
[ "$(stat -c '%i %h %a %u %g' "$OUT/h1.json")" = "$ino 2 600 65534 65534" ] && is_json "$OUT/h2.json" &&
	ok || bad "two links: $(stat -c '%i %h %a %u %g' "$OUT/h1.json") (was $ino), h2: $(head -c 20 "$OUT/h2.json")"
echo old >"$OUT/h3.json" && chmod 640 "$OUT/h3.json" && chown 65534:100 "$OUT/h3.json"
expect_exit 0 "-o onto a file of another owner" -- "$BIN" "${QUICK[@]}" -q -f json -o "$OUT/h3.json"
[ "$(stat -c '%a %u %g' "$OUT/h3.json")" = "640 65534 100" ] && is_json "$OUT/h3.json" &&
	ok || bad "one link: $(stat -c '%a %u %g' "$OUT/h3.json")"
ls "$OUT"/h*.tmp.* >/dev/null 2>&1 && bad "a temporary file was left" || ok
if [ ${#AS_NOBODY[@]} -gt 0 ]; then
	# A user who may write the file but not give it away: copied in place.
	mkdir -p "$OUT/shared" && chmod 777 "$OUT/shared"
	echo old >"$OUT/shared/r.json" && chmod 666 "$OUT/shared/r.json"
	expect_exit 0 "-o onto root's file, as another user" -- "${AS_NOBODY[@]}" "$BIN" compare \
		-f json -o "$OUT/shared/r.json" "$K0"
	[ "$(stat -c '%a %u' "$OUT/shared/r.json")" = "666 0" ] && is_json "$OUT/shared/r.json" &&
		[ "$(ls -A "$OUT/shared")" = r.json ] &&
		ok || bad "as nobody: $(stat -c '%a %u' "$OUT/shared/r.json"), $(ls -A "$OUT/shared")"
fi

# ---- width: tables split within --width, the baseline repeated ---------------
# max_width FILE [SKIP_RE]: the widest line in characters (not bytes).
max_width() {
	python3 - "$1" "${2:-^$}" <<'EOF'
import re, sys
skip = re.compile(sys.argv[2])
print(max([len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8") if not skip.search(l)] or [0]))
EOF
}
for f in table box mmtests; do
	"$BIN" compare -f $f $RT >"$OUT/w.txt"
	w=$(max_width "$OUT/w.txt" '^[0-9]+\. ')
	[ "$w" -le 80 ] && ok || bad "compare -f $f of six kernels: $w columns"
	"$BIN" compare -f $f --width 0 $RT >"$OUT/w0.txt"
	w0=$(max_width "$OUT/w0.txt" '^[0-9]+\. ')
	[ "$w0" -gt 80 ] && ok || bad "-f $f --width 0: one table, $w0 columns"
done
"$BIN" compare $RT >"$OUT/w.txt"
[ "$(grep -c '^Kernel: *k0-stock-6.2.0-rc6 ' "$OUT/w.txt")" -eq 5 ] &&
	[ "$(grep -c '^Kernel:' "$OUT/w.txt")" -eq 5 ] && ok || bad "five pieces, each with the baseline"
for k in k1-rmacq k2-readonce k3-alongor k4-rmacq+readonce k5-rmacq+alongor; do
	[ "$(grep -c "^Kernel: .* $k\$" "$OUT/w.txt")" -eq 1 ] || bad "$k not in exactly one piece"
done
# Every row in every piece, the notes once and within 72 columns.
[ "$(grep -c '^95  ' "$OUT/w.txt")" -eq 5 ] && [ "$(grep -c '^?  std above' "$OUT/w.txt")" -eq 1 ] &&
	ok || bad "rows per piece, notes once"
sed -n '/^?  std above/,$p' "$OUT/w.txt" >"$OUT/notes"
[ "$(max_width "$OUT/notes")" -le 72 ] && ok || bad "notes wider than 72: $(cat "$OUT/notes")"
"$BIN" compare --width 120 $RT >"$OUT/w.txt"
[ "$(grep -c '^Kernel:' "$OUT/w.txt")" -eq 2 ] && [ "$(max_width "$OUT/w.txt")" -le 120 ] &&
	ok || bad "--width 120: two pieces"
# A table that fits is printed as before: identical with --width 0.
"$BIN" compare "$K0" "$K1" >"$OUT/a" && "$BIN" compare --width 0 "$K0" "$K1" >"$OUT/b" &&
	cmp -s "$OUT/a" "$OUT/b" && ok || bad "a table within 80 columns changed"
refused "--width not a number" "width" compare --width wide "$K0"
# run splits too, and so does a run's JSON rendered again.
expect_exit 0 "run, five locks" -- "$BIN" -l tas,ticket,mcs,clh,ttas -t 1 -r 1 --warmup 0 -d 0.05 \
	--no-tune -q -o "json=$OUT/five.json,table=-"
[ "$(max_width "$OUT/stdout")" -le 80 ] && [ "$(grep -c '^Lock: *tas ' "$OUT/stdout")" -ge 2 ] &&
	ok || bad "run of five locks: $(max_width "$OUT/stdout") columns"
"$BIN" compare "$OUT/five.json" >"$OUT/c5" && cmp -s "$OUT/c5" "$OUT/stdout" &&
	ok || bad "compare of the run's JSON differs from the run's table"

# ---- singular and plural ----------------------------------------------------
expect_exit 0 "dry run, one of each" -- "$BIN" --dry-run --topology "package:1 core:1 pu:1" -l tas -t 1 -r 1
grep -q "(1 PU, 1 core, 1 NUMA node, 1 package)" "$OUT/stdout" &&
	grep -q "points: 1 lock x 1 thread count x 1 run = 1 run," "$OUT/stdout" &&
	ok || bad "dry-run singular: $(cat "$OUT/stdout")"
expect_exit 0 "dry run, several" -- "$BIN" --dry-run --topology "package:2 numa:1 core:2 pu:1" -l tas,mcs -t 1,2 -r 3
grep -q "(4 PUs, 4 cores, 2 NUMA nodes, 2 packages)" "$OUT/stdout" &&
	grep -q "points: 2 locks x 2 thread counts x 3 runs = 12 runs," "$OUT/stdout" &&
	ok || bad "dry-run plural: $(cat "$OUT/stdout")"
expect_exit 0 "topo -t 1" -- "$BIN" topo --topology "package:1 core:2 pu:1" -t 1
grep -q "placement cores, 1 thread:" "$OUT/stdout" && ok || bad "topo: $(cat "$OUT/stdout")"
# No "1 threads", "1 runs" ... in any text output of a one-thread run.
expect_exit 0 "run at 1 thread" -- "$BIN" -l tas,ticket -t 1 -r 1 --warmup 0 -d 0.05 --no-tune \
	--ncs-ns 1 -o "table=$OUT/one.txt,box=$OUT/one.box,lkp=$OUT/one.lkp,mmtests=$OUT/one.mmt,speedup=$OUT/one.sp,json=$OUT/one.json"
if grep -HnE '(^|[^0-9.])1 (threads|runs|NUMA nodes|locks|points|tests|settings)\b' \
	"$OUT"/one.txt "$OUT"/one.box "$OUT"/one.lkp "$OUT"/one.mmt "$OUT"/one.sp "$OUT/stderr"; then
	bad "a plural after 1"
else ok; fi

# ---- -q: stderr holds errors only -------------------------------------------
# --ncs-ns 1 cannot be met (a section-length warning) and the counters
# or the frequency are not available here: warnings without -q ...
"$BIN" -l tas -t 1 -r 2 --warmup 0 -d 0.05 --ncs-ns 1 -f json -o "$OUT/q.json" \
	>/dev/null 2>"$OUT/noq"
grep -q "warning\|not measured\|not available" "$OUT/noq" && ok || bad "no warning to silence: $(cat "$OUT/noq")"
# ... and nothing at all with -q, for run and import.
expect_exit 0 "run -q" -- "$BIN" -l tas -t 1 -r 2 --warmup 0 -d 0.05 --ncs-ns 1 -q -f json -o "$OUT/q.json"
[ ! -s "$OUT/stderr" ] && ok || bad "run -q wrote to stderr: $(cat "$OUT/stderr")"
expect_exit 0 "import -q" -- "$BIN" import locktorture -q -o "$OUT/qi.json" "$LT"
[ ! -s "$OUT/stderr" ] && ok || bad "import -q wrote to stderr: $(cat "$OUT/stderr")"
# An error still shows with -q.
refused "an error with -q" "unknown lock" -l nosuchlock -q

e2e_done
