# SPDX-License-Identifier: GPL-2.0
# The kernel as the oracle for signals: sigdiff runs a seeded random
# schedule of signals against a 4-thread target (standard and realtime, to
# the process and to threads, from kill, tgkill, sigqueue, POSIX timers and
# a child's exit, SIGSTOP/SIGTSTP/SIGCONT with signals sent while stopped,
# threads exiting, a thread exec'ing at the end) and prints what the
# target's handlers and its parent's waitpid() saw. Each seed runs twice
# with no engine (the two must be equal: the schedule is deterministic),
# then once under each transparent engine set-up, which must print the same:
#   deliver  every thread: all signal events, report_signal answers DELIVER
#            (with UTRACE_DIFF_REPORTS=1, also: each handler run was reported
#            once)
#   hold     the same answering HOLD; whenever a thread is held, the answer
#            becomes DELIVER and the threads are RESUMEd (each held signal
#            reported again), and 20 ms later HOLD again
#   jctl     every thread: JCTL and SIGNAL_STOP (DELIVER)
#   stop     every thread: QUIESCE (callbacks return STOP) and all signal
#            events (DELIVER); every 50 ms the threads are STOPped, then
#            RESUMEd
#
# Environment (make check passes them from the host's):
#   UTRACE_DIFF_SEEDS     how many seeds (default 2), from UTRACE_DIFF_SEED (default 1);
#                         no seed is begun after UTRACE_DIFF_BUDGET seconds
#                         (default 200: the runner stops a test at 300 s)
#   UTRACE_DIFF_FEATURES  sigdiff's step kinds: sets, comma-separated, run
#                         one after the other, each KINDS or KINDS/MODE+MODE...
#                         (only under those modes); default: the ones that
#                         pass today, DIFF_SIG_OK below; "all" for every kind;
#                         "known" for each known-failing one on its own
#   UTRACE_DIFF_MODES     the engine set-ups, comma-separated (default all four)
#   UTRACE_DIFF_STEPS     steps a seed (default 24)
#   UTRACE_DIFF_REPORTS   1: the deliver engines' SIGNAL reports are counted
#                         too (each handler run reported once)
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh

# Step kinds (progs/sigdiff.c): k kill, t tgkill, r sigqueue (realtime, 1-3
# at once), R rt_tgsigqueueinfo, m POSIX timers, c a child's exit, j stops
# with signals sent while stopped, b one standard signal kill()ed to two
# threads at once, B SIGTSTP SIGCONT SIGTSTP at once, x threads exiting,
# e an exec at the end; J stops with SIGTSTP (and SIGTSTP or SIGSTOP
# while stopped).
# None is known to fail today ("known" runs none). b, B and J used to fail
# under the deliver, hold and stop modes (issue 29 items 1 and 2); B, J and
# j under the jctl ones whenever the stop mode ran before them in the same
# guest (its STOP answer stayed in the slots: every thread stopped at its
# JCTL report, before the stop signal was dequeued, and no group stop
# began; 48-signal-held's section 5 tests that on its own).
DIFF_SIG_ALL=ktrRmcjJbBxe
DIFF_SIG_OK=$DIFF_SIG_ALL
DIFF_SIG_KNOWN=
seeds=${UTRACE_DIFF_SEEDS:-2}
first=${UTRACE_DIFF_SEED:-1}
budget=$(($(date +%s) + ${UTRACE_DIFF_BUDGET:-200}))
ran=0
sets=$(echo "${UTRACE_DIFF_FEATURES:-$DIFF_SIG_OK}" |
	sed -e "s|known|$DIFF_SIG_KNOWN|" -e "s|all|$DIFF_SIG_ALL|" | tr ',' ' ')
# (UTRACE_DIFF_MODES may name the syscall test's modes too: only ours count.)
modes=''
for m in $(echo "${UTRACE_DIFF_MODES:-deliver,hold,jctl,stop}" | tr ',' ' '); do
	case "$m" in
	deliver | hold | jctl | stop) modes="$modes $m" ;;
	esac
