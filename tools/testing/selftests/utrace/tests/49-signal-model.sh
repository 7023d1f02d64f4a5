# SPDX-License-Identifier: GPL-2.0
# utrace's signal model: each class of signal is reported for its own event
# (SIGNAL_TERM, SIGNAL_IGN, SIGNAL_STOP with STOP and TSTP, SIGNAL_CORE with
# the fault's siginfo), with the class in @action; the engine's signal action
# is carried out (ignore a fatal signal, kill with an ignored one, ignore or
# deliver a stop), HOLD stops the task and reports the signal again after
# RESUME, SIGKILL ends a hold, the siginfo and the disposition can be
# rewritten, a handler frame is reported (HANDLER), JCTL reports stops and
# continues, and a ptraced task's signals are not reported.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

# handlers NAME: a `sigmodel handlers` process; sets PID and OUT.
handlers() {
	OUT=/tmp/$1.out
	rm -f "$OUT"
	sigmodel handlers "$OUT" &
	PID=$!
	wait_until 5 "grep -q ready $OUT"
}
# last SLOT EVENT: the detail of SLOT's last EVENT report (fields 5..).
last() { utlog | awk -v s="$1" -v e="$2" '$2 == s && $3 == e { $1 = $2 = $3 = $4 = ""; d = $0 } END { print d }' | sed 's/^ *//'; }
nreports() { utlog | awk -v s="$1" -v e="$2" '$2 == s && $3 == e' | wc -l; }

# --- SIGNAL_TERM: SIGTERM at its default, before complete_signal() kills
handlers t49a
expect_ut "attach" 0 attach 0 "$PID" $A_CREATE
expect_ut "SIGNAL_TERM" 0 events 0 $EV_SIGNAL_TERM
expect_ut "ignore" 0 sigret 0 $SIGRET_IGN
kill -TERM "$PID"
wait_until 10 "[ \$(nreports 0 SIGNAL_TERM) = 1 ]"
expect_eq "SIGTERM report" "$(last 0 SIGNAL_TERM | cut -d' ' -f1-3)" "sig=15 class=0x20 code=0"
expect_eq "the sender" "$(last 0 SIGNAL_TERM | cut -d' ' -f5)" "pid=$$"
expect_eq "regs and dispositions" "$(last 0 SIGNAL_TERM | cut -d' ' -f6-7)" "regs=1 ka=1"
sleep 0.3
kill -0 "$PID" || fail "SIGTERM killed the task although the engine ignored it"
echo "ok: SIGTERM reported as TERM and ignored"
expect_ut "deliver" 0 sigret 0 $SIGRET_DELIVER
kill -TERM "$PID"
wait "$PID"
expect_eq "delivered: died of SIGTERM" "$?" $((128 + 15))

# --- SIGNAL_IGN: SIGWINCH (ignored by default) turned into TERM
handlers t49b
expect_ut "attach" 0 attach 1 "$PID" $A_CREATE
expect_ut "SIGNAL_IGN" 0 events 1 $EV_SIGNAL_IGN
expect_ut "terminate" 0 sigret 1 $SIGRET_TERM
kill -WINCH "$PID"
wait "$PID"
expect_eq "an ignored signal made TERM: died of SIGTERM" "$?" $((128 + 15))
expect_eq "SIGWINCH report" "$(last 1 SIGNAL_IGN | cut -d' ' -f1-2)" "sig=28 class=0x10"
echo "ok: SIGWINCH reported as IGN, turned into a kill"

