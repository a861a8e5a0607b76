#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The fault battery: nothing runs that the user did not name on this
# command line, and the kernel-tree cache is trusted only when verified
# (docs/kernel-tree.md, "The cache and what is trusted").
#
#   - a cache directory planted by another user (nobody, mode 0777) with
#     a plugin whose constructor leaves a mark: refused, the mark never
#     appears; a plugin of another user in our cache is rebuilt;
#   - `rerun` of a results file recording --plugin or --kernel-tree
#     loads nothing (one line, exit 2) unless given again;
#   - a tree whose .git/config sets core.fsmonitor, a clean filter and
#     hooks: nothing of it runs while lockbench reads its git state;
#   - a cached plugin truncated, emptied, overwritten or without its
#     digest is rebuilt, with a warning, and -o copies the good one;
#   - two trees of the same content share a cache entry, each run names
#     its own tree;
#   - a build ended by INT, TERM or HUP leaves no build directory;
#   - a bad, long or derived TAG and a missing path checked first;
#   - a full disk under the cache (a small tmpfs, where mount is
#     permitted) is named as such;
#   - `TAG=~/DIR` of --kernel-tree and --plugin as the shell would;
#   - a FIFO as --plugin or as a header of a tree: refused, no hang;
#   - a small stack limit: a clear error, no crash.
#
# Everything happens under one temporary directory.
# Usage: tests/e2e_faults_trust.sh [./lockbench]
set -u
BIN=$(realpath "${1:-./lockbench}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
OUT=$(mktemp -d)
MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$OUT"
}
trap cleanup EXIT
. "$ROOT/tests/lib.sh"
cd "$OUT" || exit 1
ONE=$ROOT/tests/fixtures/ktree-onefile
export LOCKBENCH_CACHE=$OUT/cache
RUN=(-t 1 -r 1 --warmup 0 -d 0.05 --no-tune -q)
TO=(timeout -s KILL 60)

no_mark() {	# no_mark WHAT FILE: FILE (a constructor's or hook's mark) is absent
	[ ! -e "$2" ] && ok || bad "$1: code ran ($2 exists)"
}
no_build_dirs() {	# no_build_dirs WHAT DIR
	if ls -d "$2"/build-* >/dev/null 2>&1; then bad "$1: build directory left in $2"; else ok; fi
}

# A shared object whose constructor leaves the mark $MARK_FILE.
cat >"$OUT/evil.c" <<'EOF'
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void)
{
	const char *p = getenv("MARK_FILE");
	int fd = p ? open(p, O_WRONLY | O_CREAT, 0644) : -1;

	if (fd >= 0)
		close(fd);
}
EOF
"$CC" -shared -fPIC "$OUT/evil.c" -o "$OUT/evil.so" || exit 1
export MARK_FILE=$OUT/mark
# the mark works: loading evil.so as a plugin runs it
"$BIN" list locks --plugin "$OUT/evil.so" >/dev/null 2>&1
[ -e "$MARK_FILE" ] && ok || bad "the constructor's mark does not work"
rm -f "$MARK_FILE"

# ---- 1. a planted cache ------------------------------------------------
expect_exit 0 "first build" -- "$BIN" build-kernel-lock "$ONE"
so=$(cut -d' ' -f2 "$OUT/stdout")
key=$(basename "$so")
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	P=$OUT/planted
	mkdir "$P" && cp "$OUT/evil.so" "$P/$key" &&
		(cd "$P" && sha256sum "$key" | cut -d' ' -f1 >"$key.sha256")
	chown -R nobody "$P" && chmod 0777 "$P"
	for cmd in "build-kernel-lock $ONE" "--kernel-tree one=$ONE -l qspinlock_one ${RUN[*]}"; do
		# shellcheck disable=SC2086
		expect_exit 2 "planted cache: $cmd" -- env LOCKBENCH_CACHE="$P" "${TO[@]}" "$BIN" $cmd
		one_line "planted cache: $cmd" "cache directory $P is owned by uid"
		no_mark "planted cache: $cmd" "$MARK_FILE"
	done
	chmod 0755 "$P"
	expect_exit 2 "cache of another user, 0755" -- env LOCKBENCH_CACHE="$P" \
		"$BIN" build-kernel-lock "$ONE"
	one_line "cache of another user, 0755" "owned by uid"
	chown -R root "$P" && chmod 0775 "$P"
	expect_exit 2 "cache writable by its group" -- env LOCKBENCH_CACHE="$P" \
		"$BIN" build-kernel-lock "$ONE"
	one_line "cache writable by its group" "writable by its group"
	# our directory, a plugin of another user in it: rebuilt, never loaded
	chmod 0700 "$P" && chown nobody "$P/$key" "$P/$key.sha256"
	expect_exit 0 "plugin of another user" -- env LOCKBENCH_CACHE="$P" \
		"$BIN" --kernel-tree one="$ONE" -l qspinlock_one "${RUN[@]}"
	grep -q "not used: owned by uid" "$OUT/stderr" && ok || bad "foreign plugin: no warning"
	no_mark "plugin of another user" "$MARK_FILE"
	[ "$(stat -c %u "$P/$key")" = 0 ] && ! cmp -s "$P/$key" "$OUT/evil.so" && ok \
		|| bad "foreign plugin not replaced by the build"
