# SPDX-License-Identifier: GPL-2.0
# /dev/utrace sessions (utrace_dev.ko, Documentation/utrace-rs/sessions.rst):
# an unprivileged user traces a child and itself; the kernel's ptrace check
# refuses another user's process, a non-dumpable one and kernel threads
# (Yama where the kernel has it); two sessions on one process each see every
# event once and in order; a full buffer counts its losses; captures carry
# the memory a syscall passed (FAULT, CUT and their decisions); a session
# killed while it holds a process stopped lets it run on and the module unloads;
# SET_EVENTS leaves a stopped thread stopped; a STOPPED record right after
# a signal means stopped; every bad ioctl gets its errno, also under a few
# thousand random calls.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
load utrace_rs
load utrace_dev
trap 'kill $victim $nodump $target $holder 2>/dev/null; unload_settled utrace_dev; unload_settled utrace_rs' EXIT
[ -c /dev/utrace ] || fail "no /dev/utrace after loading utrace_dev"
expect_eq "mode of /dev/utrace" "$(stat -c %a /dev/utrace)" 666

# --- an unprivileged user traces its own processes
out=$(runas $NOBODY /utrace/bin/utsess child) || fail "child: $out"
echo "$out"
out=$(runas $NOBODY /utrace/bin/utsess self) || fail "self: $out"
echo "$out"
for mode in pidfd follow threads threxec; do
	out=$(runas $NOBODY /utrace/bin/utsess $mode) || fail "$mode: $out"
	echo "$out"
done

# the example of sessions.rst, as a user
out=$(runas $NOBODY /utrace/bin/sess_example /bin/echo hi) || fail "sess_example: $out"
echo "$out" | grep -q "exec /bin/echo" || fail "sess_example shows no exec: $out"
echo "$out" | grep -q "syscall 1(0x1, ...) = 3" || fail "sess_example shows no write(1, \"hi\\n\", 3): $out"
echo "$out" | grep -q "exited with 0" || fail "sess_example shows no exit: $out"
echo "ok: sess_example /bin/echo hi shows its exec, write(1, ...) = 3 and exit 0"

# --- the kernel's ptrace check decides
sleep 1000 &
victim=$!
mark
expect_eq "nobody attaches to root's process" "$(runas $NOBODY /utrace/bin/utsess attach $victim)" EPERM
dmesg_has "attach to tid $victim refused" || fail "no log line says why the attach was refused"
echo "   says: $(dmesg_since_mark | grep 'refused' | tail -n 1 | sed 's/^\[[^]]*\] //')"
runas $NOBODY /utrace/bin/utsess nodump >/tmp/t52.nodump &
nodump=$!
wait_until 10 "grep -q ready /tmp/t52.nodump"
expect_eq "nobody attaches to its own non-dumpable process" "$(runas $NOBODY /utrace/bin/utsess attach $nodump)" EPERM
expect_eq "root attaches to nobody's non-dumpable process" "$(/utrace/bin/utsess attach $nodump)" ok
expect_eq "nobody attaches to kthreadd" "$(runas $NOBODY /utrace/bin/utsess attach 2)" EPERM
# A pid no task has: ESRCH, and a log line that says so.
gone=$(sh -c 'echo $$')
mark
expect_eq "nobody attaches to a pid no task has" "$(runas $NOBODY /utrace/bin/utsess attach "$gone")" ESRCH
dmesg_has "attach to pid $gone refused: no such process" ||
	fail "no log line says why the attach to pid $gone was refused"
if [ -e /proc/sys/kernel/yama/ptrace_scope ]; then
	scope=$(cat /proc/sys/kernel/yama/ptrace_scope)
	runas $NOBODY /bin/sleep 1000 &
	peer=$!
	echo 1 >/proc/sys/kernel/yama/ptrace_scope
	expect_eq "Yama 1: nobody attaches to its non-descendant" "$(runas $NOBODY /utrace/bin/utsess attach $peer)" EPERM
	expect_eq "Yama 1: root attaches" "$(/utrace/bin/utsess attach $peer)" ok
	# Scope 2: only CAP_SYS_PTRACE attaches (scope 3, no attach at all, is
	# sticky until reboot and would break the later ptrace tests).
	echo 2 >/proc/sys/kernel/yama/ptrace_scope
	expect_eq "Yama 2: nobody attaches to its own child" "$(runas $NOBODY /utrace/bin/utsess child | grep -c 'FAIL: attach')" 1
	expect_eq "Yama 2: root attaches" "$(/utrace/bin/utsess attach $peer)" ok
	echo "$scope" >/proc/sys/kernel/yama/ptrace_scope
	kill $peer
else
	echo "no Yama in this kernel: the Yama checks run on make check-distro"
fi

# --- an exec that makes the process privileged ends the session's watch
cp /utrace/bin/utsess /tmp/t52-suid
chmod 4755 /tmp/t52-suid
out=$(runas $NOBODY /utrace/bin/utsess suid /tmp/t52-suid) || fail "suid: $out"
echo "$out"
expect_eq "the setuid program ran privileged" "$(runas $NOBODY /tmp/t52-suid euid)" "euid 0"
rm -f /tmp/t52-suid

