# SPDX-License-Identifier: GPL-2.0
# Held signals keep the kernel's semantics: what a program observes with an
# engine that holds a signal and then lets it go is what it observes with
# no engine. A process-wide signal is held once per process (a second one
# sent meanwhile merges, as the kernel merges it: one delivery, with the
# first sender's siginfo); SIGCONT cancels only the stop signals sent before
# it; each realtime instance is reported and decided once; a held
# process-wide signal outlives the thread that held it (an exec in another
# thread kills that thread).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

nreports() { utlog | awk -v s="$1" -v e="$2" '$2 == s && $3 == e' | wc -l; }
# reports SLOT EVENT: "sig=N pid=P" of each of SLOT's EVENT reports, one a line.
reports() { utlog | awk -v s="$1" -v e="$2" '$2 == s && $3 == e { print $5, $9 }'; }

# threads NAME: a `sigheld threads` process; sets PID (thread L), TID_B and OUT.
threads() {
	OUT=/tmp/$1.out
	rm -f "$OUT"
	sigheld threads "$OUT" &
	PID=$!
	wait_until 5 "grep -q ready $OUT"
	TID_B=$(awk '/^ready/ { print $3 }' "$OUT")
}

# --- 1. A process-wide signal held by thread L, sent again through thread B
# (whose engine also wants it) while L holds it: delivered once, with the
# first sender's siginfo, as the kernel merges a pending signal.
threads t48h1
expect_ut "attach L" 0 attach 0 "$PID" $A_CREATE
expect_ut "L: SIGNAL" 0 events 0 $EV_SIGNAL
# L stops holding a SIGUSR2 (HOLD), and then holds what comes meanwhile.
expect_ut "hold" 0 sigret 0 $SIGRET_HOLD
kill -USR2 "$PID"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $PID)" = I ]'
expect_ut "deliver from now on" 0 sigret 0 $SIGRET_DELIVER
expect_ut "attach B" 0 attach 1 "$TID_B" $A_CREATE
expect_ut "B: SIGNAL" 0 events 1 $EV_SIGNAL
kill -USR1 "$PID"
sleep 0.2
kill -USR1 "$TID_B"
sleep 0.3
expect_ut "resume L" 0 control 0 $ACT_RESUME
wait_until 10 "grep -q '^sig=10' $OUT"
sleep 0.5
expect_eq "one delivery, the first sender's" "$(grep '^sig=10' "$OUT")" \
	"sig=10 pid=$$ uid=0 code=0 value=0"
expect_eq "L's engine was told who sent it" "$(reports 0 SIGNAL | grep -m 1 sig=10)" "sig=10 pid=$$"
expect_eq "no report names pid 0" "$(utlog | awk '$3 == "SIGNAL" && $9 == "pid=0"' | wc -l)" 0
kill -KILL "$PID"
wait "$PID" 2>/dev/null
utctl cleanup >/dev/null
echo "ok: a process-wide signal held in one thread and sent again is delivered once"

# --- 2. kill -STOP (-TSTP), kill -CONT, kill -STOP (-TSTP) while the first
# is held (HOLD): SIGCONT cancels the first only, and the process ends as it
# does with no engine (the kernel is the oracle: SIGTSTP is discarded in an
# orphaned process group, as the guest's may be).
# stop_cont_stop SIG SLOT: the sequence on a new `sigmodel handlers`
# process, with engine SLOT holding stop signals if SLOT is not "-"; prints
# the process's state 0.5 s after the last step.
stop_cont_stop() {
	local out=/tmp/t48h2.out pid
	rm -f $out
	sigmodel handlers $out &
	pid=$!
	wait_until 5 "grep -q ready $out"
	if [ "$2" != - ]; then
		expect_ut "attach" 0 attach "$2" "$pid" $A_CREATE >&2
		expect_ut "SIGNAL_STOP" 0 events "$2" $EV_SIGNAL_STOP >&2
		expect_ut "hold" 0 sigret "$2" $SIGRET_HOLD >&2
	fi
	kill -"$1" "$pid"
	if [ "$2" != - ]; then
		# shellcheck disable=SC2016 # wait_until evaluates it
		wait_until 10 '[ "$(state_of $pid)" = I ]'
	else
		sleep 0.3
	fi
	kill -CONT "$pid"
	kill -"$1" "$pid"
	sleep 0.3
	if [ "$2" != - ]; then
		expect_ut "deliver from now on" 0 sigret "$2" $SIGRET_DELIVER >&2
		expect_ut "resume" 0 control "$2" $ACT_RESUME >&2
	fi
	sleep 0.5
	state_of "$pid"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
}
for sig in STOP TSTP; do
	want=$(stop_cont_stop $sig -)
	expect_eq "$sig, CONT, $sig held then delivered: the state without an engine" \
		"$(stop_cont_stop $sig 2)" "$want"
	utctl cleanup >/dev/null
