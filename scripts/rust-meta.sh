#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Regenerate the Rust build inputs that a distribution's kernel headers lack
# (rust/*.rmeta, the proc-macro .so, scripts/target.json) for the installed
# kernel KVER, and print the object dir to build external modules against.
# Runs on the Debian system itself (the trixie chroot of scripts/distro.sh,
# or a real Debian 13 machine through dkms.conf's PRE_BUILD).
#
#   scripts/rust-meta.sh KVER OBJ
#
# Needs: linux-headers-KVER, linux-kbuild-*, linux-source-X.Y, the kernel's
# compiler, and exactly the rustc and bindgen the kernel was built with
# (its CONFIG_RUSTC_VERSION_TEXT / CONFIG_BINDGEN_VERSION_TEXT), rust-src,
# pahole, openssl. OBJ is reused while the exact dpkg versions of those
# packages are the ones it was built from (OBJ/.utrace-key), else rebuilt.
#
# Checks: olddefconfig must give Debian's .config unchanged; the rebuilt
# crates must define every Rust symbol (with its crate hash) of the kernel's
# Module.symvers.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
kver=${1:?usage: rust-meta.sh KVER OBJ}
obj=${2:?usage: rust-meta.sh KVER OBJ}

log() { printf 'rust-meta: %s\n' "$*" >&2; }
# progress N WHAT: step N of 3 on stderr and, when stderr is not a terminal
# (DKMS writes a build script's output to its make.log and shows only dots),
# also on the terminal the build was started from, if there is one.
progress() {
	local msg="regenerating the Rust metadata of $kver: step $1 of 3, $2"
	log "$msg"
	if [ ! -t 2 ]; then
		{ printf '\nutrace-rs: %s\n' "$msg" >/dev/tty; } 2>/dev/null || true
	fi
}
die() { printf 'rust-meta: error: %s\n' "$*" >&2; exit 1; }

hdr=/usr/src/linux-headers-$kver
[ -r "$hdr/.config" ] || die "no $hdr/.config: apt-get install linux-headers-$kver"
hdrpkg=$(dpkg-query -S "$hdr/.config" 2>/dev/null | cut -d: -f1 || true)
[ -n "$hdrpkg" ] || hdrpkg=linux-headers-$kver
kbase=$(sed -n 's/^# Linux\/[^ ]* \([0-9]*\.[0-9]*\).* Kernel Configuration$/\1/p' "$hdr/.config")
[ -n "$kbase" ] || die "cannot read the kernel version from $hdr/.config"
srcpkg=linux-source-$kbase
tarball=/usr/src/$srcpkg.tar.xz
[ -r "$tarball" ] || die "no $tarball: apt-get install $srcpkg (the kernel's own source, for its rust/ crates)"

# check_toolchain: rustc and bindgen are the kernel's.
cfgval() { sed -n "s/^$1=\"\(.*\)\"\$/\1/p" "$hdr/.config"; }
grep -qx 'CONFIG_RUST=y' "$hdr/.config" ||
	die "$kver is built without CONFIG_RUST: it cannot load Rust modules"
if grep -qx 'CONFIG_PREEMPT_RT=y' "$hdr/.config"; then
	die "$kver is a PREEMPT_RT kernel, which utrace-rs does not support: its hooks take spinlock_t locks with preemption or interrupts disabled (as the tracepoints of non-RT kernels call them), and PREEMPT_RT's spinlock_t is a sleeping lock. Use the amd64 or cloud-amd64 flavour."
