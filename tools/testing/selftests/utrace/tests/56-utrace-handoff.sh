# SPDX-License-Identifier: GPL-2.0
# utrace trace --handoff-socket / --take (Documentation/utrace-rs/utrace.rst):
# a program makes 400 numbered lseek calls and waits, after 200, in a read
# of its stdin; the first utrace hands its trace over while that read is
# under way, the second prints from the switch. The first prints lseek 0 to
# 199 and the read as unfinished, the second its end and lseek 200 to 399
# and the exit: together every call the program says it made, once. The
# same for utrace events on a shell's tree of 20 /bin/true.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
UT=/utrace/bin/utrace
[ -e /proc/net/unix ] ||
	skip "no unix sockets in this kernel (CONFIG_UNIX): 56-utrace-handoff runs on make check-distro"
load utrace_rs
load utrace_dev
trap 'kill $prog $giver $taker 2>/dev/null; unload_settled utrace_dev; unload_settled utrace_rs' EXIT

rm -f /tmp/t56.sock /tmp/t56.fifo
mkfifo /tmp/t56.fifo
exec 3<>/tmp/t56.fifo
/utrace/bin/uthand seq 400 <&3 3<&- >/tmp/t56.did &
prog=$!
$UT trace -p $prog --handoff-socket /tmp/t56.sock -o /tmp/t56.a 2>/tmp/t56.a.err &
giver=$!
wait_until 20 "[ -S /tmp/t56.sock ] || ! kill -0 $giver" ||
	fail "no socket"
[ -S /tmp/t56.sock ] || fail "the first utrace ended: $(cat /tmp/t56.a.err)"
printf g >&3
# The first half is traced; the program waits in read(0, ...).
wait_until 60 "[ \$(grep -c 'SEEK_SET' /tmp/t56.a) -ge 200 ]"
$UT trace --take /tmp/t56.sock -o /tmp/t56.b 2>/tmp/t56.b.err &
taker=$!
wait $giver || fail "the first utrace exited with $?: $(cat /tmp/t56.a.err)"
cat /tmp/t56.a.err
printf g >&3
wait $taker || fail "the taker exited with $?: $(cat /tmp/t56.b.err)"
cat /tmp/t56.b.err
wait $prog || fail "uthand seq exited with $?"
exec 3>&-
head -n 3 /tmp/t56.a
echo ...
tail -n 2 /tmp/t56.a
echo "--- switch"
head -n 2 /tmp/t56.b
echo ...
tail -n 2 /tmp/t56.b
grep -q 'handed over' /tmp/t56.a.err || fail "the first utrace does not say it handed over"
grep -q 'taken over' /tmp/t56.b.err || fail "the taker does not say it took over"
expect_eq "lseeks before the switch" "$(grep -c 'SEEK_SET' /tmp/t56.a)" 200
expect_eq "lseeks after the switch" "$(grep -c 'SEEK_SET' /tmp/t56.b)" 200
grep -Eq '^read\(0, .* <unfinished \.\.\.>$' /tmp/t56.a || fail "no unfinished read before the switch"
grep -Eq '^<\.\.\. read resumed>\) += 1$' /tmp/t56.b || fail "no resumed read after the switch"
expect_eq "last line after the switch" "$(tail -n 1 /tmp/t56.b)" "+++ exited with 0 +++"
cat /tmp/t56.a /tmp/t56.b | sed -n 's/^lseek([0-9]*, \([0-9]*\), SEEK_SET) *= 0$/\1/p' | sort -n >/tmp/t56.offs
expect_eq "the program's own count" "$(cat /tmp/t56.did)" "lseek 400"
expect_eq "lseek lines of both" "$(wc -l </tmp/t56.offs)" 400
expect_eq "lseek lines twice" "$(uniq -d /tmp/t56.offs | wc -l)" 0
expect_eq "first and last offset" "$(head -n 1 /tmp/t56.offs) $(tail -n 1 /tmp/t56.offs)" "0 399"
echo "ok: 200 lseek lines before the switch, 200 after, none twice, the read across it"

# --- utrace events: a shell runs /bin/true 10 times, waits in a read, runs
# it 10 times more; the tree is handed over while it waits.
rm -f /tmp/t56.esock /tmp/t56.n
exec 3<>/tmp/t56.fifo
/bin/sh -c 'read a; n=0; for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true && n=$((n + 1)); done
read b; for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true && n=$((n + 1)); done; echo $n >/tmp/t56.n' <&3 3<&- &
prog=$!
$UT events -p $prog --handoff-socket /tmp/t56.esock >/tmp/t56.ea 2>/tmp/t56.ea.err &
giver=$!
wait_until 20 "[ -S /tmp/t56.esock ] || ! kill -0 $giver" || fail "no socket"
[ -S /tmp/t56.esock ] || fail "utrace events ended: $(cat /tmp/t56.ea.err)"
printf 'g\n' >&3
wait_until 60 "[ \$(grep -c ' exec /bin/true\$' /tmp/t56.ea) -ge 10 ]"
$UT events --take /tmp/t56.esock >/tmp/t56.eb 2>/tmp/t56.eb.err &
taker=$!
wait $giver || fail "utrace events exited with $?: $(cat /tmp/t56.ea.err)"
printf 'g\n' >&3
wait $taker || fail "utrace events --take exited with $?: $(cat /tmp/t56.eb.err)"
wait $prog
exec 3>&-
tail -n 2 /tmp/t56.ea
echo "--- switch"
head -n 2 /tmp/t56.eb
expect_eq "the shell's own count of /bin/true" "$(cat /tmp/t56.n)" 20
expect_eq "execs before the switch" "$(grep -c ' exec /bin/true$' /tmp/t56.ea)" 10
expect_eq "execs after the switch" "$(grep -c ' exec /bin/true$' /tmp/t56.eb)" 10
expect_eq "processes that exec'd, both sides" \
	"$(cat /tmp/t56.ea /tmp/t56.eb | awk '$4 == "exec" && $5 == "/bin/true" { print $2 }' | sort -u | wc -l)" 20
tail -n 1 /tmp/t56.ea | grep -q " $prog $prog handoff to_engine=" || fail "the holder's last line is not the shell's handoff"
head -n 1 /tmp/t56.eb | grep -q " $prog $prog attached handoff" || fail "the taker's first line is not the shell's attached handoff"
grep -q " $prog $prog death exited=0 group_dead" /tmp/t56.eb || fail "no death of the shell after the switch"
echo "ok: utrace events: 10 execs before the switch, 10 after, 20 processes, once each"

# --- errors: nobody listens; a taker needs no -p
out=$($UT trace --take /tmp/t56.none 2>&1) && fail "--take without a holder succeeded"
echo "$out" | grep -q -- '--take /tmp/t56.none' || fail "--take without a holder: $out"
out=$($UT trace --take /tmp/t56.sock -p 1 2>&1) && fail "--take with -p succeeded"
echo "ok: --take without a holder and --take with -p are refused"
