# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the guest-side selftests. Source it; every check prints
# what it saw when it fails, and `fail` ends the test with exit 1.
# shellcheck disable=SC2034 # its constants are for the tests that source it

MODDIR=/utrace/modules
# The kernel splat pattern (an extended regex), shared with the host: one
# alternative a line in splat.re, which the initramfs has beside this file.
SPLAT_RE=$(sed -e '/^#/d' -e '/^$/d' /utrace/selftests/splat.re | tr '\n' '|')
SPLAT_RE=${SPLAT_RE%|}

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 4; }

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}

# mark: put a unique marker into the kernel log; dmesg_has then only looks
# at what came after the latest marker.
MARK=
mark() {
	MARK="utrace-selftest-mark-$$-$(cat /proc/sys/kernel/random/uuid 2>/dev/null || date +%s%N)"
	echo "$MARK" >/dev/kmsg
}
dmesg_since_mark() {
	if [ -n "$MARK" ]; then dmesg | sed -n "/$MARK/,\$p"; else dmesg; fi
}

# dmesg_has PATTERN: the kernel log (since the mark) has an extended-regex match.
dmesg_has() { dmesg_since_mark | grep -Eq "$1"; }

# read_counters PREFIX: the last kernel log line (since the mark) with PREFIX, a
# module's "name: a=1 b=2 ..." counters, shown and kept in COUNTERS;
# counter_value NAME then reads NAME's value from it.
read_counters() {
	COUNTERS=$(dmesg_since_mark | grep "$1" | tail -n 1)
	echo "$COUNTERS"
}
counter_value() { echo "$COUNTERS" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

# loaded NAME: NAME is in the module list.
loaded() { grep -q "^$1 " /proc/modules; }

# load NAME [PARAMS...]: insmod from the module directory.
load() {
	local name=$1; shift
	insmod "$MODDIR/$name.ko" "$@" || fail "insmod $name $* failed"
}

# unload NAME: rmmod and check that it is gone.
unload() {
	rmmod "$1" || fail "rmmod $1 failed"
	! loaded "$1" || fail "$1 still listed after rmmod"
}

# unload_settled NAME: rmmod NAME once nothing holds a reference on it, for
# teardowns (never fails the test; rmmod's status). An engine of a C module
# pins it until its release has run, and that comes after the engine's last
# put: the framework's own reference goes an RCU grace period after the
# detach (or at the task's reap, from the reap worker), and the release runs
# in the release worker. So a teardown right after `utctl cleanup` (or a
# killed target) waits, at most 10 s, for the module's reference count to
# drop to 0, and says so when it had to wait. A module that other modules
# still use is not waited for (their references go with their rmmod).
unload_settled() {
	local name=$1 n=0 refs first
	loaded "$name" || return 0
	refs=$(cat /sys/module/"$name"/refcnt 2>/dev/null || echo 0)
	first=$refs
	while [ "$refs" != 0 ] && [ $n -lt 100 ] &&
		[ -z "$(ls /sys/module/"$name"/holders 2>/dev/null)" ]; do
		sleep 0.1
		n=$((n + 1))
		refs=$(cat /sys/module/"$name"/refcnt 2>/dev/null || echo 0)
	done
	[ $n = 0 ] || echo "teardown: waited $((n / 10)).$((n % 10)) s for the references on $name (engines not yet released) to go: $first -> $refs"
	rmmod "$name"
}

# modinfo_field FILE KEY: the value of KEY in a .ko's .modinfo section
# (NUL-separated KEY=value strings; the first may follow other bytes).
modinfo_field() {
	tr '\0' '\n' <"$1" | grep -a -o "$2=.*" | head -n 1 | cut -d= -f2-
}

# --- utrace_test.ko helpers -------------------------------------------------
# Event bits, attach flags, actions and signal actions of
# include/utrace_rs.h (scripts/check-abi.py checks them against it).
EV_REAP=0x2 EV_CLONE=0x4 EV_EXEC=0x8 EV_EXIT=0x10 EV_DEATH=0x20
A_MATCH_OPS=0x1 A_MATCH_DATA=0x2 A_CREATE=0x10 A_EXCLUSIVE=0x20 A_GLOBAL=0x100 A_NOFOLLOW=0x200
ACT_STOP=0 ACT_INTERRUPT=1 ACT_REPORT=2 ACT_SINGLESTEP=3 ACT_BLOCKSTEP=4 ACT_RESUME=5 ACT_DETACH=6
EV_QUIESCE=0x1 EV_SIGNAL=0x100 EV_SIGNAL_CORE=0x1000 EV_SYSCALL_ENTRY=0x40 EV_SYSCALL_EXIT=0x80
EV_SIGNAL_IGN=0x200 EV_SIGNAL_STOP=0x400 EV_SIGNAL_TERM=0x800 EV_JCTL=0x2000
EPERM=-1 ENOENT=-2 ESRCH=-3 ENODEV=-19 EEXIST=-17 EINVAL=-22 EOPNOTSUPP=-95
EALREADY=-114 EINPROGRESS=-115 EDEADLK=-35
# Signal actions (enum utrace_signal_action) and the flags or'd into them.
SIGNAL_DELIVER=0x00 SIGNAL_IGN=0x10 SIGNAL_TERM=0x20 SIGNAL_CORE=0x30 SIGNAL_STOP=0x40
SIGNAL_TSTP=0x50 SIGNAL_REPORT=0x60 SIGNAL_HANDLER=0x70 SIGNAL_HOLD=0x100 SIGNAL_SUSPEND=0x200
# report_signal's return values the tests give `utctl sigret`: deliver,
# ignore, kill, hold (stop; reported again after RESUME), suspend.
SIGRET_DELIVER=$((ACT_RESUME | SIGNAL_DELIVER)) SIGRET_IGN=$((ACT_RESUME | SIGNAL_IGN))
SIGRET_TERM=$((ACT_RESUME | SIGNAL_TERM)) SIGRET_HOLD=$((ACT_STOP | SIGNAL_HOLD))
SIGRET_SUSPEND=$((ACT_STOP | SIGNAL_SUSPEND))
UT=/sys/kernel/debug/utrace_test

# setup_engine: load utrace_rs and utrace_test; unload both when the test ends.
setup_engine() {
	load utrace_rs
	load utrace_test
	trap teardown_engine EXIT
}
teardown_engine() {
	# Held callbacks go on first: cleanup's barrier would wait for them.
	[ -d $UT ] && utctl release >/dev/null
	[ -d $UT ] && utctl cleanup >/dev/null
	unload_settled utrace_test
	unload_settled utrace_rs
}

# expect_ut WHAT WANT WORD...: run the utrace_test command, compare its result.
expect_ut() {
	local what=$1 want=$2
	shift 2
	expect_eq "$what [$*]" "$(utctl "$@")" "$want"
}

utlog() { cat $UT/log; }
stat_of() { sed -n "s/^$1 //p" $UT/stats | grep . || echo 0; }

# wait_until SECONDS CMD...: poll CMD (evaluated in this shell, so it may
# use these helpers and pipes) every 0.1 s until it succeeds.
wait_until() {
	local n=$(($1 * 10))
	shift
	while ! eval "$*" 2>/dev/null; do
		n=$((n - 1))
		[ $n -gt 0 ] || fail "timed out waiting for: $*"
		sleep 0.1
	done
}

# wait_usr1_handler PID: wait until PID (sigcatch) has its SIGUSR1 handler.
wait_usr1_handler() { wait_until 5 "grep -q '^SigCgt:.*[2-9a-f]00\$' /proc/$1/status"; }

# log_events SLOT EVENT: the pids the slot logged for EVENT, one per line.
log_events() { utlog | awk -v s="$1" -v e="$2" '$2 == s && $3 == e { print $4 }'; }

# gated_sh NAME SCRIPT: start `sh -c SCRIPT` that first waits for a line on
# the fifo /tmp/NAME.go; prints its pid. `go NAME` lets it continue.
gated_sh() {
	rm -f /tmp/"$1".go
	mkfifo /tmp/"$1".go
	sh -c "read x < /tmp/$1.go; $2" >/dev/null 2>&1 &
	echo $!
}
go() { echo go > /tmp/"$1".go; }

# start_sysentry NAME ARGS...: start `sysentry ARGS` in the background,
# waiting for a line on the fifo /tmp/NAME.go (`go NAME`), its output in
# /tmp/NAME.out; sets pid. Returns once it runs sysentry: the shell's own
# openat() calls for the redirections, before the exec, are not its.
start_sysentry() {
	local name=$1
	shift
	rm -f /tmp/"$name".go
	mkfifo /tmp/"$name".go
	sysentry "$@" <>/tmp/"$name".go >/tmp/"$name".out &
	pid=$!
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 5 '[ "$(cat /proc/'"$pid"'/comm 2>/dev/null)" = sysentry ]'
}

# spawn_now MODE N PROG...: start `spawn` in the background at once (it
# waits for a byte on stdin, written here); SPAWN_PID is its pid.
spawn_now() {
	rm -f /tmp/spawn_now.go
	mkfifo /tmp/spawn_now.go
	spawn "$@" </tmp/spawn_now.go &
	SPAWN_PID=$!
	echo go >/tmp/spawn_now.go
}

# expect_releases N: release() has run exactly N times. The attached
# reference goes an RCU grace period after a detach, so allow it time to
# arrive, then make sure no extra one follows.
expect_releases() {
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 5 '[ "$(stat_of releases)" -ge '"$1"' ]'
	sleep 0.2
	expect_eq "release() calls" "$(stat_of releases)" "$1"
}

# stat_fields PID LIST: fields LIST (cut -f) of /proc/PID/stat after its
# comm (1 the state, 2 the ppid); nothing if the task is gone.
stat_fields() { sed 's/.*) //' /proc/"$1"/stat 2>/dev/null | cut -d' ' -f"$2"; }

# task_line PID: "task PID STATE PPID WCHAN COMM" (for diagnosis).
task_line() {
	echo "task $1 $(stat_fields "$1" 1,2) $(cat /proc/"$1"/wchan 2>/dev/null) $(cat /proc/"$1"/comm 2>/dev/null)"
}

# dump_tasks: every user task's task_line.
dump_tasks() {
	local p ppid
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		ppid=$(stat_fields "$p" 2)
		[ -n "$ppid" ] && [ "$p" != 2 ] && [ "$ppid" != 2 ] && task_line "$p"
	done
}

# leftover_tasks: the pids of the user tasks other than init, the caller
# and the caller's parent (a test's leftovers, once it ended).
leftover_tasks() {
	local p ppid
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		ppid=$(stat_fields "$p" 2)
		[ -n "$ppid" ] && [ "$p" != 1 ] && [ "$p" != 2 ] && [ "$ppid" != 2 ] &&
			[ "$p" != $$ ] && [ "$p" != "$PPID" ] && [ "$ppid" != $$ ] && echo "$p"
	done
}

# state_of PID: the one-letter state in /proc/PID/stat; cpu_of PID: utime+stime.
state_of() { sed 's/.*) //' /proc/"$1"/stat | cut -d' ' -f1; }
cpu_of() { sed 's/.*) //' /proc/"$1"/stat | awk '{ print $12 + $13 }'; }
