#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test kernel with an initramfs under QEMU and log the serial console.
#
#   scripts/qemu-run.sh BZIMAGE INITRD LOG TIMEOUT_S [KERNEL_ARGS...]
#
# Software emulation (TCG) always works; KVM is used only when UTRACE_KVM=1
# and a probe boot proves it (on nested kvm-pvm hosts guests die early in
# boot). UTRACE_TCG adds TCG options (e.g. thread=single). Exit status:
# QEMU's, or 124 when the guest ran out of time.
set -uo pipefail

kernel=$1 initrd=$2 log=$3 limit=$4
shift 4

accel=(-accel "tcg${UTRACE_TCG:+,$UTRACE_TCG}" -cpu max)
if [ "${UTRACE_KVM:-0}" = 1 ] && [ -w /dev/kvm ]; then
	accel=(-accel kvm -cpu host)
fi
# UTRACE_QEMU_EXTRA: more QEMU options, separated by blanks.
read -ra extra <<<"${UTRACE_QEMU_EXTRA:-}"
echo "qemu: ${accel[1]}, ${UTRACE_QEMU_SMP:-2} vCPUs, limit ${limit}s" >&2

timeout --foreground -k 5 "$limit" qemu-system-x86_64 "${accel[@]}" \
	-smp "${UTRACE_QEMU_SMP:-2}" -m "${UTRACE_QEMU_MEM:-1G}" \
	-display none -no-reboot -nodefaults -serial stdio \
	"${extra[@]}" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 oops=panic loglevel=4 $*" \
	</dev/null >"$log" 2>&1
