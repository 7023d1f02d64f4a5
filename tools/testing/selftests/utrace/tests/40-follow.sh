# SPDX-License-Identifier: GPL-2.0
# Following children: an engine attached to the child from the parent's
# CLONE callback sees the child's events from its first instruction on, so
# an exec right after fork or vfork is not missed. Every task reports DEATH
# and then REAP, once each. The children of engines attached with
# UTRACE_ATTACH_NOFOLLOW are not held for their CLONE callbacks. A followed
# child's return from fork (= 0) is reported to the engine attached to it
# from CLONE exactly once, whichever comes first.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
setup_engine

all=$((EV_CLONE | EV_EXEC | EV_EXIT | EV_DEATH | EV_REAP))
for mode in fork vfork; do
	utctl reset >/dev/null
	rm -f /tmp/t40.go
	mkfifo /tmp/t40.go
	spawn $mode 20 /bin/true </tmp/t40.go &
	pid=$!
	expect_ut "$mode: attach to the spawner" 0 attach 0 $pid $A_CREATE
	expect_ut "$mode: events" 0 events 0 $all
	expect_ut "$mode: follow children" 0 follow 0 $all
	echo go >/tmp/t40.go
	wait $pid || fail "$mode: spawn failed"
	expect_eq "$mode: CLONE reports in the parent" "$(log_events 0 CLONE | wc -l)" 20
	# The callback's parent is the spawner, even where the vfork child
	# reports for it.
	expect_eq "$mode: CLONE reports name the parent" "$(log_events 0 CLONE | sort -u)" "$pid"
	utlog | awk '$2 == 0 && $3 == "CLONE"' | sed 's/.*child=\([0-9]*\).*/\1/' | sort >/tmp/t40.kids
	expect_eq "$mode: distinct children" "$(sort -u /tmp/t40.kids | wc -l)" 20
	log_events 16 EXEC | sort >/tmp/t40.exec
	expect_eq "$mode: children without an EXEC report" \
		"$(grep -cvxFf /tmp/t40.exec /tmp/t40.kids)" 0
	expect_eq "$mode: EXEC reports from others" \
		"$(grep -cvxFf /tmp/t40.kids /tmp/t40.exec)" 0
	if [ $mode = vfork ]; then
		expect_eq "vfork flagged" "$(utlog | grep -c 'CLONE.*vfork')" 20
	fi
	# The children are reaped by the spawner's waitpid(): DEATH then REAP,
	# once each, for every child.
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(log_events 16 REAP | wc -l)" -ge 20 ]'
	# shellcheck disable=SC2013 # one pid a word
	for kid in $(cat /tmp/t40.kids); do
		d=$(utlog | awk -v p="$kid" '$2 == 16 && $3 == "DEATH" && $4 == p { print $1 }')
		r=$(utlog | awk -v p="$kid" '$2 == 16 && $3 == "REAP" && $4 == p { print $1 }')
		[ "$(echo "$d" | grep -c .)" = 1 ] || fail "$mode: child $kid DEATH reported '$d'"
		[ "$(echo "$r" | grep -c .)" = 1 ] || fail "$mode: child $kid REAP reported '$r'"
		[ "$r" -gt "$d" ] || fail "$mode: child $kid REAP before DEATH"
	done
	echo "ok: $mode: 20 children, each DEATH then REAP exactly once"
	expect_eq "$mode: follow errors" "$(stat_of follow_errors)" 0
	expect_ut "$mode: cleanup" 0 cleanup
done

# Threads are clones too, and their followers see their deaths.
utctl reset >/dev/null
rm -f /tmp/t40.go
mkfifo /tmp/t40.go
spawn thread 5 /bin/true </tmp/t40.go &
pid=$!
expect_ut "thread: attach" 0 attach 0 $pid $A_CREATE
expect_ut "thread: events" 0 events 0 $all
expect_ut "thread: follow" 0 follow 0 $all
echo go >/tmp/t40.go
wait $pid || fail "thread spawner failed"
expect_eq "thread: CLONE reports" "$(log_events 0 CLONE | wc -l)" 5
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 10 '[ "$(log_events 16 DEATH | wc -l)" = 5 ]'
echo "ok: 5 threads followed to their DEATH"

