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
iface_unload
