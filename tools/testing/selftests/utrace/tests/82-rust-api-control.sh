# SPDX-License-Identifier: GPL-2.0
# The whole safe Rust API, through utrace_api_rs.ko: checks made at load
# (lookup, exclusive attach, handoff, barrier, set_events after attach,
# SYSCALL refused without SyscallEngine), syscall entry/exit counts and
# aborts with a chosen errno, exit-code rewriting, SIGNAL ignore/deliver,
# a stop from callbacks (Control::Report from the signal callback, then
# Action::Stop from the QUIESCE report: only a returned Stop is sticky), and
# RESUME from another task's callback through an EngineRef; and a
# debugger's stop: Control::Stop, EngineRef::wait_stopped, examine,
# Control::Resume.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
load utrace_rs

# --- syscalls and the exit code
rm -f /tmp/t82.go
mkfifo /tmp/t82.go
sysloop 100 </tmp/t82.go >/tmp/t82.out &
pid=$!
mark
load utrace_api_rs pid=$pid abort=4 exit=42
! dmesg_has "check .* FAILED" || fail "API checks at load: $(dmesg_since_mark | grep FAILED)"
expect_eq "API checks passed at load" "$(dmesg_since_mark | grep -c 'utrace_api_rs: check .* ok')" 6
echo go >/tmp/t82.go
wait $pid
expect_eq "exit status (the exit callback rewrote 0 to 42)" "$?" 42
expect_eq "what sysloop saw (every 4th getppid aborted with EPERM)" \
	"$(cat /tmp/t82.out)" "ok=75 failed=25 errno=1"
unload utrace_api_rs
read_counters 'utrace_api_rs: entries='
expect_eq "getppid entries" "$(counter_value entries)" 100
expect_eq "getppid exits (aborted ones never ran)" "$(counter_value exits)" 75
expect_eq "aborted" "$(counter_value aborted)" 25
expect_eq "original exit code" "$(counter_value orig_exit)" 0
# A barrier that would have to wait, from a syscall callback with a
# spinlock held (atomic on every kernel): refused with EWOULDBLOCK (-11) and
# a log line, not slept.
expect_eq "barrier from atomic context" "$(counter_value barrier_in_atomic)" -11
dmesg_has "utrace_barrier called where it may not sleep" || fail "no log line for the refused barrier"

# --- signals, a stop from callbacks, RESUME from another task's callback
rm -f /tmp/t82.sig
sigcatch /tmp/t82.sig &
tpid=$!
wait_until 5 "[ -e /tmp/t82.sig ]"
sleep 0.2
# The controller catches SIGUSR1 too (a signal that would kill at its
# default disposition is never reported: complete_signal() made it a group
# kill already).
rm -f /tmp/t82.ctl
sigcatch /tmp/t82.ctl &
ctl=$!
wait_until 5 "[ -e /tmp/t82.ctl ]"
sleep 0.2
mark
load utrace_api_rs pid=$tpid ctl=$ctl
caught() { grep -c caught /tmp/t82.sig; }
kill -USR1 $tpid
sleep 0.3
expect_eq "first SIGUSR1 ignored by the engine" "$(caught)" 0
kill -USR1 $tpid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(caught)" = 1 ]'
echo "ok: second SIGUSR1 delivered"
kill -USR1 $tpid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $tpid)" = I ]'
echo "ok: third SIGUSR1 ignored and the task stopped"
kill -USR1 $tpid
sleep 0.5
expect_eq "a stopped task runs no handler" "$(caught)" 1
expect_eq "still stopped" "$(state_of $tpid)" I
kill -USR1 $ctl
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(caught)" = 2 ]'
echo "ok: resumed from the controller's callback; the queued SIGUSR1 ran"
expect_eq "the controller's SIGUSR1 (ignored by the engine) ran no handler" \
	"$(grep -c caught /tmp/t82.ctl)" 0
unload utrace_api_rs
read_counters 'utrace_api_rs: entries='
expect_eq "signals ignored" "$(counter_value ignored)" 2
expect_eq "signals delivered" "$(counter_value delivered)" 2
expect_eq "HANDLER reports (one per delivery to the handler)" "$(counter_value handler)" 2
expect_eq "resumes" "$(counter_value resumed)" 1
[ "$(counter_value quiesce_stopped)" -ge 1 ] || fail "no QUIESCE report at the stop"
kill $tpid $ctl
wait $tpid $ctl 2>/dev/null

# --- JCTL through Engine::jctl's JctlReport: a 3-thread process stopped and
# continued twice; each thread reports each stop (before it stops: all
# three are in once the parent saw the stop) and each continue, and exactly
# one report per stop (continue) has notify(), the main thread's (the signal
# went to the process). The next stop waits for the continue reports (a
# thread that SIGCONT woke but that has not run yet when the next stop
# starts stops again before it reports: see api.rst).
rm -f /tmp/t82j.tids /tmp/t82j.wait
jobctl /tmp/t82j.tids >/tmp/t82j.wait &
jobctl=$!
wait_until 10 "[ -s /tmp/t82j.tids ]"
read -r jp jt1 jt2 </tmp/t82j.tids
mark
load utrace_api_rs jctl="$jp" jctl_t1="$jt1" jctl_t2="$jt2"
jctl_lines() { dmesg_since_mark | grep -c "utrace_api_rs: jctl tid=[0-9]* $1"; }
for round in 1 2; do
	kill -STOP "$jp"
	wait_until 30 "[ \$(grep -c '^stopped 19' /tmp/t82j.wait) = $round ]"
	expect_eq "stop reports when the parent saw stop $round" "$(jctl_lines stop)" $((3 * round))
	kill -CONT "$jp"
	wait_until 30 "[ \$(jctl_lines cont) = $((3 * round)) ]"
done
kill -KILL "$jp"
wait "$jobctl"
unload utrace_api_rs
read_counters 'utrace_api_rs: jctl_stops='
expect_eq "stop reports (3 threads, 2 stops)" "$(counter_value jctl_stops)" 6
expect_eq "stop reports with notify (one per stop)" "$(counter_value jctl_stop_notify)" 2
expect_eq "... the main thread's" "$(counter_value jctl_stop_notify_main)" 2
expect_eq "continue reports" "$(counter_value jctl_conts)" 6
expect_eq "continue reports with notify (one per continue)" "$(counter_value jctl_cont_notify)" 2
expect_eq "... the main thread's" "$(counter_value jctl_cont_notify_main)" 2

# --- a debugger's stop (stopwait=1, at load): Control::Stop (EINPROGRESS),
# EngineRef::wait_stopped (Ok, and Ok again while stopped), examine,
# Control::Resume with no barrier; wait_stopped on a detached engine: ESRCH
sh -c 'while :; do :; done' &
busy=$!
mark
load utrace_api_rs pid=$busy stopwait=1
! dmesg_has "check .* FAILED" || fail "stopwait checks: $(dmesg_since_mark | grep FAILED)"
for c in "Control::Stop of a running task: EINPROGRESS" "wait_stopped" \
	"examine after wait_stopped" "wait_stopped again: still stopped" \
	"Control::Resume after wait_stopped" "wait_stopped on a detached engine: ESRCH"; do
	dmesg_has "utrace_api_rs: check $c ok" || fail "no 'check $c ok'"
	echo "ok: $c"
done
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $busy)" = R ]'
echo "ok: running again after the Resume"
unload utrace_api_rs
kill -KILL $busy
wait $busy 2>/dev/null
unload utrace_rs
