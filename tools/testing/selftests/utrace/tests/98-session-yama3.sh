# SPDX-License-Identifier: GPL-2.0
# /dev/utrace under Yama ptrace_scope 3 (no attach at all): nobody and root
# are refused with EPERM, as PTRACE_ATTACH is. Scope 3 cannot be lowered
# until reboot, so this runs late (only 99-lockdown, which attaches to
# nothing, comes after it), and only where the kernel has Yama
# (make check-distro: Debian's kernel).
# shellcheck source=../lib.sh
. /utrace/selftests/lib.sh
[ -e /proc/sys/kernel/yama/ptrace_scope ] || skip "no Yama in this kernel"
load utrace_rs
load utrace_dev
trap 'kill $peer 2>/dev/null; unload_settled utrace_dev; unload_settled utrace_rs' EXIT
runas 65534 /bin/sleep 1000 &
peer=$!
expect_eq "Yama $(cat /proc/sys/kernel/yama/ptrace_scope): root attaches" "$(/utrace/bin/utsess attach $peer)" ok
echo 3 >/proc/sys/kernel/yama/ptrace_scope || fail "cannot set ptrace_scope 3"
expect_eq "Yama 3: root attaches" "$(/utrace/bin/utsess attach $peer)" EPERM
expect_eq "Yama 3: nobody attaches to its own child" "$(runas 65534 /utrace/bin/utsess child | grep -c 'FAIL: attach')" 1
