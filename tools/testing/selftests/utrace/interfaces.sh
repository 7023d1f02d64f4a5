# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# Sourced by the tests that check every documented interface where debugfs
# cannot help (tests/95-stream-no-debugfs.sh: not mounted;
# tests/99-lockdown.sh: lockdown=integrity, which refuses writable debugfs
# files and unsigned modules). iface_load loads the engines (before
# lockdown: it refuses unsigned modules), iface_exercise uses each
# interface as the documentation says, iface_unload unloads them.

# iface_load: utrace_rs, crash_suspend (every process, max=2),
# global_trace, and syscall_trace on a gated shell (IFACE_SH; `go iface`
# runs it).
iface_load() {
	echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
	load utrace_rs
	load crash_suspend max=2
	load global_trace
	IFACE_SH=$(gated_sh iface '/utrace/bin/stress child')
	load syscall_trace pid="$IFACE_SH"
}

# iface_exercise WHERE: each interface, failing the test if one does not work.
iface_exercise() {
	local c=/dev/crash_suspend_control child out
	# crash_suspend's settings: read, written, refused with an errno.
	expect_eq "$1: crash_suspend settings" "$(tr '\n' ' ' <$c)" \
		"uid=any comm=any tree=any cgroup=any timeout=300 max=2 orphans=core "
	echo 'comm=crasher timeout=60' >$c || fail "$1: writing $c failed"
	{ grep -qx 'comm=crasher' $c && grep -qx 'timeout=60' $c; } ||
		fail "$1: the write did not change the settings: $(tr '\n' ' ' <$c)"
	! echo 'uid=abc' 2>/dev/null >$c || fail "$1: uid=abc was taken"
	grep -qx 'uid=any' $c || fail "$1: a refused write changed uid"
	echo "ok: $1: crash_suspend settings read, written and refused through $c"

	# A crash is held, listed (the list and crash-suspend-list), streamed.
	rm -f /tmp/iface.out
	crasher run segv >/tmp/iface.out &
	wait_until 20 "grep -q ' SIGSEGV ' /dev/crash_suspend_list"
	child=$(awk '$5 == "SIGSEGV" { print $1 }' /dev/crash_suspend_list)
	out=$(crash-suspend-list)
	echo "$out" | sed 's/^/   /'
	echo "$out" | grep -q "gdb -p $child\$" || fail "$1: crash-suspend-list does not show $child"
	kill -CONT "$child"
	wait_until 20 "grep -q '^exit=' /tmp/iface.out"
	expect_eq "$1: after SIGCONT" "$(grep '^exit=' /tmp/iface.out)" "exit=-1 signal=11 core=1"
	out=$(utrace-top -n /dev/crash_suspend)
	echo "$out" | grep -q " suspend pid=$child " || fail "$1: no suspend record: $out"
	echo "$out" | grep -q " release pid=$child .*how=\"core SIGSEGV\"" ||
		fail "$1: no release record: $out"
	echo "ok: $1: crash of $child held, listed, streamed; SIGCONT dumped core"

	# The other streams, global_trace's and syscall_trace's.
	go iface
	wait_until 20 "! [ -d /proc/$IFACE_SH ]"
	utrace-top -n /dev/global_trace >/tmp/iface.gt
	grep -q " EXEC .*file=/utrace/bin/stress" /tmp/iface.gt ||
		fail "$1: global_trace has no EXEC of stress: $(tail -n 5 /tmp/iface.gt)"
	utrace-top -n /dev/syscall_trace >/tmp/iface.st
	grep -q " $IFACE_SH +++ exited with [0-9]* +++" /tmp/iface.st ||
		fail "$1: syscall_trace has no exit of $IFACE_SH: $(tail -n 5 /tmp/iface.st)"
	echo "ok: $1: /dev/global_trace and /dev/syscall_trace stream"
}

# iface_unload: every module iface_load loaded and that is still loaded.
iface_unload() {
	local m
	for m in syscall_trace global_trace crash_suspend utrace_rs; do
		! loaded $m || unload $m
	done
}
