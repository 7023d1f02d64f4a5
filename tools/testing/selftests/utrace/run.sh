#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side selftest runner: runs every tests/*.sh in name order (plus any
# extra directory named in $UTRACE_EXTRA_TESTS) and prints KTAP between
# markers (UTRACE_ONLY=WORD on the kernel command line runs only the tests
# whose name contains WORD). A test passes with exit 0, skips with exit 4 (its last line is the
# reason) and fails otherwise. A kernel splat (WARNING, BUG, lockdep, KASAN,
# sleeping in atomic context, ...) that appears while a test runs fails that
# test, whatever its exit status.

here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

if [ "${UTRACE_ONLY:-}" = extra ]; then
	tests=$(ls "$here"/extra/*.sh 2>/dev/null)
elif [ -n "${UTRACE_ONLY:-}" ]; then
	tests=$(ls "$here"/tests/*${UTRACE_ONLY}*.sh 2>/dev/null)
else
	tests=$(ls "$here"/tests/*.sh "$here"/extra/*.sh 2>/dev/null)
fi
n=$(echo "$tests" | grep -c .)

echo "### KTAP-BEGIN"
echo "TAP version 13"
echo "1..$n"
i=0 pass=0 fail=0 skip=0
for t in $tests; do
	i=$((i + 1))
	name=$(basename "$t" .sh)
	before=$(dmesg | wc -l)
	out=/tmp/test-$name.log
	(cd /tmp && timeout "${UTRACE_TEST_TIMEOUT:-300}" sh "$t") >"$out" 2>&1
	rc=$?
	splat=$(dmesg | tail -n +"$((before + 1))" | grep -E "$SPLAT_RE" | head -n 5)
	sed 's/^/# /' "$out"
	if [ -n "$splat" ]; then
		echo "# kernel log during $name:"
		echo "$splat" | sed 's/^/#   /'
		rc=1
	fi
	if [ "$rc" = 0 ]; then
		echo "ok $i $name"; pass=$((pass + 1))
	elif [ "$rc" = 4 ]; then
		echo "ok $i $name # SKIP $(tail -n 1 "$out")"; skip=$((skip + 1))
	else
		[ "$rc" = 124 ] && echo "# $name timed out"
		echo "not ok $i $name"; fail=$((fail + 1))
	fi
done
echo "# totals: pass:$pass fail:$fail skip:$skip"
echo "### KTAP-END"
[ "$fail" = 0 ]
