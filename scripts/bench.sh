#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench`: build the benchmark kernel (the test kernel without lockdep
# and atomic-sleep debugging; cached like it), build the modules for it in
# build/bench-src, boot QEMU with one vCPU under -icount shift=0 (a guest
# "ns" is one guest instruction, so numbers repeat across boots and
# machines), run scripts/guest/bench/bench.sh there and print a markdown table of
# ns/op, spread, ratios to the baseline and to ptrace, and the goals.
# Writes the table to build/bench.md and the guest's RESULT lines to
# build/bench.results; a full run (no BENCH_PLAN) also writes the table into
# Documentation/utrace-rs/bench-results.inc (scripts/bench-doc.py), the
# table benchmarks.rst shows. Never fails for slowness.
#
# `scripts/bench.sh distro` (`make bench-distro`): the same on Debian's
# unmodified 7.3.4 kernel, as `make check-distro` boots it (scripts/distro.sh:
# its vmlinuz, the modules built in its trixie chroot); by default only the
# syscall, fork, attach and STOP rows (BENCH_PLAN=hot; BENCH_PLAN=full for
# every row).
# Writes build/bench-distro.{md,results}, and, when build/bench.results is
# from the same commit, build/bench-both.md: the two kernels side by side.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/boot.sh"
. "$top/scripts/lib/bench.sh"
kernel=${1:-bench}
name=bench plan=${BENCH_PLAN:-full}
if [ "$kernel" = distro ]; then
	name=bench-distro plan=${BENCH_PLAN:-hot}
fi
mkdir -p "$top/build"
INITRD=$top/build/$name.cpio.gz
bench_prepare "$kernel" bench "$INITRD"
# BENCH_ROUNDS, BENCH_ROUNDS_FORK and BENCH_N_* (see scripts/guest/bench/bench.sh) go
# to the guest.
mapfile -t bench_args < <(env | grep -E '^BENCH_(ROUNDS|ROUNDS_FORK|N_[A-Z_]+)=[0-9]+$')
[ "$plan" = full ] || bench_args+=("BENCH_PLAN=$plan")
boot_guest "$name" "${UTRACE_BENCH_TIMEOUT:-3000}" utrace.mode=bench nokaslr norandmaps "${bench_args[@]}"
grep -q '^BENCH-END' "$BOOT_LOG" || {
	echo "bench: the guest did not finish (log: build/$name.log)" >&2
	grep 'BENCH-ERROR' "$BOOT_LOG" >&2 || tail -n 20 "$BOOT_LOG" >&2
	exit 1
}
results=$top/build/$name.results
{
	echo "BENCH-COMMIT $(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)"
	grep -E '^(RESULT|RAW|BENCH-KERNEL|BENCH-VULN|BENCH-PREEMPT) ' "$BOOT_LOG"
} >"$results"
python3 "$top/scripts/bench-table.py" <"$results" | tee "$top/build/$name.md"
echo "bench: $(printf '%.0f' "$BOOT_SECS") s; table in build/$name.md"
# A full run on the benchmark kernel is the documentation's table.
if [ "$kernel" = bench ] && [ "$plan" = full ]; then
	python3 "$top/scripts/bench-doc.py" "$results" "$top/build/$name.md" \
		"$top/Documentation/utrace-rs/bench-results.inc"
	echo "bench: table written into Documentation/utrace-rs/bench-results.inc"
fi
other=$top/build/bench.results
[ "$kernel" = distro ] || other=$top/build/bench-distro.results
if [ -f "$other" ] && [ "$(head -n 1 "$other")" = "$(head -n 1 "$results")" ]; then
	a=$top/build/bench.results b=$top/build/bench-distro.results
	python3 "$top/scripts/bench-table.py" --compare "$a" "$b" >"$top/build/bench-both.md"
	echo "bench: both kernels, same commit, side by side in build/bench-both.md"
fi
