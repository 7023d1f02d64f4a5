# SPDX-License-Identifier: GPL-2.0
# The guest has a working gdb that can attach to a running process and show
# its stack (what crash-suspend users will do).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh

command -v gdb >/dev/null || fail "no gdb in the guest"
zombie >/tmp/t05.pid &
pid=$!
wait_until 5 test -s /tmp/t05.pid
out=$(gdb -nx -batch -p $pid -ex bt 2>&1)
echo "$out" | sed -n '/^#/p'
echo "$out" | grep -q '^#[0-9].* in main ' || fail "no main() frame in gdb's backtrace: $out"
echo "ok: gdb attached to pid $pid and found main()"
kill $pid
