# SPDX-License-Identifier: GPL-2.0
# samples/minimal (utrace_minimal.ko), the engine a newcomer copies: it
# loads, logs an exec with its pid and file, counts it, and unloads.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
load utrace_rs
mark
load utrace_minimal
# shellcheck disable=SC2016 # $$ is the inner shell's pid, which execs
pid=$(sh -c 'echo $$; exec /bin/true')
dmesg_has "utrace_minimal: exec: pid $pid ran /bin/true\$" ||
	fail "no exec line for pid $pid: $(dmesg_since_mark | grep utrace_minimal | tail -n 3)"
echo "ok: the exec of pid $pid was logged"
unload utrace_minimal
line=$(dmesg_since_mark | grep 'utrace_minimal: unloaded after' | tail -n 1)
n=$(echo "$line" | sed -n 's/.*unloaded after \([0-9]*\) exec(s)$/\1/p')
[ "${n:-0}" -ge 1 ] || fail "unload line: '$line', want at least 1 exec"
echo "ok: $n exec(s) counted at unload"
unload utrace_rs
