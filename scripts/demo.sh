#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: boot the test kernel in QEMU and run scripts/guest/demo/demo.sh in the
# guest; shows the guest's console from boot to power-off.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${KDIR:?KDIR must point at the built test kernel (use make demo)}"
. "$top/scripts/lib/boot.sh"
mkdir -p "$top/build"
INITRD=$top/build/demo.cpio.gz
"$top/scripts/mkinitramfs.sh" "$INITRD" || exit 1
# loglevel=3: keep the kernel's own error lines off the console; the demo
# shows them from dmesg where they belong.
boot_guest demo "${UTRACE_DEMO_TIMEOUT:-600}" utrace.mode=demo loglevel=3
sed -n '/^### BOOTED/,/^### DMESG-BEGIN/p' "$BOOT_LOG" | grep -v '^### DMESG-BEGIN'
if ! grep -q '^### END rc=0' "$BOOT_LOG"; then
	echo "demo: the guest did not finish cleanly (log: build/demo.log)" >&2
	exit 1
fi
splat=$(sed -n '/^### DMESG-BEGIN/,/^### DMESG-END/p' "$BOOT_LOG" | grep -E "$SPLAT_RE")
if [ -n "$splat" ]; then
	echo "demo: kernel log has warnings:" >&2
	echo "$splat" >&2
	exit 1
fi
echo "demo: done in $(printf '%.1f' "$BOOT_SECS") s (full console: build/demo.log)"
