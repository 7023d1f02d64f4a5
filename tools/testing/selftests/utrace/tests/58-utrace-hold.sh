# SPDX-License-Identifier: GPL-2.0
# utrace hold (Documentation/utrace-rs/utrace.rst), as a user without
# privileges on their own processes: a crash freezes the crashing process
# (every thread in state T) with the line "pid N (comm) held on SIG ...: gdb
# -p N"; gdb attaches and its backtrace shows the crashing function; the
# process then dumps core as it would have (the parent's wait() sees
# SIGSEGV with a core, the core file is written) when utrace hold ends
# (SIGTERM), after --timeout, or when utrace hold is killed (SIGKILL: the
# session's end releases it). A process with its own handler is not held;
# a process the user may not ptrace is refused (EPERM).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
UT=/utrace/bin/utrace
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
load utrace_rs
load utrace_dev
trap 'kill -KILL $ut 2>/dev/null; unload_settled utrace_dev; unload_settled utrace_rs' EXIT
if ! $UT info | grep -q '^attach_flags .*decide_signal'; then
	skip "this /dev/utrace has no signal decisions"
fi

# held FILE SIG: waits for utrace hold's line in FILE, checks its form and
# that every thread of the held process is stopped; sets HELD.
held() {
	wait_until 20 "grep -q 'held on $2' $1"
	local line
	line=$(grep "held on $2" "$1")
	echo "   $line"
	HELD=$(echo "$line" | sed -n 's/^pid \([0-9][0-9]*\) (crasher) held on .*: gdb -p \1$/\1/p')
	[ -n "$HELD" ] || fail "the held line is not 'pid N (crasher) held on $2 ...: gdb -p N': $line"
	for t in /proc/"$HELD"/task/*; do
		wait_until 10 "grep -q '^State:.*T (stopped)' $t/status"
	done
	# shellcheck disable=SC2012 # counts the thread ids, numeric names
	echo "ok: pid $HELD held, $(ls /proc/"$HELD"/task | wc -l) thread(s) stopped"
}

# result FILE: crasher run's line on how its child ended.
result() { wait_until 20 "grep -q '^exit=' $1"; grep '^exit=' "$1"; }

# 1. A segfault under `utrace hold -- CMD`; gdb's backtrace; SIGTERM to
# utrace hold: the core. utrace hold exits as the command did.
rm -f /tmp/core.*
runas $NOBODY $UT hold -- crasher run segv >/tmp/t58a.out 2>/tmp/t58a.err &
ut=$!
held /tmp/t58a.out SIGSEGV
grep -q "held on SIGSEGV at 0x0: " /tmp/t58a.out || fail "no fault address 0x0: $(cat /tmp/t58a.out)"
bt=$(gdb -nx -batch -p "$HELD" -ex bt 2>&1)
echo "$bt" | grep '^#' | sed 's/^/   /'
echo "$bt" | grep -q 'in crash_here ' || fail "gdb's backtrace lacks crash_here: $bt"
expect_eq "state after gdb detached" "$(state_of "$HELD")" T
kill -TERM $ut
wait $ut
expect_eq "utrace hold's exit status (the command's)" "$?" 0
expect_eq "after SIGTERM to utrace hold" "$(result /tmp/t58a.out)" "exit=-1 signal=11 core=1"
[ -s /tmp/core."$HELD" ] || fail "no core file /tmp/core.$HELD"
echo "ok: core file /tmp/core.$HELD ($(wc -c </tmp/core."$HELD") bytes)"
sed 's/^/   stderr: /' /tmp/t58a.err

# 2. -p PID of a running process, a kill -SEGV from another process,
# --timeout 1: released, its death reported, utrace hold ends by itself.
runas $NOBODY /utrace/bin/crasher run wait >/tmp/t58b.out &
wait_until 10 "grep -q '^child=' /tmp/t58b.out"
victim=$(sed -n 's/^child=//p' /tmp/t58b.out)
wait_until 10 "grep -q '^Name:.*crasher' /proc/$victim/status"
runas $NOBODY $UT hold --timeout 1 -p "$victim" >/tmp/t58b.hold 2>/tmp/t58b.err &
ut=$!
wait_until 10 "grep -q 'holding crashes of process $victim' /tmp/t58b.err"
kill -SEGV "$victim"
held /tmp/t58b.hold SIGSEGV
expect_eq "the held process" "$HELD" "$victim"
grep -q "held on SIGSEGV from pid $$: " /tmp/t58b.hold || fail "no sender pid $$: $(cat /tmp/t58b.hold)"
wait $ut
expect_eq "utrace hold -p: exit status once the process ended" "$?" 0
sed 's/^/   /' /tmp/t58b.hold
grep -q "^pid $victim (crasher) released after 1 s: it dumps core$" /tmp/t58b.hold ||
	fail "no release line after --timeout 1"
grep -q "^pid $victim (crasher) killed by SIGSEGV (core dumped)$" /tmp/t58b.hold ||
	fail "no death line with the core"
expect_eq "after --timeout" "$(result /tmp/t58b.out)" "exit=-1 signal=11 core=1"

# 3. Three threads, one crashes; SIGKILL to utrace hold: the session's end
# lets the process dump core.
runas $NOBODY $UT hold -- crasher run threads >/tmp/t58c.out 2>/dev/null &
ut=$!
held /tmp/t58c.out SIGSEGV
kill -KILL $ut
expect_eq "after SIGKILL to utrace hold" "$(result /tmp/t58c.out)" "exit=-1 signal=11 core=1"
wait $ut 2>/dev/null

# 4. A process with its own SIGSEGV handler is not held.
out=$(runas $NOBODY $UT hold -- crasher run handler 2>&1)
expect_eq "with a handler: how it ended" "$(echo "$out" | grep '^exit=')" "exit=42 signal=0 core=0"
if echo "$out" | grep -q 'held on'; then fail "a process with a handler was held: $out"; fi

# 5. Not the user's process: refused with the reason.
if out=$(runas $NOBODY $UT hold -p 1 2>&1); then fail "nobody holds init: $out"; fi
echo "$out" | grep -q 'EPERM' || fail "hold -p 1 as nobody: no EPERM in: $out"
echo "ok: nobody: $out"
