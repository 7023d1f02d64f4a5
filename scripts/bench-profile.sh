#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-profile`: where each hot path's instructions go. Boots the
# benchmark kernel like `make bench` (one vCPU, -icount shift=0, nokaslr)
# with QEMU's gdbstub; for each scenario of scripts/guest/bench/profile.sh the
# host single-steps one iteration of the workload and attributes every
# instruction to its function (scripts/bench-profile.py). Writes
# build/profile/profile.md (PROFILE_OUT=DIR: DIR/profile.md). On the
# benchmark kernel the instructions of the syscall hook (both report passes
# inlined) and of the test engine's syscall callbacks are also attributed
# to pieces of a report and source lines (addr2line -i on a debug-info
# build of the same modules): profile.md's "by piece" tables and
# lines-SCENARIO.md.
# PROFILE_SCENARIOS=a,b picks scenarios.
#
# `scripts/bench-profile.sh distro` (`make bench-profile-distro`): the same
# on Debian's 7.3.4 kernel as `make bench-distro` boots it, into
# build/profile-distro; Debian ships no System.map, so the guest prints its
# /proc/kallsyms (nokaslr) for the host.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/boot.sh"
. "$top/scripts/lib/bench.sh"
kernel=${1:-bench}
if [ "$kernel" = distro ]; then
	out=${PROFILE_OUT:-$top/build/profile-distro}
else
	out=${PROFILE_OUT:-$top/build/profile}
fi
mkdir -p "$out"
INITRD=$out/initrd.cpio.gz
bench_prepare "$kernel" profile "$INITRD"
sysmap=$KDIR/System.map
args=(utrace.mode=profile nokaslr norandmaps)
if [ "$kernel" = distro ]; then
	sysmap=- args+=(PROFILE_KSYMS=1)
else
	# The same modules again with debug info, for the host only: the
	# syscall hook's instructions by source line and inlined function
	# (scripts/bench-profile.py checks the code is the same as profiled).
	export PROFILE_MODULE_SRC=$MODULE_SRC
	build_variant_modules profile-debug KRUSTFLAGS=-Cdebuginfo=2 KCFLAGS=-g
	export PROFILE_DEBUG_SRC=$MODULE_SRC
fi
rm -f "$out"/*.trace "$out"/gdb.sock "$out"/ctl.sock
UTRACE_QEMU_EXTRA="$UTRACE_QEMU_EXTRA -chardev socket,id=gdb,path=$out/gdb.sock,server=on,wait=off -gdb chardev:gdb -chardev socket,id=ctl,path=$out/ctl.sock,server=on,wait=off -serial chardev:ctl"
[ -n "${PROFILE_SCENARIOS:-}" ] && args+=("PROFILE_SCENARIOS=$PROFILE_SCENARIOS")
BOOT_LOG=$out/guest.log
rm -f "$BOOT_LOG"
# Its own process group, so that a failure here stops QEMU too.
setsid "$top/scripts/qemu-run.sh" "$BOOT_KERNEL" "$INITRD" "$BOOT_LOG" \
	"${UTRACE_PROFILE_TIMEOUT:-3000}" "${args[@]}" &
qemu=$!
trap 'kill -- -"$qemu" 2>/dev/null || true' EXIT
python3 "$top/scripts/bench-profile.py" "$BOOT_LOG" "$sysmap" \
	"$out/gdb.sock" "$out/ctl.sock" "$out" "$qemu"
wait "$qemu" || true
echo "bench-profile: table in $out/profile.md"
