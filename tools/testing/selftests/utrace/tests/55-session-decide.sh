# SPDX-License-Identifier: GPL-2.0
# /dev/utrace decisions (UTRACE_IOC_DECIDE, Documentation/utrace-rs/sessions.rst),
# as an unprivileged user on its own child: a syscall aborted with EPERM,
# one run with a rewritten argument, one held by STOP until RESUME; a
# SIGTERM ignored; a signal held, then delivered once with its siginfo,
# another with a rewritten one (forged ones refused); stale, repeated,
# foreign and wrong-kind answers refused; SIGKILL ends a wait; a closed
# session lets waiting threads run on; a full lossy buffer makes no thread
# wait, a full lossless one makes the decision wait for room first; utrace
# trace --inject. The module unloads after.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
load utrace_rs
load utrace_dev
trap 'unload_settled utrace_dev; unload_settled utrace_rs' EXIT
mark
for what in abort args stop ignore hold killed close lost lossless; do
	out=$(cd /tmp && runas $NOBODY /utrace/bin/utdecide $what) || fail "$what: $out"
	echo "$out"
done
# utrace trace --inject: ABORT decisions (utrace.rst)
rm -rf /tmp/t55.dir /tmp/t55.trace
if runas $NOBODY /utrace/bin/utrace trace --inject mkdir:error=EPERM --inject mkdirat:error=EPERM \
	-o /tmp/t55.trace -- /bin/mkdir /tmp/t55.dir 2>/dev/null; then
	fail "mkdir succeeded under --inject mkdir:error=EPERM"
fi
[ ! -e /tmp/t55.dir ] || fail "the injected mkdir made /tmp/t55.dir"
line=$(grep -E '^mkdir(at)?\(.*EPERM.*\(INJECTED\)$' /tmp/t55.trace) ||
	fail "no INJECTED EPERM mkdir line: $(cat /tmp/t55.trace)"
echo "ok: utrace trace --inject: $line"
! dmesg_since_mark | grep -Eq "$SPLAT_RE" || fail "kernel splat during the decisions"
unload_settled utrace_dev || fail "rmmod utrace_dev after the decisions"
echo "ok: utrace_dev unloaded"
