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