done
[ -n "$modes" ] || modes="deliver hold jctl stop"
steps=${UTRACE_DIFF_STEPS:-24}
ALLSIG=$((EV_SIGNAL | EV_SIGNAL_IGN | EV_SIGNAL_STOP | EV_SIGNAL_TERM | EV_SIGNAL_CORE))
echo "seeds $first..$((first + seeds - 1)), features $sets, modes$modes, $steps steps"

# set_modes SET: the modes of a feature set (KINDS/MODE+MODE: those of
# $modes it names; KINDS: all of $modes).
set_modes() {
	local m
	case "$1" in
	*/*)
		for m in $modes; do
			case "+${1#*/}+" in
			*"+$m+"*) echo "$m" ;;
			esac
		done
		;;
	*) echo "$modes" ;;
	esac
}

setup_engine

# engines MODE TIDS...: attach slots 0.. to the target's threads for MODE.
engines() {
	local mode=$1 s=0 t
	shift
	for t in "$@"; do
		[ "$(utctl attach $s "$t" $A_CREATE)" = 0 ] || fail "attach slot $s to $t"
		# Every setting a mode relies on is made here: a slot keeps what
		# the mode before set (the stop mode's STOP answer made the jctl
		# engines stop every thread at its JCTL report).
		case "$mode" in
		deliver) utctl events $s $ALLSIG && utctl sigret $s $SIGRET_DELIVER &&
			utctl ret $s $ACT_RESUME ;;
		hold) utctl events $s $ALLSIG && utctl sigret $s $SIGRET_HOLD &&
			utctl ret $s $ACT_RESUME ;;
		jctl) utctl events $s $((EV_JCTL | EV_SIGNAL_STOP)) &&
			utctl sigret $s $SIGRET_DELIVER && utctl ret $s $ACT_RESUME ;;
		stop) utctl events $s $((EV_QUIESCE | ALLSIG)) && utctl sigret $s $SIGRET_DELIVER &&
			utctl ret $s $ACT_STOP ;;
		esac >/dev/null
		s=$((s + 1))
	done
	NSLOTS=$s
}

