#!/bin/sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest for `make bench` (one vCPU, QEMU -icount shift=0, so a
# guest "ns" is one guest instruction). Prints one line per measurement:
#   RESULT <workload> <config> <median> <min> <max> [<cpu median> <min> <max>]
# in ns per operation: wall time, then, where the workload measures it, CPU
# time (the workload's tasks and, under ptrace, the tracer: user + system);
# and RAW <workload> <config> <wall time of each round, in order>.
# Every (workload, config) runs $ROUNDS times, configurations interleaved.
# BENCH_PLAN=guard runs only the hot-path rows of the regression guard
# (scripts/bench-guard.sh), with its own counts; BENCH_PLAN=hot only the
# syscall and fork rows; BENCH_PLAN=fork only the fork rows of a global
# no-op engine (forkexit, forkexec: base and global), for work on that
# path; BENCH_PLAN=stop only the STOP round-trip rows; BENCH_PLAN=tools
# the strace and utrace trace rows. Set-up shared with
# profile.sh is in lib.sh.
ROUNDS=${BENCH_ROUNDS:-5}
# The fork rows' rounds spread 1 to 2 % (the base row's most), as wide
# as the goals they are held to (+1.5 %, +1 %): more rounds for their
# medians (not in the guard, which has its own).
ROUNDS_FORK=${BENCH_ROUNDS_FORK:-$((ROUNDS * 2 - 1))}
N_SYS=${BENCH_N_SYS:-100000}
N_SCALE=${BENCH_N_SCALE:-10000}
N_FORK=${BENCH_N_FORK:-300}
N_PTRACE_SYS=${BENCH_N_PTRACE_SYS:-2000}
# The sessread rows: long enough that what a run pays once (its reader's
# first reads, wake-ups and switches, work left by the row before) is not
# read as a per-call cost: at 2,000 calls it was about 150,000
# instructions, 75 a call, against the sys rows' 100,000-call runs.
N_SESSION_SYS=${BENCH_N_SESSION_SYS:-20000}
N_STOP=${BENCH_N_STOP:-1000}
N_FILES=${BENCH_N_FILES:-20000}
N_FILES_PTRACE=${BENCH_N_FILES_PTRACE:-2000}

FAIL_TAG=BENCH
# shellcheck source-path=SCRIPTDIR source=lib.sh
. /utrace/bench/lib.sh

# setup CONFIG: load what CONFIG needs (runs before each measurement).
setup() {
	mods_off
	case "$1" in
	base) ;;
	loaded) insmod $M/utrace_rs.ko || fail load ;;
	floor) floor_on ;;
	global) global_on nofollow ;;
	global_follow) global_on follow ;;
	gtrace) gtrace_on ;;
	gtrace_reader) gtrace_on reader ;;
	systrace|systrace_reader) insmod $M/utrace_rs.ko || fail load ;;
	session|utrace_trace|utrace_nomem|reader|session_exit|reader_exit) { insmod $M/utrace_rs.ko && insmod $M/utrace_dev.ko; } || fail load ;;
	sys_untraced) untraced_on ;;
	sys_traced|engines_*) utrace_on ;;
	tasks_*)
		utrace_on
		bench sleepers "${1#tasks_}" >/tmp/sleepers.out &
		SLEEPER=$!
		t=0
		until grep -q ready /tmp/sleepers.out; do
			sleep 0.2; t=$((t + 1)); [ $t -lt 600 ] || fail "sleepers"
		done
		ut attachall $SLEEPER 0x8 ;;
	esac
}

teardown() {
	stop_bg "${READER:-}"
	READER=
	[ -d $UT ] && ut cleanup
	stop_bg "${SLEEPER:-}"
	SLEEPER=
	mods_off
}

