#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest for `make bench-profile` (scripts/bench-profile.py is
# the host side). For each scenario: set it up, start its workload, print
#   PROFILE-READY <scenario>
# and wait for a line on /dev/ttyS1, while the host single-steps the vCPU
# through one iteration with QEMU's gdbstub and records every instruction.
M=/utrace/modules
UT=/sys/kernel/debug/utrace_test
CTL=/dev/ttyS1

fail() { echo "PROFILE-ERROR $*"; exit 1; }
ut() { utctl "$@" >/dev/null; }
mods_off() {
	for m in syscall_trace global_trace utrace_test utrace_rs probe_floor; do
		t=0
		while grep -q "^$m " /proc/modules; do
			rmmod $m 2>/dev/null && break
			t=$((t + 1)); [ $t -lt 600 ] || fail "cannot unload $m"
			sleep 0.1
		done
	done
}
utrace_on() { { insmod $M/utrace_rs.ko && insmod $M/utrace_test.ko; } || fail load; }
# The modules' symbols for the host, while they are loaded (the kernel's
# are System.map's: nokaslr).
syms() { sed -n 's/^\([0-9a-f]*\) [tTwW] \(.*\[.*\)/SYM \1 \2/p' /proc/kallsyms; }
ready() {
	syms
	echo "PROFILE-READY $1"
	read -r _ <$CTL
}
stop_bg() { for p in "$@"; do [ -n "$p" ] && kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done; }

# syscall SCENARIO: the getppid loop under SCENARIO's hooks and engines.
syscall() {
	mods_off
	case $1 in
	sys_base) ;;
	sys_floor) insmod $M/probe_floor.ko || fail load ;;
	sys_untraced)
		utrace_on
		sleep 1000 &
		S=$!
		ut noop 0 1; ut attach 0 $S 0x10; ut events 0 0xc0 ;;
	sys_traced*)
		utrace_on ;;
	esac
	bench getppid 2000000000 >/dev/null &
	B=$!
	case $1 in
	sys_traced*)
		k=${1#sys_traced}; k=${k:-1}
		i=0
		while [ $i -lt "$k" ]; do
			ut noop $i 1; ut attach $i $B 0x10; ut events $i 0xc0
			i=$((i + 1))
		done ;;
	esac
	ready "$1"
	stop_bg "$B" "${S:-}"
	S=
	[ -d $UT ] && ut cleanup
	mods_off
}

# fork SCENARIO WORKLOAD: fork loops under a global engine or global_trace.
fork() {
	mods_off
	case $1 in
	*_global)
		utrace_on; ut noop 7 1; ut attach 7 0 0x310; ut events 7 0x2c ;;
	*_gtrace_reader)
		{ insmod $M/utrace_rs.ko && insmod $M/global_trace.ko records=65536; } || fail load
		cat /sys/kernel/debug/utrace/global_trace >/dev/null &
		R=$! ;;
	esac
	bench "$2" 2000000000 >/dev/null &
	B=$!
	ready "$1"
	stop_bg "$B" "${R:-}"
	R=
	[ -d $UT ] && ut cleanup
	mods_off
}

# files SCENARIO: openat (ENOENT) + write, bare or under syscall_trace.
files() {
	mods_off
	rm -f /tmp/p.go; mkfifo /tmp/p.go
	bench files 2000000000 wait <>/tmp/p.go >/dev/null &
	B=$!
	case $1 in
	files_systrace)
		insmod $M/utrace_rs.ko || fail load
		insmod $M/syscall_trace.ko pid=$B records=65536 || fail load ;;
	esac
	echo go >/tmp/p.go
	ready "$1"
	stop_bg "$B"
	mods_off
}

# kernel SCENARIO: the in-kernel loops of utrace_test.ko.
kernel() {
	mods_off
	utrace_on
	bench getppid 2000000000 >/dev/null &
	B=$!
	case $1 in
	attach) ut attachloop $B 2000000000 & L=$! ;;
	stop)
		ut attach 0 $B 0x10; ut noop 0 1; ut events 0 0x41
		ut stoploop 0 2000000000 & L=$! ;;
	esac
	ready "$1"
	stop_bg "$B"
	wait "$L" 2>/dev/null
	ut cleanup
	mods_off
}

echo "PROFILE-BEGIN"
# PROFILE_SCENARIOS (kernel command line, comma-separated) picks some.
all="sys_base sys_floor sys_untraced sys_traced sys_traced2 fork_base fork_global
fork_gtrace_reader exec_base exec_global files_base files_systrace attach stop"
for s in $(echo "${PROFILE_SCENARIOS:-$all}" | tr , ' '); do
	case $s in
	sys_*) syscall "$s" ;;
	fork_*) fork "$s" forkexit ;;
	exec_*) fork "$s" forkexec ;;
	files_*) files "$s" ;;
	*) kernel "$s" ;;
	esac
done
echo "PROFILE-END"
