# SPDX-License-Identifier: GPL-2.0
# UTRACE_IOC_HANDOFF (Documentation/utrace-rs/sessions.rst, "Handoff"): a
# session hands a fork/exec storm's tree to another in its middle, and the
# union of both streams is the storm's own counts (CLONE, EXEC, process
# deaths), no record twice, none lost (lossless, with a buffer small enough
# that threads wait for room at the switch); A's stream of each moved
# thread ends with its HANDOFF record, B's begins with an ATTACHED record
# flagged HANDOFF. Bad handoffs get their errno and change nothing; the
# receiving session's opener must pass the ptrace check itself (its fd
# received over a unix socket), and its tasks_per_session counts.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
load utrace_rs
load utrace_dev
trap 'kill $victim 2>/dev/null; unload_settled utrace_dev; unload_settled utrace_rs' EXIT

# --- the storm, as a user; twice (the switch lands elsewhere each time)
for n in 120 64; do
	out=$(runas $NOBODY /utrace/bin/uthand storm $n) || fail "storm $n: $out"
	echo "$out"
done

# --- bad input
out=$(runas $NOBODY /utrace/bin/uthand bad) || fail "bad: $out"
echo "$out"

# --- the receiving session's opener must be allowed to trace the task
sleep 1000 &
victim=$!
mark
expect_eq "root hands its process to nobody's session" "$(/utrace/bin/uthand perm $victim $NOBODY)" EPERM
dmesg_has "handoff of engine [0-9]+ refused: the ptrace check of tid $victim" ||
	fail "no log line says why the handoff was refused"
echo "   says: $(dmesg_since_mark | grep 'handoff of engine' | tail -n 1 | sed 's/^\[[^]]*\] //')"
expect_eq "root hands its process to root's session" "$(/utrace/bin/uthand perm $victim 0)" ok
kill $victim
wait $victim 2>/dev/null

# --- the receiving session's limit
unload utrace_dev
load utrace_dev tasks_per_session=3
mark
out=$(runas $NOBODY /utrace/bin/uthand limit) || fail "limit: $out"
echo "$out"
dmesg_has "handoff of engine [0-9]* to the receiving session refused: tasks_per_session=3 reached" || fail "no log line names tasks_per_session"

unload_settled utrace_dev || fail "rmmod utrace_dev after the handoffs"
echo "ok: utrace_dev unloaded"
