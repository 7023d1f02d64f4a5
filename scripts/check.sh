#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: boot the test kernel in QEMU, run the selftests there, check
# the boot from the host, then prove the runner itself can fail. Prints KTAP
# and ends with "N passed, N failed" (", N skipped" when any). Exits non-zero
# on any failure.
#
# `make check-debug` runs it with UTRACE_VARIANT=debug and KDIR the debug
# kernel (KASAN, kmemleak, lockdep, DEBUG_OBJECTS, failslab): the modules are
# built for it in build/debug-src, the guest runs the same selftests plus a
# kmemleak scan, and the host-only checks (rustfmt, clippy, meta-tests), which
# do not depend on the kernel, are left to `make check`. `make check-distro`
# runs it with UTRACE_VARIANT=distro, KDIR the object dir of Debian's kernel
# in its chroot and BOOT_KERNEL Debian's unmodified vmlinuz
# (scripts/distro.sh): the modules are built in the chroot, in
# build/distro-KVER-src.
#
# Environment: KDIR (required, set by make), UTRACE_CHECK_TIMEOUT (guest time
# limit in seconds, default 1500; 1800 for the debug kernel, whose guest
# takes over 20 minutes on a slow 2-core machine beside another guest),
# UTRACE_META=0 to skip the runner's
# meta-tests, UTRACE_GUARD=0 to skip the hot-path regression guard
# (scripts/bench-guard.sh), UTRACE_ONLY="WORD..." to run only the guest tests
# whose name contains one of the words (and no guard); UTRACE_STRESS_SECS,
# UTRACE_STORM, UTRACE_REARM_SECS, UTRACE_DIFF_SEEDS, UTRACE_DIFF_SEED,
# UTRACE_DIFF_STEPS, UTRACE_DIFF_CALLS, UTRACE_DIFF_BUDGET and
# UTRACE_DIFF_REPORTS (numbers), UTRACE_DIFF_FEATURES and UTRACE_DIFF_MODES
# (letters, commas, / and +: tests/4[79]-*-diff.sh) are passed to the guest
# tests that read them.
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
: "${KDIR:?KDIR must point at the built test kernel (use make check)}"
. "$top/scripts/lib/boot.sh"
mkdir -p "$top/build"
meta=$top/tools/testing/selftests/utrace/meta
start=$(date +%s)

variant=${UTRACE_VARIANT:-test}
boot=check
boot_args=()
if [ "$variant" != test ]; then
	boot=check-$variant
	# One log per distribution kernel (KDIR is .../obj/KVER).
	[ "$variant" = distro ] && boot=check-distro-$(basename "$KDIR")
	UTRACE_META=0
	build_variant_modules "$variant" || { echo "check: module build for $variant failed" >&2; exit 1; }
	# KASAN under TCG runs fork+exec about 4x slower: a smaller storm.
	[ "$variant" = debug ] && export UTRACE_STORM=${UTRACE_STORM:-2000}
	# The differential tests (tests/4[79]-*-diff.sh): as many seeds as
	# 90 s each allow (the guest's whole run must stay within its limit).
	[ "$variant" = debug ] && export UTRACE_DIFF_SEEDS=${UTRACE_DIFF_SEEDS:-100} \
		UTRACE_DIFF_BUDGET=${UTRACE_DIFF_BUDGET:-90}
	# QEMU's TCG CPU offers LA57; with 5-level paging an interrupt during
	# identify_cpu() at boot sometimes trips a KASAN wild-memory-access
	# report in handle_edge_irq (before any module loads). 4-level paging
	# does not: boot the debug kernel with it.
	[ "$variant" = debug ] && boot_args+=(no5lvl)
	export UTRACE_MODULE_SRC=$MODULE_SRC
fi
if [ "$variant" = distro ]; then
	# Debian's own kernel image, booted as shipped (console, debugfs,
	# tracefs and the syscall tracepoints are built in).
	: "${BOOT_KERNEL:?BOOT_KERNEL must be the distribution kernel image (use make check-distro)}"
	# Debian's kernel patches its own text (jump labels: the syscall
	# tracepoints are switched on and off as engines come and go) while
	# other vCPUs run it. Under multi-threaded TCG that once ended in an
	# "Oops: int3" in trace_syscall_exit during 97-stress; single-threaded
	# TCG serialises the vCPUs as real CPUs' code patching expects.
	export UTRACE_TCG=${UTRACE_TCG-thread=single}
fi