# UTRACE_ATTACH_NOFOLLOW: a child whose parent's CLONE engines never follow
# is not held until their callbacks are done: it runs while the parent's
# CLONE callback is still held. Without the flag the child waits for it.
expect_ut "thread: cleanup" 0 cleanup
for how in nofollow follow; do
	utctl reset >/dev/null
	flags=$A_CREATE
	[ $how = nofollow ] && flags=$((A_CREATE | A_NOFOLLOW))
	rm -f /tmp/t40.ran
	# The subshell is a fork (not the script's last command, so not exec'd).
	p=$(gated_sh t40n '(echo ran >/tmp/t40.ran); true')
	expect_ut "$how: attach" 0 attach 0 "$p" $flags
	expect_ut "$how: events" 0 events 0 "$EV_CLONE"
	expect_ut "$how: hold CLONE callbacks" 0 hold "$EV_CLONE"
	go t40n
	# shellcheck disable=SC2016 # wait_until evaluates it
	wait_until 10 '[ "$(stat_of held)" = 1 ]'
	if [ $how = nofollow ]; then
		wait_until 10 '[ -e /tmp/t40.ran ]'
		expect_eq "$how: parent's CLONE callback still held" "$(stat_of held)" 1
		echo "ok: $how: the child ran during its parent's CLONE callback"
	else
		[ ! -e /tmp/t40.ran ] || fail "$how: the child ran during its parent's CLONE callback"
		echo "ok: $how: the child waits for its parent's CLONE callback"
	fi
	expect_ut "$how: release" 0 release
	wait_until 10 '[ -e /tmp/t40.ran ]'
	expect_ut "$how: cleanup" 0 cleanup
done

# A followed child's return from fork (= 0) reaches the SYSCALL_EXIT of the
# engine attached to it from the parent's CLONE callback exactly once,
# whichever comes first: the child's sys_exit tracepoint (in ret_from_fork,
# before it waits for that report) or the CLONE report. vfork: the child
# makes the report itself, so its sys_exit always comes first; fork on two
# vCPUs: the child usually runs at once; fork pinned to one CPU (fork1): the
# parent usually reports first. Threads too. Each twice.
fe=$((EV_CLONE | EV_SYSCALL_EXIT))
n=25
for how in vfork fork fork1 thread; do
	for round in 1 2; do
		utctl reset >/dev/null
		rm -f /tmp/t40.go
		mkfifo /tmp/t40.go
		if [ $how = fork1 ]; then
			taskset 1 spawn fork $n /bin/true </tmp/t40.go &
		else
			spawn $how $n /bin/true </tmp/t40.go &
		fi
		pid=$!
		expect_ut "$how/$round: attach" 0 attach 0 $pid $A_CREATE
		expect_ut "$how/$round: events" 0 events 0 "$EV_CLONE"
		expect_ut "$how/$round: follow with SYSCALL_EXIT" 0 follow 0 $fe
		echo go >/tmp/t40.go
		wait $pid || fail "$how/$round: spawn failed"
		utlog | awk '$2 == 0 && $3 == "CLONE"' | sed 's/.*child=\([0-9]*\).*/\1/' | sort >/tmp/t40.kids
		utlog | awk '$2 == 16 && $3 == "FORK_RETURN"' >/tmp/t40.fr
		expect_eq "$how/$round: children" "$(sort -u /tmp/t40.kids | wc -l)" $n
		expect_eq "$how/$round: fork returns reported" "$(wc -l </tmp/t40.fr)" $n
		expect_eq "$how/$round: fork returns, each a child's own" \
			"$(awk '{ print $4 }' /tmp/t40.fr | sort -u)" "$(cat /tmp/t40.kids)"
		expect_eq "$how/$round: fork returns not 0" "$(grep -cv ' ret=0$' /tmp/t40.fr)" 0
		expect_eq "$how/$round: follow errors" "$(stat_of follow_errors)" 0
		expect_ut "$how/$round: cleanup" 0 cleanup
	done
done
echo "ok: every followed child's return from fork reported once, = 0"
