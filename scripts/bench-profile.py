#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# Host side of `make bench-profile` (scripts/bench-profile.sh boots the
# guest): for each scenario the guest announces (scripts/guest/bench/profile.sh),
# single-step one iteration of its workload through QEMU's gdbstub
# (scripts/bench-profile-gdb.py), then attribute every instruction to its
# function and print where each hot path's instructions go: the functions
# of each scenario, and the difference to the scenario it adds to. With
# PROFILE_DEBUG_SRC (the modules built again with debug info, as
# scripts/bench-profile.sh does on the benchmark kernel) the instructions
# of LINE_FUNCS (the syscall hook, both report passes inlined, and the
# engines' syscall callbacks) also go by piece of a report (FRAME_PIECES,
# LINE_PIECES) and by source line (lines-SCENARIO.md), from addr2line -i:
# measured, one iteration, exact.
#
#   bench-profile.py LOG SYSTEM_MAP GDB_SOCKET CTL_SOCKET OUTDIR [QEMU_PID]
#   bench-profile.py --report LOG SYSTEM_MAP OUTDIR   (tables of an earlier run;
#   PROFILE_DEBUG_SRC and PROFILE_MODULE_SRC as the run had them)
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
    ("sys_session", "sys_traced",
     "a /dev/utrace session's two records (utrace trace --no-memory) over a no-op engine"),
    ("sys_traced_test", "sys_floor",
     "traced task, one test engine (ops a, noop set), our share"),
    ("sys_traced_test2", "sys_traced_test", "a second test engine"),
    ("fork_global", "fork_base", "global no-op CLONE/EXEC/DEATH engine, fork+exit"),
    ("fork_gtrace_reader", "fork_base", "global_trace with a reader, fork+exit"),
    ("exec_global", "exec_base", "global no-op engine, fork+exec"),
    ("files_systrace", "files_base", "syscall_trace decoding openat + write, no reader"),
]
TOP = 30
# Scenarios whose iteration runs in two tasks (the in-kernel controller and
# the traced task, one vCPU): also shown by stretch between context switches
# (each stretch one task's, the two alternating) and by kind of work.
SWITCH_SCENARIOS = ("stop", "stop_barrier")
# The instruction that starts another task's stretch: the stack switch.
SWITCH_FUNC = "__switch_to_asm"
# Kinds of work, by function name (first match; module functions by module).
KINDS = [
    ("ours: utrace_rs", lambda f, m: m == "utrace_rs"),
    ("test engine and loop: utrace_test", lambda f, m: m == "utrace_test"),
    ("scheduler (pick, enqueue/dequeue, switch)", lambda f, m: f in (
        "__schedule", "schedule", "__switch_to_asm", "__switch_to", "finish_task_switch.isra.0",
        "finish_task_switch", "switch_mm_irqs_off", "switch_fpu_return", "restore_fpregs_from_fpstate",
        "preempt_schedule", "preempt_schedule_common", "preempt_schedule_irq",
        "preempt_schedule_thunk", "__pfx_preempt_schedule_thunk", "schedule_debug",
        "raw_spin_rq_lock_nested", "raw_spin_rq_unlock", "prepare_task_switch",
        "put_prev_task_fair", "put_prev_entity", "set_next_entity", "set_next_task_fair",
        "pick_next_task_fair", "pick_task_fair", "pick_next_entity", "pick_eevdf",
        "pick_next_task", "__pick_next_task", "sched_clock_cpu", "sched_clock",
        "native_sched_clock", "update_rq_clock", "update_rq_clock.part.0",
        "psi_task_switch", "psi_group_change", "psi_flags_change", "record_times",
        "update_curr", "update_curr_se", "update_min_vruntime", "update_load_avg",
        "__update_load_avg_se", "__update_load_avg_cfs_rq", "__calc_delta",
        "__calc_delta.constprop.0", "update_cfs_group", "reweight_entity",
        "avg_vruntime", "__enqueue_entity", "__dequeue_entity", "rb_erase",
        "rb_insert_color", "__rb_insert_augmented", "__rb_erase_color",
        "min_vruntime_cb_rotate", "min_vruntime_cb_propagate", "update_entity_lag",
        "place_entity", "vruntime_eligible", "entity_eligible", "dequeue_task_fair",
        "dequeue_entities", "dequeue_entity", "dequeue_task", "block_task",
        "enqueue_task_fair", "enqueue_entity", "enqueue_task", "activate_task",
        "wakeup_preempt", "check_preempt_wakeup_fair", "resched_curr",
        "__resched_curr", "update_curr_dl_se", "dl_server_update", "dl_server_start",
        "dl_server_stop", "sched_update_worker", "hrtick_update", "cpuacct_charge",
        "__cgroup_account_cputime", "cgroup_rstat_updated", "__update_idle_core",
        "requeue_delayed_entity", "clear_buddies", "set_next_buddy")),
    ("wakeups", lambda f, m: f in (
        "try_to_wake_up", "ttwu_do_activate", "ttwu_queue_wakelist",
        "select_task_rq_fair", "select_idle_sibling", "ttwu_runnable",
        "__wake_up", "__wake_up_common", "__wake_up_common_lock", "__wake_up_sync_key",
        "autoremove_wake_function", "default_wake_function", "var_wake_function",
        "wake_up_var", "__wake_up_bit", "wake_up_bit", "__var_waitqueue",
        "complete", "swake_up_locked", "wake_up_process", "wake_up_state",
        "prepare_to_wait_event", "finish_wait", "init_wait_var_entry",
        "wait_for_completion_killable_timeout", "__wait_for_common",
        "wait_for_common", "do_wait_for_common", "schedule_timeout",
        "__schedule_timeout", "timer_delete_sync", "__timer_delete_sync",
        "__mod_timer", "lock_timer_base", "internal_add_timer", "enqueue_timer",
        "calc_wheel_index", "detach_if_pending", "__try_to_del_timer_sync",
        "add_timer", "__init_timer", "init_timer_key", "mod_timer",
        "destroy_timer_on_stack", "process_timeout", "try_to_del_timer_sync",
        "timer_delete", "get_nohz_timer_target", "__timer_delete",
        "try_to_del_timer_sync")),
    ("task_work", lambda f, m: f.startswith("task_work")),
    ("user mode and syscall entry/exit", lambda f, m: f in (
        "(user)", "entry_SYSCALL_64", "entry_SYSCALL_64_after_hwframe",
        "entry_SYSCALL_64_safe_stack", "do_syscall_64", "syscall_exit_to_user_mode",
        "syscall_exit_work", "syscall_trace_enter", "syscall_exit_to_user_mode_prepare",
        "exit_to_user_mode_loop", "exit_to_user_mode_prepare", "__x64_sys_getppid",
        "__task_pid_nr_ns", "x64_sys_call", "fpregs_assert_state_consistent",
        "resume_user_mode_work", "entry_SYSRETQ_unsafe_stack", "entry_SYSRETQ_end",
        "arch_exit_to_user_mode_prepare", "mem_cgroup_handle_over_high",
        "rseq_handle_notify_resume", "__rseq_handle_notify_resume",
        "blkcg_maybe_throttle_current", "__traceiter_sys_enter",
        "__traceiter_sys_exit", "trace_sys_enter", "trace_sys_exit",
        "__x86_return_thunk", "__x86_indirect_thunk_rax", "__x86_indirect_thunk_r11",
        "srso_return_thunk", "srso_alias_return_thunk", "srso_safe_ret",
        "srso_alias_safe_ret", "retbleed_return_thunk", "entry_untrain_ret")),
    ("locks, RCU, preemption", lambda f, m: f.startswith(("_raw_spin", "__raw_spin",
        "queued_spin", "native_queued", "__rcu_read", "rcu_", "preempt_count",
        "__local_bh", "native_save_fl", "native_irq", "_raw_read", "_raw_write"))),
]


