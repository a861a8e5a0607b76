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
#   - a small stack limit: a clear error, no crash;
#   - a cache inside a directory of another user: refused, and that user
#     swapping it during runs never gets a plugin loaded (the longer
#     race: scripts/race-cache.sh);
#   - relative and empty PATH entries with a ./git in the tree and a ./cc
#     in the current directory: neither runs; a compiler not found;
#   - an ext:: promisor remote under a git that ignores GIT_NO_LAZY_FETCH;
#   - FIFOs and devices in the tree and its git directory refused, a
#     compiler that never finishes killed at the limit with its children;
#   - QUIT, USR1, USR2, ALRM during a build and QUIT, USR1, ALRM during
#     `system check`: nothing left behind;
#   - build-kernel-lock -o of a copy of a tree names that copy;
#   - FIFOs as sysfs and procfs files of a fake machine: no hang.
#
# Everything happens under one temporary directory.
# Usage: tests/e2e_faults_trust.sh [./lockbench]
set -u
. "$(dirname "$0")/lib.sh"
e2e_setup "$@"
MNT=
cleanup() {
	[ -n "$MNT" ] && umount "$MNT" 2>/dev/null
	rm -rf "$OUT"
}
trap cleanup EXIT
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

# ---- 12. the cache's parent directories ---------------------------------
# A cache of root's inside a directory another user owns (`sudo -E`:
# ~/.cache is the user's): that user can swap it for a directory of
# theirs between the check and the load.  Every directory on the way is
# checked, and the plugin loaded through the descriptor that was checked
# (scripts/race-cache.sh runs the race for longer).
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
	R=$OUT/race && mkdir -m 0755 "$R" "$R/pub" "$R/pub/evil"
	rm -rf "$R/pub/lc" && cp -a "$(dirname "$so")" "$R/pub/lc"
	cp "$OUT/evil.so" "$R/pub/evil/$key"
	sha256sum <"$OUT/evil.so" | cut -d' ' -f1 >"$R/pub/evil/$key.sha256"
	chown -R nobody "$R/pub"
	chown root "$R/pub/lc" "$R/pub/lc/$key" "$R/pub/lc/$key.sha256"
	for c in "$R/pub/lc" pub/lc; do
		expect_exit 2 "cache in another user's directory ($c)" -- env -C "$R" \
			LOCKBENCH_CACHE="$c" "${TO[@]}" "$BIN" --kernel-tree one="$ONE" \
			-l qspinlock_one --dry-run -q
		one_line "cache in another user's directory ($c)" \
			"the cache directory .*pub/lc is in $R/pub, which uid $(id -u nobody) owns"
	done
	no_mark "cache in another user's directory" "$MARK_FILE"
	cat >"$OUT/swap.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
	for (unsigned i = 0;; i++) {
		if (renameat2(AT_FDCWD, "lc", AT_FDCWD, "evil", RENAME_EXCHANGE))
			return 1;
		usleep((useconds_t)(random() % (i % 2 ? 400000 : 2000)));
	}
}
EOF
	"$CC" -O2 "$OUT/swap.c" -o "$R/swap" && chmod 0755 "$R/swap"
	(cd "$R/pub" && exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$R/swap") &
	swapper=$!
	end=$((SECONDS + 8))
	while [ "$SECONDS" -lt "$end" ] && [ ! -e "$MARK_FILE" ]; do
		LOCKBENCH_CACHE=$R/pub/lc "${TO[@]}" "$BIN" --kernel-tree one="$ONE" \
			-l qspinlock_one --dry-run -q >/dev/null 2>&1
	done
	kill "$swapper" && wait "$swapper" 2>/dev/null
	no_mark "the cache's directory swapped for 8 s" "$MARK_FILE"
	rm -f "$MARK_FILE"
	# a sticky directory (like /tmp) on the way is fine, our own cache in it
	mkdir -m 1777 "$R/sticky"
	expect_exit 0 "cache in a sticky directory" -- env LOCKBENCH_CACHE="$R/sticky/lc" \
		"$BIN" build-kernel-lock "$ONE" -q
else
	echo "e2e_faults_trust: not root, or no user nobody or setpriv: the parent-directory race skipped"
fi

# ---- 13. programs by absolute path, never from a relative PATH entry ---
if command -v git >/dev/null; then
	P=$OUT/pathtree
	cp -r "$ONE" "$P"
	git -C "$P" init -q && git -C "$P" add -A &&
		git -C "$P" -c user.name=t -c user.email=t@t commit -qm v1 || exit 1
	mkdir -p "$OUT/elsewhere"
	for prog in git cc; do
		printf '#!/bin/sh\ntouch %s/mark-path-%s\nexit 1\n' "$OUT" "$prog" >"$P/$prog"
		printf '#!/bin/sh\ntouch %s/mark-path-%s\nexit 1\n' "$OUT" "$prog" >"$OUT/elsewhere/$prog"
		chmod +x "$P/$prog" "$OUT/elsewhere/$prog"
	done
	abscc=$(command -v "$CC")
	for path in ".:/usr/bin:/bin" ":/usr/bin:/bin" "/usr/bin::/bin" "bin:.:/usr/bin:/bin"; do
		# the compiler given by its absolute path: git is the one searched
		rm -rf "$OUT/pcache"
		expect_exit 0 "PATH=$path, git" -- env -C "$OUT/elsewhere" PATH="$path" \
			LOCKBENCH_CC="$abscc" LOCKBENCH_CACHE="$OUT/pcache" "${TO[@]}" "$BIN" \
			build-kernel-lock "$P" -q
		no_mark "PATH=$path: the tree's ./git" "$OUT/mark-path-git"
		rm -rf "$OUT/pcache"
		expect_exit 0 "PATH=$path, cc" -- env -C "$OUT/elsewhere" PATH="$path" \
			LOCKBENCH_CACHE="$OUT/pcache" "${TO[@]}" "$BIN" build-kernel-lock "$P" -q
		no_mark "PATH=$path: ./cc" "$OUT/mark-path-cc"
	done
	rm -f "$P/git" "$P/cc"
fi
expect_exit 2 "a compiler not found" -- env LOCKBENCH_CC=no-such-cc-here \
	LOCKBENCH_CACHE="$OUT/pcache" "$BIN" build-kernel-lock "$ONE"
one_line "a compiler not found" "compiler no-such-cc-here not found (a path, or a program in an absolute PATH entry"
expect_exit 2 "the compiler only in a relative PATH entry" -- env -C "$OUT/elsewhere" \
	PATH=".:/nonexistent" LOCKBENCH_CACHE="$OUT/pcache2" "$BIN" build-kernel-lock "$ONE"
one_line "the compiler only in a relative PATH entry" "compiler cc not found"
no_mark "the compiler only in a relative PATH entry" "$OUT/mark-path-cc"

# ---- 14. git safeties that hold on any git version ---------------------
# A git that ignores GIT_NO_LAZY_FETCH (older than the security fix),
# played by a wrapper that drops it; a tree whose promisor remote is an
# ext:: command, its config allowing ext::, and an object missing, so
# that reading the commit's tree would fetch it lazily.
if command -v git >/dev/null; then
	L=$OUT/lazytree
	cp -r "$ONE" "$L"
	git -C "$L" init -q && git -C "$L" add -A &&
		git -C "$L" -c user.name=t -c user.email=t@t commit -qm v1 || exit 1
	git -C "$L" config core.repositoryformatversion 1
	git -C "$L" config extensions.partialClone origin
	git -C "$L" config remote.origin.url "ext::sh -c touch% $OUT/mark-ext"
	git -C "$L" config remote.origin.promisor true
	git -C "$L" config protocol.ext.allow always
	git -C "$L" config protocol.allow always
	sub=$(git -C "$L" rev-parse HEAD:kernel/locking)
	rm -f "$L/.git/objects/${sub:0:2}/${sub:2}"
	realgit=$(command -v git)
	mkdir -p "$OUT/oldgit"
	printf '#!/bin/sh\nunset GIT_NO_LAZY_FETCH\nexec %s "$@"\n' "$realgit" >"$OUT/oldgit/git"
	chmod +x "$OUT/oldgit/git"
	# the test is live: this git, so configured, runs the remote's command
	(cd "$L" && PATH=$OUT/oldgit:$PATH git ls-tree HEAD kernel/locking/ >/dev/null 2>&1)
	[ -e "$OUT/mark-ext" ] && ok || bad "lazy fetch: the ext:: remote did not run (the test proves nothing)"
	rm -f "$OUT/mark-ext"
	expect_exit 0 "lazy fetch through an ext:: remote" -- env PATH="$OUT/oldgit:$PATH" \
		LOCKBENCH_CACHE="$OUT/lcache" "${TO[@]}" "$BIN" build-kernel-lock "$L" -q
	no_mark "lazy fetch through an ext:: remote" "$OUT/mark-ext"
fi

# ---- 15. special files in a tree, and children with a time limit --------
TS=(timeout -s KILL 20)
alive() {	# alive PID: a process that is not a zombie (pid 1 may reap late)
	local s
	s=$(ps -o stat= -p "$1" 2>/dev/null)
	[ -n "$s" ] && [ "${s#Z}" = "$s" ]
}
special_case() {	# special_case WHAT PATTERN: build $OUT/st; one line, no hang
	rm -rf "$OUT/scache"
	expect_exit 2 "$1" -- env LOCKBENCH_CACHE="$OUT/scache" "${TS[@]}" "$BIN" \
		build-kernel-lock "$OUT/st" -q
	one_line "$1" "$2"
	no_build_dirs "$1" "$OUT/scache"
}
new_st() {	# new_st [git]: $OUT/st a fresh copy of the tree, a git work tree with git
	rm -rf "$OUT/st" && cp -r "$ONE" "$OUT/st"
	[ "${1:-}" = git ] || return 0
	git -C "$OUT/st" init -q && git -C "$OUT/st" add -A &&
		git -C "$OUT/st" -c user.name=t -c user.email=t@t commit -qm v1 &&
		git -C "$OUT/st" pack-refs --all
}
new_st && mkdir -p "$OUT/st/arch/x86/include/asm" && mkfifo "$OUT/st/arch/x86/include/asm/qspinlock.h"
[ "$(uname -m)" = x86_64 ] && special_case "FIFO as arch/x86/include/asm/qspinlock.h" \
	"arch/x86/include/asm/qspinlock.h is a FIFO, not a regular file"
new_st && mkdir -p "$OUT/st/kernel/locking/sub" && mkfifo "$OUT/st/kernel/locking/sub/x.h"
special_case "FIFO in a subdirectory of kernel/locking" "kernel/locking/sub/x.h is a FIFO"
# ... refused with the lock's own files, before the compiler is looked for
rm -rf "$OUT/scache"
expect_exit 2 "FIFO in kernel/locking/sub, no compiler" -- env LOCKBENCH_CACHE="$OUT/scache" \
	LOCKBENCH_CC="$OUT/no-such-cc" "${TS[@]}" "$BIN" build-kernel-lock "$OUT/st" -q
one_line "FIFO in kernel/locking/sub, no compiler" "kernel/locking/sub/x.h is a FIFO"
if command -v git >/dev/null; then
	new_st git && rm "$OUT/st/.git/config" && mkfifo "$OUT/st/.git/config"
	special_case "FIFO as .git/config" "/.git/config is a FIFO"
	new_st git && rm "$OUT/st/.git/packed-refs" && mkfifo "$OUT/st/.git/packed-refs"
	special_case "FIFO as packed-refs" "/.git/packed-refs is a FIFO"
	new_st git && rm "$OUT/st/.git/packed-refs" && ln -s /dev/zero "$OUT/st/.git/packed-refs"
	special_case "a device as packed-refs" "/.git/packed-refs is a device node"
	new_st git && mkfifo "$OUT/st/inc.cfg" && git -C "$OUT/st" config include.path ../inc.cfg
	special_case "FIFO as an include.path target" "inc.cfg is a FIFO"
	new_st git && obj=$(git -C "$OUT/st" rev-parse HEAD:kernel/locking) &&
		rm -f "$OUT/st/.git/objects/${obj:0:2}/${obj:2}" &&
		mkfifo "$OUT/st/.git/objects/${obj:0:2}/${obj:2}"
	special_case "FIFO as a loose object" "${obj:2} is a FIFO"
fi
# a compiler that never finishes: killed at the limit with its children
cat >"$OUT/hangcc" <<EOF
#!/bin/sh
case " \$* " in *" -c "*) sleep 300 & echo \$! >"$OUT/hang.pid"; wait ;; esac
exec $CC "\$@"
EOF
chmod +x "$OUT/hangcc"
new_st
rm -f "$OUT/hang.pid"
expect_exit 2 "a compiler that hangs" -- env LOCKBENCH_CC="$OUT/hangcc" LOCKBENCH_KTREE_TIMEOUT=2 \
	LOCKBENCH_CACHE="$OUT/scache" "${TS[@]}" "$BIN" build-kernel-lock "$OUT/st" -q