else
	echo "e2e_faults_trust: not root: the planted-cache cases skipped"
fi

# ---- 2. rerun loads no code the results file names ----------------------
expect_exit 0 "a run to rerun" -- "$BIN" -l ticket "${RUN[@]}" -f json -o "$OUT/r.json"
plant() {	# plant FILE WORDS...: r.json with WORDS added to provenance.command
	python3 - "$OUT/r.json" "$@" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["provenance"]["command"] += sys.argv[3:]
json.dump(d, open(sys.argv[2], "w"))
EOF
}
plant "$OUT/r-plugin.json" --plugin "$OUT/evil.so"
plant "$OUT/r-plugin-q.json" -q --plugin=x="$OUT/evil.so"
plant "$OUT/r-tree.json" --kernel-tree "t=$ONE"
plant "$OUT/r-plugin-nl.json" --plugin "$OUT/evil.so
lockbench: fine"
for f in r-plugin r-plugin-q r-plugin-nl; do
	expect_exit 2 "rerun $f" -- "${TO[@]}" "$BIN" rerun "$OUT/$f.json"
	one_line "rerun $f" "loads code, and a rerun runs none that the results file names"
	no_mark "rerun $f" "$MARK_FILE"
done
expect_exit 2 "rerun of a --kernel-tree" -- "${TO[@]}" "$BIN" rerun "$OUT/r-tree.json"
one_line "rerun of a --kernel-tree" "recorded --kernel-tree t=$ONE loads code"
# given again, the user's plugin is loaded, not the recorded one
"$BIN" build-kernel-lock "$ONE" -q -o "$OUT/tb.so" || exit 1    # a good plugin
expect_exit 0 "rerun with the plugin given" -- "${TO[@]}" "$BIN" rerun "$OUT/r-plugin.json" \
	--plugin tb="$OUT/tb.so" -f json -o "$OUT/r2.json"
no_mark "rerun with the plugin given" "$MARK_FILE"
python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['provenance']['command'];
assert sys.argv[2] not in ' '.join(c) and 'tb='+sys.argv[3] in c" "$OUT/r2.json" "$OUT/evil.so" \
	"$OUT/tb.so" && ok || bad "rerun with the plugin given: recorded command wrong"

# ---- 3. the tree's git configuration never runs -------------------------
if command -v git >/dev/null; then
	G=$OUT/hostile
	cp -r "$ONE" "$G"
	git -C "$G" init -q && git -C "$G" add -A &&
		git -C "$G" -c user.name=t -c user.email=t@t commit -qm v1 || exit 1
	printf '#!/bin/sh\ntouch %s/mark-fsmonitor\n' "$OUT" >"$OUT/fsmon.sh"
	mkdir "$OUT/hooks"
	for h in post-index-change pre-commit post-checkout reference-transaction; do
		printf '#!/bin/sh\ntouch %s/mark-hook\n' "$OUT" >"$OUT/hooks/$h"
	done
	chmod +x "$OUT/fsmon.sh" "$OUT"/hooks/*
	git -C "$G" config core.fsmonitor "$OUT/fsmon.sh"
	git -C "$G" config core.hooksPath "$OUT/hooks"
	git -C "$G" config filter.evil.clean "touch $OUT/mark-filter; cat"
	git -C "$G" config filter.evil.smudge "touch $OUT/mark-filter; cat"
	echo '* filter=evil' >"$G/.gitattributes"
	touch "$G"/kernel/locking/*     # stat data changed: a refresh would run them
	echo "/* dirty */" >>"$G/kernel/locking/qspinlock.c"
	expect_exit 0 "hostile .git/config" -- "${TO[@]}" "$BIN" build-kernel-lock "$G" \
		-o "$OUT/hostile.so"
	for m in fsmonitor hook filter; do
		no_mark "hostile .git/config: $m" "$OUT/mark-$m"
	done
	"$BIN" list locks -v --plugin h="$OUT/hostile.so" >"$OUT/list" 2>&1
	head=$(git -C "$G" -c core.fsmonitor= rev-parse HEAD)
	grep -q "tree: $G (git ${head:0:12}-dirty, commit ${head:0:12}, dirty)" "$OUT/list" \
		&& ok || bad "hostile tree: git state: $(grep tree: "$OUT/list")"
	# the configuration is live: git's own index refresh runs it
	git -C "$G" status >/dev/null 2>&1
	[ -e "$OUT/mark-fsmonitor" ] || [ -e "$OUT/mark-filter" ] && ok \
		|| bad "hostile .git/config: git status ran none of it (the test proves nothing)"
	# a tag naming HEAD is the describe; a clean tree is not dirty
	git -C "$G" checkout -q -- kernel/locking/qspinlock.c 2>/dev/null
	git -C "$G" tag v9
	rm -f "$OUT"/mark-*
	expect_exit 0 "tagged tree" -- "$BIN" build-kernel-lock "$G" -o "$OUT/tagged.so"
	"$BIN" list locks -v --plugin t="$OUT/tagged.so" >"$OUT/list" 2>&1
	grep -q "tree: $G (git v9, commit ${head:0:12})\$" "$OUT/list" && ok \
		|| bad "tagged tree: $(grep tree: "$OUT/list")"
	no_mark "tagged tree" "$OUT/mark-fsmonitor"
	no_mark "tagged tree" "$OUT/mark-filter"
