# SPDX-License-Identifier: GPL-2.0
# utrace_attach_task(): every flag combination and error code; references
# and release().
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

sleep 1000 &
victim=$!
zombie >/tmp/zombie.pid &
zp=$!
wait_until 5 test -s /tmp/zombie.pid
z=$(cat /tmp/zombie.pid)
wait_until 5 grep -q '^State:.*Z' /proc/"$z"/status

expect_ut "kernel thread (kthreadd)" $EPERM attach 0 2 $A_CREATE
expect_ut "pid that does not exist" $ESRCH attach 0 99999 $A_CREATE
expect_ut "zombie" $ESRCH attach 0 "$z" $A_CREATE
expect_ut "lookup, nothing attached" $ENOENT attach 0 $victim $A_MATCH_OPS
expect_ut "CREATE with NULL ops" $EINVAL attach 0 $victim $A_CREATE none
expect_ut "unknown flag" $EINVAL attach 0 $victim 0x1010
expect_ut "GLOBAL with a task" $EINVAL attach 0 $victim $((A_CREATE | A_GLOBAL))
expect_ut "per-task without a task" $EINVAL attach 0 0 $A_CREATE

expect_ut "CREATE" 0 attach 0 $victim $A_CREATE
expect_ut "CREATE|EXCLUSIVE|MATCH_OPS, same ops" $EEXIST \
	attach 1 $victim $((A_CREATE | A_EXCLUSIVE | A_MATCH_OPS))
expect_ut "CREATE|EXCLUSIVE|MATCH_OPS, other ops" 0 \
	attach 1 $victim $((A_CREATE | A_EXCLUSIVE | A_MATCH_OPS)) b
expect_ut "CREATE|EXCLUSIVE without MATCH: any engine matches" $EEXIST \
	attach 2 $victim $((A_CREATE | A_EXCLUSIVE))
expect_ut "lookup MATCH_OPS (b) finds slot 1's engine" 0 attach 2 $victim $A_MATCH_OPS b
expect_ut "lookup MATCH_DATA of slot 0" 0 attach 3 $victim $A_MATCH_DATA a 0
expect_ut "lookup MATCH_DATA, no such data" $ENOENT attach 4 $victim $A_MATCH_DATA a 77

# slot 2 holds a second reference on slot 1's engine, slot 3 on slot 0's.
expect_ut "events beyond _UTRACE_NEVENTS" $EINVAL events 0 0x4000
expect_ut "events" 0 events 0 $((EV_EXEC | EV_DEATH))
expect_ut "REPORT needs the QUIESCE event" $EINVAL control 0 $ACT_REPORT
expect_ut "SINGLESTEP needs the QUIESCE event" $EINVAL control 0 $ACT_SINGLESTEP
expect_ut "BLOCKSTEP needs the QUIESCE event" $EINVAL control 0 $ACT_BLOCKSTEP
expect_ut "INTERRUPT needs no QUIESCE event" 0 control 0 $ACT_INTERRUPT
expect_ut "no such action" $EINVAL control 0 9
expect_ut "RESUME" 0 control 0 $ACT_RESUME
expect_ut "DETACH through the second handle" 0 control 2 $ACT_DETACH
expect_ut "the first handle sees it detached: events" $ESRCH events 1 $EV_EXEC
expect_ut "control on a detached engine" $ESRCH control 1 $ACT_DETACH
expect_ut "barrier on a fully detached engine" $ESRCH barrier 1
expect_eq "release() before the last put" "$(stat_of releases)" 0
expect_ut "put one handle" 0 put 2
expect_eq "release() while a handle remains" "$(stat_of releases)" 0
expect_ut "put the last handle" 0 put 1
expect_releases 1

# Global engines.
expect_ut "global CREATE" 0 attach 5 0 $((A_CREATE | A_GLOBAL))
expect_ut "global events: REAP is per-task only" $EINVAL events 5 $EV_REAP
expect_ut "global events" 0 events 5 $((EV_CLONE | EV_EXEC | EV_DEATH))
expect_ut "global lookup by ops" 0 attach 6 0 $((A_GLOBAL | A_MATCH_OPS))
expect_ut "detach global" 0 control 5 $ACT_DETACH
expect_ut "second handle sees it" $ESRCH control 6 $ACT_DETACH

utctl cleanup >/dev/null
expect_releases 3
kill $victim $zp
