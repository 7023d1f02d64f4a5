# SPDX-License-Identifier: GPL-2.0
# utrace_rs.ko loads and unloads cleanly and says so; modinfo is complete.
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh

ko=$MODDIR/utrace_rs.ko
[ -r "$ko" ] || fail "$ko missing"
expect_eq license "$(modinfo_field "$ko" license)" GPL
expect_eq author "$(modinfo_field "$ko" author)" "utrace-rs developers"
desc=$(modinfo_field "$ko" description)
[ -n "$desc" ] || fail "no description"
echo "ok: description = $desc"

! loaded utrace_rs || fail "utrace_rs loaded before the test"
mark
load utrace_rs
loaded utrace_rs || fail "utrace_rs not in /proc/modules after insmod"
dmesg_has 'utrace_rs: loaded' || fail "no init line"
[ -d /sys/module/utrace_rs ] || fail "/sys/module/utrace_rs missing"
unload utrace_rs
dmesg_has 'utrace_rs: unloaded' || fail "no exit line"
[ ! -d /sys/module/utrace_rs ] || fail "/sys/module/utrace_rs left behind"
[ -z "$(cat /proc/modules)" ] || fail "modules left loaded: $(cat /proc/modules)"
echo "ok: load/unload cycle clean"