fi

# ---- 4. cache integrity -------------------------------------------------
rebuilt() {	# rebuilt WHAT: the build said so, and the entry is good again
	expect_exit 0 "$1" -- "$BIN" build-kernel-lock "$ONE" -o "$OUT/copy.so"
	grep -q "^built $OUT/copy.so" "$OUT/stdout" && grep -q "not used: $2" "$OUT/stderr" \
		&& ok || bad "$1: not rebuilt: $(cat "$OUT/stdout" "$OUT/stderr")"
	cmp -s "$OUT/copy.so" "$so" && ! cmp -s "$so" "$OUT/evil.so" && [ "$(sha256sum <"$so" | cut -d' ' -f1)" = \
		"$(cat "$so.sha256")" ] && ok || bad "$1: the entry or the copy is not good"
}
expect_exit 0 "cached" -- "$BIN" build-kernel-lock "$ONE"
grep -q "^cached $so" "$OUT/stdout" && ok || bad "not cached: $(cat "$OUT/stdout")"
truncate -s 4096 "$so"
rebuilt "truncated" "its content does not match"
: >"$so"
rebuilt "emptied" "its content does not match"
cp "$OUT/evil.so" "$so"
rebuilt "overwritten" "its content does not match"
rm "$so.sha256"
rebuilt "no digest" "no digest recorded beside it"

# ---- 5. two trees of the same content -----------------------------------
cp -r "$ONE" "$OUT/t1" && cp -r "$ONE" "$OUT/t2"
for t in t1 t2; do
	expect_exit 0 "run on $t" -- "$BIN" --kernel-tree "$t=$OUT/$t" -l "qspinlock_$t" \
		"${RUN[@]}" -f json -o "$OUT/$t.json"
	python3 -c "import json,sys
d=json.load(open(sys.argv[1]))
s=[v['source']['tree'] for v in d['variants'] if 'source' in v]
assert s == [sys.argv[2]], s" "$OUT/$t.json" "$OUT/$t" && ok \
		|| bad "run on $t: source.tree is not its own"
done

# ---- 6. a build ended by a signal leaves no build directory -------------
cat >"$OUT/slowcc" <<EOF
#!/bin/sh
case " \$* " in *" -c "*) touch "$OUT/compiling"; exec sleep 30 ;; esac
exec $CC "\$@"
EOF
chmod +x "$OUT/slowcc"
for sig in INT TERM HUP; do
	rm -rf "$OUT/sigcache" "$OUT/compiling"
	LOCKBENCH_CACHE=$OUT/sigcache LOCKBENCH_CC=$OUT/slowcc \
		"${SIGDFL[@]}" "$BIN" build-kernel-lock "$ONE" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 300); do [ -e "$OUT/compiling" ] && break; sleep 0.1; done
	ls -d "$OUT"/sigcache/build-* >/dev/null 2>&1 && ok || bad "SIG$sig: no build running"
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	rc=$?
	[ "$rc" -gt 128 ] && ok || bad "SIG$sig: exit $rc, not by the signal"
	no_build_dirs "SIG$sig" "$OUT/sigcache"
done

# ---- 7. TAG and path checked first --------------------------------------
rm -rf "$OUT/tagcache"
for spec in "Bad!=$ONE" "=$ONE" "$(printf 'a%.0s' $(seq 41))=$ONE"; do
	expect_exit 2 "TAG ${spec%%=*}" -- env LOCKBENCH_CACHE="$OUT/tagcache" \
		"$BIN" list locks --kernel-tree "$spec"
	one_line "TAG ${spec%%=*}" "TAG (${spec%%=*}) must be 1 to 32 of \[a-z0-9_\]"
