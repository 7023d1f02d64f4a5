# SPDX-License-Identifier: GPL-2.0
# Every documented interface works without debugfs: crash_suspend's
# settings and list, and the event streams (crash_suspend's,
# global_trace's, syscall_trace's), all character devices in /dev. debugfs
# is unmounted for the test (and mounted again after it).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
# shellcheck source=../interfaces.sh
. /utrace/selftests/interfaces.sh
DBG=/sys/kernel/debug
mounted() { grep -q " $DBG debugfs " /proc/mounts; }
trap 'mounted || mount -t debugfs debugfs $DBG' EXIT
if mounted; then
	umount $DBG || fail "cannot unmount $DBG"
fi
! mounted || fail "$DBG still mounted"
echo "ok: debugfs not mounted"
iface_load
iface_exercise "without debugfs"

# A control file held open across the unload of its engine's module: reads
# show what the open saw, a write fails with EIO (no call into the module
# that is gone), and the open file pins utrace_rs, not the engine module.
exec 3<>/dev/crash_suspend_control
unload crash_suspend
[ ! -e /dev/crash_suspend_control ] || fail "/dev/crash_suspend_control outlived crash_suspend"
grep -qx 'comm=crasher' <&3 || fail "the open control file no longer reads its settings"
out=$({ echo max=1 >&3; } 2>&1) && fail "a write after the unload was taken"
echo "$out" | grep -Eqi 'I/O error|Input/output error' || fail "want EIO, got: $out"
echo "ok: a write to the control file after crash_suspend's unload: $out"
! rmmod utrace_rs 2>/dev/null || fail "utrace_rs unloaded under an open control file"
exec 3>&-
iface_unload
