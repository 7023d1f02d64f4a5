# SPDX-License-Identifier: GPL-2.0
# Stopping before a syscall runs, and examining the stopped task
# (utrace_sysentry_test.ko, progs/sysentry.c):
# - an entry callback's STOP stops write() before it runs; the skipped pass
#   gets no SYSCALL_EXIT; while stopped the general and FP regsets read back
#   what is written to them, with orig_ax the syscall as at entry; the
#   engine changes the count (5), the buffer's bytes ("HELLO", through the
#   task's memory) and xmm1; on RESUME the write runs with all three, its
#   entry reported again with UTRACE_SYSCALL_RESUMED, its exit once;
# - the same for a 32-bit write() (int $0x80, progs/sys32.c): its i386
#   argument registers changed while stopped, restarted as an i386 syscall;
#   and a sleepable entry of a 32-bit openat() reads its path, then the
#   syscall runs once;
# - UTRACE_OPS_SYSCALL_SLEEPABLE: entry callbacks read each openat() path
#   from user memory and sleep, once per call, exits once per call; an abort
#   from there fails the open with the errno set and is reported at exit;
# - a PTRACE_SYSCALL tracer of the stopped task sees the skipped pass as a
#   syscall restarted with -ERESTARTNOINTR (-513, strace's "To be
#   restarted"), then the changed one;
# - report_exec gets the new image's registers (the regset of current says
#   the same).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
SE=/sys/kernel/debug/utrace_sysentry
NR_write=1
NR_openat=257
NR32_write=4
NR32_openat=295
load utrace_rs
load utrace_sysentry_test
teardown() {
	[ -d $SE ] && UTRACE_CTL=$SE/ctl utctl detach >/dev/null
	unload_settled utrace_sysentry_test
	unload_settled utrace_rs
}
trap teardown EXIT
sectl() { UTRACE_CTL=$SE/ctl utctl "$@"; }
expect_se() { # expect_se WHAT WANT WORD...
	local what=$1 want=$2
	shift 2
	expect_eq "$what [$*]" "$(sectl "$@")" "$want"
}
se_stat() { sed -n "s/^$1 //p" $SE/stats; }

# --- stop before write(), change it, resume
start_sysentry t49a write /tmp/t49a.data
expect_se "attach (atomic entry)" 0 attach $pid $NR_write atomic
expect_se "STOP at the next write entry" 0 stopnext
go t49a
expect_se "stopped, examinable" 0 stopped
expect_eq "entries so far" "$(se_stat entries)" 1
expect_eq "no exit for the skipped pass" "$(se_stat exits)" 0
expect_eq "not even as syscall -1" "$(se_stat exits_skipped)" 0
expect_eq "nothing written yet" "$(wc -c </tmp/t49a.data)" 0
expect_se "GPR + FP regset round trip, orig_ax = write" 0 roundtrip
expect_se "count := 5" 0 setarg 2 5
expect_se "buffer := HELLO" 0 poke 1 HELLO
expect_se "xmm1 := 0x2222222222222222" 0 setxmm 1 0x2222222222222222
expect_se "RESUME" 0 resume
wait $pid
expect_eq "what the task saw" "$(cat /tmp/t49a.out)" "ret=5 xmm1=2222222222222222"
expect_eq "what it wrote" "$(cat /tmp/t49a.data)" "HELLO"
# The write, and printf's write of the line above.
expect_eq "new entries" "$(se_stat entries)" 2
expect_eq "RESUMED re-reports" "$(se_stat resumed)" 1
expect_eq "exits" "$(se_stat exits)" 2
expect_se "detach" 0 detach

# --- the same for a 32-bit write (int $0x80, i386 number 4, arguments in
# ebx, ecx, edx): stopped before it, its count and buffer changed through
# the i386 argument registers, restarted as a 32-bit syscall on RESUME
rm -f /tmp/t49i.go /tmp/t49i.data
mkfifo /tmp/t49i.go
sys32 write /tmp/t49i.data <>/tmp/t49i.go >/tmp/t49i.out &
pid=$!
wait_until 5 '[ -e /tmp/t49i.data ]'
expect_se "attach (atomic entry)" 0 attach $pid $NR32_write atomic
expect_se "STOP at the next 32-bit write entry" 0 stopnext
go t49i
expect_se "stopped, examinable" 0 stopped
expect_eq "no exit for the skipped pass" "$(se_stat exits)" 0
expect_eq "nothing written yet" "$(wc -c </tmp/t49i.data)" 0
expect_se "GPR + FP regset round trip, orig_ax = write" 0 roundtrip
expect_se "count (edx) := 5" 0 setarg 2 5
expect_se "buffer (ecx) := HELLO" 0 poke 1 HELLO
expect_se "RESUME" 0 resume
wait $pid
expect_eq "what the task saw" "$(cat /tmp/t49i.out)" "ret=5 xmm1=1111111111111111"
expect_eq "what it wrote" "$(cat /tmp/t49i.data)" "HELLO"
expect_eq "RESUMED re-reports" "$(se_stat resumed)" 1
expect_eq "exits" "$(se_stat exits)" 1
expect_se "detach" 0 detach

