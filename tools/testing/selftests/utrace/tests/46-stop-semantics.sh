# SPDX-License-Identifier: GPL-2.0
# utrace's stop semantics: only a returned STOP is sticky (a callback that
# returns anything else drops its engine's stop); REPORT or INTERRUPT returned
# by a callback makes a report (QUIESCE, or INTERRUPT's signal report); REPORT from utrace_control() resumes the
# engine's stop and reports; a STOP asked for while the task's work runs gets
# its QUIESCE report before the task stops; an engine finds itself with a
# lookup from its EXIT and DEATH callbacks; a utrace-stopped thread does not
# keep its process's SIGSTOP group stop from completing (waitpid(WUNTRACED)
# sees it), stays stopped across SIGCONT until RESUME, and joins a group stop
# still in force when it is resumed.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

# --- a non-STOP return drops the engine's stop
sh -c 'while :; do :; done' &
busy=$!
expect_ut "attach" 0 attach 0 $busy $A_CREATE
expect_ut "QUIESCE" 0 events 0 $EV_QUIESCE
expect_ut "STOP, the QUIESCE callback will return RESUME" $EINPROGRESS control 0 $ACT_STOP
wait_until 10 "log_events 0 QUIESCE | grep -qx $busy"
sleep 0.5
expect_eq "not stopped: the callback's RESUME dropped the stop" "$(state_of $busy)" R
expect_ut "callbacks return STOP" 0 ret 0 $ACT_STOP
expect_ut "STOP, the QUIESCE callback returns STOP" $EINPROGRESS control 0 $ACT_STOP
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $busy)" = I ]'
expect_ut "callbacks return RESUME" 0 ret 0 $ACT_RESUME
expect_ut "REPORT resumes the engine's stop and reports" 0 control 0 $ACT_REPORT
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $busy)" = R ]'
expect_eq "QUIESCE reports at the safe point" "$(log_events 0 QUIESCE | grep -c "^$busy\$")" 3
kill -KILL $busy
wait $busy 2>/dev/null
utctl cleanup >/dev/null
utctl reset >/dev/null

# --- a callback's REPORT or INTERRUPT makes a report before user mode: a
# QUIESCE report for REPORT, a signal report without a signal for INTERRUPT
# (report_signal with UTRACE_SIGNAL_REPORT, see 46-stop-interrupt)
for act in REPORT:$ACT_REPORT INTERRUPT:$ACT_INTERRUPT; do
	case ${act%:*} in
	REPORT) last="QUIESCE:event=0x0" ;;
	*) last="SIGNAL:sig=0" ;;
	esac
	pid=$(gated_sh t46a 'exec /bin/true')
	expect_ut "attach" 0 attach 1 "$pid" $A_CREATE
	expect_ut "QUIESCE|EXEC" 0 events 1 $((EV_QUIESCE | EV_EXEC))
	expect_ut "callbacks return ${act%:*}" 0 ret 1 "${act#*:}"
	go t46a
	wait_until 10 "utlog | grep -q '^[0-9]* 1 EXEC'"
	wait_until 10 "[ ! -d /proc/$pid ] || [ \$(state_of $pid) = Z ]"
	expect_eq "QUIESCE(EXEC), EXEC, then the report asked by EXEC's ${act%:*}" \
		"$(utlog | awk '$2 == 1 && ($3 == "QUIESCE" || $3 == "EXEC" || $3 == "SIGNAL") { printf "%s:%s ", $3, $5 }' | cut -d' ' -f1-3)" \
		"QUIESCE:event=0x8 EXEC:/bin/true $last"
	utctl cleanup >/dev/null
	utctl reset >/dev/null
done

# --- a STOP asked for while the task's work runs: its QUIESCE report first
pid=$(gated_sh t46b 'exec /bin/true')
expect_ut "attach A" 0 attach 2 "$pid" $A_CREATE
expect_ut "A: EXEC" 0 events 2 $EV_EXEC
expect_ut "hold EXEC callbacks" 0 hold $EV_EXEC
go t46b
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(stat_of held)" = 1 ]'
# B comes after the EXEC report began: it is not in that pass.
expect_ut "attach B while A's EXEC callback runs" 0 attach 3 "$pid" $A_CREATE
expect_ut "B: QUIESCE" 0 events 3 $EV_QUIESCE
expect_ut "B: callbacks return STOP" 0 ret 3 $ACT_STOP
expect_ut "B: STOP while the task's work runs" $EINPROGRESS control 3 $ACT_STOP
expect_ut "release" 0 release
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of '"$pid"')" = I ]'
expect_eq "B's QUIESCE report came before the stop" \
	"$(utlog | awk '$2 == 3 && $3 == "QUIESCE" { print $5 }')" "event=0x0"
expect_ut "B: callbacks return RESUME" 0 ret 3 $ACT_RESUME
expect_ut "B: RESUME" 0 control 3 $ACT_RESUME
wait_until 10 "[ ! -d /proc/$pid ] || [ \$(state_of $pid) = Z ]"
utctl cleanup >/dev/null
utctl reset >/dev/null