# Scheduler functions not named in KINDS (the RT and deadline classes, load
# tracking, balancing): by part of their name.
SCHED_PARTS = ("_rt", "rt_", "_dl", "dl_", "sched", "pick_", "balance", "cpupri",
               "load_avg", "plist_", "enqueue", "dequeue", "clock", "update_curr",
               "_entity", "_fair", "vruntime", "task_tick", "psi_")


def kind_of(name):
    func, _, mod = name.partition("\t")
    mod = mod.strip("[] ")
    for label, match in KINDS:
        if match(func, mod):
            return label
    if not mod and any(p in func for p in SCHED_PARTS):
        return "scheduler (pick, enqueue/dequeue, switch)"
    return "other kernel"


def stretches(path, sym):
    """The trace cut where another task's stretch starts (the first
    instruction of each SWITCH_FUNC): a list of per-function counters."""
    out = [collections.Counter()]
    prev = None
    with open(path) as f:
        for x in f:
            name = sym.name(int(x, 16))
            if name == SWITCH_FUNC and prev != SWITCH_FUNC:
                out.append(collections.Counter())
            out[-1][name] += 1
            prev = name
    return out


def switch_tables(sc, parts):
    """The tables of a two-task scenario: each stretch (the tasks alternate:
    the first is the controller's) with its top functions, and every stretch
    by kind of work."""
    lines = [f"### {sc}: by stretch between context switches "
             f"({len(parts) - 1} switches)\n",
             "| stretch | task | instructions | top functions |",
             "|---:|---|---:|---|"]
    for i, c in enumerate(parts):
        who = "controller" if i % 2 == 0 else "traced task"
        top = ", ".join(f"{n.split(chr(9))[0]} {v:,}" for n, v in c.most_common(6))
        lines.append(f"| {i} | {who} | {sum(c.values()):,} | {top} |")
    lines.append("")
    kinds = sorted({kind_of(n) for c in parts for n in c})
    lines.append(f"### {sc}: by kind of work and stretch\n")
    lines.append("| kind | " + " | ".join(str(i) for i in range(len(parts))) + " | all |")
    lines.append("|---|" + "---:|" * (len(parts) + 1))
    for k in kinds:
        row = [sum(v for n, v in c.items() if kind_of(n) == k) for c in parts]
        lines.append(f"| {k} | " + " | ".join(f"{v:,}" for v in row) + f" | {sum(row):,} |")
    tot = [sum(c.values()) for c in parts]
    lines.append("| all | " + " | ".join(f"{v:,}" for v in tot) + f" | {sum(tot):,} |")
    lines.append("")
    return lines