one_line "a compiler that hangs" "the compiler did not finish .* in 2 s and was killed"
sleep 0.2
[ -s "$OUT/hang.pid" ] && ! alive "$(cat "$OUT/hang.pid")" && ok \
	|| bad "a compiler that hangs: its child is left running"
no_build_dirs "a compiler that hangs" "$OUT/scache"

# ---- 16. every terminating signal cleans a build up ---------------------
cat >"$OUT/slowcc2" <<EOF
#!/bin/sh
case " \$* " in *" -c "*) sleep 30 & echo \$! >"$OUT/slow.pid"; wait ;; esac
exec $CC "\$@"
EOF
chmod +x "$OUT/slowcc2"
for sig in QUIT USR1 USR2 ALRM; do
	rm -rf "$OUT/sigcache" "$OUT/slow.pid"
	(ulimit -c 0; LOCKBENCH_CACHE=$OUT/sigcache LOCKBENCH_CC=$OUT/slowcc2 \
		exec "${SIGDFL[@]}" "$BIN" build-kernel-lock "$ONE" >/dev/null 2>&1) &
	pid=$!
	for _ in $(seq 300); do [ -s "$OUT/slow.pid" ] && break; sleep 0.1; done
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	rc=$?
	[ "$rc" -gt 128 ] && ok || bad "SIG$sig: exit $rc, not by the signal"
	no_build_dirs "SIG$sig" "$OUT/sigcache"
	sleep 0.2
	[ -s "$OUT/slow.pid" ] && ! alive "$(cat "$OUT/slow.pid")" && ok \
		|| bad "SIG$sig: the compiler's child is left running"
