# SPDX-License-Identifier: GPL-2.0
# The kernel as the oracle for syscalls: sysdiff runs a seeded random program
# of syscalls, 64-bit (`syscall`) and 32-bit (`int $0x80`), on files, fds,
# pipes and directories of its own, and prints every result and the end
# state. Each seed runs twice with no engine (the two must be equal), then
# once under each transparent engine set-up, which must print the same:
#   sys   SYSCALL_ENTRY and SYSCALL_EXIT, the callbacks return RESUME
#   stop  the same and QUIESCE (callbacks return STOP); every 20 ms the task
#         is STOPped, then RESUMEd (a syscall stopped at its entry is
#         skipped and restarted)
#   trace samples/syscall_trace on the task (pid=), which decodes every
#         syscall it makes (its own output is not compared)
#
# Environment (make check passes them from the host's):
#   UTRACE_DIFF_SEEDS  how many seeds (default 2), from UTRACE_DIFF_SEED (default 1);
#                      no seed is begun after UTRACE_DIFF_BUDGET seconds
#                      (default 200: the runner stops a test at 300 s)
#   UTRACE_DIFF_CALLS  syscalls a seed (default 200)
#   UTRACE_DIFF_MODES  the engine set-ups, comma-separated (default sys,stop,trace)
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh

seeds=${UTRACE_DIFF_SEEDS:-2}
first=${UTRACE_DIFF_SEED:-1}
budget=$(($(date +%s) + ${UTRACE_DIFF_BUDGET:-200}))
ran=0
calls=${UTRACE_DIFF_CALLS:-200}
# (UTRACE_DIFF_MODES may name the signal test's modes too: only ours count.)
modes=''
for m in $(echo "${UTRACE_DIFF_MODES:-sys,stop,trace}" | tr ',' ' '); do
	case "$m" in
	sys | stop | trace) modes="$modes $m" ;;
	esac
done
[ -n "$modes" ] || modes="sys stop trace"
echo "seeds $first..$((first + seeds - 1)), $calls calls, modes $modes"

setup_engine

# The kernel runs 32-bit syscalls (CONFIG_IA32_EMULATION, not disabled).
abis=64,32
rm -f /tmp/sysdiff.probe
sysdiff -n 1 -d /tmp/sysdiff.probe.d 1 32 >/tmp/sysdiff.probe 2>&1 ||
	skip "int \$0x80 does not work here: $(cat /tmp/sysdiff.probe)"

# toggler PID: while /tmp/syd.run exists (and the module is loaded), STOP
# and RESUME slot 0 every 10 ms; counts in /tmp/syd.seen the rounds that
# found PID stopped (state I) before the RESUME.
toggler() {
	local seen=0
	while [ -e /tmp/syd.run ] && [ -d $UT ]; do
		utctl control 0 $ACT_STOP >/dev/null
		sleep 0.01
		[ "$(state_of "$1" 2>/dev/null)" = I ] && seen=$((seen + 1))
		utctl control 0 $ACT_RESUME >/dev/null
		sleep 0.01
	done
	echo "$seen" >/tmp/syd.seen
}

# run SEED MODE OUT: one sysdiff run under MODE ("none": no engine).
run() {
	local seed=$1 mode=$2 out=$3 tpid='' pid
	rm -f /tmp/syd.go /tmp/syd.ready /tmp/syd.run
	mkfifo /tmp/syd.go
	# (1 ms between calls: the STOPs land on many of them)
	sysdiff -r /tmp/syd.ready -s 1000 -n "$calls" "$seed" $abis <>/tmp/syd.go >"$out" 2>&1 &
	pid=$!
	wait_until 10 "[ -s /tmp/syd.ready ]"
	case "$mode" in
	sys | stop)
		expect_eq "attach" "$(utctl attach 0 "$(cat /tmp/syd.ready)" $A_CREATE)" 0 >/dev/null
		if [ "$mode" = sys ]; then
			utctl events 0 $((EV_SYSCALL_ENTRY | EV_SYSCALL_EXIT)) >/dev/null
		else
			utctl ret 0 $ACT_STOP >/dev/null
			utctl events 0 $((EV_QUIESCE | EV_SYSCALL_ENTRY | EV_SYSCALL_EXIT)) >/dev/null
			: >/tmp/syd.run
			echo 0 >/tmp/syd.seen
			toggler "$(cat /tmp/syd.ready)" &
			tpid=$!
		fi
		;;
	trace) load syscall_trace pid="$(cat /tmp/syd.ready)" ;;
	esac
	echo go >/tmp/syd.go
	wait "$pid" || echo "sysdiff exited $?" >>"$out"
	rm -f /tmp/syd.run
	[ -z "$tpid" ] || wait "$tpid"
	[ "$mode" = stop ] && echo "  (stop: $(cat /tmp/syd.seen) rounds found the task stopped," \
		"$(utlog | awk '$3 == "QUIESCE"' | wc -l) QUIESCE reports)"
	if [ "$mode" = trace ]; then
		unload_settled syscall_trace || fail "rmmod syscall_trace failed"
	elif [ "$mode" != none ]; then
		utctl cleanup >/dev/null
		utctl reset >/dev/null
	fi
}

failed=''
seed=$first
while [ "$seed" -lt $((first + seeds)) ]; do
	if [ "$(date +%s)" -gt "$budget" ]; then
		echo "time budget spent: seeds from $seed not run"
		break
	fi
	ran=$((ran + 1))
	run "$seed" none /tmp/syd.base
	run "$seed" none /tmp/syd.base2
	if ! cmp -s /tmp/syd.base /tmp/syd.base2; then
		diff /tmp/syd.base /tmp/syd.base2
		fail "seed $seed: two runs without an engine differ (sysdiff is not deterministic: a bug of the test)"
	fi
	! grep -q '^sysdiff exited' /tmp/syd.base || fail "seed $seed: $(tail -n 3 /tmp/syd.base)"
	# Both ABIs ran (a kernel refusing int $0x80 would compare equal too).
	for abi in 64 32; do
		grep -Eq "^[0-9]+ $abi [a-z_0-9]+\(.*\) = [0-9]+" /tmp/syd.base ||
			fail "seed $seed: no $abi-bit syscall succeeded: $(head -n 5 /tmp/syd.base)"
	done
	for mode in $modes; do
		run "$seed" "$mode" /tmp/syd.out
		if cmp -s /tmp/syd.base /tmp/syd.out; then
			echo "ok: seed $seed $mode"
		else
			echo "FAIL: seed $seed under the $mode engine differs from no engine (- none, + $mode):"
			diff /tmp/syd.base /tmp/syd.out | grep '^[-+][^-+]' | head -n 40
			echo "replay: make check UTRACE_ONLY=syscall-diff UTRACE_DIFF_SEED=$seed UTRACE_DIFF_SEEDS=1" \
				"UTRACE_DIFF_MODES=$mode UTRACE_DIFF_CALLS=$calls"
			echo "  (in the guest: sysdiff -v -s 1000 -n $calls $seed $abis)"
			failed="$failed $seed/$mode"
		fi
	done
	seed=$((seed + 1))
done
[ -z "$failed" ] || fail "seeds that differ:$failed"
echo "ok: $ran seed(s), no engine,$modes: equal"
