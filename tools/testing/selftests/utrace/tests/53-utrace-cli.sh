# SPDX-License-Identifier: GPL-2.0
# The utrace command (tools/utrace, Documentation/utrace-rs/utrace.rst) on
# /dev/utrace: --help of every subcommand; without the device each says
# what is missing; `utrace trace -- CMD` shows the
# execve, the syscalls sysseq says it made, a SIGSEGV and the exit lines,
# and exits as CMD did; memory shows as the call had it (a path in a page
# not yet touched, a buffer changed right after the call); a user without privileges traces their own
# program; `-e` shows the syscalls strace's -e shows (names, !, all, none,
# %file); `utrace trace -p` works on a process gdb is attached to; a
# reader that is gone or a full disk ends utrace (quietly, or saying so);
# SIGINT ends it keeping what its session held, a call under way
# "<detached ...>"; -p of a thread names its process;
# `utrace events --json` shows a tree's execs and exits, and ends with its
# tree also when its DEATH records were lost; `utrace top` counts a
# command's syscalls, and with --all those of every process the user may
# trace.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
UT=/utrace/bin/utrace
# child_sh PID: the pid of PID's child shell, if it has one.
child_sh() { ps -o pid,ppid,comm | awk -v p="$1" '$2 == p && $3 == "sh" { print $1 }'; }
# trace_p OUT PID: `utrace trace -o OUT -p PID` in the background (its
# stderr in OUT.err), once it says it attached. Sets ut.
trace_p() {
	$UT trace -o "$1" -p "$2" 2>"$1.err" &
	ut=$!
	wait_until 10 "grep -q 'process $2 attached' $1.err"
}
# events_stopped OUT GATE SCRIPT: `utrace events -- sh -c SCRIPT` into
# OUT, whose shell first reads the FIFO GATE; once the shell runs, utrace
# is stopped (SIGSTOP) and the gate opened. Sets ut and sh.
events_stopped() {
	rm -f "$2"
	mkfifo "$2"
	$UT events -- sh -c "$3" >"$1" 2>&1 &
	ut=$!
	wait_until 10 "[ -n \"\$(child_sh $ut)\" ]"
	sh=$(child_sh $ut)
	kill -STOP $ut
	echo go >"$2"
}

for sub in "" trace events info hold top handoff; do
	# shellcheck disable=SC2086 # $sub: no word or one
	out=$($UT $sub --help 2>&1) || fail "utrace $sub --help failed: $out"
	echo "$out" | grep -q '^Usage: utrace' || fail "utrace $sub --help: no usage line: $out"
done
echo "ok: utrace --help and each subcommand's"
for bad in "top -n 0" "top --rows 0"; do
	# shellcheck disable=SC2086 # $bad: words
	out=$($UT $bad -- /bin/true 2>&1) && fail "utrace $bad succeeded: $out"
	echo "$out" | grep -q "invalid value '0'" || fail "utrace $bad: $out"
done
echo "ok: utrace top refuses -n 0 and --rows 0"
# Without the device every subcommand says what is missing, and fails.
for sub in "info" "trace -- /bin/true" "events -- /bin/true" "hold -- /bin/true" "top -b -n 1 -- /bin/true"; do
	# shellcheck disable=SC2086 # $sub: words
	out=$($UT $sub 2>&1) && fail "utrace $sub succeeded without /dev/utrace: $out"
	echo "$out" | grep -q 'is the utrace_dev module loaded?' ||
		fail "utrace $sub without /dev/utrace: $out"
done
echo "ok: without /dev/utrace each subcommand asks whether utrace_dev is loaded"

