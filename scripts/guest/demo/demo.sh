#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest for `make demo`: each step says what it shows, then shows it.
M=/utrace/modules
S=/dev/global_trace
step() { printf '\n=== %s\n' "$*"; }
run() { echo "# $*"; "$@"; }

step "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
step "load the framework"
run insmod $M/utrace_rs.ko || exit 1
grep '^utrace_rs ' /proc/modules
dmesg | grep 'utrace_rs:' | tail -n 1

step "global tracing: every CLONE, EXEC and DEATH, as a live table (utrace-top)"
sleep 600 &
old=$!
echo "(pid $old, a sleep, was started before the engine; its death will show too)"
run insmod $M/global_trace.ko || exit 1
utrace-top $S >/tmp/top.out &
top=$!
sleep 0.5
echo "# a small workload: a pipeline, a subshell that exits 3, a thread-spawning program, a killed sleep"
echo hello | tr '[:lower:]' '[:upper:]' >/dev/null
(exit 3)
spawn thread 2 /bin/true </dev/zero
kill $old
wait $old 2>/dev/null
sleep 1
kill $top
cat /tmp/top.out
run rmmod global_trace

step "following one process tree only: global_trace pid=N"
mkfifo /tmp/go
sh -c 'read x < /tmp/go; for i in 1 2; do /bin/true; done; exit 0' &
root=$!
run insmod $M/global_trace.ko pid=$root || exit 1
echo go >/tmp/go
wait $root
sleep 0.5
run utrace-top -n $S
run rmmod global_trace

step "bad input is refused with a reason"
insmod $M/global_trace.ko pid=99999 2>/dev/null
dmesg | grep 'global_trace:' | tail -n 1
insmod $M/global_trace.ko pid=2 2>/dev/null
dmesg | grep 'global_trace:' | tail -n 1

step "crash-suspend, system-wide: any crashing program freezes for the debugger instead of dying"
C=/dev/crash_suspend_control
run sh -c "echo '|/utrace/bin/crash-suspend-core %P %s %e' >/proc/sys/kernel/core_pattern"
crasher run later >/tmp/cs1.out &
run1=$!
until grep -q '^child=' /tmp/cs1.out 2>/dev/null; do sleep 0.1; done
early=$(sed -n 's/^child=//p' /tmp/cs1.out)
echo "(pid $early, a crasher waiting for SIGUSR1 to segfault, was started before the module)"
run insmod $M/crash_suspend.ko || exit 1
dmesg | grep 'crash_suspend: watching' | tail -n 1
echo "# the settings, which root changes at run time in $C"
run cat $C
echo "# two programs crash: the early one (a segfault) and a new one (abort())"
kill -USR1 "$early"
crasher run abort >/tmp/cs2.out &
run2=$!
n=0
until [ "$(dmesg | grep -c 'suspended on signal')" -ge 2 ]; do
	sleep 0.2; n=$((n + 1)); [ $n -lt 100 ] || exit 1
done
dmesg | grep 'suspended on signal' | tail -n 2
echo "# what is suspended, how long it has waited, what to run (the 'broke' of utrace-rs)"
run crash-suspend-list
run gdb -nx -batch -p "$early" -ex bt 2>&1 | grep -E '^#'
echo "# root narrows the selection to uid 1000 and the command 'myserver'; a typo is refused"
run sh -c "echo 'uid=1000 comm=myserver' >$C"
run cat $C
run sh -c "echo 'uid=alice' >$C"
dmesg | grep 'control:' | tail -n 1
echo "# SIGCONT: both go on to die of their signal, the cores go through core_pattern's | helper"
late=$(sed -n 's/^child=//p' /tmp/cs2.out)
run kill -CONT "$early" "$late"
wait $run1 $run2
cat /tmp/cs1.out /tmp/cs2.out | grep '^exit='
n=0
until [ "$(dmesg | grep -c 'crash-suspend-core:')" -ge 2 ] || [ $n -ge 50 ]; do
	sleep 0.2; n=$((n + 1))
done
dmesg | grep 'crash-suspend-core:' | tail -n 2
echo "# the record stream: each suspension and release"
run utrace-top -n /dev/crash_suspend
run rmmod crash_suspend

step "unload"
run rmmod utrace_rs || exit 1
dmesg | grep 'utrace_rs:' | tail -n 1