# one WORKLOAD N CONFIG: one measurement, prints ns/op.
one() {
	w=$1 n=$2 cfg=$3
	setup "$cfg"
	rm -f /tmp/b.go; mkfifo /tmp/b.go
	case "$cfg" in
	ptrace)
		mode=life; [ "$w" = getppid ] || [ "$w" = threads ] && mode=sys
		out=$(BENCH_TRACER_CPU=1 ptracer $mode /utrace/bin/bench "$w" "$n") ;;
	sys_traced|engines_*|tasks_*)
		bench "$w" "$n" wait <>/tmp/b.go >/tmp/b.out &
		b=$!
		k=1; case $cfg in engines_*) k=${cfg#engines_} ;; esac
		i=0
		while [ $i -lt "$k" ]; do
			slot=$((i % 15)); [ $i -ge 15 ] && slot=15
			ut noop $slot 1
			# Ops n: a genuinely no-op engine (its callbacks only
			# return; bench-profile's sys_traced_test measures the
			# test slots' ops a, which check flags first).
			ut attach $slot $b 0x10 n $i
			ut events $slot 0xc0
			[ $i -ge 15 ] && ut put $slot
			i=$((i + 1))
		done
		echo go >/tmp/b.go
		wait $b
		out=$(cat /tmp/b.out) ;;
	systrace|systrace_reader)
		# syscall_trace on the workload (its ring holds every record of
		# a run: none is dropped), with or without a reader draining it.
		bench "$w" "$n" wait <>/tmp/b.go >/tmp/b.out &
		b=$!
		insmod $M/syscall_trace.ko pid=$b records=65536 || fail "load syscall_trace"
		if [ "$cfg" = systrace_reader ]; then
			cat /dev/syscall_trace >/dev/null &
			READER=$!
		fi
		echo go >/tmp/b.go
		wait $b
		out=$(cat /tmp/b.out) ;;
	ptrace_strace)
		out=$(BENCH_TRACER_CPU=1 ptrace_strace /utrace/bin/bench "$w" "$n") ;;
	# The tools, as a user runs them: Debian's strace, and utrace trace on
	# a /dev/utrace session (lossless where the module offers it; memory
	# arguments captured into the records, an entry decided only where its
	# capture is not whole; utrace_nomem: --no-memory, no capture). CPU
	# time: the workload and the tracer (its parent).
	strace)
		out=$(BENCH_TRACER_CPU=1 strace -f -o /dev/null /utrace/bin/bench "$w" "$n") ;;
	utrace_trace)
		out=$(BENCH_TRACER_CPU=1 /utrace/bin/utrace trace -f -o /dev/null -- /utrace/bin/bench "$w" "$n") ;;
	utrace_nomem)
		out=$(BENCH_TRACER_CPU=1 /utrace/bin/utrace trace --no-memory -f -o /dev/null -- /utrace/bin/bench "$w" "$n") ;;
	# Debian's perf (the host's linux-perf, where it has one): perf trace
	# reads the raw_syscalls tracepoints through perf's ring buffers (it
	# may lose events; it says so in its -o output, /dev/null here).
	perf_trace)
		out=$(BENCH_TRACER_CPU=1 perf trace -o /dev/null -- /utrace/bin/bench "$w" "$n") ;;
	# A plain session reader (sessread: lossy, every syscall's entry and
	# exit, batched read()s, each record only stepped over): session, the
	# workload's CPU alone (what a session's records add to the traced
	# task); reader, with the reader's (what delivering them costs).
	session)
		out=$(/utrace/bin/sessread /utrace/bin/bench "$w" "$n" 2>/dev/null) ;;
	reader)
		out=$(BENCH_TRACER_CPU=1 /utrace/bin/sessread /utrace/bin/bench "$w" "$n" 2>/dev/null) ;;
	# The same with one record a call: exits only, whose records carry
	# the arguments (what utrace trace asks for getppid()).
	session_exit)
		out=$(SESSREAD_EXIT=1 /utrace/bin/sessread /utrace/bin/bench "$w" "$n" 2>/dev/null) ;;
	reader_exit)
		out=$(SESSREAD_EXIT=1 BENCH_TRACER_CPU=1 /utrace/bin/sessread /utrace/bin/bench "$w" "$n" 2>/dev/null) ;;
	*)
		out=$(bench "$w" "$n") ;;
	esac
	teardown
	echo "$(echo "$out" | sed -n 's/^ns_per_op=//p') $(echo "$out" | sed -n 's/^cpu_ns_per_op=//p')"
}

