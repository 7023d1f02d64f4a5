# SPDX-License-Identifier: GPL-2.0
# /dev/utrace: the registers of a thread a session holds stopped
# (UTRACE_IOC_GETREGS, UTRACE_IOC_SETREGS; Documentation/utrace-rs/
# sessions.rst), as an unprivileged user on its own
# child: GETREGS shows where the child stopped (rip after its read()'s
# syscall instruction, rax the read's result, rsp as the child reports it),
# SETREGS changes what read() returns to the child, a write the regset
# refuses changes nothing, SINGLESTEP runs one instruction, and every
# misuse gets its errno (progs/utregs.c). The kernel is SINGLESTEP's
# oracle: the same instructions (a syscall and a jump among them) stepped
# by a session and by ptrace stop at the same rips.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
load utrace_rs
load utrace_dev
trap 'unload_settled utrace_dev; unload_settled utrace_rs' EXIT
mark
out=$(runas $NOBODY /utrace/bin/utregs regs) || fail "utregs regs: $out"
echo "$out"
out=$(runas $NOBODY /utrace/bin/utregs steps) || fail "utregs steps: $out"
echo "$out"
out=$(runas $NOBODY /utrace/bin/utregs stepmore) || fail "utregs stepmore: $out"
echo "$out"
! dmesg_since_mark | grep -Eq "$SPLAT_RE" || fail "kernel splat during the register test"
dmesg_has "GETREGS of tid [0-9]+ refused: the session does not hold it stopped" ||
	fail "no log line says why GETREGS of a running thread was refused"
unload_settled utrace_dev || fail "rmmod utrace_dev after the session closed"
echo "ok: utrace_dev unloaded"
