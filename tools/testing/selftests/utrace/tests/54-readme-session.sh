# SPDX-License-Identifier: GPL-2.0
# README.md's "Trace your own process beside gdb, without root": its lines,
# verbatim, as an unprivileged user. strace is refused (gdb is the one
# ptrace tracer), utrace traces the same process meanwhile, and gdb is still
# attached when utrace ends.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
[ -r /utrace/README.md ] || fail "no README.md in the guest"
lines=$(sed -n '/<!-- readme-test: session begin -->/,/<!-- readme-test: session end -->/p' \
	/utrace/README.md | sed -n 's/^    //p')
[ "$(echo "$lines" | grep -c .)" -ge 3 ] || fail "README's session block not found: '$lines'"
load utrace_rs
load utrace_dev
trap 'unload_settled utrace_dev; unload_settled utrace_rs' EXIT
cd /tmp || fail "cd /tmp"
# The README's lines, then what the test reads afterwards (the traced
# process's tracer, for "gdb still attached") and the clean-up.
out=$(runas $NOBODY /bin/sh -c "$lines
echo \"tracer=\$(sed -n 's/^TracerPid:[[:space:]]*//p' /proc/\$pid/status)\"
kill -9 \$pid; sleep 1" 2>&1)
echo "$out" | sed 's/^/#   /' | head -n 20
echo "$out" | grep -q 'Operation not permitted' ||
	fail "strace -p was not refused while gdb is attached"
tracer=$(echo "$out" | sed -n 's/^tracer=//p')
case "$tracer" in
"" | 0) fail "gdb was not attached at the end (TracerPid '$tracer')" ;;
esac
n=$(echo "$out" | grep -c -E '^(\[pid +[0-9]+\] )?[a-z_0-9]+\(.*\) += ')
[ "$n" -ge 3 ] || fail "utrace trace -p printed $n syscall lines beside gdb"
echo "ok: README's lines as nobody: strace refused, utrace printed $n syscall lines, gdb ($tracer) attached throughout"
