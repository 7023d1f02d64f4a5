# SPDX-License-Identifier: GPL-2.0
# utrace_wait_stopped(): a debugger's STOP, wait, RESUME. It returns 0 once
# the task sleeps in its stop for the engine (utrace_prepare_examine() then
# succeeds, ps shows I), at once if it is already stopped; -ESRCH when the
# task is killed, exits or the engine is detached while it waits, and on a
# dead task; -ERESTARTSYS (-512) when the waiter gets a signal (killable: a
# fatal one only; a SIGSTOP does not end it); -EINVAL on a global engine;
# examining holds while another engine's RESUME or a SIGCONT pokes the
# stopped task; and 200 STOP, wait, RESUME round trips without a barrier.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine
ERESTARTSYS=-512

# waitstop_line SLOT: the result the test engine logged for its wait.
waitstop_line() { utlog | awk -v s="$1" '$2 == s && $3 == "WAITSTOP" { print $4, $5 }' | tail -n 1; }

# --- a running task: STOP, wait, examine, RESUME
sh -c 'while :; do :; done' &
busy=$!
expect_ut "attach" 0 attach 0 $busy $A_CREATE
expect_ut "QUIESCE" 0 events 0 $EV_QUIESCE
expect_ut "callbacks return STOP" 0 ret 0 $ACT_STOP
expect_ut "STOP a running task" $EINPROGRESS control 0 $ACT_STOP
expect_ut "wait until stopped" 0 waitstop 0 0
expect_eq "then prepare_examine" "$(waitstop_line 0)" "ret=0 examine=0"
expect_eq "the task sleeps in its stop" "$(state_of $busy)" I
expect_ut "wait again: already stopped" 0 waitstop 0 1
expect_ut "RESUME (no barrier needed)" 0 control 0 $ACT_RESUME
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $busy)" = R ]'
echo "ok: running again"
expect_ut "a global engine has no task to wait for" 0 attach 5 0 $((A_CREATE | A_GLOBAL))
expect_ut "wait on a global engine" $EINVAL waitstop 5 0
kill -KILL $busy
wait $busy 2>/dev/null
utctl cleanup >/dev/null
utctl reset >/dev/null

# --- examined while something pokes the task in its stop. A RESUME by an
# engine that does not hold it leaves it asleep (it used to wake it, and
# an examiner right after found it running: -EAGAIN); a SIGCONT wakes it
# for a moment (it marks itself stopped for job control again), and
# prepare_examine waits until it sleeps again. (The task on CPU 0, where
# examinepoke runs SCHED_FIFO: every poke wakes it there, behind us.)
taskset 1 sh -c 'while :; do :; done' &
busy=$!
expect_ut "attach" 0 attach 0 $busy $A_CREATE
expect_ut "QUIESCE" 0 events 0 $EV_QUIESCE
expect_ut "callbacks return STOP" 0 ret 0 $ACT_STOP
expect_ut "a second engine, which never stops it" 0 attach 1 $busy $A_CREATE
expect_ut "STOP a running task" $EINPROGRESS control 0 $ACT_STOP
expect_ut "wait until stopped" 0 waitstop 0 0
sw=$(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$busy/status)
expect_ut "200 x (RESUME by the other engine, examine)" 0 examinepoke 0 200 1
expect_eq "context switches of the task meanwhile (not woken)" \
	"$(($(awk '/^voluntary_ctxt_switches/ { print $2 }' /proc/$busy/status) - sw))" 0
expect_ut "50 x (SIGCONT, examine)" 0 examinepoke 0 50 -1
expect_eq "the task still sleeps in its stop" "$(state_of $busy)" I
kill -KILL $busy
wait $busy 2>/dev/null
utctl cleanup >/dev/null
utctl reset >/dev/null

