#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest for `make demo`: each step says what it shows, then shows it.
M=/utrace/modules
S=/sys/kernel/debug/utrace/global_trace
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

step "crash-suspend: a crashing program freezes for the debugger instead of dying"
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
mkfifo /tmp/go2
sh -c 'read x < /tmp/go2; crasher run segv >/tmp/cs.out' &
root=$!
run insmod $M/crash_suspend.ko pid=$root || exit 1
echo "# the watched shell now runs a program that writes through a NULL pointer"
echo go >/tmp/go2
n=0
until dmesg | grep -q 'suspended on signal'; do
	sleep 0.2; n=$((n + 1)); [ $n -lt 100 ] || exit 1
done
dmesg | grep 'crash_suspend: pid' | tail -n 1
child=$(dmesg | sed -n 's/.*crash_suspend: pid \([0-9]*\) .*/\1/p' | tail -n 1)
grep '^State' /proc/"$child"/status
run gdb -nx -batch -p "$child" -ex bt 2>&1 | grep -E '^#|^Program|stopped'
echo "# SIGCONT: the process goes on to die of its SIGSEGV, with its core dump"
run kill -CONT "$child"
wait $root
cat /tmp/cs.out
ls -l /tmp/core."$child"
run rmmod crash_suspend

step "unload"
run rmmod utrace_rs || exit 1
dmesg | grep 'utrace_rs:' | tail -n 1
