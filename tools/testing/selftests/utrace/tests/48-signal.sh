# SPDX-License-Identifier: GPL-2.0
# SIGNAL: the engine sees a signal before delivery, in the task's context,
# and delivers it, ignores it, or holds it (the task stops; SIGCONT delivers
# it). SIGKILL is never reported and always kills.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine
SIG_IGN_ACT=$((ACT_RESUME | 0x10))
SIG_HOLD_ACT=$((ACT_STOP | 0x100))

rm -f /tmp/t48.out
sigcatch /tmp/t48.out &
pid=$!
wait_until 5 "grep -q '^SigCgt:.*[2-9a-f]00$' /proc/$pid/status"
expect_ut "attach" 0 attach 0 $pid $A_CREATE
expect_ut "SIGNAL" 0 events 0 $EV_SIGNAL

kill -USR1 $pid
wait_until 10 "[ \"\$(cat /tmp/t48.out 2>/dev/null)\" = caught ]"
expect_eq "reported before delivery" "$(utlog | awk '$2 == 0 && $3 == "SIGNAL" { print $5 }')" "sig=10"
echo "ok: delivered: the handler ran"

expect_ut "ignore from now on" 0 sigret 0 $SIG_IGN_ACT
kill -USR1 $pid
wait_until 10 "[ \$(utlog | grep -c ' 0 SIGNAL ') = 2 ]"
sleep 1
expect_eq "ignored: the handler did not run again" "$(grep -c caught /tmp/t48.out)" 1
kill -0 $pid || fail "the task died of an ignored signal"
echo "ok: ignored USR1"

expect_ut "hold from now on" 0 sigret 0 $SIG_HOLD_ACT
kill -USR1 $pid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $pid)" = T ]'
sleep 0.5
expect_eq "held: the handler has not run" "$(grep -c caught /tmp/t48.out)" 1
kill -CONT $pid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(grep -c caught /tmp/t48.out)" = 2 ]'
echo "ok: held until SIGCONT, then delivered"

kill -KILL $pid
wait $pid 2>/dev/null
expect_eq "SIGKILL is not reported" "$(utlog | grep -c 'SIGNAL.*sig=9')" 0

# A signal that kills without a core dump by default (SIGTERM here) is
# turned into a group kill when it is sent, before utrace-rs sees it: it is
# not reported, and it kills even with "ignore" in force.
sigcatch /tmp/t48.out &
pid=$!
wait_until 5 "grep -q '^SigCgt:.*[2-9a-f]00$' /proc/$pid/status"
expect_ut "attach" 0 attach 1 $pid $A_CREATE
expect_ut "SIGNAL" 0 events 1 $EV_SIGNAL
expect_ut "ignore" 0 sigret 1 $SIG_IGN_ACT
kill -TERM $pid
wait $pid
expect_eq "exit status" "$?" $((128 + 15))
expect_eq "SIGTERM at its default disposition is not reported" "$(log_events 1 SIGNAL)" ""
