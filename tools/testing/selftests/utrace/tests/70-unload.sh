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
# The engine's release (which drops its module's reference) runs an RCU
# grace period after the detach, in a worker: after a fork storm in the
# previous test that can take a moment on a slow guest.
wait_until 10 "[ \$(cat /sys/module/utrace_test/refcnt) = 0 ]"
mark
unload utrace_test
unload utrace_rs
dmesg_has 'utrace_rs: unloaded' || fail "no unload line"
echo "ok: both unloaded after detach and put"
kill $victim

# A process in a group stop (TASK_STOPPED) runs its task_work only once it
# is continued. A signal held for an engine queues the work that reports
# it: unloading utrace_rs must not wait for a SIGCONT that may never come,
# and must leave the signal to the kernel (delivered once continued).
load utrace_rs
load utrace_test
rm -f /tmp/t70.out
sigcatch /tmp/t70.out &
pid=$!
wait_usr1_handler $pid
expect_ut "attach" 0 attach 0 $pid $A_CREATE
expect_ut "SIGNAL" 0 events 0 $EV_SIGNAL
kill -STOP $pid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(state_of $pid)" = T ]'
kill -USR1 $pid
sleep 0.2
expect_ut "detach" 0 cleanup
unload_settled utrace_test || fail "rmmod utrace_test failed"
mark
rmmod utrace_rs &
rm_pid=$!
n=0
while loaded utrace_rs && [ $n -lt 50 ]; do
	sleep 0.1
	n=$((n + 1))
done
if loaded utrace_rs; then
	dmesg_since_mark | grep 'utrace_rs:' | tail -n 3
	kill -CONT $pid
	wait $rm_pid
	kill $pid
	fail "rmmod utrace_rs still waiting after 5 s for a stopped process (continued it)"
fi
wait $rm_pid || fail "rmmod utrace_rs failed"
echo "ok: utrace_rs unloaded in $((n / 10)).$((n % 10)) s while the process is stopped"
expect_eq "still stopped" "$(state_of $pid)" T
expect_eq "no handler ran while stopped" "$(grep -c caught /tmp/t70.out)" 0
kill -CONT $pid
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(grep -c caught /tmp/t70.out)" = 1 ]'
echo "ok: SIGUSR1 delivered once continued"
kill $pid
