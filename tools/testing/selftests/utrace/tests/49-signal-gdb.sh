# SPDX-License-Identifier: GPL-2.0
# gdb on a process whose crash samples/crash_suspend holds (SUSPEND: the
# signal hidden, the process in a group stop) works as on a plainly stopped
# process: an inferior call returns, and a plain `continue` re-runs the
# faulting instruction and gdb reports the SIGSEGV once (the debugger owns
# the signals of a process it traces), after which the process dies of it
# when gdb lets it go, as it would have.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
load utrace_rs
load crash_suspend
trap 'unload_settled crash_suspend; unload_settled utrace_rs' EXIT

# held NAME: `crasher run segv` whose child crashes and is suspended; sets P.
held() {
	rm -f /tmp/"$1".out
	mark
	crasher run segv >/tmp/"$1".out &
	wait_until 20 "dmesg_since_mark | grep -q 'suspended on signal 11 '"
	P=$(dmesg_since_mark | sed -n 's/.*crash_suspend: pid \([0-9]*\) .*suspended on signal 11 .*/\1/p' | tail -n 1)
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(state_of $P)" = T ]'
}
result() { wait_until 30 "grep -q '^exit=' /tmp/$1.out"; grep '^exit=' /tmp/"$1".out; }

# An inferior call (usleep(), which the static crasher has) returns.
held t49g1
out=$(timeout 60 gdb -nx -batch -p "$P" -ex 'handle SIGSTOP nostop noprint nopass' \
	-ex 'print (int)usleep(1) + 41' -ex detach 2>&1)
echo "$out" | sed 's/^/   gdb: /'
# shellcheck disable=SC2016 # gdb's value history
echo "$out" | grep -q '^\$1 = 41$' || fail "the inferior call did not return"
expect_eq "stopped after gdb detached" "$(state_of "$P")" T
# gdb's attach may have resumed it at the faulting instruction (gdb then
# owns the SIGSEGV it raised again): it is where a process stopped before
# that instruction would be, and SIGCONT makes it crash again, suspended
# anew. Either way a second SIGCONT at the latest lets it dump core.
kill -CONT "$P"
wait_until 30 "grep -q '^exit=' /tmp/t49g1.out || [ \$(dmesg_since_mark | grep -c 'suspended on signal 11 ') -ge 2 ]"
grep -q '^exit=' /tmp/t49g1.out || { echo "   crashed again after SIGCONT, suspended anew"; kill -CONT "$P"; }
expect_eq "then SIGCONT: core" "$(result t49g1)" "exit=-1 signal=11 core=1"
echo "ok: an inferior call in a held process returns"

# A plain `continue`: the instruction faults again, gdb reports SIGSEGV once.
held t49g2
cpu0=$(cpu_of "$P")
# shellcheck disable=SC2016 # gdb's $_siginfo
out=$(timeout 60 gdb -nx -batch -p "$P" -ex 'handle SIGSTOP nostop noprint nopass' \
	-ex continue -ex 'print $_siginfo.si_signo' 2>&1)
echo "$out" | sed 's/^/   gdb: /'
echo "$out" | grep -q 'received signal SIGSEGV' || fail "gdb did not report the SIGSEGV"
expect_eq "gdb's stops for SIGSEGV" "$(echo "$out" | grep -c 'received signal SIGSEGV')" 1
# shellcheck disable=SC2016 # gdb's value history
echo "$out" | grep -q '^\$1 = 11$' || fail "no siginfo for the SIGSEGV"
# gdb's exit let it go with its SIGSEGV: it dies of it.
expect_eq "gdb let it go: core" "$(result t49g2)" "exit=-1 signal=11 core=1"
echo "ok: continue re-faults and gdb reports the SIGSEGV once (CPU ticks $cpu0 before)"
