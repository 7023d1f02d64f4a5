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

step_run() { # MODE-NAME MODE
	utctl reset >/dev/null
	rm -f /tmp/t49.go
	mkfifo /tmp/t49.go
	stepper "$1" </tmp/t49.go >/tmp/t49.out &
	pid=$!
	expect_ut "attach" 0 attach 0 $pid $A_CREATE
	expect_ut "QUIESCE|SYSCALL|SIGNAL" 0 events 0 \
		$((EV_QUIESCE | EV_SYSCALL_ENTRY | EV_SYSCALL_EXIT | EV_SIGNAL))
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

# Is there a block step? Ask with an engine on a sleeping task.
sleep 10 &
sl=$!
expect_ut "attach" 0 attach 1 $sl $A_CREATE
expect_ut "QUIESCE" 0 events 1 $EV_QUIESCE
block=$(utctl control 1 $ACT_BLOCKSTEP)
utctl cleanup >/dev/null
kill $sl
step_run block $ACT_BLOCKSTEP
case $block in
0) expect_eq "block steps: 2 taken branches" "$steps" 2 ;;
"$EOPNOTSUPP")
	echo "this CPU has no block step (DEBUGCTL.BTF): UTRACE_BLOCKSTEP is -EOPNOTSUPP"
	expect_eq "block steps devolve to single steps: 13 instructions" "$steps" 13 ;;
*) fail "control(BLOCKSTEP) returned $block" ;;
esac
