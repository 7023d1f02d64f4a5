# SPDX-License-Identifier: GPL-2.0
# samples/crash_suspend without pid=: every user process is watched, those
# started before the module loaded too. The selectors (uid, comm, tree,
# cgroup) and
# bounds (timeout, max, orphans) change at run time through the root-only
# control file; a malformed write is refused with an errno, a log line that
# says why, and changes nothing. Each suspension and release is a record in
# the stream; crash-suspend-list lists the suspended processes. gdb's
# `signal 0` lets a fixed-up process go on; SIGCONT dumps core through a
# `|` core_pattern helper; a multi-threaded crash stops every thread.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
D=/dev
C=$D/crash_suspend_control
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
load utrace_rs
ERANGE=-34

# Started before the module: a crasher that crashes on SIGUSR1, and a shell
# that runs a crasher on "go".
rm -f /tmp/t96s-old.out
crasher run later >/tmp/t96s-old.out &
wait_until 10 "grep -q '^child=' /tmp/t96s-old.out"
old=$(sed -n 's/^child=//p' /tmp/t96s-old.out)
wait_until 10 "grep -q '^Name:.*crasher' /proc/$old/status"
rm -f /tmp/t96s-early.out
gated_sh t96s-early "crasher run segv >/tmp/t96s-early.out" >/dev/null

mark
load crash_suspend
dmesg_has 'watching every user process' || fail "no 'watching every user process' line"
for f in crash_suspend crash_suspend_control crash_suspend_list; do
	expect_eq "mode of $f" "$(stat -c %a $D/$f)" "$([ $f = crash_suspend_control ] && echo 600 || echo 400)"
done
expect_eq "default settings" "$(tr '\n' ' ' <$C)" "uid=any comm=any tree=any cgroup=any timeout=300 max=8 orphans=core "

