# SPDX-License-Identifier: GPL-2.0
# INTERRUPT as utrace defines it: the task reports as if a signal were
# pending, on the signal path, before the kernel dequeues its signals. Each
# engine with QUIESCE events gets exactly one report_signal with
# UTRACE_SIGNAL_REPORT and no signal (report_quiesce(0) if it has no
# report_signal); an engine with only SIGNAL events gets nothing. A task
# blocked in read() or pause() is taken out of it, and the syscall restarts unless a signal is delivered: an
# engine may stop the task there, or deliver an artificial signal (then the
# syscall returns EINTR to a handler without SA_RESTART). The same through
# the safe Rust API's Engine::interrupt (utrace_api_rs).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

FIFO=/tmp/t46i.fifo OUT=/tmp/t46i.out
# sig_reports SLOT PID: "sig=N class=0xC" of SLOT's SIGNAL reports for PID.
sig_reports() { utlog | awk -v s="$1" -v p="$2" '$2 == s && $3 == "SIGNAL" && $4 == p { print $5, $6 }'; }
# slot_log SLOT PID: "EVENT detail" of every report SLOT logged for PID.
slot_log() { utlog | awk -v s="$1" -v p="$2" '$2 == s && $4 == p { print $3, $5 }'; }

# start MODE: `interrupted MODE` reading from the fifo; PID is its pid.
start() {
	rm -f $FIFO $OUT
	mkfifo $FIFO
	sh -c "exec interrupted $1 0<>$FIFO >$OUT" &
	PID=$!
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 5 '[ "$(state_of $PID)" = S ] && grep -q "^interrupted" /proc/$PID/comm'
	sleep 0.2
}

# --- read(): one report per engine as utrace makes it; read() restarts
start read
expect_ut "attach A (report_signal and report_quiesce)" 0 attach 0 $PID $A_CREATE
expect_ut "A: QUIESCE" 0 events 0 $EV_QUIESCE
expect_ut "attach B" 0 attach 1 $PID $A_CREATE
expect_ut "B: SIGNAL only" 0 events 1 $EV_SIGNAL
expect_ut "attach C (report_quiesce only)" 0 attach 2 $PID $A_CREATE q
expect_ut "C: QUIESCE" 0 events 2 $EV_QUIESCE
expect_ut "INTERRUPT" 0 control 0 $ACT_INTERRUPT
wait_until 10 "[ -n \"\$(sig_reports 0 $PID)\" ] && [ -n \"\$(slot_log 2 $PID)\" ]"
sleep 0.5
expect_eq "A: one report_signal(UTRACE_SIGNAL_REPORT = 0x60), no signal, nothing else" \
	"$(slot_log 0 $PID)" "SIGNAL sig=0"
expect_eq "A: its class" "$(sig_reports 0 $PID)" "sig=0 class=0x60"
expect_eq "B: nothing" "$(slot_log 1 $PID)" ""
expect_eq "C: one report_quiesce(0)" "$(slot_log 2 $PID)" "QUIESCE event=0x0"
expect_eq "back in read()" "$(state_of $PID)" S
echo hello >$FIFO
wait $PID
expect_eq "read() restarted: it returned the data" "$(cat $OUT)" "read=6 errno=0 handled=0"
utctl cleanup >/dev/null
utctl reset >/dev/null

# --- a report_signal that returns STOP stops the task out of read()
start read
expect_ut "attach" 0 attach 3 $PID $A_CREATE
expect_ut "QUIESCE" 0 events 3 $EV_QUIESCE
expect_ut "report_signal returns STOP" 0 sigret 3 $ACT_STOP
expect_ut "INTERRUPT" 0 control 3 $ACT_INTERRUPT
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = I ]'
expect_eq "one report" "$(slot_log 3 $PID)" "SIGNAL sig=0"
expect_ut "report_signal returns RESUME" 0 sigret 3 $ACT_RESUME
expect_ut "RESUME" 0 control 3 $ACT_RESUME
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = S ]'
echo hello >$FIFO
wait $PID
expect_eq "read() restarted after the stop" "$(cat $OUT)" "read=6 errno=0 handled=0"
expect_eq "still one report" "$(slot_log 3 $PID)" "SIGNAL sig=0"
utctl cleanup >/dev/null
utctl reset >/dev/null

# --- an artificial signal: pause() returns EINTR to the handler's caller
start pause
expect_ut "attach A" 0 attach 4 $PID $A_CREATE
expect_ut "A: QUIESCE" 0 events 4 $EV_QUIESCE
expect_ut "attach B" 0 attach 5 $PID $A_CREATE
expect_ut "B: SIGNAL only" 0 events 5 $EV_SIGNAL
expect_ut "A's report_signal puts SIGUSR1 in the siginfo" 0 sigrewrite 4 10
expect_ut "A's report_signal returns DELIVER|RESUME" 0 sigret 4 $ACT_RESUME
expect_ut "INTERRUPT" 0 control 4 $ACT_INTERRUPT
wait $PID
expect_eq "pause() returned EINTR after the handler" "$(cat $OUT)" "pause=-1 errno=4 handled=1"
expect_eq "A: one report" "$(slot_log 4 $PID)" "SIGNAL sig=0"
expect_eq "B: nothing (an artificial signal is reported to no engine)" "$(slot_log 5 $PID)" ""
utctl cleanup >/dev/null
utctl reset >/dev/null

# --- the safe Rust API (utrace_api_rs interrupt=1: Control::Interrupt at
# load): Engine::interrupt gets SignalClass::Report with no signal and
# delivers an artificial SIGUSR1, which the task's handler catches
rm -f /tmp/t46i.sig
sigcatch /tmp/t46i.sig &
tpid=$!
wait_until 5 "[ -e /tmp/t46i.sig ]"
sleep 0.2
mark
load utrace_api_rs pid=$tpid interrupt=1
! dmesg_has "check .* FAILED" || fail "utrace_api_rs: $(dmesg_since_mark | grep FAILED)"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(grep -c caught /tmp/t46i.sig)" = 1 ]'
sleep 0.3
expect_eq "one SIGUSR1 handler ran" "$(grep -c caught /tmp/t46i.sig)" 1
unload utrace_api_rs
read_counters 'utrace_api_rs: entries='
expect_eq "Engine::interrupt calls" "$(counter_value interrupts)" 1
expect_eq "... with class Report, signo 0, no sender" "$(counter_value interrupts_empty)" 1
expect_eq "no quiesce(NONE) in its place" "$(counter_value quiesce_stopped)" 0
expect_eq "the artificial SIGUSR1 went to no signal callback" "$(counter_value delivered)/$(counter_value ignored)/$(counter_value handler)" 0/0/0
kill $tpid
wait $tpid 2>/dev/null || true