echo "TAP version 13"
echo "# utrace-rs selftests on $(basename "$KDIR")"
if [ "$variant" = distro ]; then
	cc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ ]*\) .*/\1/p' "$KDIR/.config")
	cc=${cc##*-linux-gnu-}
	rustc=$(sed -n 's/^CONFIG_RUSTC_VERSION_TEXT="rustc \([^ ]*\) .*/\1/p' "$KDIR/.config")
	host_result OK "distro: modules built for $(basename "$KDIR") by Debian's $cc and rustc $rustc, and by dkms build, in the ${DISTRO_SUITE:-Debian} chroot"
fi

# Every shell script of the project, relative to the top: the host's (bash)
# and the guest's (busybox ash; tools/testing/selftests/utrace/.shellcheckrc
# and the scripts/guest ones' directives check them as dash).
shell_scripts() {
	(cd "$top" && ls scripts/*.sh scripts/lib/*.sh scripts/guest/*.sh scripts/guest/*/*.sh .ci/run \
		tools/testing/selftests/utrace/*.sh tools/testing/selftests/utrace/*/*.sh \
		tools/crash-suspend/crash-suspend-core tools/crash-suspend/crash-suspend-list)
}

# The lib.sh functions named like a program the guest has on its PATH, one
# "NAME (what it shadows)" a line.
shadowed_programs() {
	local st=$top/tools/testing/selftests/utrace f
	{
		for f in "$st"/progs/*.c "$top"/tools/crash-suspend/crash-suspend-core "$top"/tools/crash-suspend/crash-suspend-list; do
			f=${f##*/}
			echo "${f%.c} guest program"
		done
		/bin/busybox --list | sed 's/$/ busybox applet/'
	} | LC_ALL=C sort -k1,1 | LC_ALL=C join - <(sed -n 's/^\([A-Za-z_][A-Za-z_0-9]*\)() *{.*/\1/p' "$st/lib.sh" | LC_ALL=C sort -u) |
		sed 's/^\([^ ]*\) \(.*\)/\1 (shadows the \2)/'
}

# Source checks on the host: formatting, lints, shellcheck, the ABI numbers
# and the module layering are part of the suite.
# They do not depend on the kernel, so only the test variant runs them.
source_checks() {
	local out scripts what
	if out=$(make -s -C "$top" fmt-check 2>&1) && ! echo "$out" | grep -q '^Diff in'; then
		host_result OK "rustfmt (kernel .rustfmt.toml) finds nothing to change"
	else
		host_result FAIL "rustfmt (kernel .rustfmt.toml) finds nothing to change" "$out"
	fi
	if out=$(make -s -C "$top" clippy 2>&1) && ! echo "$out" | grep -qE '^(warning|error)'; then
		host_result OK "CLIPPY=1 build has no warnings"
	else
		host_result FAIL "CLIPPY=1 build has no warnings" "$(echo "$out" | grep -E -A8 '^(warning|error)' | head -n 40)"
	fi
	mapfile -t scripts < <(shell_scripts)
	what="shellcheck finds nothing in the ${#scripts[@]} shell scripts (host: bash; guest: busybox ash, as dash)"
	if out=$(cd "$top" && shellcheck -x -f gcc "${scripts[@]}" 2>&1); then
		host_result OK "$what"
	else
		host_result FAIL "$what" "$(echo "$out" | head -n 40)"
	fi
	what="every copy of the ABI numbers agrees with include/utrace_rs.h and include/uapi/utrace_rs.h, and a drifted one is caught (check-abi.py)"
	if out=$(python3 "$top/scripts/check-abi.py" --self-test 2>&1); then
		host_result OK "$what"
	else
		host_result FAIL "$what" "$out"
	fi
	# The guest tests run programs by name (progs/, busybox applets, the
	# crash-suspend tools): a lib.sh function of the same name would shadow
	# the program in every test (a function 'counter' once broke
	# 46-stop-freezer).
	what="no lib.sh function is named like a guest program or busybox applet"
	if out=$(shadowed_programs); [ -z "$out" ]; then
		host_result OK "$what"
	else
		host_result FAIL "$what" "$out"
	fi
	# crash-suspend.rst's `make install-tools` (and its uninstall).
	what="make install-tools installs crash-suspend-list, crash-suspend-core and utrace-top; uninstall-tools removes them"
	local dest
	dest=$(mktemp -d)
	if out=$(make -s -C "$top" install-tools DESTDIR="$dest" PREFIX=/usr 2>&1) &&
		[ -x "$dest/usr/sbin/crash-suspend-list" ] && [ -x "$dest/usr/sbin/crash-suspend-core" ] &&
		[ -x "$dest/usr/sbin/utrace-top" ] &&
		out=$(make -s -C "$top" uninstall-tools DESTDIR="$dest" PREFIX=/usr 2>&1) &&
		[ -z "$(ls -A "$dest/usr/sbin")" ]; then
		host_result OK "$what"
	else
		host_result FAIL "$what" "$out $(ls -lR "$dest")"
	fi
	rm -rf "$dest"
	what="cargo test of tools/utrace (the utrace crate and command) passes"
	if out=$("$top/scripts/build-utrace-cli.sh" test 2>&1); then
		host_result OK "$what"
	else
		host_result FAIL "$what" "$(echo "$out" | tail -n 40)"
	fi
	what="rust/: no module imports from a later layer's folder, and none in a cycle (check-imports.py)"
	if out=$(python3 "$top/scripts/check-imports.py" 2>&1); then
		host_result OK "$what"
	else
		host_result FAIL "$what" "$out"
	fi
}
[ "$variant" = test ] && source_checks

