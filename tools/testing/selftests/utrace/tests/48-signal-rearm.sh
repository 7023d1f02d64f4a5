# SPDX-License-Identifier: GPL-2.0
# The signal kprobe (on prepare_signal()'s ftrace site) is armed while an
# engine has signal events and disarmed when none has: here it is armed and
# disarmed thousands of times while the other vCPU sends signals through
# that site, for UTRACE_REARM_SECS (default 10). Under QEMU's TCG a vCPU
# can execute an int3 that the text patching already took out; the kprobe
# core then "single-stepped" from address 0 (an oops in prepare_signal()
# within seconds, before rust/shim/kprobes.c passed such hits over). Then:
# every command succeeded, the kprobe is disarmed once no engine has signal
# events, and a signal engine still sees signals.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

secs=${UTRACE_REARM_SECS:-10}
kprobe_state() { grep ' prepare_signal+' /sys/kernel/debug/kprobes/list; }
sleep 1000 &
target=$!
pids=$target
# shellcheck disable=SC2317,SC2329 # run by the trap
cleanup() {
	# shellcheck disable=SC2086 # a list of pids
	kill -KILL $pids 2>/dev/null
	teardown_engine
}
trap cleanup EXIT
expect_ut "attach" 0 attach 0 $target $A_CREATE
case "$(kprobe_state)" in
*FTRACE*) ;;
*) skip "the signal kprobe is not ftrace-based here: $(kprobe_state)" ;;
esac

sleep "$secs" &
timer=$!
# Each kill of an ignored signal (SIGWINCH) goes through prepare_signal().
# (kill -0 is true for a zombie: the wait below reaps the timer when it ends.)
(
	n=0
	while kill -0 $timer 2>/dev/null; do
		kill -WINCH $target
		n=$((n + 1))
	done
	echo "$n" >/tmp/rearm.kills
) &
sender=$!
pids="$pids $sender"
utctl --while-pid $timer events 0 $EV_SIGNAL >/tmp/rearm.on &
on=$!
utctl --while-pid $timer events 0 0 >/tmp/rearm.off &
off=$!
wait $sender $on $off
read -r kills </tmp/rearm.kills
read -r ons onfail </tmp/rearm.on
read -r offs offfail </tmp/rearm.off
echo "signals sent: $kills; events SIGNAL: $ons, events 0: $offs"
if [ "${kills:-0}" -lt 1000 ] || [ "${ons:-0}" -lt 20 ] || [ "${offs:-0}" -lt 20 ]; then
	fail "too little done to mean anything"
fi
expect_eq "failed commands" "$onfail $offfail" "0 0"

expect_ut "no signal events" 0 events 0 0
wait_until 5 'kprobe_state | grep -q DISABLED'
echo "ok: disarmed with no signal engine: $(kprobe_state)"

# Armed again, it still reports: a caught SIGUSR1 is a SIGNAL event.
rm -f /tmp/t48r.out
sigcatch /tmp/t48r.out &
pid=$!
pids="$pids $pid"
wait_usr1_handler $pid
expect_ut "attach the catcher" 0 attach 1 $pid $A_CREATE
expect_ut "SIGNAL" 0 events 1 $EV_SIGNAL
kill -USR1 $pid
wait_until 10 "[ \"\$(cat /tmp/t48r.out 2>/dev/null)\" = caught ]"
expect_eq "SIGNAL reports of the catcher" "$(log_events 1 SIGNAL | sort -u)" "$pid"
