# SPDX-License-Identifier: GPL-2.0
# Every documented interface works under lockdown=integrity, as Debian's
# kernels lock down under Secure Boot: crash_suspend's settings and list,
# and the event streams. (Lockdown refuses writable debugfs files, which
# crash_suspend's settings once were, and unsigned modules: the modules are
# loaded first.) Lockdown cannot be lowered again before a reboot, so this
# test runs last (99-) and leaves the guest locked down. Skipped on a kernel
# without the lockdown LSM (the 6.12 test kernels); Debian's has it.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
# shellcheck source=../interfaces.sh
. /utrace/selftests/interfaces.sh
L=/sys/kernel/security/lockdown
grep -q ' /sys/kernel/security securityfs ' /proc/mounts ||
	mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
[ -e $L ] || skip "no $L: this kernel has no lockdown LSM (CONFIG_SECURITY_LOCKDOWN_LSM)"
echo "lockdown before: $(cat $L)"
# A writable debugfs file (what crash_suspend's settings once were): it
# opens for writing now, not once locked down. (Opened, never written.)
W=/sys/kernel/debug/clear_warn_once
[ -e $W ] && { (exec 3>>$W) || fail "cannot open $W for writing before lockdown"; }
iface_load
echo integrity >$L || fail "cannot raise lockdown to integrity"
grep -q '\[integrity\]' $L || fail "lockdown is not integrity: $(cat $L)"
echo "ok: lockdown now $(cat $L)"
if [ -e $W ]; then
	! (exec 3>>$W) 2>/dev/null || fail "$W opens for writing under lockdown"
	echo "ok: $W (a writable debugfs file) is refused under lockdown"
fi
# Lockdown is on: loading a module that is not signed is refused.
out=$(modload "$MODDIR/utrace_follow_rs.ko")
[ "$out" != 0 ] || fail "an unsigned module loaded under lockdown=integrity"
echo "ok: an unsigned module is refused under lockdown ($out)"
iface_exercise "lockdown=integrity"
iface_unload
