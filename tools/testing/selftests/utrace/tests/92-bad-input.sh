# SPDX-License-Identifier: GPL-2.0
# Bad input everywhere a user can reach, and who may reach it:
#  - module parameters out of range, malformed, unknown, or not given;
#  - the event stream's file operations: seeks, pread, writes, ioctls, mmap,
#    a read into a bad buffer, zero-length and byte-by-byte reads, a reader
#    whose fd is closed under it and whose module is then unloaded;
#  - security: stream and control devices are root-only (0400 / 0600, and
#    opening needs CAP_SYS_ADMIN, so a relaxed mode does not let an
#    unprivileged user in), module parameters cannot be changed after load, and a
#    user without CAP_SYS_MODULE cannot aim crash_suspend at anything.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
load utrace_rs
trap 'rmmod global_trace 2>/dev/null; rmmod crash_suspend 2>/dev/null; rmmod utrace_rs' EXIT
EINVAL=-22 ERANGE=-34 ESPIPE=-29 ENOTTY=-25 ENODEV=-19 EFAULT=-14 EAGAIN=-11

# params_readonly MODULE: every parameter file is 0444 and refuses a write,
# even root's.
params_readonly() {
	local p n=0
	for p in /sys/module/"$1"/parameters/*; do
		[ -e "$p" ] || continue
		{ [ "$(stat -c %a "$p")" = 444 ] && ! echo 1 2>/dev/null >"$p"; } || fail "$p is writable"
		n=$((n + 1))
	done
	[ $n -gt 0 ] || fail "$1 shows no parameters in sysfs"
}

# --- parameters (95 and 96 cover bad pid= values; unknown ones are the
# kernel's business: it loads the module and logs "unknown parameter")
for bad in "records=65537:$EINVAL" "records=0:$EINVAL" "records=-1:$EINVAL" \
	"records=99999999999:$ERANGE" "records=1x:$EINVAL"; do
	arg=${bad%:*} want=${bad##*:}
	expect_eq "insmod global_trace $arg" "$(modload $MODDIR/global_trace.ko "$arg")" "$want"
	! loaded global_trace || fail "global_trace loaded with $arg"
done
expect_eq "insmod global_trace records=0x10 (hex is a number)" \
	"$(modload $MODDIR/global_trace.ko records=0x10)" 0
unload global_trace

# --- stream file operations
load global_trace
S=/dev/global_trace
for _ in 1 2 3; do /utrace/bin/stress child; done
out=$(streamio misuse $S)
echo "$out" | sed 's/^/  /'
for want in "badbuf $EFAULT" "pread $ESPIPE" "lseek $ESPIPE" "write $EINVAL" "ioctl $ENOTTY" \
	"ioctl_random $ENOTTY" "mmap $ENODEV" "read0 0" "empty_nonblock $EAGAIN"; do
	echo "$out" | grep -qx "$want" || fail "stream misuse: want '$want'"
done
echo "ok: stream misuse refused with the right errnos"

# Byte-by-byte reads give whole, well-formed records.
for _ in 1 2; do /utrace/bin/stress child; done
out=$(streamio bytewise $S 4) || fail "bytewise read: $out"
echo "$out" | sed 's/^/  /'
expect_eq "records read a byte at a time" "$(echo "$out" | grep -cE '^[0-9]+ [0-9]+ (CLONE|EXEC|DEATH) pid=[0-9]+ ')" 4
seqs=$(echo "$out" | cut -d' ' -f1 | tr '\n' ' ')
# shellcheck disable=SC2086 # split into the four sequence numbers
set -- $seqs
{ [ $(($2 - $1)) = 1 ] && [ $(($3 - $2)) = 1 ] && [ $(($4 - $3)) = 1 ]; } ||
	fail "byte-wise records not consecutive: $seqs"
echo "ok: consecutive sequence numbers $seqs"

# A reader blocked in read() whose fd is closed by another thread keeps the
# file until it returns; unloading the module ends the read with end of file.
# (Traced: a sleeping process, so no record arrives meanwhile.)
unload global_trace
sleep 1000 &
quiet=$!
# shellcheck disable=SC2016 # wait_until evaluates it
wait_until 5 '[ "$(cat /proc/$quiet/comm)" = sleep ]'
load global_trace pid=$quiet
streamio closewait $S >/tmp/t92.cw &
cw=$!
wait_until 5 "grep -q '^close 0' /tmp/t92.cw"
sleep 0.2
grep -q '^read' /tmp/t92.cw && fail "read returned before data or unload: $(cat /tmp/t92.cw)"
unload global_trace
wait $cw
expect_eq "blocked read after close + unload" "$(sed -n 's/^read //p' /tmp/t92.cw)" 0
kill $quiet

# A reader killed while blocked: nothing stays pinned.
load global_trace
utrace-top -n $S >/dev/null
cat $S >/dev/null &
rd=$!
sleep 0.3
kill -9 $rd
wait $rd 2>/dev/null
unload global_trace
echo "ok: a killed blocked reader lets the module go"

# --- security
load global_trace
expect_eq "stream mode" "$(stat -c %a $S)" 400
out=$(runas 65534 /bin/cat $S 2>&1) && fail "nobody read the stream"
echo "ok: nobody cannot read the stream ($out)"
chmod 444 $S 2>/dev/null
out=$(runas 65534 /bin/cat $S 2>&1) && fail "nobody read the stream after chmod 444"
echo "ok: still refused after chmod 444 (open needs CAP_SYS_ADMIN: $out)"
chmod 400 $S
params_readonly global_trace
echo "ok: global_trace parameters are read-only"
unload global_trace

sleep 1000 &
victim=$!
out=$(runas 65534 /utrace/bin/modload $MODDIR/crash_suspend.ko pid=$victim)
expect_eq "insmod crash_suspend by nobody" "$out" -1
! loaded crash_suspend || fail "crash_suspend loaded by nobody"
load crash_suspend pid=$victim
params_readonly crash_suspend
echo "ok: crash_suspend's pid cannot be re-aimed after load"
unload crash_suspend
kill $victim