# result WORKLOAD CONFIG FILE: the RESULT line (median, min, max) of the
# ns/op values in FILE, one line per run: wall time and, if measured, CPU time.
result() {
	cpu=$(awk 'NF > 1 { print $2 }' "$3" | sort -n | awk '
		{ v[NR] = $1 } END { if (NR) printf " %s %s %s", v[int((NR + 1) / 2)], v[1], v[NR] }')
	awk '{ print $1 }' "$3" | sort -n | awk -v w="$1" -v c="$2" -v cpu="$cpu" '
		{ v[NR] = $1 } END { printf "RESULT %s %s %s %s %s%s\n", w, c, v[int((NR + 1) / 2)], v[1], v[NR], cpu }'
}

# measure WORKLOAD N CONFIG...: ROUNDS rounds, configs interleaved.
measure() {
	w=$1 n=$2
	shift 2
	r=0
	while [ $r -lt "$ROUNDS" ]; do
		for cfg in "$@"; do
			v=$(one "$w" "$n" "$cfg")
			[ -n "${v% }" ] || fail "$w $cfg gave no result"
			echo "$v" >>/tmp/res."$w"."$cfg"
		done
		r=$((r + 1))
	done
	for cfg in "$@"; do
		result "$w" "$cfg" /tmp/res."$w"."$cfg"
		echo "RAW $w $cfg $(awk '{ print $1 }' /tmp/res."$w"."$cfg" | tr '\n' ' ')"
	done
}

# measure_fork WORKLOAD N CONFIG...: measure, with the fork rows' rounds.
measure_fork() {
	rounds=$ROUNDS
	ROUNDS=$ROUNDS_FORK
	measure "$@"
	ROUNDS=$rounds
}

# In-kernel loops (utrace_test.ko): attach+detach round trips, and barrier
# with no callback in flight.
kernel_loops() {
	setup sys_traced
	sleep 1000 &
	SLEEPER=$!
	for r in $(seq "$ROUNDS"); do
		ut attachloop $SLEEPER "$1"
		sed -n 's/^bench.attach_ns //p' $UT/stats >>/tmp/res.attach
		ut attach 0 $SLEEPER 0x10; ut events 0 0x8
		ut barrierloop 0 "$2"
		sed -n 's/^bench.barrier_ns //p' $UT/stats >>/tmp/res.barrier
		ut cleanup
	done
	teardown
}

# What the rows ran on: the kernel, its CPU vulnerability mitigations as
# the guest CPU makes them apply, its preemption model.
echo "BENCH-KERNEL $(uname -r)"
for f in /sys/devices/system/cpu/vulnerabilities/*; do
	[ -r "$f" ] && echo "BENCH-VULN ${f##*/}: $(cat "$f")"
done
if [ -r /sys/kernel/debug/sched/preempt ]; then
	echo "BENCH-PREEMPT $(cat /sys/kernel/debug/sched/preempt)"
else
	echo "BENCH-PREEMPT fixed at build: $(uname -v)"
fi

# CPU time (user + system ticks) of every task: "PID COMM TICKS" lines.
cpu_snapshot() {
	for f in /proc/[0-9]*/stat; do
		awk '{ n = $0; sub(/^[0-9]+ \(/, "", n); sub(/\) [A-Za-z] .*/, "", n)
			c = $0; sub(/.*\) /, "", c); split(c, a, " "); print $1, n, a[12] + a[13] }' "$f" 2>/dev/null
	done
}

# Let other work end before measuring: on Debian's kernel the first getppid
# rounds after boot ran at 1,132 wall against 371 CPU, some other task
# taking the vCPU. A getppid loop until its wall time is its CPU time (to
# 1 %), at most 50 times; the tasks that ran beside the first one are named.
settle() {
	i=0 out=
	cpu_snapshot >/tmp/cpu.0
	while [ $i -lt 50 ]; do
		out=$(bench getppid 20000)
		[ $i = 0 ] && cpu_snapshot >/tmp/cpu.1
		echo "$out" | awk -F= '$1 == "ns_per_op" { w = $2 } $1 == "cpu_ns_per_op" { c = $2 }
			END { d = w - c; if (d < 0) d = -d; exit !(c > 0 && d / c < 0.01) }' && break
		i=$((i + 1))
	done
	echo "BENCH-SETTLE settled at getppid run $((i + 1)): $(echo "$out" | tr '\n' ' ')"
	awk 'NR == FNR { t[$1] = $NF; next } $NF - t[$1] > 0 { print $NF - t[$1], $2 }' \
		/tmp/cpu.0 /tmp/cpu.1 | sort -rn | head -n 4 | while read -r ticks comm; do
		echo "BENCH-SETTLE busy during the first: $comm $ticks ticks"
	done
}
settle

if [ "${BENCH_PLAN:-}" = guard ]; then
	echo "BENCH-BEGIN plan=guard rounds=$ROUNDS"
	measure getppid "$N_SYS" floor sys_untraced sys_traced engines_10
	measure forkexit "$N_FORK" base global gtrace_reader
	kernel_loops 500 1
	result attach kernel /tmp/res.attach
	echo "BENCH-END"
	exit 0
