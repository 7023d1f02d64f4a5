# SPDX-License-Identifier: GPL-2.0
# Unload safety: utrace_rs cannot go while an engine module uses it; an
# engine module cannot go while one of its engines exists; both unload
# cleanly once the engines are detached and put.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

sleep 1000 &
victim=$!
expect_ut "attach" 0 attach 0 $victim $A_CREATE
expect_ut "events" 0 events 0 $((EV_EXEC | EV_DEATH | EV_REAP))
! rmmod utrace_rs 2>/dev/null || fail "rmmod utrace_rs succeeded under an engine module"
loaded utrace_rs || fail "utrace_rs gone"
! rmmod utrace_test 2>/dev/null || fail "rmmod utrace_test succeeded with an engine attached"
loaded utrace_test || fail "utrace_test gone"
echo "ok: both unloads refused"
expect_ut "detach" 0 control 0 $ACT_DETACH
! rmmod utrace_test 2>/dev/null || fail "rmmod utrace_test succeeded while a handle is held"
expect_ut "put" 0 put 0
mark
unload utrace_test
unload utrace_rs
dmesg_has 'utrace_rs: unloaded' || fail "no unload line"
echo "ok: both unloaded after detach and put"
kill $victim
