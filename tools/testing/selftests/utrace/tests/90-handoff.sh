# SPDX-License-Identifier: GPL-2.0
# Tracer handoff: utrace_handoff() moves a task from engine A to a new engine
# B so that every event goes to exactly one of them. The switch point: an
# event whose callback to A is running stays A's; the next one is B's.
# Then a stress run: a global engine switched back and forth thousands of
# times while 8 processes each fork, exec and reap step by step; A's and B's
# records of every CLONE, EXEC and DEATH reconcile exactly, with no event
# lost or reported twice.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

rm -f /tmp/t90.go2
mkfifo /tmp/t90.go2
pid=$(gated_sh t90 'exec sh -c "read y < /tmp/t90.go2; exec /bin/true"')
expect_ut "attach A" 0 attach 0 "$pid" $A_CREATE
expect_ut "events" 0 events 0 $((EV_EXEC | EV_DEATH | EV_REAP))
expect_ut "hold EXEC" 0 hold $EV_EXEC
go t90
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(stat_of held)" = 1 ]'
expect_ut "handoff while A's EXEC callback runs" 0 handoff 0
utctl release >/dev/null
echo go >/tmp/t90.go2
wait_until 10 "utlog | grep -q '^[0-9]* 0 REAP'"
got=$(utlog | awk '$2 == 0 && $3 ~ /^(EXEC|DEATH|REAP)$/ { printf "%s:%s ", $3, $NF }')
expect_eq "events and the engine that got each" "$got" \
	"EXEC:ops=a EXEC:ops=b DEATH:ops=b REAP:ops=b "
utctl put 0 >/dev/null

# A task stopped only by the old engine: the old engine's stop ends with
# the handoff (as at a DETACH); the new engine starts fresh, holding no
# stop, so the task runs on. The new engine then stops it, waits for the
# stop, examines it and resumes it.
sh -c 'while :; do :; done' &
busy=$!
expect_ut "attach A" 0 attach 2 $busy $A_CREATE
expect_ut "A: QUIESCE" 0 events 2 $EV_QUIESCE
expect_ut "callbacks return STOP" 0 ret 2 $ACT_STOP
expect_ut "A: STOP" $EINPROGRESS control 2 $ACT_STOP
expect_ut "A: wait until stopped" 0 waitstop 2 0
expect_eq "stopped by A" "$(state_of $busy)" I
expect_ut "handoff of the stopped task" 0 handoff 2
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(state_of $busy)" = R ]'
c1=$(cpu_of $busy); sleep 1; c2=$(cpu_of $busy)
[ $((c2 - c1)) -gt 10 ] || fail "the task did not run after the handoff ($((c2 - c1)) ticks in 1 s)"
echo "ok: A's stop ended with the handoff: the task runs ($((c2 - c1)) ticks in 1 s)"
expect_ut "B: STOP" $EINPROGRESS control 2 $ACT_STOP
rm -f /tmp/t90.ws
utctl waitstop 2 1 >/tmp/t90.ws &
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ -s /tmp/t90.ws ]'
expect_eq "B: wait until stopped" "$(cat /tmp/t90.ws)" 0
expect_eq "B: waitstop and examine" \
	"$(utlog | awk '$2 == 2 && $3 == "WAITSTOP" { print $4, $5 }' | tail -n 1)" "ret=0 examine=0"
expect_eq "stopped by B" "$(state_of $busy)" I
expect_ut "B: RESUME" 0 control 2 $ACT_RESUME
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(state_of $busy)" = R ]'
echo "ok: B stopped, examined and resumed the task"
kill -KILL $busy
wait $busy 2>/dev/null
expect_ut "cleanup" 0 cleanup

P=8 K=${UTRACE_HS_STEPS:-250}
expect_ut "stress accounting" 0 hs $P "$K"
rm -f /tmp/t90.go
mkfifo /tmp/t90.go
hsload $P "$K" <>/tmp/t90.go &
hpid=$!
wait_until 10 "[ -e /tmp/hs/$((P - 1)).$((K - 1)) ]"
expect_ut "filter" 0 filter $hpid
expect_ut "global A" 0 attach 1 0 $((A_CREATE | A_GLOBAL))
expect_ut "global events" 0 events 1 $((EV_CLONE | EV_EXEC | EV_DEATH))
utctl --while-pid $hpid handoff 1 >/tmp/t90.sw &
spid=$!
echo go >/tmp/t90.go
wait $hpid || fail "hsload failed"
wait $spid
# shellcheck disable=SC2046 # split into the two counts
set -- $(cat /tmp/t90.sw)
echo "handoffs: $1 tried, $2 failed; $(stat_of switches) switches"
cat $UT/stats | grep '^hs\.'
expect_eq "failed handoffs" "$2" 0
[ "$(stat_of switches)" -ge 1000 ] || fail "only $(stat_of switches) switches"
for what in exec clone child_death death; do
	want=$((P * K))
	[ $what = death ] && want=$P
	expect_eq "$what events" "$(stat_of hs.$what)" $want
	expect_eq "$what events reported twice" "$(stat_of hs.${what}_dups)" 0
	expect_eq "$what events never reported" "$(stat_of hs.${what}_missing)" 0
done
{ [ "$(stat_of hs.by_a)" -gt 0 ] && [ "$(stat_of hs.by_b)" -gt 0 ]; } ||
	fail "one engine saw nothing: a=$(stat_of hs.by_a) b=$(stat_of hs.by_b)"
echo "ok: $((3 * P * K + P)) events over $(stat_of switches) switches, each reported exactly once"
