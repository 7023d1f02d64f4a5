# SPDX-License-Identifier: GPL-2.0
# DETACH racing a callback that is in flight returns -EINPROGRESS; barrier
# waits until that callback returns, and no longer.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

pid=$(gated_sh t20 'exec /bin/true')
expect_ut "attach" 0 attach 0 "$pid" $A_CREATE
expect_ut "events EXEC|DEATH" 0 events 0 $((EV_EXEC | EV_DEATH))
expect_ut "hold EXEC callbacks" 0 hold $EV_EXEC
go t20
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(stat_of held)" = 1 ]'
echo "the EXEC callback is in flight"

expect_ut "set_events clearing a bit while in flight" $EINPROGRESS events 0 $EV_EXEC
expect_ut "DETACH while in flight" $EINPROGRESS control 0 $ACT_DETACH
utctl barrier 0 >/tmp/barrier.out &
bpid=$!
sleep 1
kill -0 $bpid 2>/dev/null || fail "barrier returned while the callback was still held"
expect_eq "callback still held" "$(stat_of held)" 1
utctl release >/dev/null
wait $bpid
expect_eq "barrier result" "$(cat /tmp/barrier.out)" 0
unheld=$(utlog | awk '$2 == 0 && $3 == "UNHELD" { print $1 }')
returned=$(utlog | awk '$2 == 0 && $3 == "BARRIER_RETURNED" { print $1 }')
{ [ -n "$unheld" ] && [ -n "$returned" ]; } || fail "log lacks UNHELD/BARRIER_RETURNED: $(utlog)"
[ "$returned" -gt "$unheld" ] || fail "barrier returned (line $returned) before the callback ended (line $unheld)"
echo "ok: barrier returned after the callback ended"
expect_ut "barrier once fully detached" $ESRCH barrier 0
expect_eq "no DEATH after detach" "$(log_events 0 DEATH)" ""
expect_ut "put" 0 put 0
expect_releases 1

# utrace_release_engines() from a callback of one of its own engines
# refuses (-EDEADLK) instead of waiting for that callback, i.e. for itself.
utctl cleanup >/dev/null
utctl reset >/dev/null
pid=$(gated_sh t20c 'exec /bin/true')
expect_ut "attach (release_engines case)" 0 attach 0 "$pid" $A_CREATE
expect_ut "events EXEC" 0 events 0 $EV_EXEC
expect_ut "release engines from the EXEC callback" 0 releaseon 0 $EV_EXEC
go t20c
wait_until 10 'utlog | grep -q RELEASE_ENGINES'
expect_eq "utrace_release_engines from its own callback" \
	"$(utlog | awk '$3 == "RELEASE_ENGINES" { print $4 }')" $EDEADLK
