# SPDX-License-Identifier: GPL-2.0
# Race stress, bounded in time (UTRACE_STRESS_SECS, default 30 s): at once
#  - a fork/exec/exit storm on every vCPU (progs/stress), a third of its
#    children SIGKILLed 0-2 ms after fork, under a global counting engine
#    whose callbacks sleep (so kills land mid-callback);
#  - the chaos loop of utrace_test.ko: random attach, set_events, STOP,
#    RESUME, INTERRUPT, REPORT, barrier and detach on random user tasks;
#  - global_trace.ko (a Rust engine module, global mode) loaded and unloaded
#    in a loop.
# Then: the counting engine's CLONE and DEATH counts equal the workload's,
# EXEC lies within its bounds, no chaos call returned an unexpected errno,
# every chaos engine was released exactly once, no user task is left stopped,
# every module unloads. (No splat: the runner; no leak: its kmemleak scan.)
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

secs=${UTRACE_STRESS_SECS:-30}
cpus=$(grep -c ^processor /proc/cpuinfo)
threads=$((cpus * 2))

rm -f /tmp/stress.stop /tmp/stress.modloop
(
	n=0 bad=0
	while [ ! -e /tmp/stress.stop ]; do
		r=$(modload $MODDIR/global_trace.ko)
		if [ "$r" = 0 ]; then
			rmmod global_trace || bad=$((bad + 1))
			n=$((n + 1))
		else
			bad=$((bad + 1))
		fi
	done
	echo "$n $bad" >/tmp/stress.modloop
) &

utctl chaos $((secs + 2)) >/tmp/stress.chaos &
chaos=$!

out=$(stress "$secs" "$threads") || fail "stress workload failed: $out"
echo "$out"
wait $chaos
expect_eq "chaos command result" "$(cat /tmp/stress.chaos)" 0
touch /tmp/stress.stop
n=300
while [ ! -s /tmp/stress.modloop ] && [ $n -gt 0 ]; do sleep 0.1; n=$((n - 1)); done
[ -s /tmp/stress.modloop ] || { dump_tasks; fail "the module load loop did not stop"; }
read -r cycles modfail </tmp/stress.modloop

clone=$(echo "$out" | sed -n 's/.*clone=\([0-9]*\).*/\1/p')
death=$(echo "$out" | sed -n 's/.*death=\([0-9]*\).*/\1/p')
emin=$(echo "$out" | sed -n 's/.*exec_min=\([0-9]*\).*/\1/p')
emax=$(echo "$out" | sed -n 's/.*exec_max=\([0-9]*\).*/\1/p')
victims=$(echo "$out" | sed -n 's/.*victims=\([0-9]*\).*/\1/p')
[ "$clone" -gt 100 ] || fail "workload too small to mean anything: $out"
expect_eq "CLONE count (forks + threads)" "$(stat_of slot15.CLONE)" "$clone"
expect_eq "DEATH count (children + threads)" "$(stat_of slot15.DEATH)" "$death"
exec=$(stat_of slot15.EXEC)
{ [ "$exec" -ge "$emin" ] && [ "$exec" -le "$emax" ]; } ||
	fail "EXEC count $exec outside [$emin, $emax]"
echo "ok: EXEC count $exec within [$emin, $emax]"
kills=$(stat_of killed_in_callback)
echo "ok: $victims victims SIGKILLed, $kills of them while in a callback"

expect_eq "chaos: unexpected results ($(stat_of chaos.last_unexpected))" \
	"$(stat_of chaos.unexpected)" 0
attaches=$(stat_of chaos.attach)
[ "$attaches" -gt 10 ] || fail "chaos attached only $attaches engines"
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(stat_of chaos.releases)" -ge '"$attaches"' ]'
sleep 0.2
expect_eq "chaos: release() once per attached engine" "$(stat_of chaos.releases)" "$attaches"
echo "chaos: attach=$attaches attach_err=$(stat_of chaos.attach_err)" \
	"events=$(stat_of chaos.events) stop=$(stat_of chaos.stop)" \
	"resume=$(stat_of chaos.resume) interrupt=$(stat_of chaos.interrupt)" \
	"report=$(stat_of chaos.report) barrier=$(stat_of chaos.barrier)" \
	"detach=$(stat_of chaos.detach) callbacks=$(stat_of chaos.callbacks)" \
	"slept=$(stat_of chaos.slept)"

expect_eq "module loop: failed loads or unloads" "$modfail" 0
[ "$cycles" -gt 0 ] || fail "global_trace was never loaded"
echo "ok: global_trace loaded and unloaded $cycles times"

# No user task may be left stopped by an engine (I: our stop; T/t: job
# control or ptrace stop). Kernel threads are kthreadd (2) and its children.
stuck=
for p in /proc/[0-9]*; do
	# shellcheck disable=SC2046 # split into /proc/PID/stat's fields after comm
	set -- $(sed 's/.*) //' "$p/stat" 2>/dev/null) x x
	st=$1 ppid=$2
	[ "${p#/proc/}" = 2 ] || [ "$ppid" = 2 ] && continue
	case "$st" in
	I | T | t) stuck="$stuck ${p#/proc/}:$st:$(cat "$p/comm")" ;;
	esac
done
[ -z "$stuck" ] || fail "tasks left stopped:$stuck"
echo "ok: no user task left stopped"

ops=0
for w in events stop resume interrupt report barrier detach; do
	ops=$((ops + $(stat_of chaos.$w)))
done
summary="stress: secs=$secs threads=$threads clone=$clone exec=$exec death=$death"
summary="$summary victims=$victims killed_in_callback=$kills chaos_attach=$attaches"
summary="$summary chaos_ops=$ops chaos_callbacks=$(stat_of chaos.callbacks) modload_cycles=$cycles"
utctl cleanup >/dev/null
unload utrace_test
unload utrace_rs
echo "ok: all modules unloaded"
echo "$summary"
