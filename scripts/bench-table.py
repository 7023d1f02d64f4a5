#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest's RESULT lines into the benchmark table (markdown).

Input lines: RESULT <workload> <config> <median> <min> <max>, in ns/op
(guest instructions under -icount shift=0). Ratios are taken within the one
run, against the same workload's baseline (and ptrace) rows.

  bench-table.py < RESULTS                 the table of one run
  bench-table.py --compare A B             two runs (build/bench.results of
                                           the 6.12 bench kernel, and
                                           build/bench-distro.results of
                                           Debian's 7.3.4) side by side
"""
import sys


def parse(lines):
    """RESULT lines -> (rows, cpu, order); BENCH-* lines -> info."""
    rows, cpu, order, info = {}, {}, [], {"vuln": []}
    for line in lines:
        f = line.split()
        if f and f[0] == "BENCH-KERNEL":
            info["kernel"] = f[1]
        elif f and f[0] == "BENCH-COMMIT":
            info["commit"] = f[1]
        elif f and f[0] == "BENCH-PREEMPT":
            info["preempt"] = " ".join(f[1:])
        elif f and f[0] == "BENCH-VULN":
            info["vuln"].append(" ".join(f[1:]))
        if len(f) not in (6, 9) or f[0] != "RESULT":
            continue
        key = (f[1], f[2])
        if key not in rows:
            order.append(key)
        rows[key] = tuple(float(x) for x in f[3:6])
        if len(f) == 9:
            cpu[key] = tuple(float(x) for x in f[6:9])
    return rows, cpu, order, info

CONFIG = {
    "base": "module not loaded (baseline)",
    "loaded": "utrace_rs.ko loaded, no engine",
    "floor": "empty sys_enter/sys_exit probes (probe_floor.ko): the floor",
    "global": "global CLONE/EXEC/DEATH engine (NOFOLLOW), no-op callbacks",
    "global_follow": "the same engine without NOFOLLOW (children held for CLONE)",
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
    "systrace_reader": "samples/syscall_trace with a reader (cat)",
    "ptrace_strace": "ptrace equivalent: PTRACE_SYSCALL, GETREGS, process_vm_readv, a line to /dev/null",
    "strace": "Debian's strace -f -o /dev/null (CPU: workload + strace)",
    "utrace_trace": "utrace trace -f -o /dev/null, a /dev/utrace session (CPU: workload + utrace)",
    "utrace_nomem": "utrace trace --no-memory (no syscall decisions, records only)",
    "perf_trace": "Debian's perf trace -o /dev/null (CPU: workload + perf)",
    "session": "a plain session reader, sessread: the workload's CPU alone (the kernel side of a session's records, entry and exit, lossy)",
    "reader": "a plain session reader, sessread: batched read()s (CPU: workload + reader)",
    "session_exit": "sessread, one record a call (exits only, which carry the arguments): the workload's CPU alone",
    "reader_exit": "sessread, one record a call (exits only): batched read()s (CPU: workload + reader)",
    "kernel": "in-kernel loop",
    "utrace": "utrace STOP, utrace_wait_stopped(), RESUME, task runs (in-kernel loop)",
    "utrace_median": "the same loop's median round trip, each timed on its own (in-kernel loop)",
    "utrace_rt": "utrace STOP, utrace_wait_stopped(), RESUME, task runs; controller SCHED_FIFO (in-kernel loop)",
    "utrace_barrier": "utrace STOP, QUIESCE report wakes the controller, utrace_barrier(), RESUME (in-kernel loop)",
    "ptrace_interrupt": "PTRACE_INTERRUPT, waitpid, PTRACE_CONT (tracer process)",
    "session_stop": "a /dev/utrace session: UTRACE_CTL_STOP, read() its STOPPED record, "
    "UTRACE_CTL_RESUME, in ptrace's loop (sessstop, mean)",
    "utrace_now": "utrace STOP, utrace_wait_stopped(), RESUME, the next STOP at once: ptrace's loop (in-kernel loop)",
    "utrace_now_median": "the same loop's median round trip, each timed on its own (in-kernel loop)",
    "session_stop_median": "the same loop's median round trip, each timed on its own (sessstop)",
    "session_stop_p99": "the same loop's 99th percentile round trip (sessstop)",
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


def added(rows, w, c):
    """What a row adds, against the row it is read against: our share above
    the floor for the syscall engine rows, per further engine for 10
    engines, above the baseline for the others."""
    m = rows[(w, c)][0]

    def r(x):
        return rows.get((w, x), (0,))[0]

    if c == "base":
        return ""
    if c in ("sys_untraced", "sys_traced") and r("floor"):
        return f"our share +{m - r('floor'):,.0f}"
    if c == "engines_10" and r("sys_traced"):
        return f"+{(m - r('sys_traced')) / 9:,.0f} per further engine"
    if r("base"):
        d = m - r("base")
        return f"{d:+,.0f} ({d / r('base') * 100:+.1f} %)"
    return ""


def mitigations(info):
    """The CPU vulnerability entries that are not 'Not affected'."""
    return "; ".join(v for v in info["vuln"] if "Not affected" not in v.split(":", 1)[1][:14]) \
        or "none"


def compare(path_a, path_b):
    with open(path_a) as f:
        a = parse(f)
    with open(path_b) as f:
        b = parse(f)
    ka, kb = a[3].get("kernel", path_a), b[3].get("kernel", path_b)
    print(f"Commit {a[3].get('commit', '?')} (6.12 run) and {b[3].get('commit', '?')} (7.3.4 run); "
          "instructions per operation, median (one vCPU, -icount shift=0).")
    for k, (_, _, _, info) in ((ka, a), (kb, b)):
        print(f"- {k}: preemption {info.get('preempt', 'not reported')}; "
              f"CPU vulnerabilities as the kernel reports them (the rest: not affected): "
              f"{mitigations(info)}")
    print()
    print(f"| workload | configuration | {ka} | added | {kb} | added | {kb} / {ka} |")
    print("|---|---|---:|---|---:|---|---:|")
    for key in a[2]:
        if key not in b[0]:
            continue
        w, c = key
        ma, mb = a[0][key][0], b[0][key][0]
        print(f"| {WORK.get(w, w)} | {CONFIG.get(c, c)} | {fmt(ma)} | {added(a[0], w, c)} "
              f"| {fmt(mb)} | {added(b[0], w, c)} | {mb / ma:.2f}x |")
    print()
    for k, (rows, cpu, _, _) in ((ka, a), (kb, b)):
        def c_(w, x):
            return cpu.get((w, x), (0,))[0]
        s = c_("getppid", "sys_traced") - c_("getppid", "base")
        p = c_("getppid", "ptrace") - c_("getppid", "base")
        if s > 0 and p > 0:
            print(f"- {k}: traced getppid, CPU time added: utrace-rs {s:,.0f}, "
                  f"ptrace {p:,.0f}: {p / s:,.0f}x cheaper.")


def med(w, c):
    return rows.get((w, c), (0,))[0]


def cpu_med(w, c):
    return cpu.get((w, c), (0,))[0]


def goal(w, c, m, base):
    """The goal of issue 15 for this row (text) and whether it is met."""
    floor = med(w, "floor")
    pct = (m / base - 1) * 100 if base else None
    if c == "loaded":
        return "idle <= 1 %", pct <= 1
    if w == "forkexit" and c == "global":
        return f"<= +1.5 % (+{pct:.1f} %)", pct <= 1.5
    if w == "forkexec" and c == "global":
        return f"<= +1 % (+{pct:.1f} %)", pct <= 1
    if w == "forkexit" and c == "gtrace_reader":
        return f"<= +6 % (+{pct:.1f} %)", pct <= 6
    if w == "getppid" and c == "sys_traced" and floor:
        return f"our share <= +150 (+{m - floor:.0f})", m - floor <= 150
    if w == "getppid" and c == "sys_untraced" and floor:
        return f"our share <= +20 (+{m - floor:.0f})", m - floor <= 20
    if w == "getppid" and c == "engines_10" and med(w, "sys_traced"):
        per = (m - med(w, "sys_traced")) / 9
        return f"each further engine <= +60 (+{per:.0f})", per <= 60
    if w == "getppid" and c == "utrace_nomem" and cpu_med(w, "ptrace") and cpu_med(w, "base"):
        u = cpu_med(w, c) - cpu_med(w, "base")
        p = cpu_med(w, "ptrace") - cpu_med(w, "base")
        st = cpu_med(w, "strace") - cpu_med(w, "base")
        return (f"added CPU <= strace's / 10 ({st / u:.1f}x less), <= ptrace's / 20 ({p / u:.1f}x)",
                u * 10 <= st and u * 20 <= p)
    if c in ("utrace_trace", "utrace_nomem") and cpu_med(w, c) and cpu_med(w, "strace") and cpu_med(w, "base"):
        u = cpu_med(w, c) - cpu_med(w, "base")
        st = cpu_med(w, "strace") - cpu_med(w, "base")
        goal, met = f"added CPU <= strace's / 10 ({st / u:.1f}x less)", u * 10 <= st
        if c == "utrace_trace" and cpu_med(w, "perf_trace"):
            pf = cpu_med(w, "perf_trace") - cpu_med(w, "base")
            goal += f", <= 2x perf trace's ({u / pf:.2f}x)"
            met = met and u <= 2 * pf
        return goal, met
    if w == "getppid" and c == "session" and cpu_med(w, "sys_traced"):
        share = cpu_med(w, c) - cpu_med(w, "sys_traced")
        return f"over the in-kernel engine <= +300 (+{share:,.0f})", share <= 300
    if w == "getppid" and c == "session_exit" and cpu_med(w, "sys_traced"):
        share = cpu_med(w, c) - cpu_med(w, "sys_traced")
        return (f"over the in-kernel engine (entry and exit) <= +300 (+{share:,.0f})",
                share <= 300)
    if w == "getppid" and c in ("reader", "reader_exit") and cpu_med(w, "ptrace") \
            and cpu_med(w, c) and cpu_med(w, "base"):
        added = cpu_med(w, c) - cpu_med(w, "base")
        times = (cpu_med(w, "ptrace") - cpu_med(w, "base")) / added
        goal = f">= 20x less than a PTRACE_SYSCALL tracer ({times:.1f}x)"
        if c == "reader" and cpu_med(w, "session"):
            # Two records per call (entry, exit); the session row is the
            # traced task's share alone.
            per = (cpu_med(w, c) - cpu_med(w, "session")) / 2
            return f"reader <= 400 per record (issue 32: {per:,.0f}), {goal}", per <= 400 and times >= 20
        return goal, times >= 20
    if w == "attach":
        return "<= 2,000", m <= 2000
    if w == "stop" and c == "utrace_median":
        return "<= 6,000 (issue 32)", m <= 6000
    if w == "stop" and c in ("utrace_now_median", "session_stop_median"):
        # The loop's mean is the row of the same name without "_median".
        mean = rows.get((w, c.removesuffix("_median")), (0,))[0]
        pt = rows.get((w, "ptrace_interrupt"), (0,))[0]
        return (f"<= 6,000, mean <= 1.5x median ({mean / m:.2f}x), below ptrace's {pt:,.0f} "
                "(issue 32)", m <= 6000 and mean <= 1.5 * m and m < pt)
    if w == "stop" and c == "session_stop_p99":
        med_ = rows.get((w, "session_stop_median"), (0,))[0]
        return (f"<= 1.5x median: one mode, not two ({m / med_:.2f}x)" if med_ else "",
                m <= 1.5 * med_ if med_ else None)
    if w == "barrier":
        return "<= 10 us", m <= 10000
    return "", None


if len(sys.argv) == 4 and sys.argv[1] == "--compare":
    compare(sys.argv[2], sys.argv[3])
    sys.exit(0)
rows, cpu, order, _ = parse(sys.stdin)
print("| workload | configuration | ns/op (median) | spread | vs baseline | CPU ns/op | goal | met |")
print("|---|---|---:|---:|---:|---:|---|---|")
for (w, c) in order:
    m, lo, hi = rows[(w, c)]
    base = rows.get((w, "base"), (None,))[0]
    spread = f"{(hi - lo) / m * 100:.1f} %" if m else "-"
    ratio = f"{m / base:.3f}x" if base else "-"
    cpu_m = fmt(cpu[(w, c)][0]) if (w, c) in cpu else "-"
    text, ok = goal(w, c, m, base)
    met = "" if ok is None else ("yes" if ok else "**no**")
    print(f"| {WORK.get(w, w)} | {CONFIG.get(c, c)} | {fmt(m)} | {spread} | {ratio} | {cpu_m} "
          f"| {text} | {met} |")

# utrace vs ptrace, per traced syscall and per lifecycle event.
sys_added = rows.get(("getppid", "sys_traced"), (0,))[0] - rows.get(("getppid", "base"), (0,))[0]
ptrace_added = rows.get(("getppid", "ptrace"), (0,))[0] - rows.get(("getppid", "base"), (0,))[0]

def cpu_of(w, c):
    return cpu.get((w, c), (0,))[0]


print()
sys_cpu = cpu_of("getppid", "sys_traced") - cpu_of("getppid", "base")
ptrace_cpu = cpu_of("getppid", "ptrace") - cpu_of("getppid", "base")
if sys_cpu > 0 and ptrace_cpu > 0:
    print(f"Traced syscall, CPU time (tracee + tracer, user + system): utrace-rs adds "
          f"{sys_cpu:,.0f} ns, ptrace {ptrace_cpu:,.0f} ns: {ptrace_cpu / sys_cpu:,.0f}x cheaper.")
if sys_added > 0 and ptrace_added > 0:
    r = ptrace_added / sys_added
    print(f"Traced syscall, wall time: utrace-rs adds {sys_added:.0f} ns, ptrace "
          f"{ptrace_added:,.0f} ns: {r:,.0f}x cheaper.")
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
          f"syscall_trace adds {fs - fb:,.0f} ns ({fr - fb:,.0f} with a reader), "
          f"the ptrace equivalent {fp - fb:,.0f} ns: {(fp - fb) / (fs - fb):.1f}x "
          f"({(fp - fb) / (fr - fb):.1f}x).")
su = rows.get(("stop", "utrace_median"), (0,))[0]
sm = rows.get(("stop", "utrace"), (0,))[0]
sp = rows.get(("stop", "ptrace_interrupt"), (0,))[0]
if su and sp:
    print(f"Stop + resume round trip: utrace-rs {su:,.0f} ns (median; mean {sm:,.0f}), "
          f"ptrace {sp:,.0f} ns (CPU {cpu_of('stop', 'ptrace_interrupt'):,.0f} ns): {sp / su:.1f}x.")
ss = rows.get(("stop", "session_stop"), (0,))[0]
ssm = rows.get(("stop", "session_stop_median"), (0,))[0]
if ss and ssm and sp:
    print(f"A session's stop + resume round trip in ptrace's loop: {ssm:,.0f} ns (median; mean "
          f"{ss:,.0f}, CPU {cpu_of('stop', 'session_stop'):,.0f} ns), ptrace {sp:,.0f} ns: "
          f"{sp / ssm:.1f}x.")
e = [rows.get(("getppid", c), (0,))[0] for c in ("base", "sys_traced", "engines_10", "engines_100")]
if all(e):
    per = [(e[1] - e[0]) / 1, (e[2] - e[0]) / 10, (e[3] - e[0]) / 100]
    print("Scaling, ns added per engine per syscall with 1, 10, 100 engines: "
          + ", ".join(f"{x:.0f}" for x in per) + ".")
for w in ("getppid", "files"):
    b, st, ut, un, se = (cpu_of(w, c) for c in ("base", "strace", "utrace_trace", "utrace_nomem",
                                                "session"))
    if b and st > b and ut > b:
        line = (f"{WORK[w]}, CPU time added per iteration: strace {st - b:,.0f} ns, "
                f"utrace trace {ut - b:,.0f} ns ({(st - b) / (ut - b):.1f}x less)")
        if un > b:
            line += f", with --no-memory {un - b:,.0f} ns ({(st - b) / (un - b):.1f}x less)"
        pf = cpu_of(w, "perf_trace")
        if pf > b:
            line += f", perf trace {pf - b:,.0f} ns (utrace trace {(ut - b) / (pf - b):.2f}x its)"
        if se > b:
            line += f"; the traced task's own share under a session recording entries and exits {se - b:,.0f} ns"
        print(line + ".")
b, se, rd, pt = (cpu_of("getppid", c) for c in ("base", "session", "reader", "ptrace"))
if b and se and rd > se:
    line = (f"A plain session reader (sessread) on the getppid() loop: {(rd - se) / 2:,.0f} ns "
            f"per record read; workload and reader add {rd - b:,.0f} ns per call")
    if pt > b:
        line += f", a PTRACE_SYSCALL tracer {pt - b:,.0f} ns ({(pt - b) / (rd - b):.1f}x more)"
    print(line + ".")
tr, se1, rd1 = (cpu_of("getppid", c) for c in ("sys_traced", "session_exit", "reader_exit"))
if b and se1 and rd1 > se1:
    line = (f"With one record a call (exits only): {rd1 - se1:,.0f} ns per record read; "
            f"workload and reader add {rd1 - b:,.0f} ns per call")
    if tr:
        line += f", the session {se1 - tr:+,.0f} ns over the in-kernel engine's share"
    if pt > b:
        line += f", a PTRACE_SYSCALL tracer {(pt - b) / (rd1 - b):.1f}x more"
    print(line + ".")