fi
# STOP -> RESUME round trips (the task runs again before the next one) vs
# PTRACE_INTERRUPT -> waitpid -> PTRACE_CONT, on a task in a getppid() loop.
# utrace: a debugger's STOP, utrace_wait_stopped(), RESUME (stopwait);
# utrace_median: the same loop's median round trip (each one timed);
# utrace_rt: the same with the controller SCHED_FIFO (stopwait ... rt);
# utrace_now (and its median): the next STOP right after RESUME, as
# ptrace's loop does (stopwait ... now);
# utrace_barrier: the QUIESCE callback wakes the controller, which must
# utrace_barrier() before its RESUME (stoploop); session_stop (and its
# median): a /dev/utrace session's STOP, STOPPED record, RESUME in
# ptrace's loop (sessstop).
stop_rows() {
	for r in $(seq "$ROUNDS"); do
		setup sys_traced
		bench getppid 2000000000 >/dev/null &
		T=$!
		ut attach 0 $T 0x10; ut noop 0 1; ut events 0 0x41
		[ "$(utctl stopwait 0 "$N_STOP")" = 0 ] || fail "stopwait"
		sed -n 's/^bench.stopwait_ns //p' $UT/stats >>/tmp/res.stop.utrace
		sed -n 's/^bench.stopwait_median_ns //p' $UT/stats >>/tmp/res.stop.utrace_median
		# Where it went: CPU per round trip of the controller and the
		# task, their sleeps and preemptions per 1000 round trips.
		sed -n 's/^bench.stopwait_split /BENCH-STOPSPLIT /p' $UT/stats
		# The same with the controller SCHED_FIFO: run as soon as the
		# task's syscall wakes it, never after a stretch of the task's
		# own loop that the fair scheduler grants it (module/test_bench.c).
		[ "$(utctl stopwait 0 "$N_STOP" rt)" = 0 ] || fail "stopwait rt"
		sed -n 's/^bench.stopwait_ns //p' $UT/stats >>/tmp/res.stop.utrace_rt
		sed -n 's/^bench.stopwait_split /BENCH-STOPSPLIT-RT /p' $UT/stats
		# ptrace's loop in the kernel: the next STOP right after RESUME.
		[ "$(utctl stopwait 0 "$N_STOP" now)" = 0 ] || fail "stopwait now"
		sed -n 's/^bench.stopwait_ns //p' $UT/stats >>/tmp/res.stop.utrace_now
		sed -n 's/^bench.stopwait_median_ns //p' $UT/stats >>/tmp/res.stop.utrace_now_median
		[ "$(utctl stoploop 0 "$N_STOP")" = 0 ] || fail "stoploop"
		sed -n 's/^bench.stop_ns //p' $UT/stats >>/tmp/res.stop.utrace_barrier
		ut cleanup
		kill $T; wait $T
		teardown
		bench getppid 2000000000 >/dev/null &
		T=$!
		out=$(ptracer interrupt $T "$N_STOP")
		echo "$(echo "$out" | sed -n 's/^ns_per_op=//p') $(echo "$out" | sed -n 's/^cpu_ns_per_op=//p')" \
			>>/tmp/res.stop.ptrace_interrupt
		kill $T; wait $T
		# A /dev/utrace session's STOP, STOPPED record, RESUME, in the
		# same loop as ptrace's (sessstop).
		setup session
		bench getppid 2000000000 >/dev/null &
		T=$!
		out=$(sessstop $T "$N_STOP") || fail "sessstop"
		echo "$(echo "$out" | sed -n 's/^ns_per_op=//p') $(echo "$out" | sed -n 's/^cpu_ns_per_op=//p')" \
			>>/tmp/res.stop.session_stop
		echo "$out" | sed -n 's/^median_ns=//p' >>/tmp/res.stop.session_stop_median
		echo "$out" | sed -n 's/^p99_ns=//p' >>/tmp/res.stop.session_stop_p99
		echo "SPREAD stop session_stop max $(echo "$out" | sed -n 's/^max_ns=//p')"
		if [ "${BENCH_PLAN:-}" = stop ]; then
			# The median of each call apart: STOP, read() until
			# STOPPED, RESUME (two more clock reads a round trip).
			out=$(sessstop $T "$N_STOP" split) || fail "sessstop split"
			echo "BENCH-SESSSPLIT $(echo "$out" | sed -n 's/^split_ns=//p') median $(echo "$out" | sed -n 's/^median_ns=//p')"
		fi
		kill $T; wait $T
		teardown
	done
	for c in utrace utrace_median utrace_rt utrace_now utrace_now_median utrace_barrier \
		ptrace_interrupt session_stop session_stop_median session_stop_p99; do
		[ -s /tmp/res.stop.$c ] || fail "stop $c gave no result"
		result stop $c /tmp/res.stop.$c
	done
}

