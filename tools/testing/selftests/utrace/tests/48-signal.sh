# SPDX-License-Identifier: GPL-2.0
# SIGNAL: the engine sees a signal before delivery, in the task's context,
# and delivers it, ignores it, or suspends it (the process stops in a group
# stop; SIGCONT delivers it). SIGKILL is never reported and always kills.
# (49-signal-model.sh has the other classes, HOLD, rewriting and JCTL.)
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

rm -f /tmp/t48.out
sigcatch /tmp/t48.out &
pid=$!
wait_usr1_handler $pid
expect_ut "attach" 0 attach 0 $pid $A_CREATE
expect_ut "SIGNAL" 0 events 0 $EV_SIGNAL

kill -USR1 $pid
wait_until 10 "[ \"\$(cat /tmp/t48.out 2>/dev/null)\" = caught ]"
# One report before delivery (class DELIVER: a handler runs), one after the
# handler frame was set up (class HANDLER).
expect_eq "reported before delivery" "$(utlog | awk '$2 == 0 && $3 == "SIGNAL" { print $5, $6 }' | tr '\n' ' ')" \
	"sig=10 class=0x0 sig=10 class=0x70 "
echo "ok: delivered: the handler ran"

expect_ut "ignore from now on" 0 sigret 0 $SIGRET_IGN
kill -USR1 $pid
wait_until 10 "[ \$(utlog | grep -c ' 0 SIGNAL .* class=0x0 ') = 2 ]"
sleep 1
expect_eq "ignored: the handler did not run again" "$(grep -c caught /tmp/t48.out)" 1
kill -0 $pid || fail "the task died of an ignored signal"
echo "ok: ignored USR1"

expect_ut "suspend from now on" 0 sigret 0 $SIGRET_SUSPEND
kill -USR1 $pid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $pid)" = T ]'
sleep 0.5
expect_eq "suspended: the handler has not run" "$(grep -c caught /tmp/t48.out)" 1
kill -CONT $pid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(grep -c caught /tmp/t48.out)" = 2 ]'
echo "ok: suspended until SIGCONT, then delivered"

# A second USR1 sent while the first is suspended merges with it, as the
# kernel merges a pending signal: one more handler run after SIGCONT. The
# kernel's own count first: the same sends to the process stopped by SIGSTOP,
# its engine told to deliver (the signal is reported after SIGCONT).
expect_ut "deliver" 0 sigret 0 $SIGRET_DELIVER
kill -STOP $pid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $pid)" = T ]'
kill -USR1 $pid
kill -USR1 $pid
kill -CONT $pid
wait_until 10 "[ \$(grep -c caught /tmp/t48.out) -ge 3 ]"
sleep 0.5
kernel=$(($(grep -c caught /tmp/t48.out) - 2))
expect_eq "the kernel merges two USR1 sent while stopped" "$kernel" 1
expect_ut "suspend again" 0 sigret 0 $SIGRET_SUSPEND
kill -USR1 $pid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $pid)" = T ]'
kill -USR1 $pid
sleep 0.3
expect_ut "deliver" 0 sigret 0 $SIGRET_DELIVER
kill -CONT $pid
wait_until 10 "[ \$(grep -c caught /tmp/t48.out) -ge 4 ]"
sleep 0.5
expect_eq "a USR1 sent while one is suspended merges: handler runs after SIGCONT" \
	"$(($(grep -c caught /tmp/t48.out) - 3))" "$kernel"
echo "ok: a second instance sent while suspended merges with it"

kill -KILL $pid
wait $pid 2>/dev/null
expect_eq "SIGKILL is not reported" "$(utlog | grep -c 'SIGNAL.*sig=9')" 0

# SIGNAL means "a handler will run": SIGTERM at its default disposition is
# a SIGNAL_TERM event, not reported to an engine that has only SIGNAL, and
# it kills even with "ignore" in force for that engine.
sigcatch /tmp/t48.out &
pid=$!
wait_usr1_handler $pid
expect_ut "attach" 0 attach 1 $pid $A_CREATE
expect_ut "SIGNAL" 0 events 1 $EV_SIGNAL
expect_ut "ignore" 0 sigret 1 $SIGRET_IGN
kill -TERM $pid
wait $pid
expect_eq "exit status" "$?" $((128 + 15))
expect_eq "SIGTERM at its default disposition is not a SIGNAL event" "$(log_events 1 SIGNAL)" ""
