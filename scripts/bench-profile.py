#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make bench-profile` (scripts/bench-profile.sh boots the
# guest): for each scenario the guest announces (scripts/bench/profile.sh),
# single-step one iteration of its workload through QEMU's gdbstub
# (scripts/bench-profile-gdb.py), then attribute every instruction to its
# function and print where each hot path's instructions go: the functions
# of each scenario, and the difference to the scenario it adds to.
#
#   bench-profile.py LOG SYSTEM_MAP GDB_SOCKET CTL_SOCKET OUTDIR [QEMU_PID]
#   bench-profile.py --report LOG SYSTEM_MAP OUTDIR   (tables of an earlier run)
# SYSTEM_MAP "-": the kernel's symbols are the guest's KSYM lines (its
# /proc/kallsyms under nokaslr), for a kernel shipped without System.map.
import bisect
import collections
import os
import socket
import subprocess
import sys
import time

# scenario: (symbol an iteration starts at, hits of it per iteration)
START = {
    "sys": ("__x64_sys_getppid", 1),
    "fork": ("kernel_clone", 1),
    "exec": ("kernel_clone", 1),
    "files": ("__x64_sys_openat", 1),
    "attach": ("utrace_attach_task", 1),
    "stop": ("utrace_control", 2),
}
# scenario: the scenario it adds to, and what the difference is.
DIFFS = [
    ("sys_floor", "sys_base", "empty sys_enter/sys_exit probes (the floor)"),
    ("sys_untraced", "sys_floor", "untraced task, our share"),
    ("sys_traced", "sys_floor", "traced task, one no-op engine, our share"),
    ("sys_traced2", "sys_traced", "a second engine"),
    ("fork_global", "fork_base", "global no-op CLONE/EXEC/DEATH engine, fork+exit"),
    ("fork_gtrace_reader", "fork_base", "global_trace with a reader, fork+exit"),
    ("exec_global", "exec_base", "global no-op engine, fork+exec"),
    ("files_systrace", "files_base", "syscall_trace decoding openat + write, no reader"),
]
TOP = 30


def log_lines(path, proc):
    """Yields the lines of the growing log until QEMU exits."""
    while not os.path.exists(path):
        time.sleep(0.2)
    with open(path, errors="replace") as f:
        buf = ""
        while True:
            chunk = f.readline()
            if not chunk:
                if proc is not None and proc.poll() is not None:
                    return
                time.sleep(0.1)
                continue
            buf += chunk
            if buf.endswith("\n"):
                yield buf.rstrip("\r\n")
                buf = ""


def kernel_syms(sysmap):
    syms = []
    if sysmap == "-":
        return syms
    with open(sysmap) as f:
        for line in f:
            a, t, name = line.split()[:3]
            if t in "tTwW":
                syms.append((int(a, 16), name))
    return syms


class Symbolizer:
    def __init__(self, syms):
        syms = sorted(set(syms))
        self.addrs = [a for a, _ in syms]
        self.names = [n for _, n in syms]

    def name(self, pc):
        if pc < 0xFFFF800000000000:
            return "(user)"
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.names[i] if i >= 0 else "?"

    def addr(self, name):
        for a, n in zip(self.addrs, self.names):
            if n.split()[0] == name:
                return a
        return None


def attribute(path, sym):
    """Instructions per function of the trace in `path`."""
    with open(path) as f:
        return collections.Counter(sym.name(int(x, 16)) for x in f)


