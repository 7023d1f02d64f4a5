#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: build the benchmark kernel (the test kernel without lockdep
# and atomic-sleep debugging; cached like it), build the modules for it in
# build/bench-src, boot QEMU with one vCPU under -icount shift=0 (a guest
# "ns" is one guest instruction, so numbers repeat across boots and
# machines), run scripts/bench/bench.sh there and print a markdown table of
# ns/op, spread, ratios to the baseline and to ptrace, and the goals.
# Writes the table to build/bench.md. Never fails for slowness.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/boot.sh"
KDIR=$("$top/scripts/kernel.sh" bench)
build_variant_modules bench
"$top/scripts/build-guest-programs.sh"
INITRD=$top/build/bench.cpio.gz
UTRACE_MODULE_SRC=$MODULE_SRC "$top/scripts/mkinitramfs.sh" "$INITRD"
export UTRACE_QEMU_SMP=1 UTRACE_QEMU_MEM=2G UTRACE_QEMU_EXTRA="-icount shift=0"
# BENCH_ROUNDS and BENCH_N_* (see scripts/bench/bench.sh) go to the guest.
mapfile -t bench_args < <(env | grep -E '^BENCH_(ROUNDS|N_[A-Z_]+)=[0-9]+$')
boot_guest bench "${UTRACE_BENCH_TIMEOUT:-3000}" utrace.mode=bench nokaslr norandmaps "${bench_args[@]}"
grep -q '^BENCH-END' "$BOOT_LOG" || {
	echo "bench: the guest did not finish (log: build/bench.log)" >&2
	grep 'BENCH-ERROR' "$BOOT_LOG" >&2 || tail -n 20 "$BOOT_LOG" >&2
	exit 1
}
grep '^RESULT ' "$BOOT_LOG" | python3 "$top/scripts/bench-table.py" | tee "$top/build/bench.md"
echo "bench: $(printf '%.0f' "$BOOT_SECS") s; table in build/bench.md"
