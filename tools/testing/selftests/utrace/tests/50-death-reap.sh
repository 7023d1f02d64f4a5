# SPDX-License-Identifier: GPL-2.0
# Tear-down at death: DETACH while DEATH is being reported is -EALREADY (the
# report and REAP still come); once REAP has begun every call is -ESRCH; a
# handle stays valid after reap and release() runs once, at the last put.
# EXIT callbacks see the exit code.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

pid=$(gated_sh t50 'exit 7')
expect_ut "attach" 0 attach 0 "$pid" $A_CREATE
expect_ut "events EXIT|DEATH|REAP" 0 events 0 $((EV_EXIT | EV_DEATH | EV_REAP))
expect_ut "hold DEATH" 0 hold $EV_DEATH
go t50
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(stat_of held)" = 1 ]'
expect_ut "DETACH during DEATH" $EALREADY control 0 $ACT_DETACH
expect_ut "clearing DEATH during DEATH" $EALREADY events 0 $EV_EXIT
utctl release >/dev/null
wait_until 10 "utlog | grep -q '^[0-9]* 0 REAP'"
expect_eq "EXIT code" "$(utlog | awk '$2 == 0 && $3 == "EXIT" { print $5 }')" "code=0x700"
expect_eq "events, in order" "$(utlog | awk '$2 == 0 && $3 ~ /^[A-Z]+$/ && $3 != "HELD" && $3 != "UNHELD" { printf "%s ", $3 }')" \
	"EXIT DEATH REAP "
expect_ut "set_events after reap" $ESRCH events 0 $EV_DEATH
expect_ut "DETACH after reap" $ESRCH control 0 $ACT_DETACH
expect_ut "barrier after reap" $ESRCH barrier 0
expect_eq "not released while the handle is held" "$(stat_of releases)" 0
expect_ut "get" 0 get 0
expect_ut "put the extra reference" 0 put_extra 0
expect_eq "still not released" "$(stat_of releases)" 0
expect_ut "put the last reference" 0 put 0
expect_releases 1

# REAP in progress: DETACH is -ESRCH.
pid=$(gated_sh t50b 'exit 0')
expect_ut "attach" 0 attach 1 "$pid" $A_CREATE
expect_ut "events REAP" 0 events 1 $EV_REAP
expect_ut "hold REAP" 0 hold $EV_REAP
go t50b
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(stat_of held)" = 1 ]'
expect_ut "DETACH during REAP" $ESRCH control 1 $ACT_DETACH
utctl release >/dev/null
expect_ut "put" 0 put 1
expect_releases 2

# A callback's utrace_barrier() on its own engine returns 0 at once: from
# DEATH (in the dying task) and from REAP (in the reap worker, which waited
# for itself before: the test timed out and the worker hung), and
# utrace_release_engines() from REAP refuses with -EDEADLK as from any other
# callback of its engines (it waited for itself too).
utctl reset >/dev/null
pid=$(gated_sh t50c 'exit 0')
expect_ut "attach" 0 attach 2 "$pid" $A_CREATE
expect_ut "events DEATH|REAP" 0 events 2 $((EV_DEATH | EV_REAP))
expect_ut "self-barrier from DEATH and REAP" 0 barrieron 2 $((EV_DEATH | EV_REAP))
expect_ut "release engines from REAP" 0 releaseon 2 $EV_REAP
go t50c
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(utlog | grep -c " SELF_BARRIER ")" = 2 ] && utlog | grep -q RELEASE_ENGINES'
expect_eq "self-barriers: event and result" \
	"$(utlog | awk '$3 == "SELF_BARRIER" { printf "%s %s ", $4, $5 }')" "DEATH 0 REAP 0 "
expect_eq "self-barriers that took a second or more" \
	"$(utlog | awk '$3 == "SELF_BARRIER" && $6 >= 1000000' | wc -l)" 0
expect_eq "utrace_release_engines from REAP" \
	"$(utlog | awk '$3 == "RELEASE_ENGINES" { print $4 }')" $EDEADLK
expect_ut "put" 0 put 2
expect_releases 1
