# SPDX-License-Identifier: GPL-2.0
#
# Run inside gdb by scripts/bench-profile.py: connects to QEMU's gdbstub,
# stops at PROF_START (a hardware breakpoint), then single-steps the vCPU
# and writes every instruction address until PROF_START has been reached
# PROF_HITS more times (one iteration of the workload), or PROF_MAX steps.
import os

import gdb

sock = os.environ["PROF_GDB"]
start = int(os.environ["PROF_START"], 16)
hits = int(os.environ.get("PROF_HITS", "1"))
limit = int(os.environ.get("PROF_MAX", "2000000"))
out = os.environ["PROF_OUT"]

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set architecture i386:x86-64")
gdb.execute(f"target remote {sock}")
# Interrupts and timers are masked while stepping (QEMU's default: the
# stub's stops would otherwise let timers fire at every step), except to step
# over a hlt, which only an interrupt ends.
MASKED, OPEN = os.environ.get("PROF_SSTEP", "0x7"), "0x1"
gdb.execute(f"maintenance packet Qqemu.sstep={MASKED}", to_string=True)
inferior = gdb.selected_inferior()
gdb.execute(f"hbreak *{start:#x}", to_string=True)
gdb.execute("continue", to_string=True)
gdb.execute("delete", to_string=True)
seen = 0
steps = 0
with open(out, "w") as f:
    f.write(f"{start:x}\n")
    frame = gdb.selected_frame
    while steps < limit:
        pc = int(frame().pc()) & 0xFFFFFFFFFFFFFFFF
        try:
            idle = inferior.read_memory(pc, 1).tobytes() == b"\xf4"
        except gdb.MemoryError:
            idle = False
        if idle:
            gdb.execute(f"maintenance packet Qqemu.sstep={OPEN}", to_string=True)
        gdb.execute("stepi", to_string=True)
        if idle:
            gdb.execute(f"maintenance packet Qqemu.sstep={MASKED}", to_string=True)
        pc = int(frame().pc()) & 0xFFFFFFFFFFFFFFFF
        if pc == start:
            seen += 1
            if seen == hits:
                break
        f.write(f"{pc:x}\n")
        steps += 1
        if steps % 20000 == 0:
            f.flush()
gdb.execute("detach", to_string=True)
