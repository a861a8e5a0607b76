#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# End-to-end tests of `lockbench locktorture` against a fake locktorture
# (tests/fakelt/fake_modprobe.c) in a fake /sys + /proc tree: the JSON
# and the nwriters_stress table, pinning with the placement's CPUs, the
# machine restored after SIGINT and after kill -9 + `system reset`, a
# writer reporting Fail, a kthread that cannot be pinned, a module that
# refuses to load, a kernel without modules.  No real module is loaded
# and no real /sys, /proc or /dev/kmsg is written.
#
# usage: tests/e2e_locktorture.sh [./lockbench]
set -u
BIN=$(realpath "${1:-./lockbench}")
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$(mktemp -d)
dirs=()
bgpid=
cleanup() {
	[ -n "$bgpid" ] && kill -9 "$bgpid" 2>/dev/null
	lt_cleanup
}
trap cleanup EXIT
. "$HERE/lib.sh"

build_mkfake
build_fake_modprobe
export LOCKBENCH_MODPROBE=$OUT/fake_modprobe
cpu=/sys/devices/system/cpu

# tree [noloader]: a fake machine (acpi cpufreq) that can load the fake
# locktorture, unless noloader (a kernel without module support).
tree() {
	local d
	d=$("$OUT/mkfake" acpi) || exit 1
	dirs+=("$d")
	export LOCKBENCH_SYSROOT=$d/root LOCKBENCH_STATE=$d/state/state.json
	R=$d/root
	lt_machine "$d" "${1:-}"
}

# restored WHAT: the fake machine is as it was and nothing is loaded.
restored() {
	[ "$(cat "$R$cpu/cpu0/cpufreq/scaling_governor")" = schedutil ] &&
		[ "$(cat "$R$cpu/cpufreq/boost")" = 1 ] && [ ! -e "$LOCKBENCH_STATE" ] &&
		[ ! -e "$R/sys/module/locktorture" ] && ok || bad "$1: machine not restored"
}

# wait_loaded: until the fake module is in, at most 10 s.
wait_loaded() {
	for _ in $(seq 100); do
		[ -e "$R/sys/module/locktorture" ] && return 0
		sleep 0.1
	done
	return 1
}

# ---- a sweep: JSON, table, pinning, restore --------------------------------
tree
expect_exit 0 "sweep" -- "$BIN" locktorture -t 1,2 -r 2 --warmup 0 -d 2 -q \
	-f table,json -o "$OUT/lt.json"
grep -q "^nwriters_stress:$" "$OUT/stdout" && grep -q "^Kernel:  *spin_lock$" "$OUT/stdout" &&
	grep -Eq "^1  +[0-9]+\.[0-9]{2}  +[0-9]+\.[0-9]{2}" "$OUT/stdout" &&
	grep -Eq "^2  +[0-9]+\.[0-9]{2}  +[0-9]+\.[0-9]{2}" "$OUT/stdout" && ok ||
	bad "sweep: nwriters_stress table: $(cat "$OUT/stdout")"
"$BIN" topo -p cores -t 2 | awk '$1 ~ /^[0-9]+$/ {print $2}' >"$OUT/cpus"
python3 - "$OUT/lt.json" "$OUT/cpus" <<'EOF' && ok || bad "sweep: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
want = [int(x) for x in open(sys.argv[2]).read().split()]
assert d["workload"] == "locktorture" and d["row_heading"] == "nwriters_stress"
assert d["config"]["command"] == "locktorture" and d["config"]["torture_type"] == "spin_lock"
assert [v["name"] for v in d["variants"]] == ["spin_lock"]
assert sorted(p["threads"] for p in d["points"]) == [1, 2]
for p in d["points"]:
    assert p["status"] == "ok" and len(p["runs"]) == 2, p
    assert p["summary"]["std"] is not None
    for r in p["runs"]:
        # --warmup 0 -d 2 --stat-interval 1: two measured intervals.
        assert r["locktorture"]["intervals"] == 2, r["locktorture"]
        # The fake's rates: about a million acquisitions per second.
        assert 2e5 < r["ops_per_sec"] < 3e6, r["ops_per_sec"]
loads = d["placement"]["loads"]
assert len(loads) == 4 and d["placement"]["policy"] == "cores"
for l in loads:
    kt = l["kthreads"]
    assert len(kt) == l["nwriters_stress"], l
    # Writer i on the placement's CPU i, pinned.
    assert [k["cpu"] for k in kt] == want[:len(kt)], (kt, want)
    assert all(k["pinned"] and k["role"] == "writer" for k in kt), kt