done
[ ! -e "$OUT/tagcache" ] && ok || bad "a bad TAG was checked after building"
expect_exit 0 "TAG of t1/." -- "$BIN" list locks --kernel-tree "$OUT/t1/."
grep -q "^qspinlock_t1 " "$OUT/stdout" && ok || bad "t1/. not TAG t1: $(cat "$OUT/stdout")"
mkdir -p "$OUT/$(printf 'b%.0s' $(seq 40))"
cp -r "$ONE"/* "$OUT/$(printf 'b%.0s' $(seq 40))/"
expect_exit 2 "long folder name" -- "$BIN" list locks --kernel-tree "$OUT/$(printf 'b%.0s' $(seq 40))"
one_line "long folder name" "longer than a TAG (32 characters): give TAG=DIR"
expect_exit 2 "missing tree" -- "$BIN" list locks --kernel-tree /x/nonexist/foo/bar
one_line "missing tree" "kernel tree (/x/nonexist/foo/bar): No such file or directory"
expect_exit 2 "missing tree, build" -- "$BIN" build-kernel-lock /x/nonexist/foo/bar
one_line "missing tree, build" "kernel tree (/x/nonexist/foo/bar): No such file"

# ---- 8. a full disk under the cache -------------------------------------
mkdir "$OUT/mnt"
if mount -t tmpfs -o size=512k tmpfs "$OUT/mnt" 2>/dev/null; then
	MNT=$OUT/mnt
	for left in 24 100; do	# KiB left: the compiler's log empty, or not
		rm -rf "${MNT:?}"/* && mkdir "$MNT/cache"
		avail=$(df -k --output=avail "$MNT" | tail -1)
		dd if=/dev/zero of="$MNT/fill" bs=1k count=$((avail - left)) 2>/dev/null
		expect_exit 2 "full disk, $left KiB left" -- env LOCKBENCH_CACHE="$MNT/cache" \
			"$BIN" build-kernel-lock "$ONE"
		one_line "full disk, $left KiB left" "the disk holding the cache ($MNT/cache) is full: No space left on device"
		no_build_dirs "full disk" "$MNT/cache"
	done
	umount "$MNT" && MNT=
else
	echo "e2e_faults_trust: cannot mount a tmpfs here: the full-disk case skipped"
fi

# ---- 9. TAG=~/DIR -------------------------------------------------------
mkdir -p "$OUT/home" && cp -r "$ONE" "$OUT/home/linux" && cp "$OUT/tb.so" "$OUT/home/tb.so"
expect_exit 0 "--kernel-tree stock=~/linux" -- env HOME="$OUT/home" "$BIN" list locks \
	--kernel-tree 'stock=~/linux'
grep -q "^qspinlock_stock " "$OUT/stdout" && ok || bad "stock=~/linux: $(cat "$OUT/stderr")"
expect_exit 0 "--plugin tag=~/tb.so" -- env HOME="$OUT/home" "$BIN" list locks \
	--plugin 'tb=~/tb.so'
grep -q "plugin: $OUT/home/tb.so" "$OUT/stdout" && ok || bad "tb=~/tb.so: $(cat "$OUT/stderr")"

# ---- 10. FIFOs never block ----------------------------------------------
mkfifo "$OUT/fifo.so"
expect_exit 2 "FIFO as --plugin" -- "${TO[@]}" "$BIN" list locks --plugin x="$OUT/fifo.so"
one_line "FIFO as --plugin" "not a regular file (a FIFO)"
for h in include/linux/osq_lock.h include/asm-generic/qspinlock_types.h; do
	rm -rf "$OUT/ft" "$OUT/fcache" && cp -r "$ONE" "$OUT/ft" && rm "$OUT/ft/$h" && mkfifo "$OUT/ft/$h"
	expect_exit 2 "FIFO as $h" -- env LOCKBENCH_CACHE="$OUT/fcache" "${TO[@]}" \
		"$BIN" build-kernel-lock "$OUT/ft" --lock qspinlock
	one_line "FIFO as $h" "$h is a FIFO, not a regular file"
	no_build_dirs "FIFO as $h" "$OUT/fcache"
done

# ---- 11. a small stack --------------------------------------------------
for s in 64 32; do
	expect_exit 2 "ulimit -s $s" -- sh -c "ulimit -s $s && exec '$BIN' build-kernel-lock '$ONE'"
	one_line "ulimit -s $s" "stack limit (ulimit -s) is $s KiB"
done

echo "e2e_faults_trust: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