load utrace_rs
load utrace_dev
trap 'kill $victim $gdbpid $mine $theirs $jp $sl 2>/dev/null; unload_settled utrace_dev; unload_settled utrace_rs' EXIT
expect_eq "utrace info: version" "$($UT info | sed -n 's/^version //p')" 4
# A reader that is gone ends utrace quietly (Rust ignores SIGPIPE, so a
# write says EPIPE): `info` writes into a pipe whose reader has exited;
# `trace -p` of a process that goes on making syscalls ends once `head`
# has its lines, and the process runs on, untraced.
{
	sleep 1
	$UT info 2>/tmp/t53.epipe
	echo $? >/tmp/t53.epipe.rc
} | true
expect_eq "utrace info into a closed pipe: exit" "$(cat /tmp/t53.epipe.rc)" 0
[ -s /tmp/t53.epipe ] && fail "utrace info into a closed pipe: $(cat /tmp/t53.epipe)"
{
	sleep 1
	$UT trace -p 2147483647 2>&1
	echo $? >/tmp/t53.epipe.rc
} | true
expect_eq "utrace trace -p 2147483647, its error into a closed pipe: exit" "$(cat /tmp/t53.epipe.rc)" 1
echo g | sysloop 2000000000 >/dev/null &
victim=$!
wait_until 10 "grep -q sysloop /proc/$victim/comm"
timeout 60 sh -c "$UT trace -p $victim 2>/tmp/t53.epipe | head -n 2 >/tmp/t53.head" ||
	fail "utrace trace -p | head -n 2: no end in 60 s (exit $?): $(cat /tmp/t53.epipe)"
expect_eq "utrace trace -p | head -n 2: syscall lines" "$(grep -Ec '^[a-z0-9_]+\(' /tmp/t53.head)" 2
kill -0 $victim || fail "the traced process did not run on after utrace ended"
grep -v "process $victim attached" /tmp/t53.epipe && fail "utrace trace -p | head: stderr above"
kill $victim
wait $victim
echo "ok: utrace info and utrace trace end quietly when their reader is gone"
out=$(timeout 20 sh -c "exec $UT trace -p \$\$" 2>&1) && fail "utrace trace -p of itself succeeded: $out"
echo "$out" | grep -q 'that is this utrace itself' || fail "utrace trace -p of itself: $out"
echo "ok: utrace trace -p of itself is refused: $out"
# SIGINT ends utrace -p: the records read by then have their lines, and a
# call under way ends in "<detached ...>", as strace's does (before: the
# session closed with neither). The shell execs sleep once utrace is
# attached, so its clock_nanosleep's entry is recorded.
rm -f /tmp/t53.det
mkfifo /tmp/t53.det
sh -c 'read x </tmp/t53.det; exec sleep 1000' &
sl=$!
trace_p /tmp/t53.det.out $sl
echo g >/tmp/t53.det
wait_until 10 "[ \"\$(cat /proc/$sl/comm)\" = sleep ] && [ \"\$(state_of $sl)\" = S ]"
sleep 0.5
kill -INT $ut
wait $ut || fail "utrace trace -p $sl: exit $? on SIGINT"
kill "$sl"
wait $sl
tail -n 1 /tmp/t53.det.out | grep -Eq '^(clock_nanosleep\(CLOCK_REALTIME, 0, |nanosleep\()\{tv_sec=1000, tv_nsec=0\}.* <detached \.\.\.>$' ||
	fail "utrace trace -p, SIGINT: the last line is not sleep's call <detached ...>: $(tail -n 3 /tmp/t53.det.out)"
expect_eq "utrace trace -p $sl, SIGINT: stderr" "$(tail -n 1 /tmp/t53.det.out.err)" "utrace: process $sl detached"
echo "ok: SIGINT: the call under way: $(tail -n 1 /tmp/t53.det.out)"
# So does a call the session records at its exit only (before: no line):
# the shell waits in openat() of a FIFO no one writes, since before the
# attach.
rm -f /tmp/t53.det2
mkfifo /tmp/t53.det2
sh -c 'read x </tmp/t53.det2' &
sl=$!
wait_until 10 "grep -q '^257 ' /proc/$sl/syscall"
trace_p /tmp/t53.det2.out $sl
kill -INT $ut
wait $ut || fail "utrace trace -p $sl: exit $? on SIGINT"
echo >/tmp/t53.det2
wait $sl
grep -Eqx 'openat\(AT_FDCWD, "/tmp/t53.det2", O_RDONLY(\|O_LARGEFILE)?\) <detached \.\.\.>' /tmp/t53.det2.out ||
	fail "utrace trace -p of a shell in openat(), SIGINT: not its line: $(cat /tmp/t53.det2.out)"
