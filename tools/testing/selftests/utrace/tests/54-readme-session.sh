# SPDX-License-Identifier: GPL-2.0
# README.md's "Trace your own process beside gdb, without root": its lines,
# verbatim, as an unprivileged user. strace is refused (gdb is the one
# ptrace tracer), utrace traces the same process meanwhile, and gdb is still
# attached when utrace ends. Then "Hold a crash for the debugger, without
# root", the same way: the held line, gdb's registers of the held process,
# and the process gone once utrace hold ended.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
[ -r /utrace/README.md ] || fail "no README.md in the guest"
# block NAME: the indented lines of README's readme-test block NAME.
block() {
	sed -n "/<!-- readme-test: $1 begin -->/,/<!-- readme-test: $1 end -->/p" \
		/utrace/README.md | sed -n 's/^    //p'
}
lines=$(block session)
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

# --- "Hold a crash for the debugger, without root"
lines=$(block hold)
[ "$(echo "$lines" | grep -c .)" -ge 3 ] || fail "README's hold block not found: '$lines'"
rm -f /tmp/held.txt
out=$(runas $NOBODY /bin/sh -c "$lines
p=\$(cut -d' ' -f2 held.txt)
if [ -d /proc/\$p ]; then echo \"held=\$p still there\"; else echo \"held=\$p gone\"; fi" 2>&1)
echo "$out" | sed 's/^/#   /' | head -n 20
echo "$out" | grep -Eq '^pid [0-9]+ \(sh\) held on SIGSEGV from pid [0-9]+: gdb -p [0-9]+$' ||
	fail "no held line from utrace hold"
echo "$out" | grep -Eq '^rip +0x' || fail "gdb printed no rip of the held process"
echo "$out" | grep -Eq '^held=[0-9]+ gone$' || fail "the held process outlived utrace hold"
echo "ok: README's hold lines as nobody: held, gdb attached, gone after utrace hold ended"
