# SPDX-License-Identifier: GPL-2.0
# samples/crash_suspend's process selection (pid=, tree=) follows the
# process, not its number: once the selected process has exited, a new
# process that gets its pid (pids wrap at pid_max) and crashes is not
# suspended. A tree= written from inside a pid namespace names the process
# that namespace knows by that number: its pid 1 is the namespace's init,
# not the machine's, and a crash under a process it names is suspended.
# (That part needs CONFIG_PID_NS: skipped without it.)
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
D=/dev
C=$D/crash_suspend_control
PIDMAX=/proc/sys/kernel/pid_max
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
old_pid_max=$(cat $PIDMAX)
load utrace_rs
trap 'echo "$old_pid_max" >$PIDMAX; rmmod crash_suspend 2>/dev/null; rmmod utrace_rs 2>/dev/null' EXIT

# outcome NAME: wait until /tmp/NAME.out has the crasher's exit line or the
# kernel log (since the mark) says a crash was suspended; print which.
outcome() {
	n=200
	while [ $n -gt 0 ]; do
		if grep -q '^exit=' /tmp/"$1".out 2>/dev/null; then
			grep '^exit=' /tmp/"$1".out
			return
		fi
		if dmesg_since_mark | grep -q 'suspended on signal'; then
			dmesg_since_mark | sed -n 's/^\[[^]]*\] \(crash_suspend: pid [0-9]* ([a-z]*)\).*/suspended: \1/p' | tail -n 1
			return
		fi
		n=$((n - 1))
		sleep 0.1
	done
	echo "neither"
}
# suspended_pid: the pid of the newest suspension (since the mark).
suspended_pid() {
	dmesg_since_mark | sed -n 's/.*crash_suspend: pid \([0-9]*\) .*suspended on signal .*/\1/p' | tail -n 1
}

# 1. pid=P, P exits, a crasher gets pid P: not suspended.
# Pids are handed out upward and wrap at pid_max to 300 (the kernel's
# RESERVED_PIDS): with pid_max 1000 and the last pid above 310, P is a
# little above 310, however many pids earlier tests used.
echo 1000 >$PIDMAX
while [ "$(sh -c 'echo $$')" -lt 310 ]; do :; done
sleep 1000 &
P=$!
load crash_suspend pid="$P"
expect_eq "settings" "$(grep '^tree=' $C)" "tree=$P"
kill "$P"
wait "$P" 2>/dev/null
shown=$(grep '^tree=' $C)
# From now on pids come from 300..P, upward: start shells until one is P,
# which runs `crasher run segv`: its crashing child descends from the new P
# as a child of the old P would have.
echo $((P + 1)) >$PIDMAX
rm -f /tmp/t96p.out
mark
i=0
while :; do
	sh -c "[ \$\$ = $P ] && exec crasher run segv >/tmp/t96p.out" &
	[ $! = "$P" ] && break
	wait $!
	i=$((i + 1))
	[ $i -lt 5000 ] || fail "no new process got pid $P"
done
echo "$old_pid_max" >$PIDMAX
echo "   pid $P reused after $i other processes"
expect_eq "a crash under a new process with the selected pid" "$(outcome t96p)" "exit=-1 signal=11 core=1"
expect_eq "settings once $P exited" "$shown" "tree=$P (exited)"
unload crash_suspend

# 2. tree= written from inside a pid namespace.
if ! unshare -p --fork true 2>/dev/null; then
	echo "no pid namespaces (CONFIG_PID_NS): tree= from a container not tested"
	unload utrace_rs
	trap - EXIT
	exit 0
fi
load crash_suspend
rm -f /tmp/t96n.* /tmp/t96n-in.out /tmp/t96n-out.out
cat >/tmp/t96n.sh <<INNER
# In a new pid namespace, as its pid 1: select this shell's tree (pid 1
# here), then, when told, a process of its own by the pid it has here.
echo tree=1 >$C || exit 1
touch /tmp/t96n.a
while [ ! -e /tmp/t96n.b ]; do sleep 0.1; done
sh -c 'echo "nspid \$\$" >/tmp/t96n.nspid; echo "tree=\$\$" >$C && exec crasher run segv >/tmp/t96n-in.out'
INNER
unshare -p --fork sh /tmp/t96n.sh &
wait_until 10 "[ -e /tmp/t96n.a ]"
mark
crasher run segv >/tmp/t96n-out.out &
expect_eq "a crash outside the namespace (tree=1 written inside)" "$(outcome t96n-out)" "exit=-1 signal=11 core=1"
init=$(grep '^tree=' $C | sed 's/^tree=//')
echo "   tree=1 written in the namespace reads on the host as: tree=$init"
[ "$init" != 1 ] || fail "tree=1 written in a pid namespace selects the machine's init"
grep -q "^NSpid:.*[[:space:]]1\$" /proc/"$init"/status || fail "tree=$init is not the namespace's init"
mark
touch /tmp/t96n.b
wait_until 10 "[ -s /tmp/t96n.nspid ]"
echo "   the process inside: $(cat /tmp/t96n.nspid)"
got=$(outcome t96n-in)
echo "   $got"
case "$got" in
suspended:*) ;;
*) fail "a crash under the process named by its namespace's pid was not suspended: $got" ;;
esac
p=$(suspended_pid)
kill -KILL "$p"
wait_until 20 "grep -q '^exit=' /tmp/t96n-in.out"
expect_eq "inside, then SIGKILL" "$(grep '^exit=' /tmp/t96n-in.out)" "exit=-1 signal=9 core=0"
unload crash_suspend
unload utrace_rs
trap - EXIT