# The in-kernel rows, last in every plan: attach..put, barrier, STOP.
kernel_rows() {
	kernel_loops 2000 20000
	stop_rows
	for k in attach barrier; do
		result $k kernel /tmp/res.$k
	done
}

# BENCH_PLAN=hot: the syscall and fork rows, ptrace beside them, and the
# in-kernel attach..put and STOP rows (issue 15's hot paths).
if [ "${BENCH_PLAN:-}" = hot ]; then
	echo "BENCH-BEGIN plan=hot rounds=$ROUNDS fork_rounds=$ROUNDS_FORK"
	measure getppid "$N_SYS" base loaded floor sys_untraced sys_traced
	measure getppid "$N_SCALE" engines_10
	measure getppid "$N_PTRACE_SYS" ptrace
	measure_fork forkexit "$N_FORK" base loaded global gtrace_reader ptrace
	measure_fork forkexec "$N_FORK" base loaded global ptrace
	kernel_rows
	echo "BENCH-END"
	exit 0
fi

# The tools' rows: strace, utrace trace and, where the image has perf and
# its syscall tracing works here, perf trace, on the syscall workloads.
tool_rows() {
	perf=
	if command -v perf >/dev/null && perf trace -o /dev/null -- true 2>/tmp/perf.err; then
		perf=perf_trace
	else
		echo "BENCH-NOTE no perf trace rows: $(head -c 200 /tmp/perf.err 2>/dev/null)"
	fi
	measure getppid "$N_PTRACE_SYS" strace utrace_trace utrace_nomem $perf
	measure getppid "$N_SESSION_SYS" session reader session_exit reader_exit
	measure files "$N_FILES_PTRACE" strace utrace_trace utrace_nomem session $perf
}

# BENCH_PLAN=tools: the tools' rows with their baselines and the ptrace and
# in-kernel rows they are read against.
if [ "${BENCH_PLAN:-}" = tools ]; then
	echo "BENCH-BEGIN plan=tools rounds=$ROUNDS"
	measure getppid "$N_SYS" base sys_traced
	measure getppid "$N_PTRACE_SYS" ptrace
	measure files "$N_FILES" base systrace_reader
	measure files "$N_FILES_PTRACE" ptrace_strace
	tool_rows
	echo "BENCH-END"
	exit 0
fi

# BENCH_PLAN=stop: the STOP round-trip rows alone, for work on that path.
if [ "${BENCH_PLAN:-}" = stop ]; then
	echo "BENCH-BEGIN plan=stop rounds=$ROUNDS"
	stop_rows
	echo "BENCH-END"
	exit 0
fi

# BENCH_PLAN=fork: the global engine's fork rows alone.
if [ "${BENCH_PLAN:-}" = fork ]; then
	echo "BENCH-BEGIN plan=fork rounds=$ROUNDS_FORK"
	measure_fork forkexit "$N_FORK" base global
	measure_fork forkexec "$N_FORK" base global
	echo "BENCH-END"
	exit 0
fi

# Room for the 10,000-thread row.
echo 100000 >/proc/sys/kernel/threads-max
echo "BENCH-BEGIN rounds=$ROUNDS fork_rounds=$ROUNDS_FORK"
measure getppid "$N_SYS" base loaded floor sys_untraced sys_traced
measure getppid "$N_SCALE" engines_10 engines_100 tasks_1000 tasks_10000
measure getppid "$N_PTRACE_SYS" ptrace
measure threads "$N_SYS" base floor sys_untraced
measure files "$N_FILES" base systrace systrace_reader
measure files "$N_FILES_PTRACE" ptrace_strace
tool_rows
measure_fork forkexit "$N_FORK" base loaded global global_follow gtrace gtrace_reader ptrace
measure_fork forkexec "$N_FORK" base loaded global gtrace ptrace
kernel_rows
echo "BENCH-END"
