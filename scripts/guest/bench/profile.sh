#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest for `make bench-profile` (scripts/bench-profile.py is
# the host side). For each scenario: set it up, start its workload, print
#   PROFILE-READY <scenario>
# and wait for a line on /dev/ttyS1, while the host single-steps the vCPU
# through one iteration with QEMU's gdbstub and records every instruction.
# The set-up it shares with bench.sh (modules, engines) is in lib.sh.
CTL=/dev/ttyS1

FAIL_TAG=PROFILE
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /utrace/bench/lib.sh
# The modules' symbols for the host, while they are loaded (the kernel's
# are System.map's: nokaslr).
syms() { sed -n 's/^\([0-9a-f]*\) [tTwW] \(.*\[.*\)/SYM \1 \2/p' /proc/kallsyms; }
# The pid of a child of process $1.
child_of() {
	for s in /proc/[0-9]*/stat; do
		read -r pid _ _ ppid _ 2>/dev/null <"$s" || continue
		[ "$ppid" = "$1" ] && echo "$pid" && return
	done
}
ready() {
	syms
	echo "PROFILE-READY $1"
	read -r _ <$CTL
}

# syscall SCENARIO: the getppid loop under SCENARIO's hooks and engines.
syscall() {
	mods_off
	case $1 in
	sys_base) ;;
	sys_floor) floor_on ;;
	sys_untraced) untraced_on ;;
	sys_traced*)
		utrace_on ;;
	sys_session*)
		{ insmod $M/utrace_rs.ko && insmod $M/utrace_dev.ko; } || fail load ;;
	esac
	case $1 in sys_session*)
		# The kernel side of a session, as make bench's session row: a
		# plain reader (sessread: lossy, every entry and exit) on the
		# loop; it drains every 2 ms, so an iteration is the traced
		# task's own work. sys_session_exit: exits only, one record a
		# call (make bench's session_exit row).
		exits=0
		[ "$1" = sys_session_exit ] && exits=1
		SESSREAD_EXIT=$exits /utrace/bin/sessread /utrace/bin/bench getppid 2000000000 >/dev/null 2>&1 &
		SLEEPER=$!
		sleep 1
		# The traced loop (the image has no pgrep): left running, it
		# would be stepped in the next scenario's place.
		B=$(child_of $SLEEPER)
		[ -n "$B" ] || fail "sessread started no workload"
		;;
	*)
		bench getppid 2000000000 >/dev/null &
		B=$!
		;;
	esac
	case $1 in
	sys_traced*)
		# sys_tracedK: K genuinely no-op engines (utrace_test's ops n, as
		# make bench's rows); sys_traced_testK: K of the test engine's
		# slots with noop set (ops a: callbacks that check the STOP loop's,
		# the step mode's and the noop flags first), the rows before.
		k=${1#sys_traced} ops=n
		case $k in _test*) k=${k#_test} ops=a ;; esac
		k=${k:-1}
		i=0
		while [ $i -lt "$k" ]; do
			ut noop $i 1; ut attach $i "$B" 0x10 $ops; ut events $i 0xc0
			i=$((i + 1))
		done ;;
	esac
	ready "$1"
	stop_bg "$B" "${SLEEPER:-}"
	SLEEPER=
	[ -d $UT ] && ut cleanup
	mods_off
}

# fork SCENARIO WORKLOAD: fork loops under a global engine or global_trace.
fork() {
	mods_off
	case $1 in
	*_global) global_on nofollow ;;
	*_gtrace_reader) gtrace_on reader ;;
	esac
	bench "$2" 2000000000 >/dev/null &
	B=$!
	ready "$1"
	stop_bg "$B" "${READER:-}"
	READER=
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
	stop | stop_barrier)
		# stop: make bench's STOP row (stopwait: STOP,
		# utrace_wait_stopped(), RESUME, wait for the next syscall),
		# with the controller SCHED_FIFO (its row utrace_rt): a fair
		# controller woken by the task's syscall is not run while the
		# clock stands still under the single-stepping (the task loops
		# in getppid() without end); stop_barrier: the old row
		# (stoploop: the QUIESCE callback wakes the controller, which
		# barriers before RESUME).
		ut attach 0 $B 0x10; ut noop 0 1; ut events 0 0x41
		# The SCHED_FIFO loop is finite (100,000 round trips, about
		# 1.1e9 instructions): with an endless one the guest never got
		# to its teardown after the trace (it kept looping; the shell's
		# kill never came; not understood yet).
		if [ "$1" = stop ]; then
			ut stopwait 0 100000 rt & L=$!
		else
			ut stoploop 0 2000000000 & L=$!
		fi ;;
	esac
	ready "$1"
	stop_bg "$B"
	wait "$L" 2>/dev/null
	ut cleanup
	mods_off
}

echo "PROFILE-BEGIN"
# PROFILE_KSYMS=1: the kernel's own text symbols too, for a kernel whose
# System.map the host does not have (Debian's: `make bench-profile-distro`).
[ "${PROFILE_KSYMS:-0}" = 1 ] && sed -n 's/^\([0-9a-f]*\) [tT] \([^ []*\)$/KSYM \1 \2/p' /proc/kallsyms
# PROFILE_SCENARIOS (kernel command line, comma-separated) picks some.
all="sys_base sys_floor sys_untraced sys_traced sys_traced2 sys_traced_test sys_traced_test2 sys_session sys_session_exit
fork_base fork_global
fork_gtrace_reader exec_base exec_global files_base files_systrace attach stop stop_barrier"
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