# toggler MODE PID: while /tmp/sd.run exists (and the module is loaded):
# hold: whenever a thread of PID is held (state I), answer DELIVER and
# RESUME every thread, then HOLD again 20 ms later; stop: STOP every thread,
# 50 ms later RESUME them, and again 50 ms later. Counts in /tmp/sd.seen the
# rounds that found a thread held or stopped.
toggler() {
	local s seen=0
	while [ -e /tmp/sd.run ] && [ -d $UT ]; do
		if [ "$1" = stop ]; then
			s=0
			while [ $s -lt "$NSLOTS" ]; do
				utctl control $s $ACT_STOP
				s=$((s + 1))
			done >/dev/null
			sleep 0.05
		fi
		if ! cat /proc/"$2"/task/*/stat 2>/dev/null | grep -q ') I '; then
			[ "$1" = hold ] && sleep 0.01
			[ "$1" = hold ] && continue
		else
			seen=$((seen + 1))
		fi
		s=0
		while [ $s -lt "$NSLOTS" ]; do
			[ "$1" = hold ] && utctl sigret $s $SIGRET_DELIVER
			utctl control $s $ACT_RESUME
			s=$((s + 1))
		done >/dev/null
		[ "$1" = stop ] && sleep 0.05
		[ "$1" = stop ] && continue
		sleep 0.02
		s=0
		while [ $s -lt "$NSLOTS" ]; do
			utctl sigret $s $SIGRET_HOLD
			s=$((s + 1))
		done >/dev/null
	done
	echo "$seen" >/tmp/sd.seen
}

# run SEED MODE OUT: one sigdiff run under MODE ("none": no engine).
run() {
	local seed=$1 mode=$2 out=$3 tpid=''
	rm -f /tmp/sd.go /tmp/sd.ready /tmp/sd.run
	mkfifo /tmp/sd.go
	# (20 ms after each step: the holds and stops land on many)
	sigdiff -r /tmp/sd.ready -s 20 -n "$steps" "$seed" "$features" <>/tmp/sd.go >"$out" 2>&1 &
	pid=$!
	wait_until 10 "[ -s /tmp/sd.ready ]"
	# shellcheck disable=SC2046 # the target's pid and its threads' tids
	[ "$mode" = none ] || engines "$mode" $(cat /tmp/sd.ready)
	case "$mode" in
	hold | stop)
		: >/tmp/sd.run
		echo 0 >/tmp/sd.seen
		toggler "$mode" "$(cut -d' ' -f1 /tmp/sd.ready)" &
		tpid=$!
		;;
	esac
	echo go >/tmp/sd.go
	wait "$pid" || echo "sigdiff exited $?" >>"$out"
	rm -f /tmp/sd.run
	[ -z "$tpid" ] || wait "$tpid"
	: >/tmp/sd.handled
	: >/tmp/sd.reported
	if [ "$mode" = deliver ] && [ "${UTRACE_DIFF_REPORTS:-0}" = 1 ] &&
		[ "${features#*b}" = "$features" ]; then
		# Each handler run was reported once (class 0: a signal to
		# deliver; the HANDLER reports are class 0x70), per signal number
		# (not with b steps: their output has the distinct records only).
		awk '$3 == "sig" { n[$5]++ } END { for (s in n) print s, n[s] }' "$out" |
			sort >/tmp/sd.handled
		utlog | awk '$3 == "SIGNAL" && $6 == "class=0x0" { sub("sig=", "", $5); n[$5]++ }
			END { for (s in n) print s, n[s] }' | sort >/tmp/sd.reported
	fi
	# That the engines did act.
	case "$mode" in
	hold | stop) echo "  ($mode: $(cat /tmp/sd.seen) rounds found a thread held or stopped," \
		"$(utlog | awk '$3 == "QUIESCE"' | wc -l) QUIESCE reports)" ;;
	esac
	if [ "$mode" != none ]; then
		utctl release >/dev/null
		utctl cleanup >/dev/null
		utctl reset >/dev/null
	fi
}

failed=''
for set in $sets; do
	features=${set%%/*}
	smodes=$(set_modes "$set")
	[ -n "$smodes" ] || continue
	seed=$first
	while [ "$seed" -lt $((first + seeds)) ]; do
		if [ "$(date +%s)" -gt "$budget" ]; then
			echo "time budget spent: seeds from $seed not run for $features"
			break
		fi
		ran=$((ran + 1))
		run "$seed" none /tmp/sd.base
		run "$seed" none /tmp/sd.base2
		if ! cmp -s /tmp/sd.base /tmp/sd.base2; then
			diff /tmp/sd.base /tmp/sd.base2
			fail "seed $seed features $features: two runs without an engine differ" \
				"(sigdiff's schedule is not deterministic: a bug of the test)"
		fi
		! grep -q '^sigdiff exited' /tmp/sd.base || fail "seed $seed: $(tail -n 3 /tmp/sd.base)"
		for mode in $smodes; do
			run "$seed" "$mode" /tmp/sd.out
			if ! cmp -s /tmp/sd.handled /tmp/sd.reported; then
				echo "FAIL: seed $seed features $features: SIGNAL reports (class 0) of the deliver engines" \
					"are not one per handler run (- \"signo handler runs\", + \"signo reports\"):"
				diff /tmp/sd.handled /tmp/sd.reported | grep '^[-+][^-+]'
				failed="$failed $seed/$features/$mode-reports"
			fi
			if cmp -s /tmp/sd.base /tmp/sd.out; then
				echo "ok: seed $seed features $features $mode"
				continue
			fi
			echo "FAIL: seed $seed features $features under the $mode engines differs from no engine (- none, + $mode):"
			diff /tmp/sd.base /tmp/sd.out | grep '^[-+][^-+]' | head -n 30
			echo "replay: make check UTRACE_ONLY=signal-diff UTRACE_DIFF_SEED=$seed UTRACE_DIFF_SEEDS=1" \
				"UTRACE_DIFF_FEATURES=$features UTRACE_DIFF_MODES=$mode UTRACE_DIFF_STEPS=$steps"
			echo "  (in the guest: sigdiff -v -s 20 -n $steps $seed $features; the schedule is in its output)"
			failed="$failed $seed/$features/$mode"
		done
		seed=$((seed + 1))
	done
done
[ -z "$failed" ] || fail "seeds that differ (seed/features/mode):$failed"
echo "ok: $ran run(s) of a seed and a feature set ($sets), no engine and$modes: equal"