# --- an engine finds itself from EXIT and DEATH (lookup on an exiting task)
pid=$(gated_sh t46c 'exit 3')
expect_ut "attach" 0 attach 4 "$pid" $A_CREATE
expect_ut "EXIT|DEATH" 0 events 4 $((EV_EXIT | EV_DEATH))
expect_ut "look up from EXIT and DEATH" 0 lookupexit 4 1
go t46c
wait_until 10 "utlog | grep -q '^[0-9]* 4 DEATH'"
expect_eq "lookups from the exiting task" \
	"$(utlog | awk '$2 == 4 && $3 ~ /^LOOKUP/ { printf "%s:%s ", $3, $4 }')" \
	"LOOKUP_IN_EXIT:self LOOKUP_IN_DEATH:self "
utctl cleanup >/dev/null
utctl reset >/dev/null

# --- a SIGSTOP group stop with one thread in a utrace stop
rm -f /tmp/t46.tids /tmp/t46.wait
jobctl /tmp/t46.tids >/tmp/t46.wait &
waiter=$!
wait_until 10 "[ -s /tmp/t46.tids ]"
read -r child t1 t2 </tmp/t46.tids
expect_ut "attach to thread $t1" 0 attach 5 "$t1" $A_CREATE
expect_ut "QUIESCE" 0 events 5 $EV_QUIESCE
expect_ut "callbacks return STOP" 0 ret 5 $ACT_STOP
expect_ut "STOP thread $t1" $EINPROGRESS control 5 $ACT_STOP
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of '"$t1"')" = I ]'
kill -STOP "$child"
wait_until 10 "grep -qx 'stopped 19' /tmp/t46.wait"
echo "ok: waitpid(WUNTRACED) saw the group stop complete"
expect_eq "states (main, other thread, utrace-stopped thread)" \
	"$(state_of "$child") $(state_of "$t2") $(state_of "$t1")" "T T I"
kill -CONT "$child"
wait_until 10 "grep -qx continued /tmp/t46.wait"
sleep 0.3
expect_eq "after SIGCONT the utrace stop holds" "$(state_of "$t1")" I
[ "$(state_of "$t2")" != T ] || fail "thread $t2 still stopped after SIGCONT"
expect_ut "RESUME" 0 ret 5 $ACT_RESUME
expect_ut "RESUME thread $t1" 0 control 5 $ACT_RESUME
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of '"$t1"')" != I ]'
echo "ok: thread $t1 runs again"
# Resumed while its process is still group-stopped: it joins the stop.
expect_ut "callbacks return STOP" 0 ret 5 $ACT_STOP
expect_ut "STOP thread $t1 again" $EINPROGRESS control 5 $ACT_STOP
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of '"$t1"')" = I ]'
kill -STOP "$child"
wait_until 10 "[ \$(grep -c 'stopped 19' /tmp/t46.wait) = 2 ]"
expect_ut "callbacks return RESUME" 0 ret 5 $ACT_RESUME
expect_ut "RESUME during the group stop" 0 control 5 $ACT_RESUME
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of '"$t1"')" = T ]'
echo "ok: the resumed thread joined its process's group stop"
kill -CONT "$child"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of '"$t1"')" != T ]'
kill -KILL "$child"
wait $waiter
expect_eq "what waitpid() saw" "$(tr '\n' ' ' </tmp/t46.wait)" \
	"stopped 19 continued stopped 19 continued killed 9 "
utctl cleanup >/dev/null

# --- STOP returned by the parent's CLONE callback, fork and vfork: the
# parent stops before it runs user code again (ps: I), and runs on (reaps
# its child, exits 0) after RESUME. A vfork parent's CLONE is reported by
# the child on its behalf; the stop takes effect when the parent returns
# from vfork (after the child's exec).
for mode in fork vfork; do
	utctl reset >/dev/null
	rm -f /tmp/t46.go
	mkfifo /tmp/t46.go
	spawn $mode 1 /bin/true </tmp/t46.go &
	sp=$!
	expect_ut "$mode: attach" 0 attach 6 $sp $A_CREATE
	expect_ut "$mode: CLONE" 0 events 6 $EV_CLONE
	expect_ut "$mode: callbacks return STOP" 0 ret 6 $ACT_STOP
	echo go >/tmp/t46.go
	wait_until 10 "log_events 6 CLONE | grep -qx $sp"
	sleep 1
	kill -0 $sp 2>/dev/null || fail "$mode: the parent ran on after its CLONE callback returned STOP (it exited)"
	expect_eq "$mode: the parent is stopped after its CLONE callback returned STOP" "$(state_of $sp)" I
	expect_ut "$mode: callbacks return RESUME" 0 ret 6 $ACT_RESUME
	expect_ut "$mode: RESUME" 0 control 6 $ACT_RESUME
	wait $sp || fail "$mode: spawn failed after RESUME"
	echo "ok: $mode: stopped by its CLONE callback's STOP, then ran to its end"
	utctl cleanup >/dev/null
done
