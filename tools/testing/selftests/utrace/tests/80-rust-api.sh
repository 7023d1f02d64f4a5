# SPDX-License-Identifier: GPL-2.0
# An engine written with the safe Rust API (utrace_follow_rs.ko): a global
# engine whose CLONE callback attaches followers to the children of `spawn`.
# Counts are exact, and the module unloads while engines are still attached
# (one follower sits on a sleeping child): nothing is called afterwards.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
load utrace_rs
mark
load utrace_follow_rs
COUNTS=/dev/utrace_follow_rs

spawn_now fork 30 /bin/true
pid=$SPAWN_PID
wait $pid || fail "spawn failed"
# REAP comes from a workqueue once a child is freed, an RCU callback after
# spawn's wait: it may come after that wait returns. The unload detaches the
# followers and a REAP not reported by then never comes, so wait (10 s at
# most) for the 30 before it; the counts at the unload are the assertions.
n=0
while ! grep -q ' reaps=30 ' $COUNTS && [ $n -lt 100 ]; do
	sleep 0.1
	n=$((n + 1))
done
echo "after spawn's wait and $((n / 10)).$((n % 10)) s: $(cat $COUNTS)"

# One more child that stays alive across the unload.
spawn_now fork 1 /bin/sleep 3
pid=$SPAWN_PID
wait_until 5 "pidof sleep >/dev/null"
unload utrace_follow_rs
line=$(dmesg_since_mark | grep 'utrace_follow_rs: attached=' | tail -n 1)
echo "$line"
# shellcheck disable=SC2046 # split into the ten counts
set -- $(echo "$line" | sed 's/.*attached=//; s/[a-z_]*=//g')
attached=$1 remaining=$2 clones=$3 execs=$4 exits=$5 deaths=$6 reaps=$7 errors=$8 sigchld=$9 threads=${10}
expect_eq "CLONE callbacks (children of spawn)" "$clones" 31
expect_eq "EXEC seen by followers" "$execs" 31
expect_eq "EXIT seen by followers" "$exits" 30
expect_eq "DEATH seen by followers" "$deaths" 30
expect_eq "DEATHs whose parent is sent SIGCHLD (death's signal)" "$sigchld" 30
expect_eq "CLONEs of threads (CloneFlags::thread) among fork children" "$threads" 0
expect_eq "REAP seen by followers (the 30 waited-for children)" "$reaps" 30
# At unload: the global engine and the sleeping child's follower at least
# (reaped followers may still be on their way to release).
[ "$attached" -ge 2 ] || fail "engines at unload: got $attached, want >= 2"
expect_eq "engines left after detach_all (all released before it returned)" "$remaining" 0
expect_eq "follow errors" "$errors" 0
wait $pid || fail "the sleeping child's spawner failed"
unload utrace_rs
echo "ok: the traced child outlived the engine module"
