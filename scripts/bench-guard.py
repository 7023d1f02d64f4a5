#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The hot-path regression guard's verdict (scripts/bench-guard.sh).

    bench-guard.py EXPECTED < RESULT lines           compare; exit 1 on a regression
    bench-guard.py --calibrate EXPECTED < RESULT lines   rewrite EXPECTED

Each metric is what utrace-rs adds on a hot path, in guest instructions per
operation (QEMU -icount shift=0, one vCPU: deterministic to a fraction of a
percent for the syscall rows). A metric fails when it exceeds the committed
number by more than TOLERANCE of it plus its row's own noise allowance.
"""
import sys

TOLERANCE = 0.05


def metrics(rows):
    m = {}

    def r(w, c):
        return rows.get((w, c))

    if r("getppid", "floor") and r("getppid", "sys_untraced"):
        # Each getppid row repeats to about +-5 instructions on the test
        # kernel: a difference of two, to about 10.
        m["syscall_untraced_share"] = (r("getppid", "sys_untraced") - r("getppid", "floor"), 10)
    if r("getppid", "floor") and r("getppid", "sys_traced"):
        m["syscall_traced_share"] = (r("getppid", "sys_traced") - r("getppid", "floor"), 10)
    if r("getppid", "sys_traced") and r("getppid", "engines_10"):
        m["syscall_per_engine"] = ((r("getppid", "engines_10") - r("getppid", "sys_traced")) / 9, 3)
    base = r("forkexit", "base")
    if base:
        # fork+exit repeats to within 1 % of its own cost in one boot, but
        # a row's level moves by about 1 % between boots, and the share is
        # the difference of two rows: 2 % of the base (three boots of one
        # commit gave fork_global_share 16,052, 16,702 and 22,575).
        for c, name in (("global", "fork_global_share"), ("gtrace_reader", "fork_gtrace_reader_share")):
            if r("forkexit", c):
                m[name] = (r("forkexit", c) - base, 0.02 * base)
    if r("attach", "kernel"):
        m["attach_detach_put"] = (r("attach", "kernel"), 20)
    return m


def main():
    calibrate = sys.argv[1] == "--calibrate"
    path = sys.argv[2] if calibrate else sys.argv[1]
    rows = {}
    for line in sys.stdin:
        f = line.split()
        if len(f) >= 6 and f[0] == "RESULT":
            rows[(f[1], f[2])] = float(f[3])
    got = metrics(rows)
    if calibrate:
        with open(path, "w") as out:
            out.write("# The hot-path regression guard's numbers (scripts/bench-guard.sh):\n"
                      "# guest instructions per operation on the test kernel under QEMU\n"
                      "# -icount. Recalibrate with `make bench-guard CALIBRATE=1` (see\n"
                      "# Documentation/utrace-rs/benchmarks.rst) and commit the result.\n")
            for k, (v, _) in got.items():
                out.write(f"{k} {v:.1f}\n")
        print(f"bench-guard: wrote {len(got)} numbers to {path}")
        return 0
    want = {}
    with open(path) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                k, v = line.split()
                want[k] = float(v)
    if not want:
        print(f"bench-guard: no numbers committed in {path} yet "
              "(make bench-guard CALIBRATE=1): nothing compared")
        for k, (v, _) in got.items():
            print(f"bench-guard: {k}: {v:,.1f}")
        return 0
    bad = 0
    for k, w in want.items():
        if k not in got:
            print(f"bench-guard: {k}: not measured")
            bad = 1
            continue
        v, noise = got[k]
        limit = w * (1 + TOLERANCE) + noise
        verdict = "ok" if v <= limit else "REGRESSION"
        if v > limit:
            bad = 1
        note = " (much better: recalibrate to keep the gain)" if v < w * 0.9 - noise else ""
        print(f"bench-guard: {k}: {v:,.1f} (committed {w:,.1f}, limit {limit:,.1f}): {verdict}{note}")
    return bad


if __name__ == "__main__":
    sys.exit(main())