assert any(c["new"] == "userspace" for c in d["config"]["machine_changes"])
EOF
# What the fake saw when its workers were stopped: the last load's two
# writers, each allowed on its placement CPU only.
awk '{print $3}' "$R/fakelt/affinity" | tr '\n' ' ' | grep -qx "$(head -2 "$OUT/cpus" | tr '\n' ' ')" &&
	ok || bad "sweep: affinity seen by the fake: $(cat "$R/fakelt/affinity")"
grep -q "^1,[0-9]*,[0-9]*,-;spin_lock-torture:--- Start of test: .* long_hold=0 .*nwriters_stress=2 .*stat_interval=1 " \
	"$R/dev/kmsg" && grep -q "shutdown_secs=0" "$R/dev/kmsg" && grep -q " shuffle_interval=0 " "$R/dev/kmsg" &&
	ok || bad "sweep: module parameters"
restored "sweep"

# ---- the kernel run next to a userspace torture run: one table ------------
# (--no-probe: a busy host would leave runs out, and the table's layout
# is under test here, not the host)
expect_exit 0 "userspace torture run" -- "$BIN" -w torture -l ticket -t 1,2 -r 2 --warmup 0.1 -d 0.2 \
	--no-tune --no-probe -q --label user -f json -o "$OUT/user.json"
expect_exit 0 "compare kernel and userspace" -- "$BIN" compare "$OUT/lt.json" "$OUT/user.json"
sed -n 1p "$OUT/stdout" | grep -q "^Kernel:  *lt\[k\]  *user$" && grep -q "^nwriters_stress:$" "$OUT/stdout" &&
	grep -Eq "^2  +[0-9.]+[!^]*  +[0-9.]+\??  +[0-9.]+[!^]*  +[0-9.]+\??  +[-+][0-9]+%" "$OUT/stdout" &&
	grep -q "^\[k\] the kernel's locktorture (kthreads" "$OUT/stdout" && ok ||
	bad "compare kernel and userspace: $(cat "$OUT/stdout")"
expect_exit 2 "compare kernel and lkp" -- "$BIN" compare "$OUT/lt.json" "$HERE/golden/lkp/lkp-aligned.json"

# ---- a writer reports Fail -------------------------------------------------
tree
FAKELT_FAIL=1 "$BIN" locktorture -t 2 -r 1 --warmup 0 -d 3 -q -o "$OUT/f.json" -f json \
	>/dev/null 2>"$OUT/err"
rc=$?
[ $rc -eq 1 ] && grep -q "^lockbench: spin_lock nwriters_stress=2: locktorture reported a failure (kernel log of run 1, nwriters_stress=2 line [0-9]*: Fail > 0)$" "$OUT/err" &&
	python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["points"][0]; assert p["status"] == "failed"' "$OUT/f.json" &&
	ok || bad "Fail: exit $rc: $(cat "$OUT/err")"
restored "Fail"

# ---- a kthread that cannot be pinned ----------------------------------------
tree
FAKELT_UNPINNABLE=1 "$BIN" locktorture -t 1 -r 1 --warmup 0 -d 2 -o "$OUT/u.json" -f json \
	>/dev/null 2>"$OUT/err"
rc=$?
[ $rc -eq 0 ] && grep -q "^lockbench: warning: cannot pin lock_torture_wr (pid 4194999) to cpu [0-9]*: No such process; it runs where the scheduler puts it$" "$OUT/err" &&
	python3 - "$OUT/u.json" <<'EOF' && ok || bad "unpinnable: exit $rc: $(cat "$OUT/err")"
import json, sys
(l,) = json.load(open(sys.argv[1]))["placement"]["loads"]
byp = {k["pid"]: k for k in l["kthreads"]}
assert byp[4194999]["pinned"] is False and byp[4194999]["error"] == "No such process"
assert sum(k["pinned"] for k in l["kthreads"]) == 1
EOF
restored "unpinnable"
# -q leaves errors only: the failed pinning is in the JSON, not on stderr.
tree
FAKELT_UNPINNABLE=1 "$BIN" locktorture -t 1 -r 1 --warmup 0 -d 2 -q -o "$OUT/u.json" -f json \
	>/dev/null 2>"$OUT/err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$OUT/err" ] &&
	python3 -c 'import json,sys; l=json.load(open(sys.argv[1]))["placement"]["loads"][0]; assert any(not k["pinned"] for k in l["kthreads"])' "$OUT/u.json" &&
	ok || bad "unpinnable -q: exit $rc: $(cat "$OUT/err")"
restored "unpinnable -q"

# ---- kthreads under their full names ----------------------------------------
# Newer kernels (Debian's 6.1) show a kthread's full name in
# /proc/PID/comm, lock_torture_writer rather than lock_torture_wr: the
# kthreads are still found and pinned, a writer and a reader.
tree
FAKELT_FULLNAME=1 "$BIN" locktorture --torture-type rwsem_lock --nreaders 1 -t 1 -r 1 \
	--warmup 0 -d 2 -q -o "$OUT/n.json" -f json >/dev/null 2>"$OUT/err"
