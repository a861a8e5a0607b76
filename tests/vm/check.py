#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Check what tests/vm/guest.sh gathered in a scripts/vm.sh guest.

check.py OUT NODES PER THR STEP...: one line per check, "ok WHAT" or
"FAIL WHAT: why", for tests/e2e_vm.sh to count.  The facts come from
the guest's own kernel (sysfs, /proc/PID/task/*/status, numa_maps,
/proc/sys/kernel/numa_balancing, dmesg); the placement each policy
should give is worked out here from the guest's sysfs as docs/guide.md
and `lockbench list placements` describe it, not taken from lockbench.
"""
import json
import os
import re
import sys

OUT = sys.argv[1]
NODES, PER, THR = (int(x) for x in sys.argv[2:5])
STEPS = sys.argv[5:]
# A run may take its warm-up and window plus this long to end: start-up,
# calibration and the threads' exit under TCG, where 16 or 64 emulated
# CPUs take turns on one host thread (docs/vm.md); 20 s, and the
# watchdog's 300 s at 64 threads (VM_END_BOUND_S).
END_BOUND_S = float(os.environ.get("VM_END_BOUND_S", "20"))
failed = 0


def ok(what):
    print("ok " + what)


def bad(what, why):
    global failed
    failed += 1
    print("FAIL %s: %s" % (what, why))


def check(cond, what, why=""):
    (ok if cond else lambda w: bad(w, why))(what)
    return cond


def read(name):
    try:
        with open(os.path.join(OUT, name)) as f:
            return f.read()
    except OSError:
        return None


def load(name):
    s = read(name)
    try:
        return json.loads(s) if s is not None else None
    except ValueError:
        return None


def cpulist(s):
    out = []
    for part in s.strip().split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def sysfs():
    """cpu -> (package, core, siblings), node -> (cpus, distances)."""
    cpus, nodes = {}, {}
    for line in (read("sysfs.txt") or "").splitlines():
        f = line.split()
        if f[0] == "cpu":
            cpus[int(f[1])] = (int(f[2]), int(f[3]), cpulist(f[4]))
        elif f[0] == "node":
            nodes[int(f[1])] = (cpulist(f[2]), [int(x) for x in f[3:]])
    return cpus, nodes


CPUS, NODE = sysfs()
NODE_OF = {c: n for n, (cl, _) in NODE.items() for c in cl}


def hwloc_order():
    """PUs as hwloc lists them: node, package, core, then OS index."""
    return sorted(CPUS, key=lambda c: (NODE_OF[c], CPUS[c][0], CPUS[c][1], c))


def smt_rank(c):
    return CPUS[c][2].index(c)


def cores_order(nodes=None):
    o = [c for c in hwloc_order() if nodes is None or NODE_OF[c] in nodes]
    return sorted(o, key=smt_rank)  # stable: SMT siblings last


def spread_order():
    pkg_of = {n: CPUS[cl[0]][0] for n, (cl, _) in NODE.items() if cl}
    npkg = max(pkg_of.values()) + 1
    rank = {}
    for n in sorted(pkg_of):
        idx = sum(1 for m in pkg_of if m < n and pkg_of[m] == pkg_of[n])
        rank[n] = idx * npkg + pkg_of[n]
    queues = [[c for c in cores_order() if NODE_OF[c] == n]
              for n in sorted(rank, key=lambda n: rank[n])]
    out = []
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


def expected(policy, t):
    if policy == "cores":
        o = cores_order()
    elif policy == "smt":
        o = hwloc_order()
    elif policy == "spread":
        o = spread_order()
    elif policy.startswith("node:"):
        o = cores_order(set(cpulist(policy[5:])))
    elif policy.startswith("cpus:"):
        o = [int(x) for x in policy[5:].split(",")]
    else:
        return None
    return [o[i % len(o)] for i in range(t)]


def tasks(name):
    """(tid, allowed cpus, last cpu) of every task of the run."""
    out = []
    for line in (read(name) or "").splitlines():
        f = line.split()
        if len(f) == 3:
            out.append((int(f[0]), cpulist(f[1]), int(f[2])))
    return out


def check_topo():
    t = load("topo.json")
    if not check(t is not None and read("topo.rc").strip() == "0", "topo ran",
                 "exit %s: %s" % (read("topo.rc"), read("topo.err"))):
        return
    want_cores = len({(p, c) for p, c, _ in CPUS.values()})
    check(len(CPUS) == NODES * PER, "guest has %d CPUs" % (NODES * PER), len(CPUS))
    check(len(NODE) == NODES, "guest has %d nodes" % NODES, len(NODE))
    for key, want in (("pus", len(CPUS)), ("cores", want_cores),
                      ("packages", len({p for p, _, _ in CPUS.values()})),
                      ("numa_nodes", len(NODE))):
        check(t.get(key) == want, "topo %s = sysfs %d" % (key, want), t.get(key))
    got = {n["node"]: (cpulist(n["cpus"]), n["distances"]) for n in t["nodes"]}
    for n, (cl, dist) in NODE.items():
        g = got.get(n, (None, None))
        check(g[0] == cl, "topo node %d cpus = sysfs" % n, "%s vs %s" % (g[0], cl))
        check(g[1] == dist, "topo node %d distances = sysfs" % n, "%s vs %s" % (g[1], dist))


def check_place(policy, t):
    name = "place-%s-%s" % (policy.replace(":", "_").replace(",", "_"), t)
    what = "placement %s at %s threads" % (policy, t)
    if not check(read(name + ".rc") is not None and read(name + ".rc").strip() == "0",
                 what + ": run ended 0", "%s %s" % (read(name + ".rc"), read(name + ".err"))):
        return
    ts = tasks(name + ".tasks")
    t = int(t)
    if policy == "none":
        full = list(range(len(CPUS)))
        check(ts and all(a == full for _, a, _ in ts), what + ": no task pinned",
              [a for _, a, _ in ts if a != full])
        return
    pinned = [(a[0], last) for _, a, last in ts if len(a) == 1]
    want = expected(policy, t)
    check(sorted(c for c, _ in pinned) == sorted(want),
          what + ": workers' affinity (/proc) = the documented CPUs",
          "pinned %s, documented %s" % (sorted(c for c, _ in pinned), sorted(want)))
    check(all(c == last for c, last in pinned), what + ": each worker last ran on its CPU",
          [(c, last) for c, last in pinned if c != last])
    j = load(name + ".json")
    cl = [th["cpu"] for th in j["placement"]["threads"]] if j else None
    check(cl == want, what + ": JSON placement in the documented order", "%s vs %s" % (cl, want))


def numa_maps(name):
    """[(policy, {node: pages})] of every mapping with pages."""
    out = []
    for line in (read(name) or "").splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        pages = {int(m.group(1)): int(m.group(2)) for m in
                 (re.match(r"N(\d+)=(\d+)$", x) for x in f[2:]) if m}
        out.append((f[1], pages))
    return out


def check_mem(mode, policy):
    name = "mem-%s-%s" % (mode, policy.replace(":", "_").replace(",", "_"))
    what = "--mem-node %s -p %s" % (mode, policy)
    if not check((read(name + ".rc") or "").strip() == "0", what + ": run ended 0",
                 "%s %s" % (read(name + ".rc"), read(name + ".err"))):
        return
    maps = numa_maps(name + ".maps")
    if mode == "interleave":
        il = [(p, pg) for p, pg in maps if p.startswith("interleave:")]
        allnodes = sorted(NODE)
        check(il and all(cpulist(p.split(":")[1]) == allnodes for p, _ in il),
              what + ": numa_maps has interleave mappings over every node", il or maps)
        check(il and all(set(pg) <= set(allnodes) and pg for _, pg in il),
              what + ": their pages on those nodes", il)
        return
    node = int(mode) if mode != "local" else NODE_OF[expected(policy, 1)[0]]
    binds = [(p, pg) for p, pg in maps if p.startswith("bind:")]
    check(binds and all(cpulist(p.split(":")[1]) == [node] for p, _ in binds),
          what + ": numa_maps binds the lock's memory to node %d" % node, binds or maps)
    check(binds and all(set(pg) == {node} for _, pg in binds),
          what + ": its pages are on node %d" % node, binds)


def check_locks(tl, only=None):
    what = "%s at %s threads" % (only or "every built-in lock", tl)
    f = (read("locks.rc") or "").split()
    j = load("locks.json")
    if not check(len(f) == 3 and f[0] == "0" and j, what + ": exit 0",
                 "%s: %s" % (f, (read("locks.err") or "")[-600:])):
        return
    want_t = sorted(int(x) for x in tl.split(","))
    names = [v["name"] for v in j["variants"]]
    if only:
        check(names == only.split(","), what + ": every one ran", names)
    else:
        check(len(names) >= 28 and "cna" in names and "qrwlock" in names and "rtmutex" in names,
              what + ": every one ran", names)
    for v in names:
        pts = [p for p in j["points"] if p["variant"] == v]
        check(sorted(p["threads"] for p in pts) == want_t and
              all(p["status"] == "ok" for p in pts), "%s at %s threads: every point ok" % (v, tl),
              [(p["threads"], p["status"]) for p in pts])
        ex = [r["exclusion"] for p in pts for r in p.get("runs", [])]
        check(ex and all(e["ok"] for e in ex) and
              (v == "null" or all(e["checked"] for e in ex)),
              "%s at %s threads: exclusion checked and held" % (v, tl), ex)
    nruns = sum(len(p.get("runs", [])) for p in j["points"])
    c = j["config"]
    budget = nruns * (c["warmup_s"] + c["duration_s"] + END_BOUND_S)
    took = float(f[2]) - float(f[1])
    check(took <= budget, what + ": the %d runs ended within their windows + %g s each"
          % (nruns, END_BOUND_S), "%.1f s, bound %.1f s" % (took, budget))


def check_sig(sig):
    what = "SIG%s in a 16-thread window" % sig
    f = (read("sig-%s.rc" % sig) or "").split()
    if not check(len(f) == 3, what + ": run ended", f):
        return
    rc, t0, t1 = int(f[0]), float(f[1]), float(f[2])
    j = load("sig-%s.json" % sig)
    if sig == "INT":
        # ignored at start (a background job of a shell without job
        # control): kept ignored, the 3 s window runs out (lockbench.1)
        check(rc == 0 and j and j["points"][0]["status"] == "ok",
              what + ": ignored at start, so the run completes (lockbench.1)",
              "exit %d: %s" % (rc, read("sig-%s.err" % sig)))
        return
    check(rc == 1, what + ": exit 1 (interrupted, lockbench.1)",
          "exit %d: %s" % (rc, read("sig-%s.err" % sig)))
    check(t1 - t0 <= END_BOUND_S, what + ": ended within %g s" % END_BOUND_S, "%.1f s" % (t1 - t0))
    check(j is not None, what + ": the JSON still written", read("sig-%s.err" % sig))


def check_numab():
    st = {}
    for line in (read("numab.txt") or "").splitlines():
        f = line.split()
        st[f[0]] = f[1:]
    before = st.get("before", ["?"])[0]
    check(before == "1", "numa_balancing: on in the multi-node guest", before)
    for k in ("during", "during-term", "during-kill"):
        check(st.get(k) == ["0"], "numa_balancing: off during the run (%s)" % k, st.get(k))
    check(st.get("end") == ["0", before], "numa_balancing: restored after a normal end", st.get("end"))
    check(st.get("term", ["?"])[1:] == [before], "numa_balancing: restored after SIGTERM", st.get("term"))
    check(st.get("kill", ["?"])[1:] == ["0"], "numa_balancing: left off by SIGKILL", st.get("kill"))
    check(st.get("reset") == ["0", before], "numa_balancing: restored by system reset", st.get("reset"))
    err = read("numab-end.err") or ""
    freq = [line for line in err.splitlines() if "cpufreq" in line]
    check(len(freq) == 1 and st.get("end", ["?"])[0] == "0",
          "no cpufreq in the guest: one line, not an error", err)
    check(st.get("show") == ["0"], "system show on a guest without cpufreq: exit 0",
          read("numab-show.err"))


def check_cna(t):
    j = load("cna.json")
    if not check(j and (read("cna.rc") or "").strip() == "0", "cna on real nodes ran",
                 read("cna.err")):
        return
    check(j["config"].get("fake_nodes", 0) in (0, None) and "map_topology" not in j["config"],
          "cna: real nodes, no --fake-nodes or --map-topology", j["config"])
    runs = [r for p in j["points"] for r in p["runs"]]
    sec = sum(r.get("counters", {}).get("moves_to_secondary", 0) for r in runs)
    check(sec > 0, "cna: the secondary queue taken on %d real nodes" % NODES,
          [r.get("counters") for r in runs])


def check_ktree(t):
    """A kernel tree's stock and CNA qspinlock, built on the host and
    loaded with --plugin, over the guest's real nodes."""
    what = "kernel-tree stock and CNA at %s threads" % t
    f = (read("ktree.rc") or "").split()
    j = load("ktree.json")
    if not check(len(f) == 3 and f[0] == "0" and j, what + ": exit 0",
                 "%s: %s" % (f, (read("ktree.err") or "")[-600:])):
        return
    c = j["config"]
    check(c.get("fake_nodes", 0) in (0, None) and c.get("map_topology") is None,
          what + ": real nodes, no --fake-nodes or --map-topology",
          {k: c.get(k) for k in ("fake_nodes", "map_topology")})
    v = {x["name"]: x for x in j["variants"]}
    check(sorted(v) == ["qspinlock_cna", "qspinlock_stock"] and
          all(x.get("plugin", "").startswith("/in/ktree/") for x in v.values()),
          what + ": both tree locks loaded from the host's plugins", sorted(v))
    fl = {n: (x.get("source") or {}).get("cflags", "") for n, x in v.items()}
    check("-DCONFIG_NUMA_AWARE_SPINLOCKS" in fl.get("qspinlock_cna", "") and
          "-DCONFIG_NUMA_AWARE_SPINLOCKS" not in fl.get("qspinlock_stock", "-D"),
          what + ": the CNA build, and only it, built CNA's slow path", fl)
    want = [NODE_OF[cpu] for cpu in expected("spread", int(t))]
    got = [th["node"] for th in j["placement"]["threads"]]
    check(got == want and len(set(got)) == min(NODES, int(t)),
          what + ": the workers' nodes are the guest's real ones", "%s vs %s" % (got, want))
    pts = j["points"]
    check(sorted(p["variant"] for p in pts) == sorted(v) and
          all(p["status"] == "ok" and p["threads"] == int(t) for p in pts),
          what + ": every point ok", [(p["variant"], p["threads"], p["status"]) for p in pts])
    ex = [r["exclusion"] for p in pts for r in p["runs"]]
    check(ex and all(e["checked"] and e["ok"] for e in ex),
          what + ": exclusion checked and held", ex)
    budget = len(ex) * (c["warmup_s"] + c["duration_s"] + END_BOUND_S)
    check(float(f[2]) - float(f[1]) <= budget, what + ": the runs ended within their windows + %g s"
          % END_BOUND_S, "%.1f s, bound %.1f s" % (float(f[2]) - float(f[1]), budget))
    cna = [r.get("counters", {}) for p in pts if p["variant"] == "qspinlock_cna" for r in p["runs"]]
    check(cna and sum(x.get("mcs_handoff_2nd", 0) for x in cna) > 0,
          what + ": the CNA tree's secondary queue taken on %d real nodes" % NODES, cna)