done
echo "ok: a stop signal sent after SIGCONT is not cancelled with the one held before it"

# The same with a JCTL engine, which hides a stop signal only until its
# report is made: STOP, STOP again while stopped (hidden, its report waits
# for the stop to end), CONT, STOP.
# stop_stop_cont_stop SLOT: as stop_cont_stop, with a JCTL engine SLOT if
# SLOT is not "-".
stop_stop_cont_stop() {
	local out=/tmp/t48h2j.out pid
	rm -f $out
	sigmodel handlers $out &
	pid=$!
	wait_until 5 "grep -q ready $out"
	if [ "$1" != - ]; then
		expect_ut "attach" 0 attach "$1" "$pid" $A_CREATE >&2
		expect_ut "JCTL" 0 events "$1" $EV_JCTL >&2
	fi
	kill -STOP "$pid"
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(state_of $pid)" = T ]'
	kill -STOP "$pid"
	sleep 0.3
	kill -CONT "$pid"
	kill -STOP "$pid"
	sleep 0.8
	state_of "$pid"
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null
}
want=$(stop_stop_cont_stop -)
expect_eq "STOP, STOP, CONT, STOP under a JCTL engine: the state without an engine" \
	"$(stop_stop_cont_stop 5)" "$want"
utctl cleanup >/dev/null
echo "ok: under a JCTL engine, the stop signal sent after SIGCONT stops the process"

# --- 3. Realtime signals under HOLD: each queued instance is reported and
# decided once (three sent while the first is held: three reports after
# RESUME, three handler runs; ignored: three reports, no handler run).
threads t48h3
expect_ut "attach" 0 attach 4 "$PID" $A_CREATE
expect_ut "SIGNAL" 0 events 4 $EV_SIGNAL
for decision in DELIVER IGN; do
	before=$(grep -c '^sig=34' "$OUT")
	reported=$(utlog | awk '$2 == 4 && $3 == "SIGNAL" && $5 == "sig=34" && $6 == "class=0x0"' | wc -l)
	expect_ut "hold" 0 sigret 4 $SIGRET_HOLD
	kill -34 "$PID"
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(state_of $PID)" = I ]'
	kill -34 "$PID"
	kill -34 "$PID"
	sleep 0.3
	if [ $decision = DELIVER ]; then
		expect_ut "deliver" 0 sigret 4 $SIGRET_DELIVER
		runs=3
	else
		expect_ut "ignore" 0 sigret 4 $SIGRET_IGN
		runs=0
	fi
	expect_ut "resume" 0 control 4 $ACT_RESUME
	wait_until 10 "[ \$(utlog | awk '\$2 == 4 && \$3 == \"SIGNAL\" && \$5 == \"sig=34\" && \$6 == \"class=0x0\"' | wc -l) -ge $((reported + 4)) ]"
	sleep 0.5
	expect_eq "$decision: one report before the stop, then one per instance" \
		"$(utlog | awk '$2 == 4 && $3 == "SIGNAL" && $5 == "sig=34" && $6 == "class=0x0"' | wc -l)" $((reported + 4))
	expect_eq "$decision: handler runs" "$(grep -c '^sig=34' "$OUT")" $((before + runs))
