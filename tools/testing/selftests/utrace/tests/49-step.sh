# SPDX-License-Identifier: GPL-2.0
# UTRACE_SINGLESTEP and UTRACE_BLOCKSTEP: the stepper program runs a known
# instruction sequence between two getppid() markers; utrace_test.ko's
# SYSCALL_EXIT callback of the first marker returns SINGLESTEP (or
# BLOCKSTEP), its report_signal consumes each step's SIGTRAP (returning the
# step again with UTRACE_SIGNAL_IGN) and the SYSCALL_ENTRY of the second
# marker ends the count: exactly the instructions between them (12), or the
# taken branches (2) for block steps. The syscall-exit trap of the second
# marker is consumed too, stepping ends, and the program runs to its end.
# Block steps need the CPU's DEBUGCTL.BTF: where the CPU has none (QEMU's
# TCG drops the bit), UTRACE_BLOCKSTEP is -EOPNOTSUPP and a block step
# returned by a callback single-steps (utrace: BLOCKSTEP devolves to
# SINGLESTEP).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

# start_stepper MODE: stepper MODE in the background (pid in $pid), waiting
# for its go on the FIFO /tmp/t49.go.
start_stepper() {
	rm -f /tmp/t49.go
	mkfifo /tmp/t49.go
	stepper "$1" </tmp/t49.go >/tmp/t49.out &
	pid=$!
}

# rust_steps: the steps utrace_api_rs counted, from its line at unload
# (since the last mark).
rust_steps() {
	dmesg_since_mark | grep 'utrace_api_rs: entries=' | tail -n 1 | sed -n 's/.* steps=\([0-9]*\).*/\1/p'
}

# unloaded WHAT MIN: once utrace_api_rs was unloaded WHAT, stepper ($pid)
# exits 0 having printed "done" (no trap reached it), and the module had
# stepped it more than MIN times.
unloaded() {
	wait $pid
	expect_eq "unloaded $1: exit status" "$?" 0
	expect_eq "unloaded $1: output" "$(cat /tmp/t49.out)" "done"
	steps=$(rust_steps)
	echo "unloaded $1 after $steps single steps"
	[ "${steps:-0}" -gt "$2" ] || fail "unloaded $1 after ${steps:-no} steps: not while stepped"
}

step_run() { # MODE-NAME MODE
	utctl reset >/dev/null
	start_stepper "$1"
	expect_ut "attach" 0 attach 0 $pid $A_CREATE
	expect_ut "QUIESCE|SYSCALL|SIGNAL_CORE (the traps)" 0 events 0 \
		$((EV_QUIESCE | EV_SYSCALL_ENTRY | EV_SYSCALL_EXIT | EV_SIGNAL_CORE))
	expect_ut "step mode $2" 0 step 0 "$2"
	echo go >/tmp/t49.go
	wait $pid
	expect_eq "$1: exit status (no trap killed it)" "$?" 0
	expect_eq "$1: output" "$(cat /tmp/t49.out)" "done"
	steps=$(utlog | awk '$2 == 0 && $3 == "STEPS" { print $4 }')
	echo "$1: steps before the end marker: $steps; stats: $(grep slot0 $UT/stats | tr '\n' ' ')"
	expect_eq "$1: the end marker's syscall-exit trap, consumed" "$(stat_of slot0.late_traps)" 1
	utctl cleanup >/dev/null
}

step_run single $ACT_SINGLESTEP
expect_eq "single steps: 10 nops and 2 movs" "$steps" 12