# Functions whose instructions are attributed to source lines and the
# functions inlined into them (`make bench-profile` builds the modules a
# second time with debug info for it, PROFILE_DEBUG_SRC; addr2line -i):
# the syscall hook, where both report passes are inlined, and the test
# engine's syscall callbacks.
LINE_FUNCS = ("utrace_rs_hook_sys_enter", "utrace_rs_hook_sys_exit",
              "cb_sys_entry", "cb_sys_exit",
              "noop_sys_entry", "noop_sys_exit")
# Pieces of a report, for an instruction whose chain of inlined functions
# (innermost first) has a frame whose short name contains the key; the
# innermost such frame decides. Instructions of no such frame go by the
# text of their innermost source line (LINE_PIECES), else by function.
FRAME_PIECES = [
    ("Engine::enter", "pin (Engine::enter: locked inc, detached check)"),
    ("Engine::leave_in", "unpin (leave_in: lock cmpxchg, busy check)"),
    ("Pinned::unpin_in", "unpin (leave_in: lock cmpxchg, busy check)"),
    ("EngineList::next_to_report", "find the next engine (next_to_report)"),
    ("Pinned::call_syscall", "callback dispatch (pointer load, arguments, indirect call)"),
    ("entry_call::{closure", "callback dispatch (pointer load, arguments, indirect call)"),
    ("exit_in_probe::{closure", "callback dispatch (pointer load, arguments, indirect call)"),
    ("Engine::set_stop", "action (mask, DETACH, sticky STOP, minimum)"),
    ("detach::detach", "action (mask, DETACH, sticky STOP, minimum)"),
    ("ask_resume", "ask_resume (RESUME check)"),
    ("queue_resume", "ask_resume (RESUME check)"),
    ("EntryRestart::", "entry-restart bookkeeping (on_entry/on_exit/skip)"),
    ("TaskTable::lookup", "task table lookup"),
    ("UTask::queue", "STOP queuing (not taken)"),
    ("UTask::sleepable_entry", "event and sleepable checks"),
    ("UTask::events", "event and sleepable checks"),
]
LINE_PIECES = [
    ("act != action::RESUME", "after the pass: an answer but RESUME?"),
    ("reporting.store", "reporting mark (two stores)"),
    ("action::MASK", "action (mask, DETACH, sticky STOP, minimum)"),
    ("action::DETACH", "action (mask, DETACH, sticky STOP, minimum)"),
    ("act.min", "action (mask, DETACH, sticky STOP, minimum)"),
    ("action::RESUME", "action (mask, DETACH, sticky STOP, minimum)"),
    ("detach::detach(", "action (mask, DETACH, sticky STOP, minimum)"),
    ("action::STOP", "action (mask, DETACH, sticky STOP, minimum)"),
    ("events::SYSCALL", "event and sleepable checks"),
    ("extern \"C\" fn", "the hook's entry and exit (prologue, epilogue)"),
    ("let Some(engine) = next", "walk loop control"),
    ("match list.next_to_report", "walk loop control"),
    ("prev.take()", "walk loop control"),
    ("SYSCALL_RESUMED", "entry: resumed flag, abort, STOP checks"),
    ("if abort", "entry: resumed flag, abort, STOP checks"),
    ("report_entry(st", "entry: resumed flag, abort, STOP checks"),
    ("regs.entry()", "entry or exit"),
    ("entry_restart.idle()", "entry-restart bookkeeping (on_entry/on_exit/skip)"),
    ("sleepable_entry", "event and sleepable checks"),
]
# The hook's own stack frame (is_frame_insn), whatever line it is on.
FRAME_PIECE = "the hook's entry and exit (prologue, epilogue)"
# The engine's callbacks, each a piece of its own.
CALLBACK_PIECES = {
    "cb_sys_entry": "test engine's cb_sys_entry",
    "cb_sys_exit": "test engine's cb_sys_exit",
    "noop_sys_entry": "no-op engine's entry callback",
    "noop_sys_exit": "no-op engine's exit callback",
}


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

    def locate(self, pc):
        """(name, start address) of the function `pc` is in."""
        i = bisect.bisect_right(self.addrs, pc) - 1
        if pc < 0xFFFF800000000000 or i < 0:
            return None, None
        return self.names[i], self.addrs[i]

    def addr(self, name):
        for a, n in zip(self.addrs, self.names):
            if n.split()[0] == name:
                return a
        return None