# suspended_pid SIG: the pid of the newest 'suspended on signal SIG' line.
suspended_pid() {
	wait_until 20 "dmesg_since_mark | grep -q 'suspended on signal $1 '"
	dmesg_since_mark | sed -n "s/.*crash_suspend: pid \([0-9]*\) .*suspended on signal $1 .*/\1/p" | tail -n 1
}
# all_stopped PID: every thread of PID in T (stopped).
all_stopped() {
	for t in /proc/"$1"/task/*; do
		wait_until 10 "grep -q '^State:.*T (stopped)' $t/status"
	done
}
# crash NAME MODE: `crasher run MODE >/tmp/NAME.out` in the background.
crash() {
	rm -f /tmp/"$1".out
	crasher run "$2" >/tmp/"$1".out &
}
result() { wait_until 30 "grep -q '^exit=' /tmp/$1.out"; grep '^exit=' /tmp/"$1".out; }
records() { utrace-top -n $D/crash_suspend >>/tmp/t96s.rec; cat /tmp/t96s.rec; }

# 1. A process that existed before the module and has neither forked nor
# exec'd since (no utrace-rs state until its crash): suspended.
mark
kill -USR1 "$old"
expect_eq "old process (no fork/exec since the load) suspended" "$(suspended_pid 11)" "$old"
all_stopped "$old"
echo "ok: a crash in a process started before the module loaded is suspended"
# A shell started before the module forks the crasher: suspended.
mark
go t96s-early
early=$(suspended_pid 11)
all_stopped "$early"
echo "ok: a crash in a process tree started before the module loaded is suspended"

# 2. One started after; the list shows both; the stream has their records.
mark
crash t96s-late segv
late=$(suspended_pid 11)
all_stopped "$late"
list=$(crash-suspend-list)
echo "$list" | sed 's/^/   /'
expect_eq "list lines" "$(echo "$list" | grep -c 'gdb -p ')" 3
for p in "$old" "$early" "$late"; do
	echo "$list" | grep -Eq "^$p +$p +$p +root +SIGSEGV +[0-9]+s +T +crasher +gdb -p $p\$" ||
		fail "list lacks a line for $p"
done
expect_eq "list -u root" "$(crash-suspend-list -u root | grep -c 'gdb -p')" 3
expect_eq "list -u 1234" "$(crash-suspend-list -u 1234)" "no suspended processes"
rec=$(records)
for p in "$old" "$early" "$late"; do
	echo "$rec" | grep -q "suspend pid=$p tid=$p nspid=$p comm=crasher uid=0 signal=SIGSEGV code=1 addr=0x0 time=[0-9]* attach=\"gdb -p $p\"" ||
		fail "no suspend record for $p: $rec"
done
kill -CONT "$old" "$early" "$late"
expect_eq "old after SIGCONT" "$(result t96s-old)" "exit=-1 signal=11 core=1"
expect_eq "early after SIGCONT" "$(result t96s-early)" "exit=-1 signal=11 core=1"
expect_eq "late after SIGCONT" "$(result t96s-late)" "exit=-1 signal=11 core=1"
wait_until 10 "records | grep -q 'release pid=$late tid=$late comm=crasher how=\"core SIGSEGV\"'"
wait_until 10 "records | grep -q 'release pid=$old tid=$old comm=crasher how=\"core SIGSEGV\"'"
records | grep -E "release pid=($old|$early|$late) " | sed 's/^/   /'
expect_eq "list after release" "$(crash-suspend-list)" "no suspended processes"

# 3. Malformed control writes are refused and change nothing.
# refused 'ARG:ERRNO'...: each write fails with ERRNO, a log line says why,
# the settings stay.
refused() {
	before=$(tr '\n' ' ' <$C)
	for bad in "$@"; do
		arg=${bad%:*} want=${bad##*:}
		mark
		expect_eq "write '$arg'" "$(UTRACE_CTL=$C utctl "$arg")" "$want"
		dmesg_has "crash_suspend: control: .*refused: .*nothing changed" || fail "'$arg': no log line says why"
		echo "   says: $(dmesg_since_mark | grep 'control:' | tail -n 1 | sed 's/^\[[^]]*\] //')"
		expect_eq "settings after '$arg'" "$(tr '\n' ' ' <$C)" "$before"
	done
}
refused "uid=abc:$EINVAL" "uid=99999999999:$ERANGE" "comm=:$EINVAL" \
	"comm=0123456789abcdef:$EINVAL" "tree=99999:$ESRCH" "tree=2:$EPERM" "tree=0:$EINVAL" \
	"timeout=86401:$ERANGE" "max=65:$ERANGE" "orphans=maybe:$EINVAL" "color=red:$EINVAL" \
	"uid:$EINVAL" "max=3 uid=x:$EINVAL" "cgroup=relative:$EINVAL" "cgroup=:$EINVAL"

# 4. Selectors. not_suspended NAME: the crash dumps core at once.
not_suspended() {
	crash "$1" segv
	expect_eq "$1 not selected" "$(result "$1")" "exit=-1 signal=11 core=1"
}
suspended_then_kill() {
	mark
	crash "$1" segv
	p=$(suspended_pid 11)
	kill -KILL "$p"
	expect_eq "$1 selected, then SIGKILL" "$(result "$1")" "exit=-1 signal=9 core=0"
}
echo "uid=1234" >$C
not_suspended t96s-uid1
echo "uid=0" >$C
suspended_then_kill t96s-uid0
echo "uid=any comm=other" >$C
not_suspended t96s-comm1
echo "comm=crasher" >$C
suspended_then_kill t96s-comm2
tree=$(gated_sh t96s-tree "crasher run segv >/tmp/t96s-tree.out")
echo "comm=any tree=$tree" >$C
expect_eq "settings" "$(tr '\n' ' ' <$C)" "uid=any comm=any tree=$tree cgroup=any timeout=300 max=8 orphans=core "
not_suspended t96s-tree1
mark
go t96s-tree
p=$(suspended_pid 11)
kill -KILL "$p"
expect_eq "in the tree, then SIGKILL" "$(result t96s-tree)" "exit=-1 signal=9 core=0"
echo "tree=any" >$C

# 4b. cgroup=PATH (cgroup v2): a crash in that cgroup or below it is
# suspended, one outside is not. Without cgroups (the 6.12 test kernel)
# the selector is refused with EOPNOTSUPP and a line that says so.
if grep -qw cgroup2 /proc/filesystems; then
	CG=/sys/fs/cgroup
	grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG || fail "cannot mount cgroup2"
	mkdir -p $CG/t96s/sub
	ENOTDIR=-20
	refused "cgroup=/t96s-none:$ENOENT" "cgroup=/t96s/cgroup.procs:$ENOTDIR" "max=3 cgroup=/nope:$ENOENT"
	echo "cgroup=/t96s" >$C
	expect_eq "settings" "$(tr '\n' ' ' <$C)" "uid=any comm=any tree=any cgroup=/t96s timeout=300 max=8 orphans=core "
	not_suspended t96s-cg-out
	# A crasher in /t96s/sub (below the selected cgroup).
	rm -f /tmp/t96s-cg-in.out
	mark
	# shellcheck disable=SC2016 # the inner sh expands $$
	sh -c 'echo $$ >'$CG'/t96s/sub/cgroup.procs && exec crasher run segv >/tmp/t96s-cg-in.out' &
	p=$(suspended_pid 11)
	expect_eq "the suspended one's cgroup" "$(cat /proc/"$p"/cgroup)" "0::/t96s/sub"
	kill -KILL "$p"
	expect_eq "in the cgroup, then SIGKILL" "$(result t96s-cg-in)" "exit=-1 signal=9 core=0"
	echo "cgroup=any" >$C
	wait_until 10 "rmdir $CG/t96s/sub 2>/dev/null; rmdir $CG/t96s"
else
	refused "cgroup=/:$EOPNOTSUPP"
	dmesg_has "control: 'cgroup=/' refused: this kernel has no cgroups \(CONFIG_CGROUPS is off\); nothing changed" ||
		fail "no line says the kernel has no cgroups"
fi

# 5. The cap: with max=1 the second crash dumps core, with a log line.
echo "max=1" >$C
mark
crash t96s-cap1 segv
first=$(suspended_pid 11)
mark
crash t96s-cap2 segv
expect_eq "second crash over max=1" "$(result t96s-cap2)" "exit=-1 signal=11 core=1"
dmesg_has "not suspended, 1 processes are suspended already \(max=1\): it dumps core" ||
	fail "no log line for the cap"
records | grep -q 'core pid=[0-9]* .*why="1 processes are suspended already (max=1)"' || fail "no cap record"
kill -CONT "$first"
expect_eq "first after SIGCONT" "$(result t96s-cap1)" "exit=-1 signal=11 core=1"
echo "max=8" >$C

# 6. The timeout: the process dumps core by itself.
echo "timeout=1" >$C
mark
crash t96s-timeout abort
p=$(suspended_pid 6)
expect_eq "after the timeout" "$(result t96s-timeout)" "exit=-1 signal=6 core=1"
dmesg_has "pid $p \(crasher\) waited [0-9]+s \(timeout=1\): it dumps core" || fail "no timeout log line"
records | grep -q "timeout pid=$p " || fail "no timeout record"
echo "timeout=300" >$C

# 7. Orphans (parent is init) dump core unless orphans=suspend.
# orphan: a crasher whose parent exits, then crashes on SIGUSR1.
orphan() {
	rm -f /tmp/t96s-orphan.pid
	# shellcheck disable=SC2016 # the inner sh expands $!
	setsid sh -c 'crasher later & echo $! >/tmp/t96s-orphan.pid; exit 0'
	wait_until 10 "[ -s /tmp/t96s-orphan.pid ]"
	o=$(cat /tmp/t96s-orphan.pid)
	wait_until 10 "grep -q '^PPid:.1$' /proc/$o/status"
	mark
	kill -USR1 "$o"
}
orphan
wait_until 20 "dmesg_since_mark | grep -q 'not suspended, it is an orphan'"
echo "ok: an orphan dumps core: $(dmesg_since_mark | grep 'orphan' | sed 's/^\[[^]]*\] //')"
echo "orphans=suspend" >$C
orphan
p=$(suspended_pid 11)
all_stopped "$p"
kill -KILL "$p"
echo "ok: with orphans=suspend the orphan $p is suspended"
echo "orphans=core" >$C

# 8. gdb: jump past the fault, `signal 0`: it goes on without the signal.
mark
crash t96s-gdb fixable
p=$(suspended_pid 11)
all_stopped "$p"
# shellcheck disable=SC2016 # gdb's $pc
# The attach leaves a SIGSTOP queued: gdb is told not to stop for it.
out=$(gdb -nx -batch -p "$p" -ex 'handle SIGSTOP nostop noprint nopass' \
	-ex 'set var $pc = (long) fixed_up' -ex 'signal 0' 2>&1)
echo "$out" | sed 's/^/   gdb: /'
expect_eq "fixed up by gdb" "$(result t96s-gdb)" "exit=7 signal=0 core=0"
grep -q '^fixed up$' /tmp/t96s-gdb.out || fail "fixed_up() did not run"
wait_until 10 "records | grep -q 'release pid=$p tid=$p comm=crasher how=\"exit 7\"'"

# 8b. gdb lets it live on (running under gdb, still listed, its signal
# held); when gdb goes away it returns to its stop (as any process stopped
# before a debugger attached), and SIGCONT delivers the held signal.
mark
crash t96s-live fixable
p=$(suspended_pid 11)
all_stopped "$p"
# shellcheck disable=SC2016 # gdb's $pc
gdb -nx -batch -p "$p" -ex 'handle SIGSTOP nostop noprint nopass' \
	-ex 'set var $pc = (long) live_on' -ex 'signal 0' >/tmp/t96s-live.gdb 2>&1 &
gdb=$!
wait_until 20 "grep -q '^lives on$' /tmp/t96s-live.out"
crash-suspend-list | grep -Eq "^$p .* SIGSEGV +[0-9]+s +[RTt] +crasher " || fail "not listed while under gdb"
grep -E '^SigPnd|^SigBlk' /proc/"$p"/status | sed 's/^/   held while it lives on: /'
kill -KILL "$gdb"
wait "$gdb" 2>/dev/null
all_stopped "$p"
echo "ok: back in its stop when the debugger went away"
kill -CONT "$p"
expect_eq "then SIGCONT" "$(result t96s-live)" "exit=-1 signal=11 core=1"

# 9. SIGCONT dumps core through a | core_pattern helper.
echo '|/utrace/bin/crash-suspend-core %P %s %e' >/proc/sys/kernel/core_pattern
rm -rf /var/crash
mark
crash t96s-pipe segv
p=$(suspended_pid 11)
kill -CONT "$p"
expect_eq "after SIGCONT (pipe)" "$(result t96s-pipe)" "exit=-1 signal=11 core=1"
wait_until 10 "dmesg_since_mark | grep -q 'crash-suspend-core: pid $p (crasher) signal 11'"
expect_eq "core file's ELF magic" "$(head -c 4 /var/crash/core.crasher."$p" | tail -c 3)" "ELF"
echo "ok: $(dmesg_since_mark | grep crash-suspend-core | sed 's/^\[[^]]*\] //')"
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern

# 10. Multi-threaded: every thread stops; SIGCONT dumps core.
mark
crash t96s-threads threads
p=$(suspended_pid 11)
all_stopped "$p"
# shellcheck disable=SC2012 # counts the thread ids, numeric names
expect_eq "threads stopped" "$(ls /proc/"$p"/task | wc -l)" 4
kill -CONT "$p"
expect_eq "threads after SIGCONT" "$(result t96s-threads)" "exit=-1 signal=11 core=1"

# 11. rmmod releases what is suspended.
mark
crash t96s-rmmod segv
suspended_pid 11 >/dev/null
unload crash_suspend
expect_eq "after rmmod" "$(result t96s-rmmod)" "exit=-1 signal=11 core=1"
unload utrace_rs