done
kill -KILL "$PID"
wait "$PID" 2>/dev/null
utctl cleanup >/dev/null
echo "ok: each realtime instance is reported and decided once"

# --- 4. A process-wide signal held by one thread while another execs (which
# kills the holder): the new image gets it once it unblocks it. The holder
# holds it pushed back (HOLD) in its stop, or waiting for its report in a
# stop taken before it came (an INTERRUPT answered with STOP). exec: thread
# L holds, a second thread E execs; lexec: a second thread B holds, L execs.
for mode in exec lexec; do
	for how in hold stopped; do
		OUT=/tmp/t48h4.out
		rm -f "$OUT" /tmp/t48h4.go
		mkfifo /tmp/t48h4.go
		sigheld $mode "$OUT" /tmp/t48h4.go &
		PID=$!
		wait_until 5 "grep -q ready $OUT"
		HOLDER=$PID
		[ $mode = exec ] || HOLDER=$(awk '/^ready/ { print $3 }' "$OUT")
		expect_ut "attach the holder" 0 attach 3 "$HOLDER" $A_CREATE
		expect_ut "SIGNAL|QUIESCE" 0 events 3 $((EV_SIGNAL | EV_QUIESCE))
		if [ $how = hold ]; then
			expect_ut "hold" 0 sigret 3 $SIGRET_HOLD
			kill -USR1 "$HOLDER"
		else
			expect_ut "stop at the INTERRUPT report" 0 sigret 3 $ACT_STOP
			expect_ut "interrupt" 0 control 3 $ACT_INTERRUPT
		fi
		# shellcheck disable=SC2016 # wait_until evaluates it
		wait_until 10 '[ "$(state_of $HOLDER)" = I ]'
		if [ $how = stopped ]; then
			kill -USR1 "$HOLDER"
			sleep 0.3
		fi
		echo go >/tmp/t48h4.go
		wait "$PID"
		expect_eq "$mode $how: the new image exits 0" "$?" 0
		expect_eq "$mode $how: the new image got the held signal" "$(grep '^got=' "$OUT")" "got=1"
		utctl cleanup >/dev/null
	done
done
echo "ok: a held process-wide signal survives an exec in another thread"

# --- 5. Engines that stop every thread at its JCTL report (made before the
# stop signal is dequeued, so each thread stops with SIGSTOP still pending
# and no thread left to take it): the process stops all the same, the
# utrace-stopped threads counting as stopped, and its parent's waitpid()
# sees it; RESUME and SIGCONT then let it run. Once with the signal reported
# to SIGNAL_STOP engines first, once for JCTL alone.
for extra in $EV_SIGNAL_STOP 0; do
	rm -f /tmp/t48h5.tids /tmp/t48h5.wait
	jobctl /tmp/t48h5.tids >/tmp/t48h5.wait &
	JOBCTL=$!
	wait_until 10 "[ -s /tmp/t48h5.tids ]"
	read -r jp jt1 jt2 </tmp/t48h5.tids
	s=4
	for t in "$jp" "$jt1" "$jt2"; do
		expect_ut "attach $t" 0 attach $s "$t" $A_CREATE
		expect_ut "JCTL" 0 events $s $((EV_JCTL | extra))
		expect_ut "deliver" 0 sigret $s $SIGRET_DELIVER
		expect_ut "stop at each report" 0 ret $s $ACT_STOP
		s=$((s + 1))
	done
	kill -STOP "$jp"
	wait_until 10 "grep -q '^stopped 19' /tmp/t48h5.wait"
	for s in 4 5 6; do
		expect_ut "resume" 0 ret $s $ACT_RESUME
		expect_ut "resume" 0 control $s $ACT_RESUME
	done
	kill -CONT "$jp"
	wait_until 10 "grep -q '^continued' /tmp/t48h5.wait"
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(state_of $jp)" = R ] || [ "$(state_of $jp)" = S ]'
	kill -KILL "$jp"
	wait "$JOBCTL"
	utctl cleanup >/dev/null
done
echo "ok: threads stopped at their JCTL reports still make the group stop"
