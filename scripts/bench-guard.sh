#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The hot-path regression guard (`make bench-guard`, and part of
# `make check`): a short run of make bench's hot-path rows on the test
# kernel (KDIR, with the checkout's modules), one vCPU under QEMU
# -icount shift=0 (instruction counts, deterministic), compared with the
# numbers committed in scripts/bench-guard-expected.txt: a metric more than
# 5 % (plus its row's noise allowance) above its committed number fails.
# CALIBRATE=1 rewrites the file from this run instead. Prints one line per
# metric; exits non-zero on a regression.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${KDIR:?KDIR must point at the built test kernel (use make bench-guard)}"
. "$top/scripts/lib/boot.sh"
expected=$top/scripts/bench-guard-expected.txt
INITRD=$top/build/guard.cpio.gz
"$top/scripts/mkinitramfs.sh" "$INITRD"
UTRACE_QEMU_SMP=1 UTRACE_QEMU_MEM=1G UTRACE_QEMU_EXTRA="-icount shift=0" \
	boot_guest guard "${UTRACE_GUARD_TIMEOUT:-900}" utrace.mode=bench nokaslr norandmaps \
	BENCH_PLAN=guard BENCH_ROUNDS=3 BENCH_N_SYS=20000 BENCH_N_FORK=100
grep -q '^BENCH-END' "$BOOT_LOG" || {
	echo "bench-guard: the guest did not finish (log: build/guard.log)" >&2
	grep 'BENCH-ERROR' "$BOOT_LOG" >&2 || tail -n 20 "$BOOT_LOG" >&2
	exit 1
}
echo "bench-guard: guest run $(printf '%.0f' "$BOOT_SECS") s"
if [ "${CALIBRATE:-0}" = 1 ]; then
	grep '^RESULT ' "$BOOT_LOG" | python3 "$top/scripts/bench-guard.py" --calibrate "$expected"
	exit 0
fi
grep '^RESULT ' "$BOOT_LOG" | python3 "$top/scripts/bench-guard.py" "$expected"