# --- SIGNAL_STOP and JCTL
handlers t49c
expect_ut "attach" 0 attach 2 "$PID" $A_CREATE
expect_ut "SIGNAL_STOP|JCTL" 0 events 2 $((EV_SIGNAL_STOP | EV_JCTL))
expect_ut "ignore" 0 sigret 2 $SIGRET_IGN
kill -TSTP "$PID"
wait_until 10 "[ \$(nreports 2 SIGNAL_STOP) = 1 ]"
expect_eq "SIGTSTP report" "$(last 2 SIGNAL_STOP | cut -d' ' -f1-2)" "sig=20 class=0x50"
kill -STOP "$PID"
wait_until 10 "[ \$(nreports 2 SIGNAL_STOP) = 2 ]"
expect_eq "SIGSTOP report" "$(last 2 SIGNAL_STOP | cut -d' ' -f1-2)" "sig=19 class=0x40"
sleep 0.3
expect_eq "both ignored: not stopped" "$(state_of "$PID")" S
expect_eq "no JCTL report" "$(nreports 2 JCTL)" 0
expect_ut "deliver" 0 sigret 2 $SIGRET_DELIVER
kill -STOP "$PID"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = T ]'
wait_until 10 "[ \$(nreports 2 JCTL) = 1 ]"
expect_eq "JCTL before the stop" "$(last 2 JCTL | cut -d' ' -f1-2)" "type=5 notify=5"
kill -CONT "$PID"
wait_until 10 "[ \$(nreports 2 JCTL) = 2 ]"
expect_eq "JCTL after SIGCONT" "$(last 2 JCTL | cut -d' ' -f1-2)" "type=6 notify=6"
echo "ok: SIGTSTP and SIGSTOP reported as TSTP and STOP; ignored, then delivered; JCTL stop and continue"
# JCTL's notify (CLD_STOPPED 5, CLD_CONTINUED 6) is in exactly one thread's
# report per stop and per continue: the one the signal was sent to (here the
# main thread of a 3-thread process, its threads looping on sched_yield());
# 0 in the others. Each thread reports before it stops, so once the parent
# saw the stop (waitpid), all three stop reports are in, once each: the
# thread the kernel woke for SIGSTOP used to dequeue it before its report
# was queued, stopped, and reported only after SIGCONT (4 rounds of 20).
# Three rounds (slots 7-9, 10-12, 13-15); after the kill, the whole JCTL
# sequence of each thread is checked once more (nothing late, nothing twice).
jattach() {
	expect_ut "attach $2" 0 attach "$1" "$2" $A_CREATE
	expect_ut "JCTL $2" 0 events "$1" $EV_JCTL
}
# jctl_seq SLOT: SLOT's JCTL reports, "type=T notify=N" each, in order.
jctl_seq() { utlog | awk -v s="$1" '$2 == s && $3 == "JCTL" { printf "%s%s %s", sep, $5, $6; sep = " " }'; }
jctl3() {
	local s=$1 jp jt1 jt2 jobctl
	rm -f /tmp/t49j.tids /tmp/t49j.wait
	jobctl /tmp/t49j.tids >/tmp/t49j.wait &
	jobctl=$!
	wait_until 10 "[ -s /tmp/t49j.tids ]"
	read -r jp jt1 jt2 </tmp/t49j.tids
	jattach "$s" "$jp"
	jattach $((s + 1)) "$jt1"
	jattach $((s + 2)) "$jt2"
	kill -STOP "$jp"
	wait_until 30 "grep -q '^stopped 19' /tmp/t49j.wait"
	expect_eq "stopped: main thread" "$(jctl_seq "$s")" "type=5 notify=5"
	expect_eq "stopped: thread 2" "$(jctl_seq $((s + 1)))" "type=5 notify=0"
	expect_eq "stopped: thread 3" "$(jctl_seq $((s + 2)))" "type=5 notify=0"
	kill -CONT "$jp"
	wait_until 30 "[ \$(nreports $s JCTL) = 2 ] && [ \$(nreports $((s + 1)) JCTL) = 2 ] && [ \$(nreports $((s + 2)) JCTL) = 2 ]"
	wait_until 10 "grep -q '^continued' /tmp/t49j.wait"
	kill -KILL "$jp"
	wait "$jobctl"
	expect_eq "main thread" "$(jctl_seq "$s")" "type=5 notify=5 type=6 notify=6"
	expect_eq "thread 2" "$(jctl_seq $((s + 1)))" "type=5 notify=0 type=6 notify=0"
	expect_eq "thread 3" "$(jctl_seq $((s + 2)))" "type=5 notify=0 type=6 notify=0"
}
jctl3 7
jctl3 10
jctl3 13
echo "ok: JCTL in each thread before the stop; notify in exactly one thread's report per stop and per continue (3 rounds)"
# A held stop signal is cancelled by SIGCONT, as a queued one is.
expect_ut "hold" 0 sigret 2 $SIGRET_HOLD
kill -TSTP "$PID"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = I ]'
n=$(nreports 2 SIGNAL_STOP)
kill -CONT "$PID"
expect_ut "deliver from now on" 0 sigret 2 $SIGRET_DELIVER
expect_ut "resume" 0 control 2 $ACT_RESUME
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = S ]'
sleep 0.3
expect_eq "the cancelled SIGTSTP is not reported again" "$(nreports 2 SIGNAL_STOP)" "$n"
expect_eq "nor delivered" "$(state_of "$PID")" S
echo "ok: SIGCONT cancelled a held SIGTSTP"
kill -KILL "$PID"
wait "$PID" 2>/dev/null

