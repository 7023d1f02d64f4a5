# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# Guest set-up shared by scripts/guest/bench/bench.sh (`make bench`,
# `make bench-distro`, the regression guard) and scripts/guest/bench/profile.sh
# (`make bench-profile`), sourced from /utrace/bench: loading and unloading
# the modules, and the engines each hot-path configuration puts in place.
# Set FAIL_TAG (BENCH, PROFILE) before sourcing: fail() prints
# "$FAIL_TAG-ERROR ..." for the host to find.
M=/utrace/modules
# shellcheck disable=SC2034 # the sourcing scripts' (utrace_test's directory)
UT=/sys/kernel/debug/utrace_test

fail() { echo "${FAIL_TAG:-BENCH}-ERROR $*"; exit 1; }
ut() { utctl "$@" >/dev/null; }

# Unload everything; engines of reaped tasks go from a workqueue, so retry.
mods_off() {
	for m in syscall_trace global_trace utrace_test utrace_dev utrace_rs probe_floor; do
		t=0
		while grep -q "^$m " /proc/modules; do
			rmmod $m 2>/dev/null && break
			t=$((t + 1)); [ $t -lt 600 ] || fail "cannot unload $m"
			sleep 0.1
		done
	done
}

# utrace_rs.ko and the C test engine (utrace_test.ko, driven by utctl).
utrace_on() { { insmod $M/utrace_rs.ko && insmod $M/utrace_test.ko; } || fail load; }
floor_on() { insmod $M/probe_floor.ko || fail load; }

# global_on nofollow|follow: a global no-op CLONE/EXEC/DEATH engine in
# slot 7 (ops n: its callbacks only return); nofollow attaches it with
# UTRACE_ATTACH_NOFOLLOW (children are not held for its CLONE).
global_on() {
	utrace_on
	ut noop 7 1
	if [ "$1" = follow ]; then ut attach 7 0 0x110 n; else ut attach 7 0 0x310 n; fi
	ut events 7 0x2c
}

# gtrace_on [reader]: samples/global_trace, with a reader (cat) draining its
# stream in the background (READER) if asked.
gtrace_on() {
	{ insmod $M/utrace_rs.ko && insmod $M/global_trace.ko records=65536; } || fail load
	if [ "${1:-}" = reader ]; then
		cat /dev/global_trace >/dev/null &
		# shellcheck disable=SC2034 # the sourcing script stops it
		READER=$!
	fi
}

# untraced_on: a SYSCALL_ENTRY+EXIT no-op engine (slot 0) on another task
# (SLEEPER), so that the workload runs untraced while a task is traced.
untraced_on() {
	utrace_on
	sleep 1000 &
	SLEEPER=$!
	ut noop 0 1; ut attach 0 $SLEEPER 0x10; ut events 0 0xc0
}

# stop_bg PID...: kill and reap background tasks (empty arguments skipped).
stop_bg() { for p in "$@"; do [ -n "$p" ] && kill "$p" 2>/dev/null && wait "$p" 2>/dev/null; done; }