# --- two sessions on one process
out=$(runas $NOBODY /utrace/bin/utsess two 50) || fail "two: $out"
echo "$out"
out=$(runas $NOBODY /utrace/bin/utsess lost) || fail "lost: $out"
echo "$out"
out=$(runas $NOBODY /utrace/bin/utsess lossless) || fail "lossless: $out"
echo "$out"
# --- captures: the memory a syscall passed, in its record
out=$(runas $NOBODY /utrace/bin/utsess capture) || fail "capture: $out"
echo "$out"
# --- a STOPPED record is read once the thread sleeps in its stop, and no
# user code runs after it until RESUME
out=$(runas $NOBODY /utrace/bin/utsess stopstate 50) || fail "stopstate: $out"
echo "$out"
# --- compact records: the same records as whole ones, fewer bytes
out=$(runas $NOBODY /utrace/bin/utsess compact) || fail "compact: $out"
echo "$out"
# --- a syscall filter: exactly the records it keeps, exits with their arguments
out=$(runas $NOBODY /utrace/bin/utsess syscalls) || fail "syscalls: $out"
echo "$out"
# An attach that races its target's exit: 0 or ESRCH, nothing else.
out=$(runas $NOBODY /utrace/bin/utsess exiting 200) || fail "exiting: $out"
echo "$out"
# An attach that races its target's execs succeeds (the ptrace check said
# ESRCH in about one attach of twenty: an exec between its two looks).
out=$(runas $NOBODY /utrace/bin/utsess execrace 200) || fail "execrace: $out"
echo "$out"
# Ten rounds: a SET_EVENTS that resumed the thread let it run one loop
# (to its next report, where the session's stop caught it) in about a
# third of them.
for round in 1 2 3 4 5 6 7 8 9 10; do
	out=$(runas $NOBODY /utrace/bin/utsess setevents) || fail "setevents, round $round: $out"
done
echo "$out (10 rounds)"
# A STOP right after a signal: the STOPPED record means stopped (no user
# code runs until RESUME), wherever the stop was taken.
out=$(runas $NOBODY /utrace/bin/utsess sigstop 40) || fail "sigstop: $out"
echo "$out"
# A signal, then a STOP of one session, another session watching: the
# handler runs once, never while stopped, and each session records the
# signal once.
out=$(runas $NOBODY /utrace/bin/utsess sigtwo 40) || fail "sigtwo: $out"
echo "$out"

# --- the holder of a session that stopped a process is killed
rm -f /tmp/t52.count
runas $NOBODY /utrace/bin/counter /tmp/t52.count &
target=$!
wait_until 10 "[ -s /tmp/t52.count ]"
runas $NOBODY /utrace/bin/utsess hold $target >/tmp/t52.hold &
holder=$!
wait_until 10 "grep -q stopped /tmp/t52.hold"
wait_until 10 "[ \"\$(state_of $target)\" = I ]"
c1=$(od -An -tu8 -N8 /tmp/t52.count)
sleep 0.3
expect_eq "counter stands while the session holds it" "$(od -An -tu8 -N8 /tmp/t52.count)" "$c1"
kill -9 $holder
wait $holder 2>/dev/null
wait_until 10 "[ \"\$(state_of $target)\" != I ]"
wait_until 10 "[ \"\$(od -An -tu8 -N8 /tmp/t52.count)\" != \"$c1\" ]"
echo "ok: the counter runs on after its session's holder was killed"
kill $target
wait $target 2>/dev/null

# --- limits: an errno and a log line each
unload utrace_dev
load utrace_dev sessions_per_user=3 tasks_per_session=4 buffer_kib_per_user=256
mark
expect_eq "nobody opens 5 sessions, 3 allowed" "$(runas $NOBODY /utrace/bin/utsess open 5)" "3 EMFILE"
dmesg_has "sessions_per_user=3 reached" || fail "no log line names sessions_per_user"
expect_eq "a 4-thread process" "$(runas $NOBODY /utrace/bin/utsess big 4)" ok
expect_eq "a 5-thread process" "$(runas $NOBODY /utrace/bin/utsess big 5)" ENOSPC
dmesg_has "tasks_per_session=4 reached" || fail "no log line names tasks_per_session"
# 256 KiB: four sessions' 64 KiB buffers, but only three sessions; a
# bigger buffer in the first leaves no room for the third.
expect_eq "a 200 KiB buffer over a 256 KiB budget" "$(runas $NOBODY /utrace/bin/utsess budget 204800)" "ENOSPC"
dmesg_has "buffer_kib_per_user=256 reached" || fail "no log line names buffer_kib_per_user"
unload utrace_dev
load utrace_dev

# --- bad input
out=$(runas $NOBODY /utrace/bin/utsess bad) || fail "bad (nobody): $out"
echo "$out" | tail -n 3
out=$(/utrace/bin/utsess bad) || fail "bad (root): $out"
echo "$out" | tail -n 1
mark
out=$(runas $NOBODY /utrace/bin/utsess fuzz 3000 "0x$(date +%s)") || fail "fuzz: $out"
echo "$out"
! dmesg_since_mark | grep -Eq "$SPLAT_RE" || fail "kernel splat during the fuzz"

# --- sessions end: the module unloads
kill $victim $nodump 2>/dev/null
wait 2>/dev/null
unload_settled utrace_dev || fail "rmmod utrace_dev after the sessions closed"
! loaded utrace_dev || fail "utrace_dev still loaded"
echo "ok: utrace_dev unloaded"