def short(func):
    """A demangled function name without crate paths and generics:
    "<utrace_main::engine::Engine>::enter" -> "Engine::enter",
    "utrace_main::report_pass::walk_with::<...>" -> "report_pass::walk_with"."""
    def balanced(s, i):
        depth = 0
        for j in range(i, len(s)):
            depth += {"<": 1, ">": -1}.get(s[j], 0)
            if depth == 0:
                return j
        return len(s) - 1
    while "::<" in func:
        i = func.index("::<")
        func = func[:i] + func[balanced(func, i + 2) + 1:]
    if func.startswith("<"):
        j = balanced(func, 0)
        owner = func[1:j].split(" as ")[0].split("<")[0].split("::")[-1]
        return f"{owner}{func[j + 1:]}"
    parts = func.split("::")
    return "::".join(parts[-2:])


class Lines:
    """Attributes the instructions of LINE_FUNCS to source lines and inlined
    functions: addr2line -i on the modules built with debug info (in
    `debug_src`), used only where a function's code is the same there as in
    the modules profiled (`module_src`), checked instruction by instruction."""

    def __init__(self, debug_src, module_src):
        self.debug_src = os.path.realpath(debug_src)
        self.dbg = self._kos(debug_src)
        self.prof = self._kos(module_src) if module_src else {}
        self.cache = {}
        self.sources = {}
        # Per function: the offsets of its stack frame's instructions.
        self.frame_insns = {}

    @staticmethod
    def _kos(top):
        kos = {}
        for d, _, files in os.walk(top):
            for f in files:
                if f.endswith(".ko"):
                    kos[f[:-3].replace("-", "_")] = os.path.join(d, f)
        return kos

    @staticmethod
    def _disasm(ko, func):
        out = subprocess.run(["objdump", "-d", "--no-show-raw-insn",
                              f"--disassemble={func}", ko],
                             capture_output=True, text=True, check=True).stdout
        insns = []
        for line in out.splitlines():
            line = line.strip()
            if ":\t" not in line:
                continue
            addr, text = line.split(":\t", 1)
            # Targets by symbol, not address: layouts may differ elsewhere.
            text = " ".join(w for w in text.split() if not all(
                c in "0123456789abcdef" for c in w))
            insns.append((int(addr, 16), text))
        return insns

    def _load(self, module, func):
        ko = self.dbg.get(module)
        if ko is None:
            return None
        insns = self._disasm(ko, func)
        if not insns:
            return None
        if module in self.prof:
            prof = self._disasm(self.prof[module], func)
            if [t for _, t in prof] != [t for _, t in insns]:
                print(f"bench-profile: {func}: the debug-info build's code "
                      "differs, no line attribution", file=sys.stderr)
                return None
        base = insns[0][0]
        self.frame_insns[(module, func)] = {
            a - base for a, t in insns if is_frame_insn(t)}
        out = subprocess.run(["addr2line", "-e", ko, "-i", "-f", "-C", "-a"]
                             + [f"{a:#x}" for a, _ in insns],
                             capture_output=True, text=True, check=True).stdout
        chains, cur = {}, None
        lines = out.splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("0x"):
                cur = int(lines[i], 16) - base
                chains[cur] = []
                i += 1
                continue
            fn, loc = lines[i], lines[i + 1] if i + 1 < len(lines) else "?:0"
            path, _, ln = loc.rpartition(":")
            ln = ln.split()[0] if ln else "0"
            chains[cur].append((fn, path, int(ln) if ln.isdigit() else 0))
            i += 2
        # An instruction of no source line (line 0: register moves the
        # compiler shared between lines) goes with the one before it.
        prev = None
        for off in sorted(chains):
            if chains[off] and chains[off][0][2] == 0 and prev is not None:
                chains[off] = prev
            prev = chains[off]
        return chains

    def chain(self, module, func, off):
        key = (module, func)
        if key not in self.cache:
            self.cache[key] = self._load(module, func)
        chains = self.cache[key]
        return None if chains is None else chains.get(off)

    def text(self, path, ln):
        if path not in self.sources:
            try:
                with open(path, errors="replace") as f:
                    self.sources[path] = f.read().splitlines()
            except OSError:
                self.sources[path] = []
        src = self.sources[path]
        return src[ln - 1].strip() if 0 < ln <= len(src) else ""

    def own(self, chain):
        """The frames of the project's own sources, innermost first."""
        return [(short(f), p, n) for f, p, n in chain
                if os.path.realpath(p).startswith(self.debug_src)]

    def piece(self, chain):
        if chain and chain[-1][0] in CALLBACK_PIECES:
            return CALLBACK_PIECES[chain[-1][0]]
        own = self.own(chain)
        for name, _, _ in own:
            for key, label in FRAME_PIECES:
                if key in name:
                    return label
        if not own:
            return "(no source line)"
        name, path, ln = own[0]
        text = self.text(path, ln)
        for key, label in LINE_PIECES:
            if key in text:
                return label
        if text == "}" and name == short(chain[-1][0]):
            return "the hook's entry and exit (prologue, epilogue)"
        return f"other: {name} ({os.path.basename(path)}:{ln})"

    def line(self, chain):
        own = self.own(chain)
        if not own:
            return "(no source line)"
        name, path, ln = own[0]
        return f"{name} {os.path.basename(path)}:{ln} `{self.text(path, ln)[:60]}`"


