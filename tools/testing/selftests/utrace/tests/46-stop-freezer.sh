# SPDX-License-Identifier: GPL-2.0
# A utrace-stopped task and the freezers. (a) The cgroup v2 freezer: a cgroup
# with a utrace-stopped task reaches "frozen 1"; thawed, the task is back in
# its utrace stop without a new QUIESCE report and without having run a user
# instruction (its user-mode counter stands still) until RESUME; SIGKILL
# still ends a frozen stopped task. (b) The suspend freezer
# (pm_test=freezer): freezing completes with a utrace-stopped task, which
# stays stopped. Each part skips where the kernel lacks the freezer.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh

CNT=/tmp/t46f.cnt
count() { od -An -tu8 "$CNT" | tr -d ' '; }
quiesces() { log_events "$1" QUIESCE | grep -c "^$2\$"; }

# stop_counter SLOT: start `counter` (in cgroup $CG if set), have engine SLOT
# stop it; COUNTER is its pid, C0 its count once stopped.
stop_counter() {
	rm -f "$CNT"
	if [ -n "${CG:-}" ]; then
		sh -c "echo \$\$ > $CG/cgroup.procs && exec counter $CNT" &
	else
		counter "$CNT" &
	fi
	COUNTER=$!
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ -s $CNT ] && [ "$(count)" -gt 0 ]'
	expect_ut "attach" 0 attach "$1" $COUNTER $A_CREATE
	expect_ut "QUIESCE" 0 events "$1" $EV_QUIESCE
	expect_ut "callbacks return STOP" 0 ret "$1" $ACT_STOP
	expect_ut "STOP" $EINPROGRESS control "$1" $ACT_STOP
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(state_of $COUNTER)" = I ]'
	C0=$(count)
	sleep 0.3
	expect_eq "stopped: its count stands still" "$(count)" "$C0"
	expect_eq "QUIESCE reports" "$(quiesces "$1" $COUNTER)" 1
}

# resume_counter SLOT: RESUME it, see it count, kill it.
resume_counter() {
	expect_ut "callbacks return RESUME" 0 ret "$1" $ACT_RESUME
	expect_ut "RESUME" 0 control "$1" $ACT_RESUME
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(count)" -gt '"$C0"' ]'
	echo "ok: resumed, it counts again"
	kill -KILL $COUNTER
	wait $COUNTER 2>/dev/null
}

setup_engine
ran=

# --- (a) the cgroup v2 freezer
if [ ! -d /sys/fs/cgroup ]; then
	echo "no cgroup v2 freezer (no CONFIG_CGROUPS): part (a) not run"
else
	grep -q '^[^ ]* /sys/fs/cgroup cgroup2 ' /proc/mounts ||
		mount -t cgroup2 cgroup2 /sys/fs/cgroup || fail "cannot mount cgroup2"
	CG=/sys/fs/cgroup/t46f
	rmdir $CG 2>/dev/null
	mkdir $CG || fail "mkdir $CG"
	stop_counter 0
	echo 1 >$CG/cgroup.freeze
	wait_until 10 "grep -qx 'frozen 1' $CG/cgroup.events"
	echo "ok: the cgroup with a utrace-stopped task is frozen"
	sleep 0.3
	expect_eq "frozen: in the freezer's trap, out of its utrace stop" "$(state_of $COUNTER)" S
	expect_eq "frozen: its count stands still" "$(count)" "$C0"
	echo 0 >$CG/cgroup.freeze
	wait_until 10 "grep -qx 'frozen 0' $CG/cgroup.events"
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(state_of $COUNTER)" = I ]'
	sleep 0.3
	expect_eq "thawed: back in its utrace stop" "$(state_of $COUNTER)" I
	expect_eq "thawed: its count stands still" "$(count)" "$C0"
	expect_eq "thawed: no new QUIESCE report" "$(quiesces 0 $COUNTER)" 1
	# Frozen again and thawed again: the same.
	echo 1 >$CG/cgroup.freeze
	wait_until 10 "grep -qx 'frozen 1' $CG/cgroup.events"
	echo 0 >$CG/cgroup.freeze
	wait_until 10 "grep -qx 'frozen 0' $CG/cgroup.events"
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(state_of $COUNTER)" = I ]'
	expect_eq "second thaw: its count stands still" "$(count)" "$C0"
	expect_eq "second thaw: no new QUIESCE report" "$(quiesces 0 $COUNTER)" 1
	resume_counter 0
	utctl cleanup >/dev/null
	utctl reset >/dev/null

	# SIGKILL ends a stopped task while its cgroup is frozen.
	stop_counter 1
	echo 1 >$CG/cgroup.freeze
	wait_until 10 "grep -qx 'frozen 1' $CG/cgroup.events"
	kill -KILL $COUNTER
	wait $COUNTER 2>/dev/null
	expect_eq "SIGKILL while frozen: its exit status" "$?" 137
	echo 0 >$CG/cgroup.freeze
	utctl cleanup >/dev/null
	utctl reset >/dev/null
	rmdir $CG
	CG=
	ran="$ran cgroup"
fi

# --- (b) the suspend freezer
if [ ! -w /sys/power/state ] || [ ! -w /sys/power/pm_test ]; then
	echo "no suspend freezer test mode (no CONFIG_PM_SLEEP or CONFIG_PM_DEBUG): part (b) not run"
else
	stop_counter 2
	echo 0 >/sys/module/suspend/parameters/pm_test_delay
	echo freezer >/sys/power/pm_test
	mark
	rc=0
	sh -c 'echo freeze >/sys/power/state' || rc=$?
	echo none >/sys/power/pm_test
	expect_eq "echo freeze > /sys/power/state" "$rc" 0
	dmesg_has 'Freezing user space processes completed' ||
		fail "no 'Freezing user space processes completed' in the kernel log"
	! dmesg_has 'Freezing .* (failed|aborted)|refusing to freeze' ||
		fail "freezing failed: $(dmesg_since_mark | grep -E 'Freezing|refusing')"
	echo "ok: tasks frozen and thawed with a utrace-stopped task"
	sleep 0.3
	expect_eq "after the suspend freezer: still stopped" "$(state_of $COUNTER)" I
	expect_eq "after the suspend freezer: its count stands still" "$(count)" "$C0"
	expect_eq "after the suspend freezer: no new QUIESCE report" "$(quiesces 2 $COUNTER)" 1
	resume_counter 2
	ran="$ran suspend"
fi

[ -n "$ran" ] || skip "this kernel has neither the cgroup v2 freezer nor pm_test (CONFIG_CGROUPS, CONFIG_PM_DEBUG)"
echo "ok: freezers tested:$ran"
