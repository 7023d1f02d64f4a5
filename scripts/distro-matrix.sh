#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# `make distro-matrix`: every Rust-enabled Debian kernel ABI, built for and
# loaded. For each entry (a DISTRO_KERNEL of scripts/distro.sh: the newest
# ABI of a suite, flavour and series, resolved from the archive) the modules
# are built in the suite's chroot by the plain build and by `dkms build`,
# Debian's vmlinuz is booted unmodified under QEMU and the guest runs the
# smoke tests (00-module-load, 10-attach: every module loads, an engine
# attaches and reports). The whole suite on these kernels is `make
# check-distro DISTRO_KERNEL=...`; CI runs it on the newest trixie-backports
# and sid kernels.
#
# Environment: DISTRO_MATRIX="ENTRY..." replaces the list below;
# DISTRO_MATRIX_TESTS="WORD..." the smoke tests (UTRACE_ONLY words).
# Logs: build/matrix/ENTRY.log. Prints a table; exits non-zero if an entry
# failed. "n/a" is an ABI the archive no longer has headers for (nothing can
# be built for it, by DKMS either); "refused" a kernel the build refuses
# with its reason (PREEMPT_RT: scripts/rust-meta.sh).
set -uo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
# trixie-backports: the newest ABI of each 7.x series Debian has shipped
# there, both flavours; sid: its one series; PREEMPT_RT: the newest of each
# suite.
default=()
for s in 7.3 7.2 7.1 7.0; do
	default+=("trixie-backports/amd64/$s" "trixie-backports/cloud-amd64/$s")
done
default+=(sid/amd64 sid/cloud-amd64 trixie-backports/rt-amd64 sid/rt-amd64)
read -ra entries <<<"${DISTRO_MATRIX:-${default[*]}}"
tests=${DISTRO_MATRIX_TESTS:-module-load 10-attach}
mkdir -p "$top/build/matrix"

rows=() failed=0
for e in "${entries[@]}"; do
	start=$SECONDS
	log=$top/build/matrix/${e//\//_}.log
	echo "# distro-matrix: $e" >&2
	kver=- ver=- tool=- result=
	if ! prep=$(DISTRO_KERNEL=$e "$top/scripts/distro.sh" prepare 2>"$log"); then
		why=$(sed -n 's/^distro: error: //p; s/^rust-meta: error: //p' "$log" | tail -n 1)
		case $why in
		*"no module can be built for it"*) result="n/a: $why" ;;
		*"which utrace-rs does not support"*) result="refused: $why" ;;
		*) result="FAIL (prepare): ${why:-see $log}"; failed=$((failed + 1)) ;;
		esac
	else
		eval "$prep"
		kver=$DISTRO_KVER
		ver=$(sed -n 's/^distro: kernel [^ ]* (\([^)]*\)).*/\1/p' "$log" | head -n 1)
		tool=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="[^ ]*gcc-\([0-9]*\) .*/gcc-\1/p; s/^CONFIG_RUSTC_VERSION_TEXT="rustc \([^ ]*\) .*/rustc \1/p; s/^CONFIG_BINDGEN_VERSION_TEXT="\(bindgen[^"]*\)"/\1/p' \
			"$DISTRO_KDIR/.config" | paste -sd' ')
		DISTRO_KERNEL=$kver DISTRO_SUITE=$DISTRO_SUITE KDIR=$DISTRO_KDIR BOOT_KERNEL=$DISTRO_VMLINUZ \
			UTRACE_VARIANT=distro UTRACE_ONLY=$tests "$top/scripts/check.sh" >>"$log" 2>&1
		rc=$?
		summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
		if [ "$rc" = 0 ] && [ -n "$summary" ]; then
			result="ok: $summary"
		else
			result="FAIL: ${summary:-no summary} ($(grep -E '^not ok|error:' "$log" | head -n 3 | paste -sd';'))"
			failed=$((failed + 1))
		fi
	fi
	rows+=("$(printf '%-30s %-26s %-18s %-35s %4ss  %s' "$e" "$kver" "$ver" "$tool" $((SECONDS - start)) "$result")")
	echo "${rows[-1]}" >&2
done

echo "# distro-matrix: build (plain and dkms), boot, smoke tests ($tests); logs in build/matrix/"
printf '%-30s %-26s %-18s %-35s %5s  %s\n' entry ABI version "compiler, rustc, bindgen" time result
printf '%s\n' "${rows[@]}"
echo "${#entries[@]} entries, $failed failed"
[ "$failed" = 0 ]
