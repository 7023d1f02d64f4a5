# SPDX-License-Identifier: GPL-2.0
# STOP, RESUME, INTERRUPT, REPORT and QUIESCE: a busy loop stops at once and
# costs no CPU while stopped; a stop lasts until every engine that asked
# resumes or detaches; a task blocked in read() is not stopped by STOP until
# INTERRUPT, and its read restarts transparently; QUIESCE comes before each
# event; SIGKILL ends a stop at once.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

# --- a busy loop
sh -c 'while :; do :; done' &
busy=$!
expect_ut "attach A" 0 attach 0 $busy $A_CREATE
expect_ut "attach B" 0 attach 1 $busy $A_CREATE
expect_ut "A: QUIESCE" 0 events 0 $EV_QUIESCE
# Only a returned STOP is sticky (utrace): the engines' callbacks say STOP.
expect_ut "A: callbacks return STOP" 0 ret 0 $ACT_STOP
expect_ut "B: callbacks return STOP" 0 ret 1 $ACT_STOP
expect_ut "A: STOP a running task" $EINPROGRESS control 0 $ACT_STOP
wait_until 10 "log_events 0 QUIESCE | grep -qx $busy"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $busy)" = I ]'
expect_eq "QUIESCE at the safe point" "$(utlog | awk '$2 == 0 && $3 == "QUIESCE" { print $5; exit }')" "event=0x0"
expect_ut "A: STOP again: already stopped" 0 control 0 $ACT_STOP
c1=$(cpu_of $busy); sleep 1; c2=$(cpu_of $busy)
expect_eq "CPU ticks used while stopped for 1 s" "$((c2 - c1))" 0
expect_ut "B: STOP too" 0 control 1 $ACT_STOP
expect_ut "A: RESUME" 0 control 0 $ACT_RESUME
sleep 0.5
expect_eq "still stopped: B holds it" "$(state_of $busy)" I
expect_ut "B: DETACH" 0 control 1 $ACT_DETACH
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $busy)" = R ]'
c1=$(cpu_of $busy); sleep 1; c2=$(cpu_of $busy)
[ $((c2 - c1)) -gt 10 ] || fail "the loop did not run after the last stop ended ($((c2 - c1)) ticks)"
echo "ok: running again ($((c2 - c1)) ticks in 1 s)"

# --- SIGKILL ends a stop at once
expect_ut "A: STOP" $EINPROGRESS control 0 $ACT_STOP
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $busy)" = I ]'
kill -KILL $busy
wait_until 5 "[ ! -d /proc/$busy ] || [ \$(state_of $busy) = Z ]"
wait $busy 2>/dev/null
echo "ok: SIGKILL ended the stop"
utctl cleanup >/dev/null

# --- a task blocked in read()
rm -f /tmp/t45.fifo
mkfifo /tmp/t45.fifo
sh -c 'exec 3<>/tmp/t45.fifo; read x <&3; echo "got=$x" >/tmp/t45.out' &
rd=$!
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(state_of $rd)" = S ]'
# An engine without report_signal: INTERRUPT's report to it is
# report_quiesce(0) (report_signal's is in 46-stop-interrupt).
expect_ut "attach" 0 attach 2 $rd $A_CREATE q
expect_ut "QUIESCE" 0 events 2 $EV_QUIESCE
expect_ut "callbacks return STOP" 0 ret 2 $ACT_STOP
expect_ut "STOP a task blocked in read()" $EINPROGRESS control 2 $ACT_STOP
sleep 1
expect_eq "STOP does not interrupt the read" "$(state_of $rd)" S
expect_eq "no QUIESCE yet" "$(log_events 2 QUIESCE)" ""
expect_ut "INTERRUPT" 0 control 2 $ACT_INTERRUPT
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $rd)" = I ]'
wait_until 5 "log_events 2 QUIESCE | grep -qx $rd"
echo "ok: INTERRUPT took it out of read() into the stop (its QUIESCE report said STOP)"
expect_ut "RESUME" 0 control 2 $ACT_RESUME
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(state_of $rd)" = S ]'
echo hello >/tmp/t45.fifo
wait $rd
expect_eq "the read restarted transparently" "$(cat /tmp/t45.out)" "got=hello"
utctl cleanup >/dev/null

# --- REPORT, and QUIESCE before an event
pid=$(gated_sh t45 'exec /bin/true')
expect_ut "attach" 0 attach 3 "$pid" $A_CREATE
expect_ut "QUIESCE|EXEC" 0 events 3 $((EV_QUIESCE | EV_EXEC))
expect_ut "REPORT" 0 control 3 $ACT_REPORT
go t45
wait_until 10 "utlog | grep -q '^[0-9]* 3 EXEC'"
expect_eq "QUIESCE(EXEC) right before EXEC" \
	"$(utlog | awk '$2 == 3 && ($3 == "QUIESCE" || $3 == "EXEC") { printf "%s:%s ", $3, $5 }')" \
	"QUIESCE:event=0x0 QUIESCE:event=0x8 EXEC:/bin/true "

# --- 200 STOP/RESUME round trips on a task in a syscall loop: each STOP
# gets its QUIESCE report and -EINPROGRESS (never "already stopped"), each
# RESUME lets it run to its next syscall (stoploop times out otherwise).
bench getppid 2000000000 >/dev/null &
sl=$!
expect_ut "attach" 0 attach 4 $sl $A_CREATE
expect_ut "QUIESCE|SYSCALL_ENTRY" 0 events 4 $((EV_QUIESCE | EV_SYSCALL_ENTRY))
expect_ut "200 x STOP, QUIESCE, RESUME, runs again" 0 stoploop 4 200
expect_eq "state after the last RESUME" "$(state_of $sl)" R
kill $sl