def check_lt(tl):
    want_t = [int(x) for x in tl.split(",")]
    check((read("lt-check.rc") or "").strip() == "0", "locktorture --check: the real module loads",
          "%s %s" % (read("lt-check.rc"), read("lt-check.err")))
    for ty in ("rtmutex_lock", "mutex_lock", "spin_lock", "rwsem_lock"):
        what = "locktorture %s" % ty
        j = load("lt-%s.json" % ty)
        if not check(j and (read("lt-%s.rc" % ty) or "").strip() == "0", what + ": exit 0",
                     "%s %s" % (read("lt-%s.rc" % ty), read("lt-%s.err" % ty))):
            continue
        pts = j["points"]
        check(sorted(p["threads"] for p in pts) == want_t and all(p["status"] == "ok" for p in pts),
              what + ": a row per writer count, ok", [(p["threads"], p["status"]) for p in pts])
        for ld in j["placement"]["loads"]:
            w = [k for k in ld["kthreads"] if k["role"] == "writer"]
            n = ld["nwriters_stress"]
            check(len(w) == n and all(k["pinned"] for k in w) and
                  [k["cpu"] for k in w] == expected("spread", n),
                  what + ": %d writer kthreads found and pinned where spread puts them" % n, w)
        dm = read("lt-%s.dmesg" % ty) or ""
        check(dm.count("End of test: SUCCESS") == len(want_t) and "End of test: FAILURE" not in dm,
              what + ": the kernel's log says SUCCESS for every load", dm[-300:])
        imp = load("lt-%s-import.json" % ty)
        ir = (read("lt-%s-import.rc" % ty) or "").strip()
        check(imp and ir == "0" and sorted(p["threads"] for p in imp["points"]) == want_t,
              what + ": import locktorture reads the guest's dmesg", read("lt-%s-import.err" % ty))
        tab = read("lt-%s.txt" % ty) or ""
        rows = re.findall(r"^(\d+)\s+[0-9.]+", tab, re.M)
        check(re.search(r"^Kernel:\s+%s$" % ty, tab, re.M) and "nwriters_stress:" in tab and
              [int(r) for r in rows] == want_t,
              what + ": a table in the rtmutex locktorture layout, a row per writer count", tab)
        itab = read("lt-%s-import.txt" % ty) or ""
        row = re.compile(r"^\d+\s.*$", re.M)
        check(row.findall(tab) and row.findall(itab) == row.findall(tab),
              what + ": import locktorture of the guest's dmesg prints the same rows", itab)


for step in STEPS:
    name, _, rest = step.partition("/")
    args = rest.split("/") if rest else []
    {"place": check_place, "mem": check_mem, "locks": check_locks, "sig": check_sig,
     "numab": check_numab, "cna": check_cna, "ktree": check_ktree, "lt": check_lt}[name](*args)
check_topo()
sys.exit(1 if failed else 0)
