#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side selftest runner: runs every tests/*.sh in name order (plus any
# extra directory named in $UTRACE_EXTRA_TESTS) and prints KTAP between
# markers (UTRACE_ONLY=WORD[,WORD...] on the kernel command line runs only
# the tests whose name contains one of the words). A test passes with exit 0, skips with exit 4 (its last line but
# "teardown: " ones is the reason) and fails otherwise. A kernel splat (WARNING, BUG, lockdep, KASAN,
# sleeping in atomic context, ...) that appears while a test runs fails that
# test, whatever its exit status. On a kernel with kmemleak (make
# check-debug) a last test scans for memory leaked while the tests ran.

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"

if [ "${UTRACE_ONLY:-}" = extra ]; then
	tests=$(ls "$here"/extra/*.sh 2>/dev/null)
elif [ -n "${UTRACE_ONLY:-}" ]; then
	# Several words (make check UTRACE_ONLY="crash signal") come as
	# WORD,WORD: the kernel command line splits at spaces.
	tests=$(for w in $(echo "$UTRACE_ONLY" | tr ',' ' '); do
		ls "$here"/tests/*"$w"*.sh 2>/dev/null
	done | sort -u)
else
	tests=$(ls "$here"/tests/*.sh "$here"/extra/*.sh 2>/dev/null)
fi
n=$(echo "$tests" | grep -c .)
KMEMLEAK=/sys/kernel/debug/kmemleak
if [ -w $KMEMLEAK ]; then
	# What boot left unreferenced is not ours: report it once, then forget it.
	echo scan >$KMEMLEAK
	echo clear >$KMEMLEAK
	n=$((n + 1))
fi

# Every module of ours but utrace_rs, which the others use.
modules=
for f in "$MODDIR"/*.ko; do
	[ "$f" = "$MODDIR/utrace_rs.ko" ] || modules="$modules $(basename "$f" .ko)"
done

echo "### KTAP-BEGIN"
echo "TAP version 13"
echo "1..$n"
i=0 pass=0 fail=0 skip=0
for t in $tests; do
	i=$((i + 1))
	name=$(basename "$t" .sh)
	before=$(dmesg | wc -l)
	out=/tmp/test-$name.log
	t0=$(cut -d' ' -f1 /proc/uptime)
	(cd /tmp && timeout "${UTRACE_TEST_TIMEOUT:-300}" sh "$t") >"$out" 2>&1
	rc=$?
	# A test that timed out: what its tasks were doing (state, wchan and
	# kernel stack of each user task left but the runner's own), the
	# kernel's last lines, then those tasks are killed so that the next
	# test (and the teardown below) does not meet them.
	if [ "$rc" = 124 ] || [ "$rc" = 143 ]; then
		{
			echo "timed out; the tasks left:"
			for p in $(leftover_tasks); do
				task_line "$p"
				sed 's/^/    /' /proc/"$p"/stack 2>/dev/null
			done
			echo "the kernel's last lines:"
			dmesg | tail -n +"$((before + 1))" | tail -n 20
			for p in $(leftover_tasks); do kill -9 "$p" 2>/dev/null; done
		} >>"$out" 2>&1
	fi
	# A test that failed or timed out may leave modules behind: unload them
	# so that the next test starts clean (their failure is reported anyway),
	# every module of ours, utrace_rs last (the others use it), each once
	# its engines are released (unload_settled waits, and says so).
	leftover='' stuck=''
	: >/tmp/teardown.log
	for m in $modules utrace_rs; do
		loaded "$m" || continue
		leftover="$leftover $m"
		[ "$m" = utrace_test ] && [ -w $UT/ctl ] && { utctl release; utctl cleanup; } >/dev/null 2>&1
		unload_settled "$m" >>/tmp/teardown.log 2>&1 || stuck="$stuck $m"
	done
	splat=$(dmesg | tail -n +"$((before + 1))" | grep -E "$SPLAT_RE" | head -n 5)
	sed 's/^/# /' "$out" /tmp/teardown.log
	# Its time, teardown included (CI's budget is spent here).
	secs=$(awk -v a="$t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }')
	echo "$secs $name" >>/tmp/test-times
	echo "# time: $name $secs s"
	[ -n "$stuck" ] && echo "# could not unload after $name:$stuck"
	if [ -n "$splat" ]; then
		echo "# kernel log during $name:"
		echo "$splat" | sed 's/^/#   /'
		rc=1
	fi
	if [ "$rc" = 0 ]; then
		echo "ok $i $name"; pass=$((pass + 1))
	elif [ "$rc" = 4 ]; then
		# (The reason is the line `skip` printed: a teardown after it
		# only adds "teardown: " lines.)
		echo "ok $i $name # SKIP $(grep -v '^teardown: ' "$out" | tail -n 1)"; skip=$((skip + 1))
	else
		[ "$rc" = 124 ] || [ "$rc" = 143 ] && echo "# $name timed out"
		[ -n "$leftover" ] && echo "# $name left loaded:$leftover"
		echo "not ok $i $name"; fail=$((fail + 1))
	fi
done
if [ -w $KMEMLEAK ]; then
	i=$((i + 1))
	# Objects younger than 5 s are never reported; scan twice as the
	# kmemleak documentation advises against transient false positives.
	sleep 6
	echo scan >$KMEMLEAK
	echo scan >$KMEMLEAK
	leaks=$(grep -c 'unreferenced object' $KMEMLEAK)
	if [ "$leaks" = 0 ]; then
		echo "# kmemleak: no unreferenced object after all tests"
		echo "ok $i kmemleak"; pass=$((pass + 1))
	else
		echo "# kmemleak: $leaks unreferenced object(s):"
		head -n 60 $KMEMLEAK | sed 's/^/#   /'
		echo "not ok $i kmemleak"; fail=$((fail + 1))
	fi
fi
[ -s /tmp/test-times ] &&
	echo "# slowest: $(sort -rn /tmp/test-times | head -n 6 | awk '{ s = s (NR > 1 ? ", " : "") $2 " " $1 " s" } END { print s }')"
echo "# totals: pass:$pass fail:$fail skip:$skip"
echo "### KTAP-END"
[ "$fail" = 0 ]
