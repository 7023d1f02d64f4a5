# SPDX-License-Identifier: GPL-2.0
# samples/global_trace: the event stream. A known workload under pid=N gives
# exactly its records, in causal order per task, and nothing from outside
# the subtree; a stalled reader's losses are reported exactly; tasks that
# existed before the module loaded are covered; the stream is root-only;
# bad pid= values fail insmod with a clear errno and message.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
S=/dev/global_trace
load utrace_rs

# --- bad input
for bad in "pid=99999:$ESRCH" "pid=2:$EPERM" "pid=-5:$EINVAL" "pid=abc:$EINVAL" \
	"pid=:$EINVAL" "records=3:$EINVAL"; do
	arg=${bad%%:*} want=${bad#*:}
	mark
	expect_eq "insmod global_trace $arg" "$(modload $MODDIR/global_trace.ko "$arg")" "$want"
	dmesg_has "global_trace" || fail "insmod $arg: no kernel log line says why"
	echo "   says: $(dmesg_since_mark | grep global_trace | tail -n 1 | sed 's/^\[[^]]*\] //')"
done
! loaded global_trace || fail "global_trace loaded after bad input"

# --- a known workload, pid= filtered
# shellcheck disable=SC2016 # the gated sh runs it
pid=$(gated_sh t95 '
	for i in 1 2 3 4 5; do (exit $i) & done; wait
	/bin/true; /bin/true; /bin/true
	sh -c "kill -TERM \$\$"
	exit 0')
load global_trace pid="$pid"
[ -r $S ] || fail "$S missing"
/bin/true & wait   # outside the subtree: must not show up
go t95
wait_until 20 "utrace-top -n $S >>/tmp/t95.rec; grep -q 'DEATH pid=$pid ' /tmp/t95.rec"
cat /tmp/t95.rec
count() { grep -c " $1 " /tmp/t95.rec; }
expect_eq "CLONE records (5 subshells, 3 true, 1 sh)" "$(count CLONE)" 9
expect_eq "EXEC records (3 true, 1 sh)" "$(count EXEC)" 4
expect_eq "DEATH records (9 children and the root)" "$(count DEATH)" 10
expect_eq "exit codes" "$(grep -o 'exit=[0-9]*' /tmp/t95.rec | sort | tr '\n' ' ')" \
	"exit=0 exit=0 exit=0 exit=0 exit=1 exit=2 exit=3 exit=4 exit=5 "
expect_eq "killed by SIGTERM" "$(grep -c 'DEATH .*signal=15' /tmp/t95.rec)" 1
expect_eq "records from outside the subtree" \
	"$(grep -v " ppid=$pid \| pid=$pid " /tmp/t95.rec | grep -vc ' ppid=[0-9]* comm=sh ')" 0
# Causal order per child: CLONE < EXEC < DEATH by sequence number, and the
# sequence numbers count up by one (nothing dropped).
# shellcheck disable=SC2013 # one pid a word
for child in $(sed -n 's/.* CLONE pid=\([0-9]*\) .*/\1/p' /tmp/t95.rec); do
	c=$(awk -v p="$child" '$3 == "CLONE" && $4 == "pid=" p { print $1 }' /tmp/t95.rec)
	d=$(awk -v p="$child" '$3 == "DEATH" && $4 == "pid=" p { print $1 }' /tmp/t95.rec)
	e=$(awk -v p="$child" '$3 == "EXEC" && $4 == "pid=" p { print $1 }' /tmp/t95.rec)
	{ [ -n "$c" ] && [ -n "$d" ] && [ "$c" -lt "$d" ]; } || fail "child $child: CLONE $c, DEATH $d"
	[ -z "$e" ] || { [ "$c" -lt "$e" ] && [ "$e" -lt "$d" ]; } || fail "child $child: EXEC $e out of order"
done
echo "ok: every child's CLONE, EXEC and DEATH are in causal order"
expect_eq "sequence numbers without gaps" "$(awk '{ print $1 }' /tmp/t95.rec | tr '\n' ' ')" \
	"$(seq 1 23 | tr '\n' ' ')"
unload global_trace

# --- escaping and cutting: a path and a comm with bytes that are not
# printable ASCII show them as \t and \xNN (a backslash as it is); a record
# longer than a record holds is cut, its text at 240 bytes and the line at
# 255 (plus the newline), as a prefix of the whole
rm -rf /tmp/t95e
mkdir /tmp/t95e
long=$(printf '%0200d' 0 | tr 0 y)
ln -s /bin/true "/tmp/t95e/$(printf 'a\tb\001c\177d\351e\\f')"
ln -s /bin/true "/tmp/t95e/$long"
# shellcheck disable=SC2016 # the gated sh runs it
pid=$(gated_sh t95e 'for f in /tmp/t95e/*; do "$f"; done; exit 0')
load global_trace pid="$pid"
go t95e
wait_until 20 "utrace-top -n $S >>/tmp/t95e.rec; grep -q 'DEATH pid=$pid ' /tmp/t95e.rec"
cat /tmp/t95e.rec
odd='a\tb\x01c\x7fd\xe9e\f'
expect_eq "EXEC of the odd name, escaped" \
	"$(grep -cF " comm=$odd file=/tmp/t95e/$odd" /tmp/t95e.rec)" 1
line=$(grep " EXEC .* file=/tmp/t95e/yyy" /tmp/t95e.rec)
text=${line#* * }
p=$(echo "$text" | sed -n 's/^EXEC pid=\([0-9]*\) .*/\1/p')
whole="EXEC pid=$p tgid=$p ppid=$pid comm=yyyyyyyyyyyyyyy file=/tmp/t95e/$long"
want=$((${#line} - ${#text} + 240))
[ "$want" -le 255 ] || want=255
expect_eq "the long record's length" "${#line}" "$want"
case "$whole" in
"$text"*) echo "ok: the long record is cut, a prefix of the whole" ;;
*) fail "the long record is not a prefix of the whole: $text" ;;
esac
unload global_trace

# --- a stalled reader: records=16 keeps 15; the rest are counted, exactly
pid=$(gated_sh t95b 'for i in 1 2 3 4 5 6 7 8 9 10; do (exit 0) & done; wait; exit 0')
load global_trace pid="$pid" records=16
go t95b
wait_until 20 "[ ! -d /proc/$pid ]"
utrace-top -n $S >/tmp/t95b.rec
cat /tmp/t95b.rec
expect_eq "records kept" "$(grep -vc DROPPED /tmp/t95b.rec)" 15
expect_eq "the drop notice (21 events, 15 kept)" "$(awk '$3 == "DROPPED" { print $1, $4 }' /tmp/t95b.rec)" "16 6"
unload global_trace

# --- global mode: a task that existed before the module loaded
sleep 1000 &
old=$!
load global_trace
kill $old
wait $old
wait_until 10 "utrace-top -n $S >>/tmp/t95c.rec; grep -q 'DEATH pid=$old .*signal=15' /tmp/t95c.rec"
echo "ok: DEATH of pid $old, which existed before the module loaded"

# --- root only
out=$(runas 65534 /utrace/bin/utrace-top -n $S 2>&1) && fail "a non-root reader opened the stream"
echo "$out" | grep -q "utrace-top: $S: Permission denied" || fail "unexpected: $out"
echo "ok: non-root reader refused: $out"

# --- blocking read and poll: a reader waits for the next record
unload global_trace
pid=$(gated_sh t95d 'exit 7')
load global_trace pid="$pid"
utrace-top -c 1 $S >/tmp/t95d.out &
rpid=$!
sleep 1
kill -0 $rpid 2>/dev/null || fail "the reader did not block: $(cat /tmp/t95d.out)"
go t95d
wait $rpid
grep -q "DEATH.* $pid .*exit 7" /tmp/t95d.out || fail "the woken reader printed: $(cat /tmp/t95d.out)"
cat /tmp/t95d.out
echo "ok: a blocked reader woke for the next record"
mark
unload global_trace
dmesg_has "global_trace: unloaded; 0 record" || fail "records were dropped"
unload utrace_rs