# A task blocked in read(): STOP does not interrupt it, so a waiter waits.
# reader NAME: start one; prints its pid.
reader() {
	rm -f /tmp/"$1".fifo
	mkfifo /tmp/"$1".fifo
	sh -c "exec 3<>/tmp/$1.fifo; read x <&3" >/dev/null 2>&1 &
	echo $!
}
# stopped_reader SLOT NAME: a reader, attached in SLOT, STOP asked; sets rd.
stopped_reader() {
	rd=$(reader "$2")
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 5 '[ "$(state_of $rd)" = S ]'
	# Without report_signal: INTERRUPT's report is report_quiesce(0).
	expect_ut "attach" 0 attach "$1" "$rd" $A_CREATE q
	expect_ut "QUIESCE" 0 events "$1" $EV_QUIESCE
	expect_ut "callbacks return STOP" 0 ret "$1" $ACT_STOP
	expect_ut "STOP a task blocked in read()" $EINPROGRESS control "$1" $ACT_STOP
}
# in_write PID: PID sleeps in write() (its wait, in the ctl write).
in_write() {
	[ "$(cut -d' ' -f1 /proc/"$1"/syscall)" = 1 ] &&
		{ [ "$(state_of "$1")" = S ] || [ "$(state_of "$1")" = I ]; }
}
# waiting SLOT FLAGS: start a background waiter; sets w once it sleeps.
waiting() {
	utctl waitstop "$1" "$2" >/dev/null &
	w=$!
	wait_until 5 "in_write $w"
	sleep 0.3
	expect_eq "slot $1: the waiter still waits" "$(waitstop_line "$1")" ""
}

# --- SIGKILL to the task ends the wait: -ESRCH; a dead task: -ESRCH at once
stopped_reader 1 t45w1
waiting 1 0
kill -KILL "$rd"
wait "$w"
expect_eq "SIGKILL to the task: the waiter returned" "$(waitstop_line 1)" "ret=$ESRCH examine=1"
wait "$rd" 2>/dev/null
expect_ut "wait on a dead task" $ESRCH waitstop 1 0

# --- a detach ends the wait: -ESRCH
stopped_reader 2 t45w2
waiting 2 1
expect_ut "DETACH while a waiter waits" 0 control 2 $ACT_DETACH
wait "$w"
expect_eq "DETACH: the (killable) waiter returned" "$(waitstop_line 2)" "ret=$ESRCH examine=1"
kill -KILL "$rd"
wait "$rd" 2>/dev/null

# --- a signal to the waiter: -ERESTARTSYS; killable: a SIGSTOP does not end it
stopped_reader 3 t45w3
waiting 3 0
kill -TERM "$w"
wait "$w" 2>/dev/null
expect_eq "SIGTERM to the waiter" "$(waitstop_line 3)" "ret=$ERESTARTSYS examine=1"
utctl reset >/dev/null
waiting 3 1
kill -STOP "$w"
sleep 0.3
kill -CONT "$w"
sleep 0.3
expect_eq "SIGSTOP + SIGCONT to a killable waiter: it still waits" "$(waitstop_line 3)" ""
kill -KILL "$w"
wait "$w" 2>/dev/null
expect_eq "SIGKILL to the killable waiter" "$(waitstop_line 3)" "ret=$ERESTARTSYS examine=1"
# And the wait ends with the stop: INTERRUPT takes the reader into it.
utctl reset >/dev/null
waiting 3 0
expect_ut "INTERRUPT: the reader reaches its stop" 0 control 3 $ACT_INTERRUPT
wait "$w"
expect_eq "the waiter returned with the task stopped" "$(waitstop_line 3)" "ret=0 examine=0"
expect_eq "the reader sleeps in its stop" "$(state_of "$rd")" I
kill -KILL "$rd"
wait "$rd" 2>/dev/null
utctl cleanup >/dev/null

# --- 200 round trips the debugger's way: STOP (-EINPROGRESS, never "already
# stopped"), wait until stopped, RESUME, the task runs to its next syscall
bench getppid 2000000000 >/dev/null &
sl=$!
expect_ut "attach" 0 attach 4 $sl $A_CREATE
expect_ut "QUIESCE|SYSCALL_ENTRY" 0 events 4 $((EV_QUIESCE | EV_SYSCALL_ENTRY))
expect_ut "200 x STOP, wait, RESUME, runs again" 0 stopwait 4 200
expect_eq "state after the last RESUME" "$(state_of $sl)" R
median=$(stat_of bench.stopwait_median_ns)
[ "$median" -gt 0 ] || fail "no median round trip after 200: $median"
# A count below 1 is refused (it once sorted past the end of its buffer)
# and leaves no stale figure behind.
expect_ut "stopwait of -5 round trips" -22 stopwait 4 -5
expect_eq "median after the refused run" "$(stat_of bench.stopwait_median_ns)" 0
kill $sl
wait $sl 2>/dev/null || :