done

# ---- 17. a copy of a tree served from another copy's cache entry --------
cp -r "$ONE" "$OUT/copyA" && cp -r "$ONE" "$OUT/copyB"
rm -rf "$OUT/ccache"
LOCKBENCH_CACHE=$OUT/ccache "$BIN" build-kernel-lock "$OUT/copyB" -q || exit 1
for t in copyA copyB; do
	expect_exit 0 "build-kernel-lock $t -o" -- env LOCKBENCH_CACHE="$OUT/ccache" \
		"$BIN" build-kernel-lock "$OUT/$t" -o "$OUT/$t.so"
	"$BIN" list locks -v --plugin x="$OUT/$t.so" >"$OUT/list" 2>&1
	grep -q "tree: $OUT/$t " "$OUT/list" && ok \
		|| bad "build-kernel-lock $t -o: names $(grep tree: "$OUT/list")"
done

# ---- 18. FIFOs in a fake machine never block ----------------------------
build_mkfake
for f in GOV NUMA cmdline BOOST online; do
	fresh_tree fifo
	case $f in
	GOV) p=$GOV ;; NUMA) p=$NUMA ;; BOOST) p=$BOOST ;;
	cmdline) p=$TREE/root/proc/cmdline ;;
	online) p=$TREE/root/sys/devices/system/cpu/online ;;
	esac
	rm -f "$p" && mkdir -p "$(dirname "$p")" && mkfifo "$p"
	"${TS[@]}" "$BIN" system show >"$OUT/stdout" 2>"$OUT/stderr"
	rc=$?
	[ "$rc" -le 3 ] && ok || bad "FIFO as $f: system show exit $rc (a hang is 137)"
	"${TS[@]}" "$BIN" -l tas "${RUN[@]}" >"$OUT/stdout" 2>"$OUT/stderr"
	rc=$?
	[ "$rc" -le 3 ] && ok || bad "FIFO as $f: a run exit $rc (a hang is 137)"
