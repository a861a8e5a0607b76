#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# e2e_machine.sh - `lockbench system show|tune|reset` against a fake tree.
#
# Assumes the binary reads LOCKBENCH_SYSROOT (sysfs root) and
# LOCKBENCH_STATE (state file path) as topology/machine.h suggests.
# Usage: tests/e2e_machine.sh [path/to/lockbench]; exits 77 (skip) when
# the binary is missing or has no `system` command yet.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-${LOCKBENCH:-$here/../lockbench}}
[ -x "$bin" ] || { echo "skip: no binary at $bin"; exit 77; }

OUT=$(mktemp -d)
mkfake=$OUT/mkfake
dirs=()
cleanup() { rm -rf "$OUT"; for d in "${dirs[@]}"; do rm -rf "$d"; done; }
trap cleanup EXIT
. "$here/lib.sh"
build_mkfake

check() {	# check NAME CONDITION...
	local name=$1; shift
	if "$@"; then ok; else bad "$name"; fi
}
tree() {	# tree FLAVOUR: new fake tree, exports the env for it
	local d; d=$("$mkfake" "$@") || exit 1
	dirs+=("$d")
	export LOCKBENCH_SYSROOT=$d/root LOCKBENCH_STATE=$d/state/state.json
	root=$d/root
}
cpu=/sys/devices/system/cpu

tree acpi
"$bin" system show >/dev/null 2>&1 || { echo "skip: '$bin system show' fails"; exit 77; }
out=$("$bin" system show 2>&1)
check "show warns about the governor" grep -q "warning: governor schedutil" <<<"$out"
check "show warns about boost" grep -q "warning: boost/turbo is on" <<<"$out"

"$bin" system tune >/dev/null 2>&1
check "tune exits 0" [ $? -eq 0 ]
check "tune leaves userspace" [ "$(cat $root$cpu/cpu0/cpufreq/scaling_governor)" = userspace ]
check "tune keeps the state file" [ -f "$LOCKBENCH_STATE" ]
"$bin" system reset >/dev/null 2>&1
check "reset exits 0" [ $? -eq 0 ]
check "reset restores the governor" [ "$(cat $root$cpu/cpu0/cpufreq/scaling_governor)" = schedutil ]
check "reset restores boost" [ "$(cat $root$cpu/cpufreq/boost)" = 1 ]
check "reset removes the state file" [ ! -e "$LOCKBENCH_STATE" ]
out=$("$bin" system reset 2>&1)
check "second reset: nothing to restore" grep -q "nothing to restore" <<<"$out"

tree nofreq
out=$("$bin" system show 2>&1)
check "no cpufreq is reported" grep -q "no cpufreq" <<<"$out"

# The environment items from the tree, as text and as JSON (-f json).
mkdir -p "$root/sys/devices/system/clocksource/clocksource0" "$root/sys/kernel/mm/transparent_hugepage"
echo acpi_pm >"$root/sys/devices/system/clocksource/clocksource0/current_clocksource"
echo "tsc acpi_pm" >"$root/sys/devices/system/clocksource/clocksource0/available_clocksource"
echo "ro nohz_full=1-3 mitigations=off" >"$root/proc/cmdline"
echo "always madvise [never]" >"$root/sys/kernel/mm/transparent_hugepage/enabled"
out=$("$bin" system show 2>&1)
check "show: clocksource" grep -qx "clocksource      acpi_pm (available: tsc acpi_pm)" <<<"$out"
check "show: cmdline" grep -qx "cmdline          mitigations=off nohz_full=1-3" <<<"$out"
check "show: huge pages" grep -q "^huge pages       never" <<<"$out"
check "show: slow clocksource warned" grep -q "warning: clocksource acpi_pm is slow" <<<"$out"
out=$("$bin" system show -f json 2>&1)
check "show -f json" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["clocksource"]["current"] == "acpi_pm", d["clocksource"]
assert d["cmdline"]["notable"] == {"nohz_full": "1-3", "mitigations": "off"}, d["cmdline"]
assert d["thp"] == {"enabled": "never", "defrag": None}, d["thp"]
assert d["cpuidle"] is None and "preemption" in d and "hypervisor" in d
assert len(d["cpus"]) == 4
' "$out"
"$bin" system show -f csv >/dev/null 2>&1
check "show -f csv is exit 2" [ $? -eq 2 ]

e2e_done
