# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side set-up shared by `make bench`, `make bench-distro` and
# `make bench-profile` (scripts/bench.sh, scripts/bench-profile.sh). Source
# it after scripts/lib/boot.sh.

: "${top:?scripts/lib/bench.sh: set top (the checkout) before sourcing}"

# perf_stage DIR: the host's perf (Debian's linux-perf) and the libraries
# it needs, laid out under DIR as in the guest's root, for the benchmark's
# perf trace rows; fails, with nothing staged, where the host has no perf
# program (a shell wrapper is not one: its perf_X.Y must exist).
perf_stage() {
	local dir=$1 bin
	bin=$(command -v perf 2>/dev/null) || return 1
	if [ "$(head -c 4 "$bin")" != $'\x7fELF' ]; then
		bin=$(find /usr/bin -maxdepth 1 -name 'perf_[0-9]*' | sort -V | tail -n 1)
		[ -n "$bin" ] || return 1
	fi
	rm -rf "$dir"
	install -D -m 0755 "$bin" "$dir/usr/bin/perf"
	ldd "$bin" | grep -o '/[^ ]*' | while read -r lib; do
		install -D -m 0755 "$lib" "$dir$lib"
	done
}

# bench_prepare KERNEL BUILD INITRD: the kernel to boot, the modules built
# for it, the guest programs and the initramfs INITRD. KERNEL is bench (the
# 6.12 benchmark kernel, built and cached by scripts/kernel.sh; the modules
# are built in build/BUILD-src) or distro (Debian's unmodified 7.3.4, as
# `make check-distro` boots it: scripts/distro.sh provides the vmlinuz and
# builds the modules in its trixie chroot, in build/distro-src). Sets KDIR,
# BOOT_KERNEL, MODULE_SRC and the QEMU settings of every benchmark boot: one
# vCPU under -icount shift=0 (a guest "ns" is one guest instruction).
bench_prepare() {
	local kernel=$1 build=$2 initrd=$3
	case "$kernel" in
	bench)
		KDIR=$("$top/scripts/kernel.sh" bench)
		[ -n "$KDIR" ] || { echo "bench: no benchmark kernel" >&2; return 1; }
		# shellcheck disable=SC2034 # boot_guest's (scripts/lib/boot.sh)
		BOOT_KERNEL=$KDIR/arch/x86/boot/bzImage
		build_variant_modules "$build"
		;;
	distro)
		local prep
		prep=$("$top/scripts/distro.sh" prepare) || return 1
		eval "$prep"
		# shellcheck disable=SC2034 # boot_guest's (scripts/lib/boot.sh)
		KDIR=$DISTRO_KDIR BOOT_KERNEL=$DISTRO_VMLINUZ
		build_variant_modules distro
		;;
	*) echo "bench: unknown kernel '$kernel' (bench, distro)" >&2; return 1 ;;
	esac
	"$top/scripts/build-guest-programs.sh"
	local extra=()
	if perf_stage "$top/build/perf-stage"; then
		extra+=("$top/build/perf-stage:/")
	fi
	UTRACE_MODULE_SRC=$MODULE_SRC "$top/scripts/mkinitramfs.sh" "$initrd" "${extra[@]}"
	export UTRACE_QEMU_SMP=1 UTRACE_QEMU_MEM=2G UTRACE_QEMU_EXTRA="-icount shift=0"
}
