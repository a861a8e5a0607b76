#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# race-cache.sh [-s SECONDS] [BINARY]
#
# The cache's parent-directory race, run for SECONDS (default 600), as
# root, in one temporary directory (docs/kernel-tree.md, "The cache and
# what is trusted").  The cache directory pub/lc is root's, with a good
# cached plugin, but it sits in pub/, which the user `nobody` owns: a
# `nobody` process swaps pub/lc and pub/evil (renameat2(2),
# RENAME_EXCHANGE), root's directory in place for up to 0.4 s, the
# other for up to 2 ms, at random, where pub/evil holds a plugin of
# the same name, with its digest beside it, whose constructor leaves a
# mark.  Meanwhile root loops
#   LOCKBENCH_CACHE=pub/lc lockbench --kernel-tree one=TREE -l qspinlock_one --dry-run
# and counts how each try ended: refused (exit 2), run (exit 0), other.
# The mark must never appear: the other user's file never loads as root.
# Exits 1 if it did (or on any exit but 0 and 2), 0 otherwise.
set -eu
SECS=600
while getopts s: o; do
	case $o in
	s) SECS=$OPTARG ;;
	*) echo "usage: $0 [-s SECONDS] [BINARY]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
BIN=$(realpath "${1:-./lockbench}")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CC=${CC:-cc}
[ "$(id -u)" -eq 0 ] || { echo "race-cache.sh: run it as root" >&2; exit 2; }
id nobody >/dev/null 2>&1 || { echo "race-cache.sh: needs the user nobody" >&2; exit 2; }
command -v setpriv >/dev/null || { echo "race-cache.sh: needs setpriv" >&2; exit 2; }
D=$(mktemp -d)
SW=
cleanup() {
	local rc=$?
	[ -n "$SW" ] && kill "$SW" 2>/dev/null && { wait "$SW" 2>/dev/null || :; }
	rm -rf "$D"
	exit "$rc"
}
trap cleanup EXIT
chmod 0755 "$D"
cat >"$D/evil.c" <<'EOF'
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void)
{
	int fd = open(MARK, O_WRONLY | O_CREAT, 0644);

	if (fd >= 0)
		close(fd);
}
EOF
cat >"$D/swap.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void)
{
	for (unsigned i = 0;; i++) {
		if (renameat2(AT_FDCWD, "lc", AT_FDCWD, "evil", RENAME_EXCHANGE))
			return perror("renameat2"), 1;
		/* root's own directory in place up to 0.4 s (a build passes
		 * its checks), the other for up to 2 ms (a load between the
		 * check and the open) */
		usleep((useconds_t)(random() % (i % 2 ? 400000 : 2000)));
	}
}
EOF
"$CC" -shared -fPIC -DMARK="\"$D/mark\"" "$D/evil.c" -o "$D/evil.so"
"$CC" -O2 "$D/swap.c" -o "$D/swap"
# a good cached plugin, built where the cache is trusted, then moved
TREE=$ROOT/tests/fixtures/ktree-onefile
so=$(LOCKBENCH_CACHE=$D/prep "$BIN" build-kernel-lock "$TREE" -q -o "$D/good.so" && \
	ls "$D"/prep/ktree-qspinlock-*.so)
key=$(basename "$so")
mkdir -m 0755 "$D/pub" "$D/pub/evil"
mv "$D/prep" "$D/pub/lc"
cp "$D/evil.so" "$D/pub/evil/$key"
sha256sum <"$D/evil.so" | cut -d' ' -f1 >"$D/pub/evil/$key.sha256"
chown -R nobody "$D/pub/evil" && chown nobody "$D/pub" && chmod 0755 "$D/swap"
(cd "$D/pub" && exec setpriv --reuid=nobody --regid=nogroup --clear-groups "$D/swap") &
SW=$!
refused=0 ran=0 other=0 tries=0
start=$SECONDS
end=$((start + SECS))
while [ "$SECONDS" -lt "$end" ] && [ ! -e "$D/mark" ]; do
	rc=0
	LOCKBENCH_CACHE=$D/pub/lc timeout -s KILL 60 "$BIN" --kernel-tree one="$TREE" \
		-l qspinlock_one --dry-run -q >/dev/null 2>"$D/err" || rc=$?
	tries=$((tries + 1))
	case $rc in
	0) ran=$((ran + 1)) ;;
	2) refused=$((refused + 1)) ;;
	*) other=$((other + 1)); echo "try $tries: exit $rc: $(head -c 300 "$D/err")" >&2 ;;
	esac
done
kill -0 "$SW" 2>/dev/null || { echo "race-cache.sh: the swapper stopped" >&2; exit 1; }
echo "race-cache: $((SECONDS - start)) s, $tries tries: $refused refused, $ran ran, $other other;" \
	"last message: $(head -1 "$D/err")"
if [ -e "$D/mark" ]; then
	echo "race-cache: FAIL: the other user's plugin was loaded as root (try $tries)"
	exit 1
fi
[ "$other" -eq 0 ] || exit 1
echo "race-cache: the other user's plugin never loaded"
