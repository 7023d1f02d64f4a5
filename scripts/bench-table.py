#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest's RESULT lines into the benchmark table (markdown).

Input lines: RESULT <workload> <config> <median> <min> <max>, in ns/op
(guest instructions under -icount shift=0). Ratios are taken within the one
run, against the same workload's baseline (and ptrace) rows.
"""
import sys

rows = {}
order = []
for line in sys.stdin:
    f = line.split()
    if len(f) != 6 or f[0] != "RESULT":
        continue
    key = (f[1], f[2])
    if key not in rows:
        order.append(key)
    rows[key] = tuple(float(x) for x in f[3:])

CONFIG = {
    "base": "module not loaded (baseline)",
    "loaded": "utrace_rs.ko loaded, no engine",
    "floor": "empty sys_enter/sys_exit probes (probe_floor.ko): the floor",
    "global": "global CLONE/EXEC/DEATH engine, no-op callbacks",
    "gtrace": "global_trace (stream, no reader)",
    "gtrace_reader": "global_trace with a reader",
    "sys_traced": "SYSCALL_ENTRY+EXIT engine, no-op: the traced task",
    "sys_untraced": "SYSCALL engine on another task: an untraced task",
    "engines_10": "10 SYSCALL engines on the task",
    "engines_100": "100 SYSCALL engines on the task",
    "tasks_1000": "SYSCALL engine on the task, 1,000 other traced tasks",
    "tasks_10000": "SYSCALL engine on the task, 10,000 other traced tasks",
    "ptrace": "ptrace tracer (fork: TRACEFORK/EXEC/EXIT; syscalls: PTRACE_SYSCALL)",
    "systrace": "samples/syscall_trace (decoded lines into its stream, no reader)",
    "systrace_reader": "samples/syscall_trace with a reader (cat) woken per record",
    "ptrace_strace": "ptrace equivalent: PTRACE_SYSCALL, GETREGS, process_vm_readv, a line to /dev/null",
    "kernel": "in-kernel loop",
    "utrace": "utrace STOP, QUIESCE report, RESUME, task runs (in-kernel loop)",
    "ptrace_interrupt": "PTRACE_INTERRUPT, waitpid, PTRACE_CONT (tracer process)",
}
WORK = {
    "getppid": "getppid() loop",
    "threads": "getppid() in 2 threads",
    "files": "openat (ENOENT) + write 16 bytes",
    "forkexit": "fork + exit + wait",
    "forkexec": "fork + exec + wait",
    "attach": "attach + set_events + detach + put",
    "barrier": "barrier, nothing in flight",
    "stop": "stop + resume round trip, task in a getppid() loop",
}


def fmt(x):
    return f"{x:,.1f}" if x < 1000 else f"{x:,.0f}"


def goal(w, c, med, base, ptrace_med):
    added = med - base if base else None
    if c == "loaded":
        return "idle <= 1 %", (med / base - 1) <= 0.01
    if c in ("global",) and w == "forkexit":
        return "global <= 3 % on fork+exit", (med / base - 1) <= 0.03
    if c == "sys_traced" and w == "getppid":
        ok = added <= 100
        text = f"<= 100 ns added (+{added:.0f})"
        return text, ok
    if c == "sys_untraced" and w == "getppid":
        return f"<= 30 ns added (+{added:.0f})", added <= 30
    if w == "barrier":
        return "<= 10 us", med <= 10000
    return "", None


print("| workload | configuration | ns/op (median) | spread | vs baseline | goal | met |")
print("|---|---|---:|---:|---:|---|---|")
for (w, c) in order:
    med, lo, hi = rows[(w, c)]
    base = rows.get((w, "base"), (None,))[0]
    ptrace = rows.get((w, "ptrace"), (None,))[0]
    spread = f"{(hi - lo) / med * 100:.1f} %" if med else "-"
    ratio = f"{med / base:.3f}x" if base else "-"
    text, ok = goal(w, c, med, base, ptrace) if base or w in ("barrier",) else ("", None)
    met = "" if ok is None else ("yes" if ok else "**no**")
    print(f"| {WORK.get(w, w)} | {CONFIG.get(c, c)} | {fmt(med)} | {spread} | {ratio} | {text} | {met} |")

# utrace vs ptrace, per traced syscall and per lifecycle event.
sys_added = rows.get(("getppid", "sys_traced"), (0,))[0] - rows.get(("getppid", "base"), (0,))[0]
ptrace_added = rows.get(("getppid", "ptrace"), (0,))[0] - rows.get(("getppid", "base"), (0,))[0]
if sys_added > 0 and ptrace_added > 0:
    r = ptrace_added / sys_added
    print()
    print(f"Traced syscall: utrace-rs adds {sys_added:.0f} ns, ptrace {ptrace_added:,.0f} ns: "
          f"{r:,.0f}x cheaper (goal >= 50x: {'met' if r >= 50 else 'not met'}).")
for w in ("forkexit", "forkexec"):
    b = rows.get((w, "base"), (0,))[0]
    g = rows.get((w, "global"), (0,))[0]
    p = rows.get((w, "ptrace"), (0,))[0]
    if b and g and p and p > b:
        print(f"{WORK[w]}: global engine adds {g - b:,.0f} ns, ptrace {p - b:,.0f} ns per iteration.")
fl = rows.get(("getppid", "floor"), (0,))[0]
bs = rows.get(("getppid", "base"), (0,))[0]
un = rows.get(("getppid", "sys_untraced"), (0,))[0]
tr = rows.get(("getppid", "sys_traced"), (0,))[0]
if fl and bs and un and tr:
    print(f"Syscall hooks: any probe on sys_enter/sys_exit costs every task {fl - bs:.0f} ns "
          f"(the floor); utrace_rs adds {un - fl:.0f} ns on an untraced task and "
          f"{tr - fl:.0f} ns on the traced one (one no-op engine, entry + exit).")
fb = rows.get(("files", "base"), (0,))[0]
fs = rows.get(("files", "systrace"), (0,))[0]
fr = rows.get(("files", "systrace_reader"), (0,))[0]
fp = rows.get(("files", "ptrace_strace"), (0,))[0]
if fb and fs > fb and fr > fb and fp > fb:
    print(f"strace-class tracing of openat + write (2 decoded syscalls, path and data read): "
          f"syscall_trace adds {fs - fb:,.0f} ns ({fr - fb:,.0f} with a reader woken per "
          f"record), the ptrace equivalent {fp - fb:,.0f} ns: {(fp - fb) / (fs - fb):.1f}x "
          f"({(fp - fb) / (fr - fb):.1f}x).")
su = rows.get(("stop", "utrace"), (0,))[0]
sp = rows.get(("stop", "ptrace_interrupt"), (0,))[0]
if su and sp:
    print(f"Stop + resume round trip: utrace-rs {su:,.0f} ns, ptrace {sp:,.0f} ns: "
          f"{sp / su:.1f}x.")
e = [rows.get(("getppid", c), (0,))[0] for c in ("base", "sys_traced", "engines_10", "engines_100")]
if all(e):
    per = [(e[1] - e[0]) / 1, (e[2] - e[0]) / 10, (e[3] - e[0]) / 100]
    print("Scaling, ns added per engine per syscall with 1, 10, 100 engines: "
          + ", ".join(f"{x:.0f}" for x in per) + ".")
