# SPDX-License-Identifier: GPL-2.0
# SYSCALL_ENTRY/EXIT: a traced loop of 1,000 getppid() calls is reported
# exactly (1,000 entries, 1,000 exits); an entry callback aborts getppid()
# with -EPERM for the traced task while an untraced one runs unaffected.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine
N=1000
NR_getppid=110

run_loop() { # run_loop NAME: a sysloop, started on "go" (a line to /tmp/NAME.go); sets loop_pid
	rm -f /tmp/"$1".go
	mkfifo /tmp/"$1".go
	sysloop $N <>/tmp/"$1".go >/tmp/"$1".out &
	loop_pid=$!
}

run_loop t47a
t47a=$loop_pid
expect_ut "attach" 0 attach 0 "$t47a" $A_CREATE
expect_ut "SYSCALL events" 0 events 0 $((EV_SYSCALL_ENTRY | EV_SYSCALL_EXIT))
expect_ut "count getppid" 0 sysnr 0 $NR_getppid
echo go >/tmp/t47a.go
wait "$t47a"
expect_eq "traced loop" "$(cat /tmp/t47a.out)" "ok=$N failed=0 errno=0"
expect_eq "getppid entries reported" "$(stat_of slot0.sys_entries)" $N
expect_eq "getppid exits reported" "$(stat_of slot0.sys_exits)" $N

run_loop t47b
t47b=$loop_pid
run_loop t47c
t47c=$loop_pid
expect_ut "attach" 0 attach 1 "$t47b" $A_CREATE
expect_ut "SYSCALL events" 0 events 1 $((EV_SYSCALL_ENTRY | EV_SYSCALL_EXIT))
expect_ut "count getppid" 0 sysnr 1 $NR_getppid
expect_ut "abort getppid with EPERM" 0 sysabort 1 $NR_getppid 1
echo go >/tmp/t47b.go
echo go >/tmp/t47c.go
wait "$t47b"
wait "$t47c"
expect_eq "traced loop: every call aborted" "$(cat /tmp/t47b.out)" "ok=0 failed=$N errno=1"
expect_eq "untraced loop, meanwhile" "$(cat /tmp/t47c.out)" "ok=$N failed=0 errno=0"
expect_eq "aborted entries reported" "$(stat_of slot1.sys_entries)" $N
expect_eq "aborted exits reported" "$(stat_of slot1.sys_exits)" $N
