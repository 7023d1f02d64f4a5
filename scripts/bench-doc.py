#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write make bench's table into the documentation.

  bench-doc.py RESULTS TABLE OUT

RESULTS is a run's build/bench.results (its BENCH-COMMIT, BENCH-KERNEL and
BENCH-PREEMPT lines say what was measured), TABLE the markdown table
scripts/bench-table.py made of it (build/bench.md). OUT, normally
Documentation/utrace-rs/bench-results.inc, is the reST fragment that
benchmarks.rst includes: a line naming the commit and kernel, then the
table as a literal block. `make bench` (scripts/bench.sh) runs this after a
full run on the benchmark kernel; partial plans leave the file alone.
"""
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    info = {}
    with open(sys.argv[1]) as f:
        for line in f:
            key, _, rest = line.rstrip("\n").partition(" ")
            if key in ("BENCH-COMMIT", "BENCH-KERNEL", "BENCH-PREEMPT"):
                info[key] = rest
    preempt = info.get("BENCH-PREEMPT", "not reported")
    if preempt.startswith("fixed at build:"):
        # uname -v: keep the model, not the build's date
        model = [w for w in preempt.split() if "PREEMPT" in w]
        preempt = "fixed at build: " + (" ".join(model) or "none")
    with open(sys.argv[2]) as f:
        table = [line.rstrip() for line in f]
    if not any(line.startswith("| workload |") for line in table):
        sys.exit(f"bench-doc: {sys.argv[2]} holds no bench table")
    out = [
        ".. SPDX-License-Identifier: GPL-2.0",
        "",
        ".. Written by scripts/bench-doc.py from build/bench.results and",
        "   build/bench.md (make bench); do not edit by hand.",
        "",
        f"Commit ``{info.get('BENCH-COMMIT', 'unknown')}``, kernel "
        f"``{info.get('BENCH-KERNEL', 'unknown')}`` (preemption "
        f"{preempt}); guest instructions per "
        "operation under ``-icount shift=0``, one vCPU::",
        "",
    ]
    out += [("    " + line) if line else "" for line in table]
    while out[-1] == "":
        out.pop()
    with open(sys.argv[3], "w") as f:
        f.write("\n".join(out) + "\n")


main()