echo "ok: SIGINT: the call under way, recorded at its exit only: $(cat /tmp/t53.det2.out)"
# A call under way when utrace attaches has its line when it returns,
# from its exit record (before: none, for a call whose entry the session
# records). sleep's clock_nanosleep returns when SIGSTOP stops it. A
# second utrace attached to the stopped sleep, then SIGINT: it is in no
# call (its /proc/PID/syscall still shows the one it made), so no
# <detached ...> line. SIGCONT: the sleep goes on in restart_syscall,
# shown as strace shows it.
sleep 1000 &
sl=$!
wait_until 10 "[ \"\$(state_of $sl)\" = S ]"
trace_p /tmp/t53.mid.out $sl
first=$ut
kill -STOP $sl
wait_until 10 "[ \"\$(state_of $sl)\" = T ]"
trace_p /tmp/t53.stopped.out $sl
kill -INT $ut
wait $ut || fail "utrace trace -p $sl: exit $? on SIGINT"
! grep -q 'detached' /tmp/t53.stopped.out || fail "utrace trace -p of a stopped sleep, SIGINT: $(cat /tmp/t53.stopped.out)"
kill -CONT $sl
wait_until 10 "grep -q '^219 ' /proc/$sl/syscall && [ \"\$(state_of $sl)\" = S ]"
kill -INT $first
wait $first || fail "utrace trace -p $sl: exit $? on SIGINT"
kill -KILL $sl
wait $sl
grep -Eq '^clock_nanosleep\(CLOCK_REALTIME, 0, .*\) = \? ERESTART_RESTARTBLOCK \(Interrupted by signal\)$' /tmp/t53.mid.out ||
	fail "utrace trace -p of a sleep, then SIGSTOP: no line of the call under way at the attach: $(cat /tmp/t53.mid.out)"
expect_eq "utrace trace -p of a sleep stopped and continued, SIGINT: its last line" "$(tail -n 1 /tmp/t53.mid.out)" \
	'restart_syscall(<... resuming interrupted clock_nanosleep ...>) <detached ...>'
echo "ok: the call under way at the attach: $(head -n 1 /tmp/t53.mid.out)"
# The same for utrace events: the records the session holds when SIGINT
# comes are printed (before: dropped). utrace is stopped while the shell
# execs, so they are all still in its session when the signal is read.
events_stopped /tmp/t53.ev.out /tmp/t53.evg 'read x </tmp/t53.evg; /bin/true; exec sleep 1000'
sl=$sh
wait_until 10 "[ \"\$(cat /proc/$sl/comm)\" = sleep ]"
kill -INT $ut
kill -CONT $ut
wait_until 10 "grep -q ' exec /bin/true\$' /tmp/t53.ev.out"
kill "$sl"
wait $ut
echo "ok: utrace events, SIGINT: the records it held are shown: $(grep -c . /tmp/t53.ev.out) lines"
# -p traces every thread of the process: a line of a thread other than
# the one named starts with [pid TID] (before: no prefix without -f, so
# the threads' lines could not be told apart).
rm -f /tmp/t53.ids
jobctl /tmp/t53.ids >/dev/null &
jc=$!
wait_until 10 "[ -s /tmp/t53.ids ]"
read -r jp jt1 jt2 </tmp/t53.ids
timeout 60 sh -c "$UT trace -p $jp 2>/dev/null | head -n 1000 >/tmp/t53.threads"
# -p of a thread other than the first traces its process as well, and says
# so (before: "process $jt1 attached", and the first thread's lines were
# the ones with a prefix).
timeout 60 sh -c "$UT trace -p $jt1 2>/tmp/t53.tid.err | head -n 1000 >/tmp/t53.tid"
kill -9 "$jp"
wait $jc
grep -Eq "^\[pid +($jt1|$jt2)\] sched_yield\(\)" /tmp/t53.threads ||
	fail "utrace trace -p $jp: no [pid $jt1] or [pid $jt2] line: $(head -n 5 /tmp/t53.threads)"
others=$(grep -E '^\[pid' /tmp/t53.threads | grep -Ev "^\[pid +($jt1|$jt2)\] ")
[ -z "$others" ] || fail "utrace trace -p $jp: lines of threads it does not have: $others"
echo "ok: utrace trace -p of a 3-thread process: the other threads' lines carry their [pid TID]"
expect_eq "utrace trace -p $jt1 (a thread of $jp): stderr" "$(cat /tmp/t53.tid.err)" \
	"utrace: process $jp attached (thread $jt1 is one of its threads)"