INITRD=$top/build/$boot.cpio.gz
"$top/scripts/mkinitramfs.sh" "$INITRD" || { echo "check: cannot build the initramfs" >&2; exit 1; }
[ -n "${UTRACE_ONLY:-}" ] && boot_args+=("UTRACE_ONLY=${UTRACE_ONLY// /,}")
mapfile -t -O "${#boot_args[@]}" boot_args < <(env | grep -E '^UTRACE_(STRESS_SECS|STORM|REARM_SECS|DIFF_SEEDS|DIFF_SEED|DIFF_STEPS|DIFF_CALLS|DIFF_BUDGET|DIFF_REPORTS)=[0-9]+$|^UTRACE_DIFF_(FEATURES|MODES)=[A-Za-z,/+]+$')
limit=1500
[ "$variant" = debug ] && limit=1800
boot_guest "$boot" "${UTRACE_CHECK_TIMEOUT:-$limit}" utrace.mode=check "${boot_args[@]}"
report_boot "$boot"

# The hot-path regression guard: instruction counts of the hot paths
# against the numbers committed in the tree (not with UTRACE_ONLY).
if [ "$variant" = test ] && [ -z "${UTRACE_ONLY:-}" ] && [ "${UTRACE_GUARD:-1}" != 0 ]; then
	what="hot paths within 5 % of scripts/bench-guard-expected.txt (instructions, -icount)"
	if out=$("$top/scripts/bench-guard.sh" 2>&1); then
		host_result OK "$what"
		echo "$out" | grep '^bench-guard:' | sed 's/^/# /'
	else
		host_result FAIL "$what" "$(echo "$out" | tail -n 20)"
	fi
fi

if [ "${UTRACE_META:-1}" != 0 ]; then
	echo "# meta-tests: the runner must catch a failing test, a splat, a test's timeout and a hang"
	extra=$(mktemp -d)
	trap 'rm -rf "$extra"' EXIT
	cp "$meta/must-fail.sh" "$meta/splat.sh" "$meta/timeout.sh" "$extra/"
	unset UTRACE_MODULE_SRC
	INITRD=$top/build/meta.cpio.gz
	"$top/scripts/mkinitramfs.sh" "$INITRD" "$extra:utrace/selftests/extra" || exit 1
	boot_guest meta-fail 300 utrace.mode=check UTRACE_ONLY=extra UTRACE_TEST_TIMEOUT=8
	ktap_counts
	if [ "$G_FAIL" = 3 ] && [ "$G_PASS" = 0 ] &&
		echo "$KTAP_TEXT" | grep -q '^not ok [0-9]* must-fail$' &&
		echo "$KTAP_TEXT" | grep -q '^not ok [0-9]* splat$' &&
		grep -q '^### END rc=1' "$BOOT_LOG"; then
		host_result OK "meta: a failing test and a kernel warning are both reported as failed"
	else
		host_result FAIL "meta: a failing test and a kernel warning are both reported as failed" \
			"guest counts: pass=$G_PASS fail=$G_FAIL; KTAP:
$KTAP_TEXT"
	fi
	# Both sleeps listed with their kernel stacks, and gone afterwards
	# (the boot ends at once: no task is left to keep it).
	if echo "$KTAP_TEXT" | grep -q '^not ok [0-9]* timeout$' &&
		grep -q '^# timeout timed out$' "$BOOT_LOG" &&
		[ "$(grep -cE '^# task [0-9]+ S 1 hrtimer_nanosleep sleep$' "$BOOT_LOG")" = 2 ] &&
		grep -q '^#     \[<0>\] hrtimer_nanosleep' "$BOOT_LOG"; then
		host_result OK "meta: a test at its time limit fails, showing the tasks it left and their stacks"
	else
		host_result FAIL "meta: a test at its time limit fails, showing the tasks it left and their stacks" \
			"$(grep -A 14 'timed out; the tasks left' "$BOOT_LOG" | head -n 20)"
	fi

	rm -f "$extra"/*.sh
	cp "$meta/hang.sh" "$extra/"
	"$top/scripts/mkinitramfs.sh" "$INITRD" "$extra:utrace/selftests/extra" || exit 1
	boot_guest meta-hang 20 utrace.mode=check UTRACE_ONLY=extra
	if [ "$BOOT_RC" = 124 ] && ! grep -q '^### END' "$BOOT_LOG"; then
		host_result OK "meta: a guest that hangs is stopped at its time limit and reported"
	else
		host_result FAIL "meta: a guest that hangs is stopped at its time limit and reported" \
			"qemu exit $BOOT_RC (want 124)"
	fi
fi

echo "# make $boot took $(( $(date +%s) - start )) s"
summary="$PASS passed, $FAIL failed"
[ "$SKIP" -gt 0 ] && summary="$summary, $SKIP skipped"
echo "$summary"
[ "$FAIL" = 0 ]
