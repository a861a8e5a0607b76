# SPDX-License-Identifier: MIT
"""The host takes of the delay benches (scripts/bench-delays.sh,
scripts/bench-delays-hosts.sh): each runs `lockbench system check -f json`
before and after its delays into DIR/check-before.json and
DIR/check-after.json; f is the mean of their host_takes.fraction (the
share of a CPU the host takes away without reporting steal:
docs/method.md, "Host takes")."""
import json
import statistics


def host_takes(d):
    """(f, known, said): f (0 when neither check has it), whether either
    had it, and what each said, for the report's heading."""
    x = []
    for when in ("before", "after"):
        try:
            v = json.load(open("%s/check-%s.json" % (d, when)))["host_takes"]["fraction"]
        except (OSError, ValueError, KeyError, TypeError):
            v = None
        x.append(v)
    got = [v for v in x if v is not None]
    said = ", ".join("%s %s" % (w, "-" if v is None else "%.2f%%" % (100 * v))
                     for w, v in zip(("before", "after"), x))
    return (statistics.mean(got) if got else 0.0), bool(got), said