grep -Eq "^\[pid +($jt1|$jt2)\] sched_yield\(\)" /tmp/t53.tid ||
	fail "utrace trace -p $jt1: no [pid $jt1] or [pid $jt2] line: $(head -n 5 /tmp/t53.tid)"
others=$(grep -E '^\[pid' /tmp/t53.tid | grep -Ev "^\[pid +($jt1|$jt2)\] ")
[ -z "$others" ] || fail "utrace trace -p $jt1: lines of threads other than $jt1 and $jt2: $others"
out=$($UT trace -- /nonexistent 2>&1) && fail "utrace trace -- /nonexistent succeeded: $out"
expect_eq "utrace trace -- /nonexistent" "$out" "utrace: /nonexistent: No such file or directory (os error 2)"
out=$($UT trace -- /etc/passwd 2>&1) && fail "utrace trace -- /etc/passwd succeeded: $out"
expect_eq "utrace trace -- /etc/passwd" "$out" "utrace: /etc/passwd: Permission denied (not an executable file)"
if [ -c /dev/full ]; then
	$UT trace -o /dev/full -- /bin/true 2>/tmp/t53.full || fail "utrace trace -o /dev/full -- /bin/true: exit $?"
	grep -q '^utrace: writing the trace: No space left on device' /tmp/t53.full ||
		fail "utrace trace -o /dev/full does not say it could not write: $(cat /tmp/t53.full)"
	echo "ok: utrace trace -o /dev/full says why it stopped"
fi
# Strings and structs in a syscall's memory are exact: the kernel captures
# them into the records (UTRACE_IOC_CAPTURE), and an entry whose capture is
# not whole (a page not present yet) waits while utrace reads them itself
# (syscall decisions, UTRACE_ATTACH_F_DECIDE_SYSCALL). Without decisions
# the comparisons below put P for every quoted string, {struct}, [array],
# address and NULL on both sides: what comes from the registers (names,
# fds, flags, modes, results, errno names) stays exact. An entry that waits
# does so in a stop before it runs, which a ptracer beside utrace sees as a
# restart (api.rst, "Stopping before a syscall runs"): strace's "= ?
# ERESTARTNOINTR (To be restarted)" line, then the syscall itself.
# unrestarted drops those lines from strace's trace.
if $UT info | grep -q '^attach_flags .*decide_syscall'; then
	loose() { cat; }
	unrestarted() { grep -v ' = [?-][1 ]*ERESTARTNOINTR '; }
	echo "syscall decisions: memory arguments compared exactly"
else
	loose() { sed -E 's/"([^"\\]|\\.)*"(\.\.\.)?/P/g; s/\{[^}]*\}/P/g; s/\[[0-9, ]*\]/P/g; s/0x[0-9a-f]+|NULL/P/g'; }
	unrestarted() { cat; }
	echo "no syscall decisions: memory arguments compared as P"
fi

# --- utrace trace -- /bin/true
$UT trace -o /tmp/t53.true -- /bin/true || fail "utrace trace -- /bin/true: exit $?"
cat /tmp/t53.true
head -n 1 /tmp/t53.true | grep -Eq '^execve\("/bin/true", 0x[0-9a-f]+, 0x[0-9a-f]+\) += 0$' ||
	fail "the first line is not /bin/true's execve"
expect_eq "last line" "$(tail -n 1 /tmp/t53.true)" "+++ exited with 0 +++"
grep -Eq '^exit_group\(0\) += \?$' /tmp/t53.true || fail "no exit_group(0) = ?"

# The exit status is the command's.
$UT trace -o /tmp/t53.exit -- /bin/sh -c 'exit 3'
expect_eq "utrace trace -- sh -c 'exit 3': exit status" "$?" 3
expect_eq "last line" "$(tail -n 1 /tmp/t53.exit)" "+++ exited with 3 +++"