fi
want_rustc=$(cfgval CONFIG_RUSTC_VERSION_TEXT)
want_bindgen=$(cfgval CONFIG_BINDGEN_VERSION_TEXT)
have_rustc=$(rustc --version 2>/dev/null || echo "no rustc")
have_bindgen=$(bindgen --version 2>/dev/null || echo "no bindgen")
if [ "$have_rustc" != "$want_rustc" ] || [ "$have_bindgen" != "$want_bindgen" ]; then
	die "the Rust toolchain does not match kernel $kver:
  needed (the kernel's CONFIG_RUSTC_VERSION_TEXT, CONFIG_BINDGEN_VERSION_TEXT):
    $want_rustc
    $want_bindgen
  found:
    $have_rustc
    $have_bindgen
  Install exactly the rustc and bindgen the kernel was built with (for Debian 13's
  trixie-backports kernel: trixie main's rustc and bindgen, not the backports
  rustc). Rust metadata from another compiler cannot link against this kernel."
fi

key=$( {
	echo "recipe 1 $kver"
	dpkg-query -W -f='${Package} ${Version}\n' "$hdrpkg" "$srcpkg" rustc rust-src bindgen \
		pahole openssl libssl-dev "linux-kbuild-${kver%-*}" 2>&1
	rustc --version
	bindgen --version
	"$here/kernel-cc.sh" "$hdr"
} | sha256sum | cut -c1-16)
if [ "$(cat "$obj/.utrace-key" 2>/dev/null)" = "$key" ]; then
	echo "$obj"
	exit 0
fi

start=$SECONDS
log "regenerating the Rust metadata of $kver in $obj (about 4 minutes on 2 cores; once per kernel)"
read -ra mk <<<"$("$here/kernel-cc.sh" "$hdr")"
cc=${mk[*]}
cc=${cc#*CC=}
cc=${cc%% *}
case " ${mk[*]} " in
*" LLVM="*) command -v "clang${mk[0]#LLVM=}" >/dev/null || die "the kernel is built by clang${mk[0]#LLVM=}: install it" ;;
*) command -v "$cc" >/dev/null || die "the kernel is built by $cc: install it (gcc-14 on Debian 13)" ;;
esac
command -v pahole >/dev/null || die "pahole missing: apt-get install pahole"
command -v openssl >/dev/null ||
	die "openssl missing: Kconfig would drop CONFIG_OPENSSL_SUPPORTS_* and the config would not be Debian's"

# Built in place (the object dir's generated files name its path); the key
# is written last, so an interrupted build is redone.
src=$obj.src
rm -rf "$obj" "$src"
mkdir -p "$src" "$(dirname "$obj")"
progress 1 "unpacking $srcpkg (about 30 seconds)"
tar -xJf "$tarball" -C "$src" --strip-components=1
cp -a "$hdr/." "$obj"
# The headers' own Makefile, scripts and tools point into linux-kbuild: the
# object dir gets a Makefile of its own from O=, and scripts/ is rebuilt.
rm -rf "$obj/scripts" "$obj/tools" "$obj/Makefile"
cp "$hdr/.config" "$obj/.config.distro"
progress 2 "building the kernel's Rust crates (about 3 minutes on 2 cores)"
make -s -C "$src" O="$obj" "${mk[@]}" KERNELRELEASE="$kver" olddefconfig >&2
if ! diff <(grep -v '^#' "$obj/.config.distro" | grep .) \
	<(grep -v '^#' "$obj/.config" | grep .) >&2; then
	die "olddefconfig changed the distribution's .config (diff above): the build environment differs from the kernel's (a missing package?)"
fi
# bindgen formats with rustfmt when it has one (the chroot does not): the
# bindings are the same either way, so its note is dropped.
make -s -C "$src" O="$obj" "${mk[@]}" KERNELRELEASE="$kver" -j"$(nproc)" modules_prepare \
	2> >(grep -v '^Failed to run rustfmt' >&2) >&2

# The rebuilt crates must define every Rust symbol the kernel exports, with
# the same crate hashes (they are part of the mangled names).
progress 3 "checking them against the kernel's Module.symvers (seconds)"
want=$(awk '$2 ~ /^_R/ && $3 == "vmlinux" { print $2 }' "$hdr/Module.symvers" | sort -u)
[ -n "$want" ] || die "$hdr/Module.symvers exports no Rust symbol"
have=$(nm --defined-only "$obj"/rust/*.o | awk '$3 ~ /^_R/ { print $3 }' | sort -u)
missing=$(comm -23 <(echo "$want") <(echo "$have"))
if [ -n "$missing" ]; then
	echo "$missing" | head -n 5 >&2
	die "the rebuilt Rust crates lack $(echo "$missing" | wc -l) of the $(echo "$want" | wc -l) Rust symbols of $kver's Module.symvers: the metadata would not match the kernel"
fi
log "verified: the rebuilt crates define all $(echo "$want" | wc -l) Rust symbols of $kver's Module.symvers (same crate hashes)"
# The source tree stays: the object dir's Makefile includes it.
echo "$key" >"$obj/.utrace-key"
log "done in $((SECONDS - start)) s"
echo "$obj"
