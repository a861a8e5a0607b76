#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# The sandbox of scripts/check-engines.sh, run by it inside fresh mount
# and pid namespaces (unshare -m -p --fork --kill-child):
#
#   check-engines-sandbox.sh W CMD...
#
# Mounts an overlay of / on W/ov/root (writes go to W/ov/up), binds W at
# its own path inside it, gives it /dev, a /proc of the new pid
# namespace with /proc/sys read-only, /sys read-only with a writable
# copy of /sys/kernel/mm/transparent_hugepage (mmtests writes THP
# settings), and runs CMD chrooted there.  Exit 125 when a mount fails.
set -u
W=$1
shift
R=$W/ov/root
m() { mount "$@" || { echo "check-engines sandbox: mount $*: failed" >&2; exit 125; }; }

m -t overlay overlay -o "lowerdir=/,upperdir=$W/ov/up,workdir=$W/ov/work" "$R"
m --rbind /dev "$R/dev"
m -t proc proc "$R/proc"
m --bind "$R/proc/sys" "$R/proc/sys"
m -o remount,bind,ro "$R/proc/sys"
m --rbind /sys "$R/sys"
m -o remount,bind,ro "$R/sys"
THP=/sys/kernel/mm/transparent_hugepage
if [ -d "$THP" ]; then
	m -t tmpfs thp "$R$THP"
	(cd "$THP" && find . -type f -readable | while read -r f; do
		mkdir -p "$R$THP/$(dirname "$f")" && cat "$f" >"$R$THP/$f" 2>/dev/null
	done)
fi
mkdir -p "$R$W" && m --bind "$W" "$R$W"
exec chroot "$R" "$@"