# --- what sysseq did, line by line, in utrace's trace (spaces before
# '=' squeezed; an unknown syscall as strace names it, in hex); the same
# for sys32's i386 syscalls (int $0x80 from a 64-bit program, their memory
# in a MAP_32BIT page: decoded by the i386 table, captured at the i386
# registers)
mkdir -p /tmp/t53
did_in_trace() { # PROG: "PROG files /tmp/t53" under utrace trace
	printf 'hello utrace\n' >/tmp/t53/in
	echo g | $UT trace -o "/tmp/t53.$1" -- "$1" files /tmp/t53 >/dev/null \
		2>"/tmp/t53.$1.did" || fail "utrace trace -- $1 files: exit $?"
	sed 's/^syscall_500(/syscall_0x1f4(/' "/tmp/t53.$1.did" | loose >"/tmp/t53.$1.want"
	sed 's/  *= / = /' "/tmp/t53.$1" | loose >"/tmp/t53.$1.got"
	missing=$(grep -vxFf "/tmp/t53.$1.got" "/tmp/t53.$1.want")
	[ -z "$missing" ] || fail "lines $1 did that utrace trace lacks:
$missing
trace:
$(cat "/tmp/t53.$1.got")"
	echo "ok: each of $1's $(wc -l <"/tmp/t53.$1.want") syscalls is in the trace as it said"
}
did_in_trace sysseq
did_in_trace sys32

# --- memory as the call had it: a path in a page the process had not
# touched (its record cannot carry it: the entry waits while utrace reads
# it), a write() buffer changed right after the call, and read()'s data
printf 'hello utrace\n' >/tmp/t53/in
echo g | $UT trace -o /tmp/t53.cap -- sysseq capture /tmp/t53 >/dev/null 2>/tmp/t53.capdid ||
	fail "utrace trace -- sysseq capture: exit $?"
loose </tmp/t53.capdid >/tmp/t53.capwant
sed 's/  *= / = /' /tmp/t53.cap | loose >/tmp/t53.capgot
missing=$(grep -vxFf /tmp/t53.capgot /tmp/t53.capwant)
[ -z "$missing" ] || fail "lines sysseq capture did that utrace trace lacks:
$missing
trace:
$(cat /tmp/t53.capgot)"
echo "ok: a path in an untouched page and a buffer changed after its write() show as the calls had them ($(wc -l </tmp/t53.capwant) lines)"

# --- a crash
$UT trace -o /tmp/t53.segv -- crasher segv
grep -Eq '^--- SIGSEGV \{si_signo=SIGSEGV, si_code=SEGV_MAPERR, si_addr=NULL\} ---$' /tmp/t53.segv ||
	fail "no SIGSEGV line: $(tail -n 3 /tmp/t53.segv)"
tail -n 1 /tmp/t53.segv | grep -Eq '^\+\+\+ killed by SIGSEGV( \(core dumped\))? \+\+\+$' ||
	fail "last line: $(tail -n 1 /tmp/t53.segv)"
echo "ok: $(grep SIGSEGV /tmp/t53.segv | tr '\n' ' ')"

# --- as a user without privileges, on their own program
out=$(runas $NOBODY $UT trace -- /bin/true 2>&1) || fail "nobody: utrace trace -- /bin/true: $out"
echo "$out" | tail -n 1 | grep -q '^+++ exited with 0 +++$' || fail "nobody: $out"
echo "ok: nobody traces /bin/true"

# --- -e as strace spells it: names, `!` (all but), all, none, %file. The
# oracle is Debian's strace on the same command: the same syscalls shown,
# in the same order.
names() { sed -E 's/\(.*//; s/^(\+\+\+ .*) \+\+\+$/\1/' "$1"; }
for e in 'trace=%file' '%file,write' '!brk,mprotect' 'trace=none' 'all' 'trace=openat,exit_group'; do
	strace -o /tmp/t53.e.strace -e "$e" cat /nonexistent 2>/dev/null
	$UT trace -o /tmp/t53.e.ut -e "$e" -- cat /nonexistent 2>/dev/null
	names /tmp/t53.e.strace >/tmp/t53.e.s
	names /tmp/t53.e.ut >/tmp/t53.e.u
	diff /tmp/t53.e.s /tmp/t53.e.u || fail "utrace trace -e '$e' shows other syscalls than strace (- strace, + utrace)"
	echo "ok: -e '$e': the $(wc -l </tmp/t53.e.u) lines strace shows ($(tr '\n' ' ' </tmp/t53.e.u))"