# Is there a block step? Ask with an engine on a stopped task: without
# QUIESCE it is -EINVAL first; where the CPU has none it is -EOPNOTSUPP and
# changes nothing (the engine's stop holds: no report, no instruction).
sh -c 'while :; do :; done' &
busy=$!
expect_ut "attach" 0 attach 1 $busy $A_CREATE
expect_ut "BLOCKSTEP without QUIESCE" $EINVAL control 1 $ACT_BLOCKSTEP
expect_ut "QUIESCE" 0 events 1 $EV_QUIESCE
expect_ut "callbacks return STOP" 0 ret 1 $ACT_STOP
expect_ut "STOP" $EINPROGRESS control 1 $ACT_STOP
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(state_of $busy)" = I ]'
cpu0=$(cpu_of $busy)
block=$(utctl control 1 $ACT_BLOCKSTEP)
if [ "$block" = "$EOPNOTSUPP" ]; then
	echo "this CPU has no block step (DEBUGCTL.BTF): UTRACE_BLOCKSTEP is -EOPNOTSUPP"
	sleep 0.5
	expect_eq "-EOPNOTSUPP: still stopped" "$(state_of $busy)" I
	expect_eq "-EOPNOTSUPP: no report after the STOP's" "$(log_events 1 QUIESCE | grep -c "^$busy\$")" 1
	expect_eq "-EOPNOTSUPP: no CPU time" "$(cpu_of $busy)" "$cpu0"
	expect_ut "callbacks return RESUME" 0 ret 1 $ACT_RESUME
	expect_ut "RESUME" 0 control 1 $ACT_RESUME
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(state_of $busy)" = R ]'
fi
kill -KILL $busy
wait $busy 2>/dev/null
utctl cleanup >/dev/null
utctl reset >/dev/null
step_run block $ACT_BLOCKSTEP
case $block in
0) expect_eq "block steps: 2 taken branches" "$steps" 2 ;;
"$EOPNOTSUPP") expect_eq "block steps devolve to single steps: 13 instructions" "$steps" 13 ;;
*) fail "control(BLOCKSTEP) returned $block" ;;
esac

# --- the stepping engine detaches at its 5th trap: stepping ends with it
# (an unconsumed trap would kill the program with SIGTRAP's core dump)
utctl reset >/dev/null
start_stepper single
expect_ut "attach" 0 attach 0 $pid $A_CREATE
expect_ut "QUIESCE|SYSCALL|SIGNAL_CORE (the traps)" 0 events 0 \
	$((EV_QUIESCE | EV_SYSCALL_ENTRY | EV_SYSCALL_EXIT | EV_SIGNAL_CORE))
expect_ut "single steps" 0 step 0 $ACT_SINGLESTEP
expect_ut "detach at the 5th trap" 0 stepdetach 0 5
echo go >/tmp/t49.go
wait $pid
expect_eq "detached while stepping: exit status" "$?" 0
expect_eq "detached while stepping: output" "$(cat /tmp/t49.out)" "done"
expect_eq "traps seen" "$(utlog | awk '$2 == 0 && $3 == "STEP_DETACH" { print $4 }')" 5
utctl cleanup >/dev/null

# --- the safe Rust API: Action::SingleStep from a syscall callback, then
# Control::SingleStep from each trap's signal callback (utrace_api_rs step=1)
start_stepper single
mark
load utrace_api_rs pid=$pid step=1
echo go >/tmp/t49.go
wait $pid
expect_eq "Rust: exit status" "$?" 0
expect_eq "Rust: output" "$(cat /tmp/t49.out)" "done"
unload utrace_api_rs
line=$(dmesg_since_mark | grep 'utrace_api_rs: entries=' | tail -n 1)
echo "$line"
expect_eq "Rust: single steps between the markers" \
	"$(echo "$line" | sed -n 's/.* steps=\([0-9]*\).*/\1/p')" 12
expect_eq "Rust: the end marker's syscall-exit trap, consumed" \
	"$(echo "$line" | sed -n 's/.* late_traps=\([0-9]*\).*/\1/p')" 1

# --- the stepping engine's module unloads mid-step (its engines released,
# not detached by a callback): stepping ends with it, the program runs on
# to its end (an unconsumed trap would kill it with SIGTRAP's core dump).
# Five rounds, each unloading at another moment: a trap that came just
# before the release killed the program in about one round in six.
for round in 1 2 3 4 5; do
	start_stepper long
	mark
	load utrace_api_rs pid=$pid step=1
	echo go >/tmp/t49.go
	# Stepping 20 million instructions takes far longer than this.
	sleep 0.$((round + 2))
	unload utrace_api_rs
	unloaded "mid-step (round $round)" 100
done

# --- the same while the stepped task sleeps in a read(): the read's
# syscall-exit trap (TRAP_BRKPT) must not reach the program either
start_stepper read
exec 3>/tmp/t49.go
mark
load utrace_api_rs pid=$pid step=1
printf g >&3
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 60 '[ "$(cut -d" " -f1,4 /proc/$pid/syscall 2>/dev/null)" = "0 0x2" ]'
unload utrace_api_rs
printf gg >&3
exec 3>&-
# (Its steps: the C library's way into read().)
unloaded "in a stepped read" 0