done
unset LOCKBENCH_SYSROOT LOCKBENCH_STATE

# ---- 19. every terminating signal cleans `system check` up --------------
fresh_tree check
quiet_proc "$LOCKBENCH_SYSROOT"
for sig in QUIT USR1 ALRM; do
	rm -rf "$OUT/cktmp" && mkdir "$OUT/cktmp"
	(ulimit -c 0; TMPDIR=$OUT/cktmp exec "${SIGDFL[@]}" "$BIN" system check -d 0.5 -q \
		>/dev/null 2>&1) &
	pid=$!
	for _ in $(seq 300); do
		ls -d "$OUT"/cktmp/lockbench-check-* >/dev/null 2>&1 && pgrep -P "$pid" >/dev/null && break
		sleep 0.05
	done
	kid=$(pgrep -P "$pid" | head -1)
	[ -n "$kid" ] && ok || bad "system check SIG$sig: no run of its own started"
	kill -"$sig" "$pid"
	wait "$pid" 2>/dev/null
	rc=$?
	[ "$rc" -gt 128 ] && ok || bad "system check SIG$sig: exit $rc, not by the signal"
	ls -d "$OUT"/cktmp/lockbench-check-* >/dev/null 2>&1 &&
		bad "system check SIG$sig: lockbench-check-* left behind" || ok
	[ -n "$kid" ] && alive "$kid" && bad "system check SIG$sig: its run left running" || ok
done
unset LOCKBENCH_SYSROOT LOCKBENCH_STATE

e2e_done
