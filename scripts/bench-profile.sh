#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-profile`: where each hot path's instructions go. Boots the
# benchmark kernel like `make bench` (one vCPU, -icount shift=0, nokaslr)
# with QEMU's gdbstub; for each scenario of scripts/bench/profile.sh the
# host single-steps one iteration of the workload and attributes every
# instruction to its function (scripts/bench-profile.py). Writes
# build/profile/profile.md (PROFILE_OUT=DIR: DIR/profile.md).
# PROFILE_SCENARIOS=a,b picks scenarios.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/boot.sh"
KDIR=$("$top/scripts/kernel.sh" bench)
build_variant_modules profile
"$top/scripts/build-guest-programs.sh"
out=${PROFILE_OUT:-$top/build/profile}
mkdir -p "$out"
INITRD=$out/initrd.cpio.gz
UTRACE_MODULE_SRC=$MODULE_SRC "$top/scripts/mkinitramfs.sh" "$INITRD"
rm -f "$out"/*.trace "$out"/gdb.sock "$out"/ctl.sock
export UTRACE_QEMU_SMP=1 UTRACE_QEMU_MEM=2G
export UTRACE_QEMU_EXTRA="-icount shift=0 -chardev socket,id=gdb,path=$out/gdb.sock,server=on,wait=off -gdb chardev:gdb -chardev socket,id=ctl,path=$out/ctl.sock,server=on,wait=off -serial chardev:ctl"
args=(utrace.mode=profile nokaslr norandmaps)
[ -n "${PROFILE_SCENARIOS:-}" ] && args+=("PROFILE_SCENARIOS=$PROFILE_SCENARIOS")
BOOT_LOG=$out/guest.log
rm -f "$BOOT_LOG"
# Its own process group, so that a failure here stops QEMU too.
setsid "$top/scripts/qemu-run.sh" "$KDIR/arch/x86/boot/bzImage" "$INITRD" "$BOOT_LOG" \
	"${UTRACE_PROFILE_TIMEOUT:-3000}" "${args[@]}" &
qemu=$!
trap 'kill -- -"$qemu" 2>/dev/null' EXIT
python3 "$top/scripts/bench-profile.py" "$BOOT_LOG" "$KDIR/System.map" \
	"$out/gdb.sock" "$out/ctl.sock" "$out" "$qemu"
wait "$qemu" || true
echo "bench-profile: table in $out/profile.md"
