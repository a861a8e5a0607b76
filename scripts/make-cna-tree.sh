#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# make-cna-tree.sh SOURCE MAILDIR OUT
#
# Make a kernel tree with a patch series from the mailing list, e.g. the
# CNA series (Kogan, "[PATCH v15 0/6] Add NUMA-awareness to qspinlock",
# linux-arch, 2021-05-14), for `lockbench --kernel-tree cna=OUT`
# (docs/kernel-tree.md).  SOURCE is a kernel source directory or a
# linux-source tarball (.tar.xz, e.g. Debian's
# /usr/src/linux-source-6.12.tar.xz): only what lockbench compiles and
# what the patches touch is copied (kernel/locking, include,
# arch/{x86,arm64}/include and the patches' other files).  MAILDIR holds
# the patch mails (*.eml, applied in name order; a cover letter without
# a diff is skipped).  OUT becomes a git repository: the stock tree as
# its first commit (tag `stock`), then one commit per mail, its
# Message-Id kept as a trailer (`git am --message-id`).
#
# A mail written against an older kernel may not apply: git am's
# three-way merge is tried first; then each rejected hunk that only adds
# lines is rebased by hand's rule: its added lines go right after its
# leading context, when that context occurs exactly once in the file
# (the hunk's trailing context, what changed since, is ignored).  Each
# such hunk is named on stdout ("rebased: FILE: ...").  Anything else
# stops with the rejected hunk's file named, exit 1.  Exit 2 on usage.
set -u
if [ $# -ne 3 ]; then
	echo "usage: $0 SOURCE MAILDIR OUT" >&2
	exit 2
fi
SRC=$1 MAILS=$2 OUT=$3
[ -d "$MAILS" ] || { echo "$0: $MAILS: not a directory" >&2; exit 2; }
[ -e "$OUT" ] && { echo "$0: $OUT exists" >&2; exit 2; }
mails=()
for m in "$MAILS"/*.eml; do
	[ -f "$m" ] && grep -q '^diff --git ' "$m" && mails+=("$m")
done
[ ${#mails[@]} -gt 0 ] || { echo "$0: no patch mails (*.eml with a diff) in $MAILS" >&2; exit 2; }

# The files the mails touch, besides what lockbench compiles.
touched() {
	sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "${mails[@]}" | sort -u
}
want=(kernel/locking include arch/x86/include arch/arm64/include)
mkdir -p "$OUT" || exit 2
if [ -d "$SRC" ]; then
	for p in "${want[@]}" $(touched); do
		[ -e "$SRC/$p" ] || continue
		mkdir -p "$OUT/$(dirname "$p")" && cp -r "$SRC/$p" "$OUT/$(dirname "$p")/" || exit 1
	done
elif [ -f "$SRC" ]; then
	top=$(tar -tJf "$SRC" 2>/dev/null | head -n 1 | cut -d/ -f1)
	[ -n "$top" ] || { echo "$0: $SRC: not a .tar.xz kernel source" >&2; rm -rf "$OUT"; exit 2; }
	pats=()
	for p in "${want[@]}"; do pats+=("$top/$p/*"); done
	for p in $(touched); do pats+=("$top/$p"); done
	tar -xJf "$SRC" -C "$OUT" --strip-components=1 --wildcards "${pats[@]}" 2>/dev/null
else
	echo "$0: $SRC: no such directory or tarball" >&2
	rm -rf "$OUT"
	exit 2
fi
[ -d "$OUT/kernel/locking" ] || { echo "$0: $SRC has no kernel/locking" >&2; exit 1; }

g() { git -C "$OUT" -c user.name=make-cna-tree -c user.email=make-cna-tree@localhost "$@"; }
g init -q && g add -A && g commit -qm "stock tree from $(basename "$SRC")" && g tag stock || exit 1

# Rebase the rejected hunks (FILE.rej) that only add lines.
rebase_rejects() {
	python3 - "$OUT" <<'PY'
import pathlib, re, sys
root = pathlib.Path(sys.argv[1])
ok = True
for rej in sorted(root.rglob("*.rej")):
    target = pathlib.Path(str(rej)[:-4])
    rel = target.relative_to(root)
    text = target.read_text()
    for hunk in re.split(r"^@@.*@@.*\n", rej.read_text(), flags=re.M)[1:]:
        lines = hunk.splitlines(keepends=True)
        lead, add, rest = [], [], False
        for l in lines:
            if l.startswith("-") or (rest and l.startswith("+")):
                lead = None
                break
            if l.startswith("+"):
                add.append(l[1:])
            elif add:
                rest = True
            else:
                lead.append(l[1:])
        ctx = "".join(lead or [])
        if lead is None or not ctx or text.count(ctx) != 1:
            print(f"{rel}: a rejected hunk (see {rel}.rej) needs rebasing by hand")
            ok = False
            break
        at = text.index(ctx) + len(ctx)
        text = text[:at] + "".join(add) + text[at:]
        print(f"rebased: {rel}: {len(add)} added lines after their leading context")
    else:
        target.write_text(text)
        rej.unlink()
sys.exit(0 if ok else 1)
PY
}

for m in "${mails[@]}"; do
	id=$(sed -n 's/^[Mm]essage-[Ii][Dd]: *//p' "$m" | head -n 1)
	if g am -q --message-id -3 "$m" >/dev/null 2>&1; then
		echo "applied: $id"
		continue
	fi
	g apply --reject "$(g rev-parse --git-path rebase-apply/patch)" >/dev/null 2>&1
	if ! rebase_rejects; then
		echo "stopped at $id (in $OUT: git am --show-current-patch)"
		exit 1
	fi
	g add -A && g am -q --continue >/dev/null || { echo "stopped at $id"; exit 1; }
	echo "applied with rebasing: $id"
done
echo "made $OUT: $(g rev-list --count stock..HEAD) commits on the stock tree"