done
# Clocks and clock_nanosleep()'s flags by name, as strace shows them
# (before: numbers). The addresses differ between the two runs.
strace -o /tmp/t53.cl.strace -e clock_nanosleep sleep 0.01
$UT trace -o /tmp/t53.cl.ut -e clock_nanosleep -- sleep 0.01
sed -E 's/0x[0-9a-f]+/0x.../g' /tmp/t53.cl.strace >/tmp/t53.cl.s
sed -E 's/0x[0-9a-f]+/0x.../g' /tmp/t53.cl.ut >/tmp/t53.cl.u
diff /tmp/t53.cl.s /tmp/t53.cl.u || fail "utrace trace shows sleep's clock_nanosleep() otherwise than strace (- strace, + utrace)"
grep -q '^clock_nanosleep(CLOCK_REALTIME, 0, {tv_sec=0, tv_nsec=10000000}, ' /tmp/t53.cl.u ||
	fail "sleep 0.01: no clock_nanosleep(CLOCK_REALTIME, 0, ...) line: $(cat /tmp/t53.cl.u)"
echo "ok: as strace shows it: $(head -n 1 /tmp/t53.cl.u)"
# Each thread's end has its line with -f, as strace -f shows it.
echo g | strace -f -o /tmp/t53.th.strace spawn thread 3 /bin/true
echo g | $UT trace -f -o /tmp/t53.th.ut -- spawn thread 3 /bin/true
expect_eq "utrace trace -f: '+++ exited' lines of spawn's 3 threads and itself (strace's count)" \
	"$(grep -c '+++ exited with' /tmp/t53.th.ut)" "$(grep -c '+++ exited with' /tmp/t53.th.strace)"
# A clone line for each call, none for a new thread's return from it
# (strace -f -o starts each line with the pid).
clones() { grep -cE '^(\[pid +[0-9]+\] |[0-9]+ +)?clone3?\(' "$1"; }
expect_eq "utrace trace -f: clone lines of spawn's 3 threads (strace's count)" \
	"$(clones /tmp/t53.th.ut)" "$(clones /tmp/t53.th.strace)"

# --- utrace trace -p on a process gdb is attached to
rm -f /tmp/t53.go
mkfifo /tmp/t53.go
rm -f /tmp/t53.ready
sysseq files /tmp/t53 <>/tmp/t53.go >/tmp/t53.ready 2>/tmp/t53.did2 &
victim=$!
wait_until 10 "grep -q ready /tmp/t53.ready"
gdb -nx -batch -p $victim -ex continue >/tmp/t53.gdb 2>&1 &
gdbpid=$!
wait_until 20 "grep -q '^TracerPid:[[:space:]]*[1-9]' /proc/$victim/status"
$UT trace -o /tmp/t53.gdbtrace -p $victim 2>/tmp/t53.uterr &
ut=$!
wait_until 10 "grep -q 'process $victim attached' /tmp/t53.uterr"
echo g >/tmp/t53.go
wait $ut || fail "utrace trace -p $victim: exit $?"
wait $gdbpid
wait $victim || fail "sysseq under gdb and utrace: exit $?"
cat /tmp/t53.gdbtrace
sed 's/  *= / = /' /tmp/t53.gdbtrace | loose |
	grep -qxF "$(echo 'openat(AT_FDCWD, "/tmp/t53/in", O_RDONLY) = 3' | loose)" ||
	fail "no openat of /tmp/t53/in in the trace of a process under gdb"
expect_eq "last line" "$(tail -n 1 /tmp/t53.gdbtrace)" "+++ exited with 0 +++"
echo "ok: utrace trace -p and gdb on one process"

# --- utrace events ends with its tree when the tree's DEATH records were
# lost: utrace is stopped while a shell runs 300 /bin/true (far more
# records than its 64 KiB ring holds); the shell ends (a zombie: utrace does
# not reap it while stopped); continued, utrace prints what its ring kept
# and a lost count, and ends by its liveness check.
# shellcheck disable=SC2016 # the script's $i is the traced shell's
events_stopped /tmp/t53.lossy /tmp/t53.gate \
	'read x </tmp/t53.gate; i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i + 1)); done'
wait_until 60 "[ \"\$(state_of $sh)\" = Z ]"
kill -CONT $ut
wait_until 10 "! kill -0 $ut"
wait $ut
grep -q ' lost [0-9]' /tmp/t53.lossy ||
	fail "no lost count though utrace was stopped through 300 execs: $(tail -n 3 /tmp/t53.lossy)"
