# SPDX-License-Identifier: GPL-2.0
# samples/crash_suspend's slots (max=) from the user's side: a crash reported
# in a thread that is exiting (it calls exit() while another thread
# tgkill()s it with SIGSEGV) is not suspended, leaves nothing in the list
# and takes no slot, so a later crash is still suspended with max=1; and
# max=1 holds when several processes crash at the same moment.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
D=/dev
L=$D/crash_suspend_list
echo '/tmp/core.%p' >/proc/sys/kernel/core_pattern
load utrace_rs
load crash_suspend max=1
trap 'rmmod crash_suspend 2>/dev/null; rmmod utrace_rs 2>/dev/null' EXIT

# entries: the list's lines but its header.
entries() { grep -vc '^#' $L; }
# emptied: whether the list empties within 10 s (a death's record may lag).
emptied() {
	n=100
	while [ "$(entries)" != 0 ]; do
		n=$((n - 1))
		[ $n -gt 0 ] || return 1
		sleep 0.1
	done
}

# 1. Threads that exit while they are sent SIGSEGV: whatever each process
# did (it exited, or its thread took the signal first and it was suspended,
# then killed), nothing stays listed, and none dumps core (with max=1, one
# would if a slot were taken).
for round in 1 2 3 4; do
	out=$(crasher exitrace 60)
	echo "   round $round: $out"
	if ! emptied; then
		sed 's/^/   list: /' $L
		fail "round $round: $(entries) entries stay listed after every process ended"
	fi
	case "$out" in
	*" signaled=0") ;;
	*) fail "round $round: a crash was not suspended with max=1 and nothing suspended" ;;
	esac
done
echo "ok: no entry stays listed after 240 racing processes"

# 2. The slot is free: with max=1 a crash is suspended.
rm -f /tmp/t96l.out
mark
crasher run segv >/tmp/t96l.out &
wait_until 20 "dmesg_since_mark | grep -q 'suspended on signal 11 '" ||
	fail "a crash after the races was not suspended (max=1)"
p=$(dmesg_since_mark | sed -n 's/.*crash_suspend: pid \([0-9]*\) .*suspended on signal 11 .*/\1/p' | tail -n 1)
echo "ok: with max=1 the next crash (pid $p) is suspended"
kill -KILL "$p"
wait_until 20 "grep -q '^exit=' /tmp/t96l.out"
emptied || fail "still listed after SIGKILL: $(cat $L)"

# 3. max=1 is one decision: of 8 processes that segfault together, at most
# one is suspended (the others dump core).
for round in 1 2 3 4 5; do
	out=$(crasher together 8)
	echo "   round $round: $out"
	n=$(echo "$out" | sed -n 's/^together: suspended=\([0-9]*\) .*/\1/p')
	[ "$n" -le 1 ] || fail "round $round: $n processes suspended with max=1"
	emptied || fail "round $round: still listed after every process ended: $(cat $L)"
done
echo "ok: max=1 held for 5 rounds of 8 simultaneous crashes"
unload crash_suspend
unload utrace_rs
trap - EXIT