# --- HOLD: the task stops, the signal is reported again after RESUME
handlers t49d
expect_ut "attach" 0 attach 3 "$PID" $A_CREATE
expect_ut "SIGNAL" 0 events 3 $EV_SIGNAL
expect_ut "hold" 0 sigret 3 $SIGRET_HOLD
kill -USR1 "$PID"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = I ]'
sleep 0.3
expect_eq "held: one report" "$(nreports 3 SIGNAL)" 1
expect_eq "held: the handler has not run" "$(grep -c usr1 "$OUT")" 0
expect_ut "deliver from now on" 0 sigret 3 $SIGRET_DELIVER
expect_ut "resume" 0 control 3 $ACT_RESUME
wait_until 10 "grep -q usr1 $OUT"
expect_eq "reported again after RESUME, then the handler frame" \
	"$(utlog | awk '$2 == 3 && $3 == "SIGNAL" { print $5, $6 }' | tr '\n' ' ')" \
	"sig=10 class=0x0 sig=10 class=0x0 sig=10 class=0x70 "
echo "ok: HOLD kept SIGUSR1 through the stop and reported it again"

# --- rewriting: si_signo and si_errno, and the disposition (return_ka)
expect_ut "rewrite to SIGUSR2" 0 sigrewrite 3 12
kill -USR1 "$PID"
wait_until 10 "grep -q usr2 $OUT"
expect_eq "the handler got the rewritten siginfo" "$(grep usr2 "$OUT")" "usr2 errno=77"
expect_eq "no second SIGUSR1" "$(grep -c usr1 "$OUT")" 1
expect_ut "no rewrite" 0 sigrewrite 3 -1
expect_ut "default disposition for this delivery" 0 sigka 3 1
kill -USR1 "$PID"
wait "$PID"
expect_eq "return_ka SIG_DFL: died of SIGUSR1" "$?" $((128 + 10))
echo "ok: info and return_ka rewritten"

# --- SIGKILL ends a hold; it is never reported
handlers t49e
expect_ut "attach" 0 attach 4 "$PID" $A_CREATE
expect_ut "all signals" 0 events 4 $((EV_SIGNAL | EV_SIGNAL_IGN | EV_SIGNAL_STOP | EV_SIGNAL_TERM | EV_SIGNAL_CORE))
expect_ut "hold" 0 sigret 4 $SIGRET_HOLD
kill -USR1 "$PID"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = I ]'
kill -KILL "$PID"
wait "$PID"
expect_eq "SIGKILL killed the held task" "$?" $((128 + 9))
expect_eq "SIGKILL not reported" "$(utlog | awk '$2 == 4 && $5 == "sig=9"' | wc -l)" 0
echo "ok: SIGKILL's primacy"

# --- SIGNAL_CORE: a fault's siginfo (si_code SEGV_MAPERR, si_addr)
rm -f /tmp/t49f.go
mkfifo /tmp/t49f.go
sigmodel fault /tmp/t49f.go &
PID=$!
expect_ut "attach" 0 attach 5 "$PID" $A_CREATE
expect_ut "SIGNAL_CORE" 0 events 5 $EV_SIGNAL_CORE
expect_ut "ignore it" 0 sigret 5 $SIGRET_IGN
echo go >/tmp/t49f.go
wait_until 10 "[ \$(nreports 5 SIGNAL_CORE) -ge 1 ]"
expect_eq "fault report" "$(last 5 SIGNAL_CORE | cut -d' ' -f1-4)" "sig=11 class=0x30 code=1 addr=0x1234"
expect_ut "deliver" 0 sigret 5 $SIGRET_DELIVER
wait "$PID"
expect_eq "then delivered: died of SIGSEGV" "$(($? & 127))" 11
echo "ok: SIGSEGV reported with its fault address; ignoring it re-faults"

# --- a ptraced task: its debugger owns its signals
rm -f /tmp/t49g.out
ptracer life "$(command -v sigmodel)" handlers /tmp/t49g.out &
tracer=$!
wait_until 5 "grep -q ready /tmp/t49g.out"
PID=$(for p in /proc/[0-9]*; do
	[ "$(cut -d' ' -f4 "$p"/stat 2>/dev/null)" = "$tracer" ] && echo "${p#/proc/}"
done | head -n 1)
expect_ut "attach" 0 attach 6 "$PID" $A_CREATE
expect_ut "all signals" 0 events 6 $((EV_SIGNAL | EV_SIGNAL_IGN | EV_SIGNAL_STOP | EV_SIGNAL_TERM | EV_SIGNAL_CORE))
expect_ut "ignore" 0 sigret 6 $SIGRET_IGN
kill -USR1 "$PID"
wait_until 10 "grep -q usr1 /tmp/t49g.out"
expect_eq "not reported" "$(utlog | awk '$2 == 6 && $3 ~ /^SIGNAL/' | wc -l)" 0
echo "ok: a ptraced task's SIGUSR1 went to its debugger and its handler, not to the engine"
kill -KILL "$PID"
# ptracer exits with its tracee's status.
wait $tracer
expect_eq "the traced task died of SIGKILL" "$?" $((128 + 9))
