# SPDX-License-Identifier: GPL-2.0
# samples/crash_suspend: a watched process that would die of a core-dumping
# signal is suspended instead (every thread stopped, signal kept), gdb can
# attach and sees the crashing function, SIGCONT lets it die with its core
# dump, SIGKILL kills it, a process with its own handler is left alone, and
# rmmod releases suspended processes. Bad pid=, timeout= and max= values
# are refused. (System-wide mode: 96-crash-suspend-system.sh.)
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
load utrace_rs

for bad in "pid=99999:$ESRCH" "pid=2:$EPERM" "pid=-4:$EINVAL" "pid=x:$EINVAL" \
	"timeout=-1:$EINVAL" "max=65:$EINVAL"; do
	arg=${bad%%:*} want=${bad#*:}
	mark
	expect_eq "insmod crash_suspend '$arg'" "$(modload $MODDIR/crash_suspend.ko "$arg")" "$want"
	dmesg_has "crash_suspend" || fail "insmod '$arg': no kernel log line says why"
	echo "   says: $(dmesg_since_mark | grep crash_suspend | tail -n 1 | sed 's/^\[[^]]*\] //')"
done
grep -q 'parm=pid:' $MODDIR/crash_suspend.ko || fail "no pid parameter description in modinfo"

# start NAME MODE: a watched shell that runs `crasher run MODE` on "go";
# sets PID (the shell) and OUT (where the result line goes).
start() {
	OUT=/tmp/$1.out
	rm -f "$OUT"
	PID=$(gated_sh "$1" "crasher run $2 >$OUT")
	mark
	load crash_suspend pid="$PID"
	go "$1"
}

# suspended SIG: wait for the log line, set CHILD to the suspended process.
suspended() {
	wait_until 20 "dmesg_since_mark | grep -q 'suspended on signal $1 '"
	CHILD=$(dmesg_since_mark | sed -n "s/.*crash_suspend: pid \([0-9]*\) .*suspended on signal $1 .*/\1/p" | head -n 1)
	dmesg_since_mark | grep 'suspended on signal' | sed 's/^\[[^]]*\] /   /'
	for t in /proc/"$CHILD"/task/*; do
		wait_until 10 "grep -q '^State:.*T (stopped)' $t/status"
	done
	# shellcheck disable=SC2012 # counts the thread ids, numeric names
	echo "ok: pid $CHILD suspended, $(ls /proc/"$CHILD"/task | wc -l) thread(s) stopped"
}

result() { wait_until 20 "grep -q '^exit=' $OUT"; grep '^exit=' "$OUT"; }

# 1. segfault: gdb, then SIGCONT -> core
start t96a segv
suspended 11
bt=$(gdb -nx -batch -p "$CHILD" -ex bt 2>&1)
echo "$bt" | grep '^#' | sed 's/^/   /'
echo "$bt" | grep -q 'in crash_here ' || fail "gdb's backtrace lacks crash_here: $bt"
kill -CONT "$CHILD"
expect_eq "after SIGCONT" "$(result)" "exit=-1 signal=11 core=1"
[ -s /tmp/core."$CHILD" ] || fail "no core file /tmp/core.$CHILD"
echo "ok: core file /tmp/core.$CHILD ($(wc -c </tmp/core."$CHILD") bytes)"
unload crash_suspend

# 2. abort(): SIGABRT, then SIGKILL while suspended
start t96b abort
suspended 6
kill -KILL "$CHILD"
expect_eq "after SIGKILL" "$(result)" "exit=-1 signal=9 core=0"
unload crash_suspend

# 3. kill -SEGV from another process
start t96c wait
wait_until 10 "grep -q '^child=' $OUT"
victim=$(sed -n 's/^child=//p' "$OUT")
wait_until 10 "[ -d /proc/$victim ] && grep -q '^Name:.*crasher' /proc/$victim/status"
kill -SEGV "$victim"
suspended 11
expect_eq "the signalled process is the suspended one" "$CHILD" "$victim"
kill -CONT "$CHILD"
expect_eq "after SIGCONT" "$(result)" "exit=-1 signal=11 core=1"
unload crash_suspend

# 4. multi-threaded: all 4 threads stop; gdb sees them; SIGCONT -> core
start t96d threads
suspended 11
# shellcheck disable=SC2012 # counts the thread ids, numeric names
expect_eq "threads stopped" "$(ls /proc/"$CHILD"/task | wc -l)" 4
out=$(gdb -nx -batch -p "$CHILD" -ex 'info threads' -ex 'thread apply all bt' 2>&1)
echo "$out" | grep -q 'crash_in_thread' || fail "gdb does not show crash_in_thread: $out"
echo "ok: gdb shows the crashing thread in crash_in_thread"
kill -CONT "$CHILD"
expect_eq "after SIGCONT" "$(result)" "exit=-1 signal=11 core=1"
unload crash_suspend

# 5. own handler: not suspended
start t96e handler
expect_eq "with its own handler" "$(result)" "exit=42 signal=0 core=0"
dmesg_has 'suspended on signal' && fail "a process with its own handler was suspended"
unload crash_suspend

# 6. rmmod while suspended: released, dumps core
start t96f segv
suspended 11
unload crash_suspend
expect_eq "after rmmod" "$(result)" "exit=-1 signal=11 core=1"
echo "ok: rmmod released the suspended process"
unload utrace_rs
