# SPDX-License-Identifier: GPL-2.0
# Stopping before a syscall, examining a task and the sleepable syscall
# entry through the safe Rust API (utrace_sysentry_rs.ko): write() stopped
# before it runs; another task's EXEC callback examines it through an
# EngineRef (registers as at entry, count 12 -> 5, buffer -> HELLO read
# back, xmm1 changed) and resumes it; the skipped pass has no exit, the
# resumed entry is reported as such; a sleepable tracer reads openat()
# paths and current's registers; the stop, examination and restart again
# for an i386 write (int $0x80).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
load utrace_rs

start_sysentry t83w write /tmp/t83.data
writer=$pid
start_sysentry t83o open /tmp/t83-missing /utrace/selftests/lib.sh
opener=$pid
ctl=$(gated_sh t83c "exec sysentry open /tmp/t83-none </dev/null")
mark
load utrace_sysentry_rs pid=$writer ctl="$ctl" open=$opener
go t83w
go t83o
wait $opener
# The writer is stopped before its write(): nothing written yet.
sleep 0.3
expect_eq "nothing written while stopped" "$(wc -c </tmp/t83.data)" 0
go t83c
wait $writer
expect_eq "what the task saw" "$(cat /tmp/t83w.out)" "ret=5 xmm1=3333333333333333"
expect_eq "what it wrote" "$(cat /tmp/t83.data)" "HELLO"
expect_eq "opens" "$(cat /tmp/t83o.out)" "opened=1"
wait_until 10 "[ ! -d /proc/$ctl ]"
unload utrace_sysentry_rs
! dmesg_has "check .* FAILED" || fail "checks: $(dmesg_since_mark | grep FAILED)"
# 11 by the controller, one per path read.
expect_eq "checks passed" "$(dmesg_since_mark | grep -c 'utrace_sysentry_rs: check .* ok')" 13
read_counters 'utrace_sysentry_rs: entries='
# The write, and printf's write of the line above.
expect_eq "write entries" "$(counter_value entries)" 2
expect_eq "RESUMED re-reports" "$(counter_value resumed)" 1
expect_eq "write exits (none for the skipped pass)" "$(counter_value exits)" 2
expect_eq "first exit's result" "$(counter_value first_exit)" 5
expect_eq "openat entries, each once" "$(counter_value open_entries)" 2
expect_eq "openat exits" "$(counter_value open_exits)" 2
expect_eq "current's registers from the sleepable entry" "$(counter_value regs_ok)" 2
expect_eq "last path read" "$(counter_value path)" /utrace/selftests/lib.sh

# The same for an i386 write (int $0x80, progs/sys32.c): the controller
# finds it an i386 syscall (Examined::syscall_arch()) and changes its count
# and buffer through the i386 argument registers (UserRegs::arg/set_arg).
rm -f /tmp/t83i.go /tmp/t83i.data
mkfifo /tmp/t83i.go
sys32 write /tmp/t83i.data <>/tmp/t83i.go >/tmp/t83i.out &
writer=$!
wait_until 5 '[ -e /tmp/t83i.data ]'
ctl=$(gated_sh t83d "exec sysentry open /tmp/t83-none </dev/null")
mark
load utrace_sysentry_rs pid=$writer ctl="$ctl" i386=1
go t83i
sleep 0.3
expect_eq "nothing written while stopped (i386)" "$(wc -c </tmp/t83i.data)" 0
go t83d
wait $writer
expect_eq "what the task saw (i386)" "$(cat /tmp/t83i.out)" "ret=5 xmm1=3333333333333333"
expect_eq "what it wrote (i386)" "$(cat /tmp/t83i.data)" "HELLO"
wait_until 10 "[ ! -d /proc/$ctl ]"
unload utrace_sysentry_rs
! dmesg_has "check .* FAILED" || fail "checks: $(dmesg_since_mark | grep FAILED)"
expect_eq "checks passed (i386)" "$(dmesg_since_mark | grep -c 'utrace_sysentry_rs: check .* ok')" 11
read_counters 'utrace_sysentry_rs: entries='
expect_eq "i386 write entries" "$(counter_value entries)" 1
expect_eq "RESUMED re-reports (i386)" "$(counter_value resumed)" 1
expect_eq "i386 write exits (none for the skipped pass)" "$(counter_value exits)" 1
expect_eq "first exit's result (i386)" "$(counter_value first_exit)" 5