echo "ok: utrace events ended with its tree after $(grep -c . /tmp/t53.lossy) lines, records lost: $(grep ' lost ' /tmp/t53.lossy | head -n 1)"

# --- utrace events --json: a shell's two execs, each process's death
$UT events --json -- /bin/sh -c '/bin/echo a >/dev/null; /bin/echo b >/dev/null' >/tmp/t53.json ||
	fail "utrace events: exit $?"
cat /tmp/t53.json
expect_eq "exec events of /bin/echo" "$(grep -c '"event":"exec".*"filename":"/bin/echo"' /tmp/t53.json)" 2
grep -q '"event":"death".*"group_dead":true' /tmp/t53.json || fail "no death event"
expect_eq "JSON objects with a key twice" "$(grep -c '"flags".*"flags"' /tmp/t53.json)" 0

# --- utrace trace and Debian's strace on one process at once: the same
# lines. strace runs sysseq; utrace attaches while it waits for its gate.
# Normalised: spaces before '=' squeezed. Lines of the syscalls both decode
# fully must be equal; of the others, the name and the result.
attempt=1
while :; do
	rm -f /tmp/t53.go
	mkfifo /tmp/t53.go
	rm -f /tmp/t53.strace.*
	# The earlier section's "ready" must not pass for this one's: the job's
	# redirection truncates the file only once its shell runs.
	rm -f /tmp/t53.ready
	strace -ff -o /tmp/t53.strace sysseq files /tmp/t53 <>/tmp/t53.go >/tmp/t53.ready 2>/tmp/t53.did3 &
	st=$!
	wait_until 10 "grep -q ready /tmp/t53.ready"
	# The traced program: strace's child named sysseq (strace -ff names its
	# output after that pid).
	sp=$(ps -o pid,ppid,comm | awk -v p=$st '$2 == p && $3 == "sysseq" { print $1 }')
	sf=/tmp/t53.strace.$sp
	mark
	# The gdb section's "attached" must not pass for this one's either.
	rm -f /tmp/t53.uterr
	$UT trace -o /tmp/t53.ut -p "$sp" 2>/tmp/t53.uterr &
	ut=$!
	wait_until 10 "grep -q 'attached' /tmp/t53.uterr || ! kill -0 $ut"
	# Seen on Debian's 7.x kernels, one run of this section in 6 to 10
	# (never in 80 runs of it alone), cause not found: the attach to
	# sysseq, alive and waiting at its gate under strace, says ESRCH
	# (the kernel logs "attach to tid N failed: no such process (or it
	# is exiting)": the framework's attach refused it). That run compares
	# nothing: again, at most twice, saying what sysseq, strace and the
	# kernel saw. The gate is opened (strace holds the FIFO: no wait) in
	# case sysseq still waits.
	if ! grep -q 'attached' /tmp/t53.uterr && grep -q 'ESRCH' /tmp/t53.uterr && [ "$attempt" -lt 3 ]; then
		echo "note: utrace's attach to sysseq $sp said ESRCH (attempt $attempt): $(cat /tmp/t53.uterr)"
		echo "note: sysseq's status then: $(grep -E '^(State|TracerPid)' /proc/"$sp"/status 2>&1 | tr '\n' ' ')"
		echo "note: the kernel said: $(dmesg_since_mark | tail -n 3 | tr '\n' '|')"
		timeout 5 sh -c 'echo g >/tmp/t53.go'
		wait "$st"
		wait "$ut"
		echo "note: sysseq says it did: $(head -n 3 /tmp/t53.did3 | tr '\n' '|')"
		echo "note: strace saw it start with: $(head -n 12 "$sf" | tr '\n' '|')"
		echo "note: and end with: $(tail -n 4 "$sf" | tr '\n' '|')"
		attempt=$((attempt + 1))
		continue
	fi
	break
done
echo g >/tmp/t53.go
wait $ut || fail "utrace trace -p $sp under strace: exit $?: $(cat /tmp/t53.uterr);" \
	"strace's files: $(ls /tmp/t53.strace.*); tasks: $(ps -o pid,ppid,stat,comm | tr '\n' ' ');" \
	"kernel: $(dmesg_since_mark | tail -n 3)"