# --- a sleepable entry of a 32-bit openat (i386 295): its path read from
# ecx, then the syscall restarted as an i386 one and run once
rm -f /tmp/t49j.go
mkfifo /tmp/t49j.go
sys32 open /utrace/selftests/lib.sh <>/tmp/t49j.go >/tmp/t49j.out &
pid=$!
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(cat /proc/'"$pid"'/comm 2>/dev/null)" = sys32 ]'
expect_se "attach (sleepable entry)" 0 attach $pid $NR32_openat sleep
go t49j
wait $pid
expect_eq "what the task saw" "$(cat /tmp/t49j.out)" "ret=3"
expect_eq "entries, once" "$(se_stat entries)" 1
expect_eq "callbacks that slept" "$(se_stat slept)" 1
expect_eq "path read" "$(se_stat path)" /utrace/selftests/lib.sh
expect_eq "exits, once" "$(se_stat exits)" 1
expect_eq "result" "$(se_stat exit_ret)" 3
expect_se "detach" 0 detach

# --- sleepable entry reads the path
start_sysentry t49b open /tmp/t49-missing /utrace/selftests/lib.sh
expect_se "attach (sleepable entry)" 0 attach $pid $NR_openat sleep
go t49b
wait $pid
expect_eq "opens" "$(cat /tmp/t49b.out)" "opened=1"
expect_eq "entries, each once" "$(se_stat entries)" 2
expect_eq "callbacks that slept" "$(se_stat slept)" 2
expect_eq "path read by the last one" "$(se_stat path)" /utrace/selftests/lib.sh
expect_eq "exits, each once" "$(se_stat exits)" 2
expect_eq "last result" "$(se_stat exit_ret)" 3
expect_se "detach" 0 detach

# --- an abort from the sleepable entry
start_sysentry t49c open /utrace/selftests/lib.sh
expect_se "attach (sleepable entry)" 0 attach $pid $NR_openat sleep
expect_se "abort the next openat with EACCES" 0 abortnext 13
go t49c
wait $pid
expect_eq "open failed" "$(cat /tmp/t49c.out)" "opened=0"
expect_eq "entries" "$(se_stat entries)" 1
expect_eq "its exit reported" "$(se_stat exits)" 1
expect_eq "with the errno" "$(se_stat exit_ret)" -13
expect_se "detach" 0 detach

# --- a ptracer with PTRACE_SYSCALL (as strace) sees a restarted syscall
rm -f /tmp/t49e.go /tmp/t49e.log
mkfifo /tmp/t49e.go
sysentry ptrace /tmp/t49e.data <>/tmp/t49e.go >/tmp/t49e.out 2>/tmp/t49e.log &
tracer=$!
wait_until 10 "grep -q child= /tmp/t49e.log"
child=$(sed -n 's/^child=//p' /tmp/t49e.log)
expect_se "attach to the ptraced child" 0 attach "$child" $NR_write atomic
expect_se "STOP at the next write entry" 0 stopnext
go t49e
expect_se "stopped, examinable" 0 stopped
expect_se "count := 5" 0 setarg 2 5
expect_se "RESUME" 0 resume
wait $tracer
expect_eq "what the ptracer saw" "$(grep -v child= /tmp/t49e.log | tr '\n' ,)" \
	"entry write count=12,exit write ret=-513,entry write count=5,exit write ret=5,entry write count=28,exit write ret=28,"
expect_eq "what the child wrote" "$(cat /tmp/t49e.data)" "hello"
expect_se "detach" 0 detach

# --- report_exec's registers
sh_pid=$(gated_sh t49d "exec sysentry open /utrace/selftests/lib.sh </dev/null")
expect_se "attach" 0 attach "$sh_pid" -2 atomic
go t49d
wait_until 10 "[ ! -d /proc/$sh_pid ]"
expect_eq "exec regs = the regset" "$(se_stat exec_regs_ok)" 1
expect_eq "exec regs differ" "$(se_stat exec_regs_bad)" 0
