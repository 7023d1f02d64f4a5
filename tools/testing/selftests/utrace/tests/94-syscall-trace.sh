# SPDX-License-Identifier: GPL-2.0
# samples/syscall_trace: strace-style lines for a scripted program, compared
# line by line with what the program says it did; inject= fails exactly the
# chosen calls and the program sees the errno; a full stream says how much
# it dropped; bad pid=/records=/inject= are refused with an errno and a log
# line; and gdb, crash_suspend and syscall_trace on one process at once.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
S=/dev/syscall_trace
ENOSPC=-28
load utrace_rs

# --- bad input (| separates the parameters from the errno)
long=openat:error=ENOENT:when=1234567890123456789012345678901234567890123456789
for bad in "|$EINVAL" "pid=99999|$ESRCH" "pid=2|$EPERM" "pid=-4|$EINVAL" "pid=x|$EINVAL" \
	"pid=1 records=3|$EINVAL" "pid=1 inject=nosuch:error=ENOENT|$EINVAL" \
	"pid=1 inject=openat|$EINVAL" "pid=1 inject=openat:error=EWHAT|$EINVAL" \
	"pid=1 inject=openat:error=0|$EINVAL" "pid=1 inject=openat:error=ENOENT:when=0|$EINVAL" \
	"pid=1 inject=openat:error=ENOENT:when=3..2|$EINVAL" \
	"pid=1 inject=openat:error=ENOENT:when=x+|$EINVAL" \
	"pid=1 inject=openat:error=ENOENT:retval=1|$EINVAL" "pid=1 inject=$long|$ENOSPC"; do
	arg=${bad%|*} want=${bad##*|}
	mark
	expect_eq "insmod syscall_trace '$arg'" "$(modload $MODDIR/syscall_trace.ko "$arg")" "$want"
	dmesg_has "syscall_trace|inject" || fail "insmod '$arg': no kernel log line says why"
	echo "   says: $(dmesg_since_mark | grep -E 'syscall_trace|inject' | tail -n 1 | sed 's/^\[[^]]*\] //')"
done
! loaded syscall_trace || fail "syscall_trace loaded after bad input"

# in_read PID: PID is blocked in read() (syscall 0), past its "ready" write
# (whose data shows before that syscall's exit: a tracer attached between
# the two would see its line).
in_read() { read -r nr _ </proc/"$1"/syscall && [ "$nr" = 0 ]; }

# run NAME ARGS...: start `sysseq ARGS` (`$PROG ARGS` if PROG is set) with
# stdin on the fifo /tmp/NAME.go (its gate), wait until it waits there; sets
# PID. `go NAME` lets it run.
run() {
	name=$1
	shift
	rm -f /tmp/"$name".go /tmp/"$name".out /tmp/"$name".did
	mkfifo /tmp/"$name".go
	"${PROG:-sysseq}" "$@" <>/tmp/"$name".go >/tmp/"$name".out 2>/tmp/"$name".did &
	PID=$!
	wait_until 10 "grep -q ready /tmp/$name.out && in_read $PID"
}

# trace_of PID NAME: the lines of PID in /tmp/NAME.rec, without "<seq> <ns>
# <pid> ".
trace_of() { awk -v p="$1" '$3 == p { sub(/^[0-9]+ [0-9]+ [0-9]+ /, ""); print }' /tmp/"$2".rec; }

# escape: stdin as strace quotes it (\\, \", newlines as \n; the input
# must not end in a newline).
escape() { sed 's/\\/\\\\/g; s/"/\\"/g' | awk 'NR > 1 { printf "\\n" } { printf "%s", $0 }'; }

# --- a known sequence, line by line
mkdir -p /tmp/t94
printf 'hello utrace\n' >/tmp/t94/in
run t94a files /tmp/t94
load syscall_trace pid="$PID"
[ -r $S ] || fail "$S missing"
go t94a
wait "$PID" || fail "sysseq files failed: $?"
utrace-top -n $S >/tmp/t94a.rec
cat /tmp/t94a.rec
unload syscall_trace
# What it did, then its report of it (one write to stderr), exit_group and
# its death.
n=$(wc -c </tmp/t94a.did)
{
	cat /tmp/t94a.did
	printf 'write(2, "%s"..., %s) = %s\n' "$(head -c 32 /tmp/t94a.did | escape)" "$n" "$n"
	echo 'exit_group(0) = ?'
	echo '+++ exited with 0 +++'
} >/tmp/t94a.want
trace_of "$PID" t94a >/tmp/t94a.got
diff /tmp/t94a.want /tmp/t94a.got || fail "the trace differs from what sysseq did (- did, + traced)"
echo "ok: $(wc -l </tmp/t94a.got) lines, each what sysseq did"
expect_eq "lines of other processes" "$(awk -v p="$PID" '$3 != p' /tmp/t94a.rec | grep -vc ' DROPPED ')" 0

# --- a new child is followed: its own lines under its pid, from its return
# from fork (= 0) on
run t94f fork
load syscall_trace pid="$PID"
go t94f
wait "$PID" || fail "sysseq fork failed: $?"
utrace-top -n $S >/tmp/t94f.rec
cat /tmp/t94f.rec
unload syscall_trace
child=$(sed -n 's/^fork() = //p' /tmp/t94f.did)
[ -n "$child" ] || fail "no child in $(cat /tmp/t94f.did)"
expect_eq "the parent's lines" "$(trace_of "$PID" t94f | head -n 3)" "$(cat /tmp/t94f.did)"
expect_eq "the child's lines" "$(trace_of "$child" t94f)" "fork() = 0
getpid() = $child
exit_group(3) = ?
+++ exited with 3 +++"

# --- inject: the 2nd and 3rd openat fail with EACCES, the 1st and 4th do not
run t94b inject /tmp/t94/in 4
load syscall_trace pid="$PID" inject=openat:error=EACCES:when=2..3
go t94b
wait "$PID" || fail "sysseq inject failed: $?"
utrace-top -n $S >/tmp/t94b.rec
unload syscall_trace
cat /tmp/t94b.did
expect_eq "what sysseq saw" "$(grep -o ' = .*' /tmp/t94b.did | tr '\n' '|')" \
	" = 1| = 3| = 0| = -1 EACCES (Permission denied)| = -1 EACCES (Permission denied)| = 3| = 0|"
trace_of "$PID" t94b | grep "^openat" | tee /tmp/t94b.got
grep "^openat" /tmp/t94b.did | awk '/EACCES/ { $0 = $0 " (INJECTED)" } { print }' >/tmp/t94b.want
diff /tmp/t94b.want /tmp/t94b.got || fail "the injected trace differs (- want, + got)"
echo "ok: calls 2 and 3 injected and marked, 1 and 4 ran"

# when=N+ and an errno number: every openat from the 2nd on fails with 13
run t94c inject /tmp/t94/in 3
load syscall_trace pid="$PID" inject=openat:error=13:when=2+
go t94c
wait "$PID" || fail "sysseq inject failed: $?"
unload syscall_trace
expect_eq "what sysseq saw (when=2+)" "$(grep -c EACCES /tmp/t94c.did)" 2

# --- 32-bit syscalls (int $0x80 from a 64-bit program): decoded by the
# i386 numbers and registers, line by line as sys32 says it made them
PROG=sys32 run t94g files /tmp/t94
load syscall_trace pid="$PID"
go t94g
wait "$PID"
rc=$?
utrace-top -n $S >/tmp/t94g.rec
cat /tmp/t94g.rec
[ $rc = 0 ] || fail "sys32 files failed: $rc"
unload syscall_trace
n=$(wc -c </tmp/t94g.did)
{
	cat /tmp/t94g.did
	printf 'write(2, "%s"..., %s) = %s\n' "$(head -c 32 /tmp/t94g.did | escape)" "$n" "$n"
	echo 'exit_group(0) = ?'
	echo '+++ exited with 0 +++'
} >/tmp/t94g.want
trace_of "$PID" t94g >/tmp/t94g.got
diff /tmp/t94g.want /tmp/t94g.got || fail "the 32-bit trace differs from what sys32 did (- did, + traced)"
echo "ok: $(wc -l </tmp/t94g.got) lines, each what sys32 did"

# inject= by name, per ABI: getpid fails as i386 20 and as x86-64 39 (also
# with rax's upper half set: the kernel runs eax's number); i386 39 (mkdir)
# runs
PROG=sys32 run t94h inject /tmp/t94
load syscall_trace pid="$PID" inject=getpid:error=EACCES
go t94h
wait "$PID" || fail "sys32 inject failed: $?"
utrace-top -n $S >/tmp/t94h.rec
unload syscall_trace
cat /tmp/t94h.did
expect_eq "what sys32 saw" "$(grep -o ' = .*' /tmp/t94h.did | tr '\n' '|')" \
	" = 1| = -1 EACCES (Permission denied)| = 0| = 0| = -1 EACCES (Permission denied)| = -1 EACCES (Permission denied)|"
trace_of "$PID" t94h | grep -v '^read(0\|^write(2\|^exit_group\|^+++' | tee /tmp/t94h.got
grep -v '^read(0' /tmp/t94h.did | awk '/EACCES/ { $0 = $0 " (INJECTED)" } { print }' >/tmp/t94h.want
diff /tmp/t94h.want /tmp/t94h.got || fail "the injected 32-bit trace differs (- want, + got)"
echo "ok: getpid injected in both ABIs, i386 mkdir ran"

# --- a full stream: records=16 keeps 15, the rest are counted exactly
run t94d inject /tmp/t94/in 20
load syscall_trace pid="$PID" records=16
go t94d
wait "$PID" || fail "sysseq inject failed: $?"
utrace-top -n $S >/tmp/t94d.rec
cat /tmp/t94d.rec
# read + 20 x (openat, close) + write + exit_group + exit = 44 records.
expect_eq "records kept" "$(grep -vc DROPPED /tmp/t94d.rec)" 15
expect_eq "the drop notice (44 records, 15 kept)" \
	"$(awk '$3 == "DROPPED" { print $1, $4 }' /tmp/t94d.rec)" "16 29"
mark
unload syscall_trace
dmesg_has "syscall_trace: unloaded; 29 record" || fail "unload does not count the drops"

# --- gdb, crash_suspend and syscall_trace on one process: gdb attaches
# (syscall_trace sees the gate's read interrupted and restarted), lets it
# run to a breakpoint, calls getppid() in it (traced), detaches; the NULL
# write then suspends it (crash_suspend), gdb attaches again and sees the
# crash; SIGCONT lets it die with a core dump, and the trace ends with it.
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
run t94e crash
load syscall_trace pid="$PID"
mark
load crash_suspend pid="$PID"
ppid=$(awk '$1 == "PPid:" { print $2 }' /proc/"$PID"/status)
out=$(gdb -nx -batch -p "$PID" -ex 'break crash_here' -ex 'shell echo go >/tmp/t94e.go' \
	-ex continue -ex 'print (long)getppid()' -ex detach 2>&1)
echo "$out" | grep '^Breakpoint\|^\$' | sed 's/^/   /'
echo "$out" | grep -q '^Breakpoint 1, .*crash_here ' || fail "gdb did not stop at crash_here: $out"
echo "$out" | grep -q "^\$1 = $ppid\$" || fail "gdb's call of getppid() in the process: $out"
wait_until 20 "dmesg_since_mark | grep -q 'suspended on signal 11 '"
wait_until 10 "grep -q '^State:.*T (stopped)' /proc/$PID/status"
bt=$(gdb -nx -batch -p "$PID" -ex bt 2>&1)
echo "$bt" | grep '^#' | sed 's/^/   /'
echo "$bt" | grep -q 'in crash_here ' || fail "gdb's backtrace of the suspended process lacks crash_here: $bt"
kill -CONT "$PID"
wait "$PID"
expect_eq "exit status after SIGCONT (SIGSEGV, core)" "$?" 139
utrace-top -n $S >/tmp/t94e.rec
cat /tmp/t94e.rec
trace_of "$PID" t94e | sed 's/^read(0, 0x[0-9a-f]*, 1)/read(0, ADDR, 1)/' >/tmp/t94e.got
expect_eq "traced: the gate (interrupted by gdb's attach, restarted), getppid, gdb's getppid, the death" \
	"$(cat /tmp/t94e.got)" \
	"read(0, ADDR, 1) = ? ERESTARTSYS (To be restarted if SA_RESTART is set)
read(0, \"g\", 1) = 1
getppid() = $ppid
getppid() = $ppid
+++ killed by SIGSEGV (core dumped) +++"
unload crash_suspend
unload syscall_trace
[ -s /tmp/core."$PID" ] || fail "no core file /tmp/core.$PID"
echo "ok: gdb debugged, crash_suspend held and syscall_trace traced one process at once"
unload utrace_rs