def trace(scenario, sym, gdb_sock, outdir):
    kind = scenario.split("_")[0]
    name, hits = START[kind]
    start = sym.addr(name)
    if start is None:
        raise SystemExit(f"bench-profile: no symbol {name}")
    out = os.path.join(outdir, f"{scenario}.trace")
    env = dict(os.environ, PROF_GDB=gdb_sock, PROF_START=f"{start:x}",
               PROF_HITS=str(hits), PROF_OUT=out)
    t = time.time()
    subprocess.run(["gdb", "-nx", "-batch", "-x",
                    os.path.join(os.path.dirname(__file__), "bench-profile-gdb.py")],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    counts = attribute(out, sym)
    print(f"bench-profile: {scenario}: {sum(counts.values())} instructions "
          f"({time.time() - t:.0f} s)", file=sys.stderr)
    return counts


def table(counts, base=None):
    rows = []
    names = set(counts) | set(base or {})
    for n in names:
        a = counts.get(n, 0)
        b = (base or {}).get(n, 0)
        rows.append((n, b, a, a - b))
    key = (lambda r: -abs(r[3])) if base is not None else (lambda r: -r[2])
    rows.sort(key=key)
    return rows


def report(results, outdir):
    lines = []
    for sc, counts in results.items():
        total = sum(counts.values())
        lines.append(f"### {sc}: {total:,} instructions per iteration\n")
        lines.append("| function | instructions |\n|---|---:|")
        for n, _, a, _ in table(counts)[:TOP]:
            lines.append(f"| {n} | {a:,} |")
        lines.append("")
    for sc, base, what in DIFFS:
        if sc not in results or base not in results:
            continue
        a, b = results[sc], results[base]
        lines.append(f"### {sc} - {base}: {what}: "
                     f"{sum(a.values()) - sum(b.values()):+,} instructions\n")
        lines.append("| function | " + base + " | " + sc + " | difference |")
        lines.append("|---|---:|---:|---:|")
        rows = [r for r in table(a, b) if r[3] != 0]
        for n, x, y, d in rows[:TOP]:
            lines.append(f"| {n} | {x:,} | {y:,} | {d:+,} |")
        rest = sum(r[3] for r in rows[TOP:])
        if rows[TOP:]:
            lines.append(f"| ({len(rows) - TOP} more) | | | {rest:+,} |")
        lines.append("")
    text = "\n".join(lines)
    with open(os.path.join(outdir, "profile.md"), "w") as f:
        f.write(text)
    print(text)


def rereport(log, sysmap, outdir):
    """--report: the tables again from the traces of an earlier run."""
    ksyms = kernel_syms(sysmap)
    modsyms = []
    results = collections.OrderedDict()
    with open(log, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if line.startswith("SYM "):
                a, rest = line[4:].split(" ", 1)
                modsyms.append((int(a, 16), rest))
            elif line.startswith("KSYM "):
                a, rest = line[5:].split(" ", 1)
                ksyms.append((int(a, 16), rest))
            elif line.startswith("PROFILE-READY "):
                sc = line.split()[1]
                path = os.path.join(outdir, f"{sc}.trace")
                if os.path.exists(path):
                    results[sc] = attribute(path, Symbolizer(ksyms + modsyms))
                modsyms = []
    report(results, outdir)


def main():
    if sys.argv[1] == "--report":
        rereport(*sys.argv[2:5])
        return
    log, sysmap, gdb_sock, ctl_sock, outdir = sys.argv[1:6]
    pid = int(sys.argv[6]) if len(sys.argv) > 6 else None
    proc = None
    ksyms = kernel_syms(sysmap)
    modsyms = []
    results = collections.OrderedDict()
    ctl = None
    for line in log_lines(log, proc):
        if line.startswith("SYM "):
            a, rest = line[4:].split(" ", 1)
            modsyms.append((int(a, 16), rest))
        elif line.startswith("KSYM "):
            a, rest = line[5:].split(" ", 1)
            ksyms.append((int(a, 16), rest))
        elif line.startswith("PROFILE-READY "):
            sc = line.split()[1]
            sym = Symbolizer(ksyms + modsyms)
            modsyms = []
            results[sc] = trace(sc, sym, gdb_sock, outdir)
            if ctl is None:
                ctl = socket.socket(socket.AF_UNIX)
                ctl.connect(ctl_sock)
            ctl.sendall(b"go\n")
        elif line.startswith("PROFILE-ERROR"):
            raise SystemExit(f"bench-profile: {line}")
        elif line.startswith("PROFILE-END") or line.startswith("### END"):
            break
        if pid is not None:
            try:
                os.kill(pid, 0)
            except OSError:
                break
    report(results, outdir)


if __name__ == "__main__":
    main()