wait "$st" || fail "strace: exit $?"
n=$(wc -l </tmp/t53.ut)
[ "$n" -ge 10 ] || fail "utrace saw only $n lines: $(cat /tmp/t53.ut)"
norm() {
	sed 's/  *= / = /' "$1" | unrestarted | tail -n "$n" | loose |
		awk '/^(openat|close|read|write|unlink|mkdir|rmdir|pipe2|getpid|kill|nanosleep|exit_group|syscall_0x1f4)\(/ ||
			/^(\+\+\+|---) / { print; next }
			{ name = $0; sub(/\(.*/, "", name); res = $0; sub(/.*\) = /, "", res); print name " ... = " res }'
}
norm "$sf" >/tmp/t53.n.strace
norm /tmp/t53.ut >/tmp/t53.n.ut
diff /tmp/t53.n.strace /tmp/t53.n.ut || fail "utrace trace differs from strace (- strace, + utrace)"
echo "ok: utrace trace -p and strace on one process: the same $n lines ($(grep -c -v ' \.\.\. = ' /tmp/t53.n.ut) of them whole)"

# --- utrace top: one table when the command ends first; its row counts the
# getppid calls sysloop made (all of them, unless records were lost).
echo g | timeout 120 $UT top -b -d 60 -- sysloop 20000 >/tmp/t53.top 2>&1 || fail "utrace top: exit $?: $(cat /tmp/t53.top)"
cat /tmp/t53.top
# A loaded machine may make the command outlast the 60 s period: a table
# per period then, whose counts add up.
lost=$(sed -n 's/.* \([0-9]*\) records lost.*/\1/p' /tmp/t53.top | awk '{ s += $1 } END { print s + 0 }')
calls=$(awk '$2 == "sysloop" { for (i = 1; i <= NF; i++) if ($i == "getppid") { gsub(/[()]/, "", $(i + 1)); s += $(i + 1); n++ } }
	END { if (n) print s }' /tmp/t53.top)
[ -n "$calls" ] || fail "utrace top shows no sysloop row with getppid as its most frequent syscall"
if [ "$lost" = 0 ]; then
	expect_eq "utrace top: getppid calls of sysloop" "$calls" 20000
else
	[ $((calls + lost)) -ge 20000 ] || fail "utrace top: $calls getppid calls + $lost lost < 20000"
fi
echo "ok: utrace top counts sysloop's getppid calls ($calls, $lost records lost)"

# --- utrace top --all: processes running before it started, attached one
# by one (a global engine reports no syscalls). Root's table has root's
# and nobody's sysloop; nobody's has only its own, and says what it left
# out.
echo g | sysloop 2000000000 >/dev/null &
mine=$!
echo g | runas $NOBODY "$(command -v sysloop)" 2000000000 >/dev/null &
theirs=$!
wait_until 10 "grep -q sysloop /proc/$mine/comm && grep -q sysloop /proc/$theirs/comm"
row() { awk -v p="$1" '$1 == p && $2 == "sysloop" && $NF ~ /^\([0-9]+\)$/ && $(NF - 1) == "getppid"' "$2"; }
$UT top -b -n 1 -d 2 --all >/tmp/t53.topall 2>/tmp/t53.topall.err || fail "utrace top --all: exit $?: $(cat /tmp/t53.topall.err)"
cat /tmp/t53.topall.err /tmp/t53.topall
[ -n "$(row $mine /tmp/t53.topall)" ] || fail "utrace top --all: no getppid row of root's sysloop $mine"
[ -n "$(row $theirs /tmp/t53.topall)" ] || fail "utrace top --all: no getppid row of nobody's sysloop $theirs"
runas $NOBODY $UT top -b -n 1 -d 2 --all >/tmp/t53.topall 2>/tmp/t53.topall.err ||
	fail "nobody: utrace top --all: exit $?: $(cat /tmp/t53.topall.err)"
cat /tmp/t53.topall.err /tmp/t53.topall
[ -n "$(row $theirs /tmp/t53.topall)" ] || fail "nobody: utrace top --all: no getppid row of its sysloop $theirs"
[ -z "$(row $mine /tmp/t53.topall)" ] || fail "nobody: utrace top --all shows root's sysloop $mine"
grep -q "left out (not this user's to trace)" /tmp/t53.topall.err || fail "nobody: utrace top --all does not say what it left out"
kill $mine $theirs
wait $mine
wait $theirs
echo "ok: utrace top --all: root sees every process, nobody its own"