def is_frame_insn(text):
    """An instruction of a function's own entry or exit: endbr, push and pop,
    the stack pointer moved by a constant, ret."""
    op = text.split()[0] if text else ""
    return op in ("endbr64", "push", "pop", "ret") or (
        op in ("sub", "add") and text.endswith(",%rsp") and "$" in text)


def attribute_lines(path, sym, lines):
    """Instructions of LINE_FUNCS per piece and per source line."""
    pieces, per_line = collections.Counter(), collections.Counter()
    with open(path) as f:
        for x in f:
            pc = int(x, 16)
            name, start = sym.locate(pc)
            if name is None:
                continue
            func, _, mod = name.partition("\t")
            if func not in LINE_FUNCS:
                continue
            mod = mod.strip("[] ")
            chain = lines.chain(mod, func, pc - start)
            if chain is None:
                pieces[f"{func} (not attributed)"] += 1
                continue
            if (chain[-1][0] not in CALLBACK_PIECES
                    and pc - start in lines.frame_insns.get((mod, func), ())):
                pieces[FRAME_PIECE] += 1
            else:
                pieces[lines.piece(chain)] += 1
            per_line[f"{func}: {lines.line(chain)}"] += 1
    return pieces, per_line


def line_attr():
    """The line attribution, if PROFILE_DEBUG_SRC names the debug-info build
    (PROFILE_MODULE_SRC: the modules profiled, to check the code is the
    same)."""
    dbg = os.environ.get("PROFILE_DEBUG_SRC")
    if not dbg or not os.path.isdir(dbg):
        return None
    return Lines(dbg, os.environ.get("PROFILE_MODULE_SRC"))


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


