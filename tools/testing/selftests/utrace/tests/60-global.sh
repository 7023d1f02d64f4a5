# SPDX-License-Identifier: GPL-2.0
# A global engine sees CLONE, EXEC and DEATH of every user task: the counts
# over a storm of 10,000 fork+exec+exit equal the real numbers exactly, and
# tasks that existed before it attached are covered too.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

sleep 1000 &
old=$!
expect_ut "global engine" 0 attach 7 0 $((A_CREATE | A_GLOBAL))
expect_ut "global events" 0 events 7 $((EV_CLONE | EV_EXEC | EV_DEATH))
kill $old
wait $old
wait_until 10 "log_events 7 DEATH | grep -qx $old"
echo "ok: DEATH of pid $old, which existed before the engine attached"
expect_ut "detach" 0 control 7 $ACT_DETACH
expect_ut "put" 0 put 7

n=${UTRACE_STORM:-10000}
out=$(storm "$n") || fail "storm failed: $out"
echo "$out"
expect_eq "workload" "$out" "workload: clone=$n exec=$n death=$n detach=0"
expect_eq "global CLONE count" "$(stat_of slot15.CLONE)" "$n"
expect_eq "global EXEC count" "$(stat_of slot15.EXEC)" "$n"
expect_eq "global DEATH count" "$(stat_of slot15.DEATH)" "$n"
