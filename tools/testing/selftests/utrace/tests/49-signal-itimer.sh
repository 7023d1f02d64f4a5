# SPDX-License-Identifier: GPL-2.0
# A traced task with an itimer storm: ITIMER_REAL's SIGALRM is sent from a
# hardirq (the hrtimer), so utrace-rs's signal probe runs in interrupt
# context there, where it must not take the per-task lock it takes with
# interrupts on elsewhere (make check-debug: lockdep reported an inconsistent
# lock state before it deferred that to a worker). Every SIGALRM and SIGPROF
# the program handled was reported first (SIGNAL, its handler runs), and
# each handler frame was reported after (HANDLER): the counts are equal.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

rm -f /tmp/t49i.go /tmp/t49i.out
mkfifo /tmp/t49i.go
sigmodel itimer 100 /tmp/t49i.go >/tmp/t49i.out &
pid=$!
expect_ut "attach" 0 attach 0 $pid $A_CREATE
expect_ut "SIGNAL" 0 events 0 $EV_SIGNAL
echo go >/tmp/t49i.go
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 20 ]; do sleep 1; i=$((i + 1)); done
if kill -0 $pid 2>/dev/null; then
	grep -E 'State|Sig|ShdPnd' /proc/$pid/status
	cat /proc/$pid/stack 2>/dev/null
	utlog | tail -n 10
fi
wait $pid
expect_eq "exit status" "$?" 0
out=$(cat /tmp/t49i.out)
echo "   $out"
alrm=$(echo "$out" | sed -n 's/.*alrm=\([0-9]*\).*/\1/p')
prof=$(echo "$out" | sed -n 's/.*prof=\([0-9]*\).*/\1/p')
[ "$alrm" -ge 100 ] || fail "only $alrm SIGALRMs handled"
reports() { utlog | awk -v w="sig=$1" -v c="class=$2" '$2 == 0 && $3 == "SIGNAL" && $5 == w && $6 == c' | wc -l; }
expect_eq "SIGALRM reports" "$(reports 14 0x0)" "$alrm"
expect_eq "SIGPROF reports" "$(reports 27 0x0)" "$prof"
expect_eq "SIGALRM handler frames reported" "$(reports 14 0x70)" "$alrm"
expect_eq "SIGPROF handler frames reported" "$(reports 27 0x70)" "$prof"
echo "ok: $alrm SIGALRM and $prof SIGPROF from the timers, each reported before and after delivery"