rc=$?
[ $rc -eq 0 ] &&
	python3 - "$OUT/n.json" <<'EOF' && ok || bad "full kthread names: exit $rc: $(cat "$OUT/err")"
import json, sys
(l,) = json.load(open(sys.argv[1]))["placement"]["loads"]
kt = l["kthreads"]
assert sorted(k["role"] for k in kt) == ["reader", "writer"], kt
assert all(k["pinned"] and k["cpu"] is not None for k in kt), kt
EOF
restored "full kthread names"

# ---- the module refuses to load -------------------------------------------
tree
FAKELT_REFUSE=1 expect_exit 3 "refused load" -- "$BIN" locktorture -t 1 -r 1 -d 1 -q -o "$OUT/r.json"
[ "$(wc -l <"$OUT/stderr")" -eq 1 ] &&
	grep -q "^lockbench: locktorture: cannot load locktorture (.*fake_modprobe exit 1): modprobe: ERROR: could not insert 'locktorture': Operation not permitted$" "$OUT/stderr" &&
	[ ! -e "$OUT/r.json" ] && ok || bad "refused load: $(cat "$OUT/stderr")"
restored "refused load"
expect_exit 3 "unknown type" -- "$BIN" locktorture -t 1 -r 1 -d 1 -q --torture-type spin_lokc
grep -q "Invalid argument" "$OUT/stderr" && grep -q 'invalid torture type: "spin_lokc"' "$R/dev/kmsg" &&
	ok || bad "unknown type: $(cat "$OUT/stderr")"

# ---- SIGINT: stop, unload, restore, keep what was measured -----------------
tree
"${SIGDFL[@]}" "$BIN" locktorture -t 1 -r 1 --warmup 0 -d 60 -q -f json -o "$OUT/int.json" 2>"$OUT/err" &
bgpid=$!
if wait_loaded; then
	sleep 3
	[ "$(cat "$R$cpu/cpu0/cpufreq/scaling_governor")" = userspace ] && ok || bad "SIGINT: not tuned while running"
	kill -INT $bgpid
fi
wait $bgpid
rc=$?
bgpid=
[ $rc -eq 1 ] && grep -q "interrupted" "$OUT/err" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["incomplete"] is True and d["points"][0]["runs"]' "$OUT/int.json" &&
	ok || bad "SIGINT: exit $rc: $(cat "$OUT/err")"
restored "SIGINT"

# ---- kill -9, then system reset ----------------------------------------------
tree
"$BIN" locktorture -t 2 -r 1 --warmup 0 -d 60 -q -f json -o "$OUT/k.json" 2>/dev/null &
bgpid=$!
wait_loaded && sleep 1
kill -9 $bgpid
wait $bgpid 2>/dev/null
bgpid=
[ -e "$R/sys/module/locktorture" ] && [ -e "$LOCKBENCH_STATE" ] &&
	[ "$(cat "$R$cpu/cpu0/cpufreq/scaling_governor")" = userspace ] && ok ||
	bad "kill -9: expected the module loaded and the machine tuned"
expect_exit 0 "system reset" -- "$BIN" system reset
grep -q "unloaded locktorture" "$OUT/stdout" "$OUT/stderr" && ok ||
	bad "system reset: no word of the module: $(cat "$OUT/stdout" "$OUT/stderr")"
grep -q "End of test" "$R/dev/kmsg" && ok || bad "system reset: the module did not end its test"
restored "kill -9 + system reset"

# ---- where locktorture cannot run ----------------------------------------
tree noloader
expect_exit 3 "no module support" -- "$BIN" locktorture -t 1 -q
[ "$(wc -l <"$OUT/stderr")" -eq 1 ] &&
	grep -q "^lockbench: locktorture cannot run here: this kernel cannot load modules" "$OUT/stderr" &&
	ok || bad "no module support: $(cat "$OUT/stderr")"
# This machine itself, reading only (--check loads nothing): a kernel
# without /proc/modules (this VM) says so in one line, exit 3.
if [ ! -e /proc/modules ]; then
	LOCKBENCH_SYSROOT= expect_exit 3 "this machine" -- "$BIN" locktorture --check
	[ "$(wc -l <"$OUT/stderr")" -eq 1 ] && grep -q "CONFIG_MODULES" "$OUT/stderr" && ok ||
		bad "this machine: $(cat "$OUT/stderr")"
fi
expect_exit 2 "bad type name" -- "$BIN" locktorture --torture-type "spin_lock nwriters_stress=9"
expect_exit 2 "bad stat interval" -- "$BIN" locktorture --stat-interval 0.5
expect_exit 2 "bad option" -- "$BIN" locktorture --frobnicate

e2e_done
