# SPDX-License-Identifier: GPL-2.0
# /dev/utrace under random ioctls (progs/utfuzz.c), as root and as an
# unprivileged user: random command numbers, sizes, flags, pointers (NULL,
# kernel, unmapped, misaligned, read-only, straddling an unmapped page),
# live, stale and made-up engine ids, on the fuzzer's own children, which it
# attaches to, stops, asks to step and whose registers it reads and changes. Every
# call returns 0 or a documented errno, the kernel logs no splat, the
# sessions' end lets everything run on and the module unloads (check-debug
# adds its kmemleak scan). UTRACE_FUZZ_SEED repeats a run; UTRACE_FUZZ_CALLS
# (default 4000 per user) sizes it.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
NOBODY=65534
load utrace_rs
load utrace_dev
# The fuzzer flips register bits of its own stopped children, which may
# then die of a general protection fault in user space: x86 logs those
# ("traps: utfuzz[N] general protection fault"), which the splat pattern
# would take for the kernel's. Not logged while the fuzz runs.
et=/proc/sys/debug/exception-trace
et_was=$(cat $et 2>/dev/null)
[ -n "$et_was" ] && echo 0 >$et
trap '[ -n "$et_was" ] && echo "$et_was" >$et; unload_settled utrace_dev; unload_settled utrace_rs' EXIT
seed=${UTRACE_FUZZ_SEED:-$(date +%s)}
calls=${UTRACE_FUZZ_CALLS:-4000}
mark
out=$(/utrace/bin/utfuzz "$calls" "$seed") || fail "utfuzz as root (exit $?): $out"
echo "$out" | grep -v '^ok'
out=$(runas $NOBODY /utrace/bin/utfuzz "$calls" "$((seed + 1))") || fail "utfuzz as nobody (exit $?): $out"
echo "$out" | grep -v '^ok'
! dmesg_since_mark | grep -Eq "$SPLAT_RE" || fail "kernel splat during the fuzz (seed $seed)"
unload_settled utrace_dev || fail "rmmod utrace_dev after the fuzz (seed $seed)"
echo "ok: no splat, utrace_dev unloaded (seed $seed)"