def line_tables(split, outdir):
    """The tables of LINE_FUNCS by piece (and, in lines-SCENARIO.md, by
    source line)."""
    lines = []
    for sc, (pieces, per_line) in split.items():
        if not pieces:
            continue
        lines.append(f"### {sc}: the syscall hook and the engine's callbacks by piece: "
                     f"{sum(pieces.values()):,} instructions\n")
        lines.append("| piece | instructions |\n|---|---:|")
        for n, c in pieces.most_common():
            lines.append(f"| {n} | {c:,} |")
        lines.append("")
        with open(os.path.join(outdir, f"lines-{sc}.md"), "w") as f:
            f.write(f"### {sc}: instructions per source line (innermost "
                    "inlined function)\n\n| line | instructions |\n|---|---:|\n")
            for n, c in sorted(per_line.items()):
                f.write(f"| {n} | {c} |\n")
    for sc, base, what in DIFFS:
        if sc not in split or base not in split or not split[sc][0]:
            continue
        a, b = split[sc][0], split[base][0]
        lines.append(f"### {sc} - {base} by piece: {what}: "
                     f"{sum(a.values()) - sum(b.values()):+,} instructions\n")
        lines.append(f"| piece | {base} | {sc} | difference |")
        lines.append("|---|---:|---:|---:|")
        for n in sorted(set(a) | set(b), key=lambda n: -abs(a[n] - b[n])):
            lines.append(f"| {n} | {b[n]:,} | {a[n]:,} | {a[n] - b[n]:+,} |")
        lines.append("")
    return lines


def report(results, outdir, split=None, switched=None):
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
    if split:
        lines += line_tables(split, outdir)
    for sc, parts in (switched or {}).items():
        lines += switch_tables(sc, parts)
    text = "\n".join(lines)
    with open(os.path.join(outdir, "profile.md"), "w") as f:
        f.write(text)
    print(text)


def rereport(log, sysmap, outdir):
    """--report: the tables again from the traces of an earlier run."""
    ksyms = kernel_syms(sysmap)
    modsyms = []
    results = collections.OrderedDict()
    lines, split = line_attr(), collections.OrderedDict()
    switched = collections.OrderedDict()
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
                    sym = Symbolizer(ksyms + modsyms)
                    results[sc] = attribute(path, sym)
                    if lines:
                        split[sc] = attribute_lines(path, sym, lines)
                    if sc in SWITCH_SCENARIOS:
                        switched[sc] = stretches(path, sym)
                modsyms = []
    report(results, outdir, split, switched)


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
    lines, split = line_attr(), collections.OrderedDict()
    switched = collections.OrderedDict()
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
            if lines:
                split[sc] = attribute_lines(os.path.join(outdir, f"{sc}.trace"),
                                            sym, lines)
            if sc in SWITCH_SCENARIOS:
                switched[sc] = stretches(os.path.join(outdir, f"{sc}.trace"), sym)
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
    report(results, outdir, split, switched)


if __name__ == "__main__":
    main()
