# SPDX-License-Identifier: GPL-2.0
# Fault injection (failslab, in the debug kernel of `make check-debug`):
# allocations made from utrace_rs.ko's code by a chosen task fail.
#  - attach, set_events(SYSCALL), handoff and stream creation return -ENOMEM
#    at every allocation point (swept with failslab's "space" budget), leave
#    nothing attached or half-made, and work once memory is back;
#  - events whose record cannot be allocated in a hook are counted as lost:
#    delivered + lost equals the workload exactly, and global_trace's stream
#    says so in LOST records that add up to the same number.
# Leaks: the runner's kmemleak scan after all tests.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
FS=/sys/kernel/debug/failslab
[ -d $FS ] || skip "no failslab in this kernel (make check-debug has it)"
setup_engine
ENOMEM=-12

# Fail only allocations with utrace_rs.ko's code on the stack, only in tasks
# that set /proc/PID/make-it-fail, every time, sleeping ones included.
base=$(cat /sys/module/utrace_rs/sections/.text)
size=$(awk '$1 == "utrace_rs" { print $2 }' /proc/modules)
case "$base" in 0xffffffff????????) ;; *) fail "odd module address $base" ;; esac
low=$((0x${base#0xffffffff}))
echo "$base" >$FS/require-start
printf '0xffffffff%08x\n' $((low + size)) >$FS/require-end
echo Y >$FS/task-filter
echo N >$FS/ignore-gfp-wait
echo 0 >$FS/verbose
echo 100 >$FS/probability
echo 1 >$FS/interval
restore() {
	echo 0 >$FS/times
	echo 0 >$FS/space
	echo 0 >$FS/probability
	echo N >$FS/task-filter
	teardown_engine
}
trap restore EXIT
faults=0

# failing SPACE CMD...: run CMD with faults on after SPACE bytes of our
# allocations succeeded.
failing() {
	local space=$1
	shift
	echo -1 >$FS/times
	echo "$space" >$FS/space
	sh -c 'echo 1 >/proc/self/make-it-fail; exec "$@"' sh "$@"
	echo 0 >$FS/times
}

# sweep WHAT CHECK CMD...: CMD must print ENOMEM, then CHECK (eval'd) must
# pass, for every allocation point, until enough budget lets CMD succeed.
sweep() {
	local what=$1 check=$2 space=0 r
	shift 2
	while :; do
		r=$(failing $space "$@")
		[ "$r" = 0 ] && break
		[ "$r" = "$ENOMEM" ] || fail "$what with $space bytes allowed: got '$r', want $ENOMEM or 0"
		eval "$check" || fail "$what with $space bytes allowed: after -ENOMEM: $check"
		faults=$((faults + 1))
		space=$((space + 16))
		[ $space -lt 65536 ] || fail "$what never succeeded"
	done
	echo "ok: $what: -ENOMEM and nothing left behind at every point up to $space bytes, then 0"
}

sleep 1000 &
t=$!
# --- attach: -ENOMEM, and then no engine to look up, no release() call.
# shellcheck disable=SC2016 # sweep evaluates it
sweep "attach" '[ "$(utctl attach 1 '$t' 0)" = '$ENOENT' ] && [ "$(stat_of releases)" = 0 ]' \
	utctl attach 0 $t $A_CREATE
expect_ut "the engine attached at last works" 0 events 0 $EV_EXEC

# --- set_events(SYSCALL): the first one registers the syscall probes.
# shellcheck disable=SC2016 # sweep evaluates it
sweep "set_events(SYSCALL)" '[ "$(utctl events 0 $EV_EXEC)" = 0 ]' \
	utctl events 0 $((EV_SYSCALL_ENTRY | EV_SYSCALL_EXIT))
expect_ut "syscall events off again" 0 events 0 $EV_EXEC

# --- handoff: on failure the old engine stays attached and in charge.
# shellcheck disable=SC2016 # sweep evaluates it
sweep "handoff" '[ "$(stat_of switches)" = 0 ]' utctl handoff 0
expect_eq "switches" "$(stat_of switches)" 1
expect_ut "detach the handed-off engine" 0 control 0 $ACT_DETACH
expect_ut "put" 0 put 0
kill $t

# --- stream creation: global_trace's init fails cleanly and leaves no file.
# The stream's device is a misc device: misc_register()'s own allocations
# (device, sysfs, uevent: kilobytes, hundreds of 16-byte steps at a module
# load each) are the kernel's; the sweep leaves them alone (reject range),
# and a second pass fails only them (require range), at their first
# allocation and a few later ones.
# sym_range NAME: "START END" of the kernel function NAME (to the next symbol).
sym_range() {
	awk -v f="$1" '$3 == f && !s { s = $1 } { a[NR] = $1 } END {
		for (i in a) if (a[i] > s && (e == "" || a[i] < e)) e = a[i]
		print "0x" s, "0x" e }' /proc/kallsyms
}
# shellcheck disable=SC2046 # two words
set -- $(sym_range misc_register)
{ [ "$1" != 0x ] && [ "$1" != 0x0000000000000000 ]; } || fail "no address for misc_register in /proc/kallsyms"
echo "$1" >$FS/reject-start
echo "$2" >$FS/reject-end
sweep "global_trace load (stream)" \
	'! loaded global_trace && [ ! -e /dev/global_trace ]' \
	modload $MODDIR/global_trace.ko
unload global_trace
echo 0 >$FS/reject-start
echo 0 >$FS/reject-end
echo "$1" >$FS/require-start
echo "$2" >$FS/require-end
# (A failure the kernel ignores, e.g. a uevent's, lets a later point load.)
for space in 0 256 1024; do
	mark
	r=$(failing $space modload $MODDIR/global_trace.ko)
	if [ "$r" = 0 ] && [ "$space" != 0 ]; then
		[ -c /dev/global_trace ] || fail "global_trace loaded without its device"
		unload global_trace
		continue
	fi
	expect_eq "global_trace load, misc_register failing after $space bytes" "$r" $ENOMEM
	{ ! loaded global_trace && [ ! -e /dev/global_trace ]; } ||
		fail "global_trace left behind after misc_register failed"
	dmesg_has 'cannot register /dev/global_trace' || fail "no log line for misc_register's failure"
	faults=$((faults + 1))
done
echo "$base" >$FS/require-start
printf '0xffffffff%08x\n' $((low + size)) >$FS/require-end

# --- event delivery: a process whose first few event records cannot be
# allocated. Slot 15 counts the process and its children; global_trace's
# stream announces what was lost.
load global_trace records=4096
S=/dev/global_trace
utrace-top -n $S >/dev/null
lost0=$(stat_of lost)
pid=$(gated_sh "fi" 'for i in 1 2 3 4 5 6 7 8 9 10; do /utrace/bin/stress child; done')
expect_ut "filter" 0 filter "$pid"
expect_ut "counting engine" 0 attach 15 0 $((A_CREATE | A_GLOBAL))
expect_ut "counting events" 0 events 15 $((EV_CLONE | EV_EXEC | EV_DEATH))
echo 1 >/proc/"$pid"/make-it-fail
echo 6 >$FS/times
echo 0 >$FS/space
go "fi"
wait_until 30 "! [ -d /proc/$pid ]"
sleep 0.5
echo 0 >$FS/times
events=$(($(stat_of slot15.CLONE) + $(stat_of slot15.EXEC) + $(stat_of slot15.DEATH)))
lost=$(($(stat_of lost) - lost0))
[ "$lost" -ge 1 ] || fail "no event was lost: the faults missed the hooks"
expect_eq "delivered ($events) + lost ($lost)" $((events + lost)) 31
utrace-top -n $S >/tmp/t98.rec
stream_lost=$(awk '$3 == "LOST" { n += $4 } END { print n + 0 }' /tmp/t98.rec)
expect_eq "LOST records in the stream" "$stream_lost" "$lost"
expect_ut "detach counting engine" 0 control 15 $ACT_DETACH
expect_ut "put" 0 put 15
unload global_trace
echo "fault-inject: $faults calls failed with -ENOMEM and left nothing behind;" \
	"6 faults in hooks: $events events delivered, $lost lost and announced"
