#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build for and boot a distribution's own Rust-enabled kernel: Debian 13's
# trixie-backports linux-image-7.3.4+deb13-amd64 (see
# Documentation/utrace-rs/distro.rst).
#
#   scripts/distro.sh [prepare]   trixie chroot with Debian's toolchain, the
#                                 kernel's Rust metadata, Debian's vmlinuz;
#                                 prints DISTRO_* shell assignments
#   scripts/distro.sh modules SRC build the modules in SRC (a copy of the
#                                 sources) in the chroot against that kernel,
#                                 then with dkms (dkms-test), whose modules
#                                 replace the plain build's
#   scripts/distro.sh dkms-test [SRC]  dkms add + build of dkms.conf (with
#                                 the sources of SRC, default the checkout)
#                                 in the chroot
#   scripts/distro.sh shell       a shell in the chroot (for debugging)
#
# Everything lives under ${UTRACE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/utrace-rs}/distro:
#   chroot-<key>/               trixie minbase + toolchain; key: the package
#                               list, the suites, the mirrors
#   chroot-<key>/utrace/obj/KVER/  the kernel's object dir with the Rust
#                               metadata (scripts/rust-meta.sh), rebuilt when
#                               the exact dpkg versions of the headers, kbuild,
#                               source, rustc, rust-src, bindgen, pahole,
#                               openssl change
#   boot-<version>/vmlinuz      Debian's unmodified kernel image and modules,
#                               key: the exact linux-binary package version
# Other chroot-*, obj-* and boot-* entries are stale and removed.
# UTRACE_DISTRO_REFRESH=1 runs apt-get update and upgrade in the chroot first
# (new Debian uploads then rebuild what depends on them).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${UTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/utrace-rs}
dcache=$cache/distro
kver=${UTRACE_DISTRO_KVER:-7.3.4+deb13-amd64} # the kernel's ABI name (uname -r)
suite=trixie
kbase=${kver%%+*}                              # 7.3.4
kabi=${kver%-amd64}                            # 7.3.4+deb13
srcpkg=linux-source-${kbase%.*}                # linux-source-7.3
objsub=utrace/obj # inside the chroot

log() { printf 'distro: %s\n' "$*" >&2; }
die() { printf 'distro: error: %s\n' "$*" >&2; exit 1; }

# The toolchain of the kernel: the package names apt resolves. trixie-backports
# is NotAutomatic/ButAutomaticUpgrades, so rustc, rust-src and bindgen come
# from trixie main (the versions the backported kernel was built with); the
# kernel packages are named explicitly and come from backports.
PACKAGES=(build-essential gcc-14 make bc bison flex libelf-dev libssl-dev openssl
	rustc rust-src bindgen cpio kmod rsync xz-utils python3 pahole dkms
	"linux-headers-$kver" "linux-kbuild-$kabi" "$srcpkg")
# The packages whose exact versions are recorded (rust-meta.sh keys on them).
KEYPKGS=("linux-headers-$kver" "linux-kbuild-$kabi" "$srcpkg" gcc-14 rustc rust-src
	bindgen pahole openssl libssl-dev dkms)

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap --mode=root, chroot)"

# The host's Debian mirrors, from its apt sources: never a fixed host name.
mirrors() {
	local codename sites
	codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
	[ -n "$codename" ] || die "cannot read the host's Debian codename from /etc/os-release"
	# shellcheck disable=SC2016 # apt's own $(FIELD) syntax
	sites=$(apt-get indextargets --format '$(SITE) $(RELEASE)' | sort -u)
	MIRROR=$(awk -v r="$codename" '$2 == r { print $1; exit }' <<<"$sites")
	SECURITY=$(awk -v r="$codename-security" '$2 == r { print $1; exit }' <<<"$sites")
	[ -n "$MIRROR" ] || die "no '$codename' entry in the host's apt sources to take a Debian mirror from"
	[ -n "$SECURITY" ] || SECURITY=$MIRROR-security
}

# in_chroot CMD...: run CMD in the chroot with /proc, /dev, the checkout
# read-only at /utrace/top and (when $BIND_SRC is set) $BIND_SRC at
# /utrace/src; private mounts, gone when CMD ends.
in_chroot() {
	# shellcheck disable=SC2016 # the inner script's own arguments
	unshare --mount --propagation private -- /bin/sh -eu -c '
		root=$1; src=$2; top=$3; shift 3
		mount -t proc proc "$root/proc"
		mount --rbind /dev "$root/dev"
		mkdir -p "$root/utrace/top"
		mount --bind "$top" "$root/utrace/top"
		mount -o remount,bind,ro "$root/utrace/top"
		if [ -n "$src" ]; then
			mkdir -p "$root/utrace/src"
			mount --bind "$src" "$root/utrace/src"
		fi
		exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LANG=C.UTF-8 "$@"' sh "$ROOT" "${BIND_SRC:-}" "$top" "$@"
}

setup_chroot() {
	mirrors
	local key
	key=$( {
		echo "recipe 1 $suite minbase"
		printf '%s\n' "${PACKAGES[@]}"
		echo "$MIRROR $SECURITY"
	} | sha256sum | cut -c1-12)
	ROOT=$dcache/chroot-$key
	local old
	for old in "$dcache"/chroot-*; do
		[ -d "$old" ] && [ "$old" != "$ROOT" ] && { log "removing stale $old"; rm -rf "$old"; }
	done
	if [ -e "$ROOT/.utrace-ready" ]; then
		if [ "${UTRACE_DISTRO_REFRESH:-0}" = 1 ]; then
			log "refreshing the chroot's packages"
			in_chroot apt-get update -qq
			in_chroot env DEBIAN_FRONTEND=noninteractive apt-get -y -qq upgrade >&2
			record_versions
		fi
		return
	fi
	command -v mmdebstrap >/dev/null ||
		die "mmdebstrap missing: apt-get install mmdebstrap (scripts/install-deps.sh does)"
	local start=$SECONDS list
	list=$(IFS=,; echo "${PACKAGES[*]}")
	log "creating the $suite chroot (about 2.5 minutes, 2 GB): $ROOT"
	rm -rf "$ROOT"
	mkdir -p "$dcache"
	mmdebstrap --variant=minbase --mode=root --components=main --quiet \
		--skip=cleanup/apt/lists \
		--include="$list" "$suite" "$ROOT" \
		"deb $MIRROR $suite main" "deb $MIRROR $suite-updates main" \
		"deb $SECURITY $suite-security main" "deb $MIRROR $suite-backports main" >&2 ||
		die "mmdebstrap failed (is linux-headers-$kver still in $suite-backports? set UTRACE_DISTRO_KVER)"
	in_chroot apt-get clean
	record_versions
	touch "$ROOT/.utrace-ready"
	log "chroot ready in $((SECONDS - start)) s"
}

record_versions() {
	# shellcheck disable=SC2016 # dpkg-query's own ${field} syntax
	in_chroot dpkg-query -W -f='${Package} ${Version}\n' "${KEYPKGS[@]}" \
		>"$ROOT/.utrace-versions" || die "a toolchain package is missing in $ROOT"
}

# The kernel's Rust metadata, regenerated in the chroot by rust-meta.sh (the
# same script dkms.conf runs on a real Debian machine): toolchain check,
# olddefconfig == Debian's .config, modules_prepare, symbol verification.
setup_meta() {
	OBJ=$objsub/$kver
	in_chroot nice /utrace/top/scripts/rust-meta.sh "$kver" "/$OBJ" >/dev/null
}

# The kernel image as Debian ships it, and the package's modules.
setup_boot() {
	local pkg ver deb
	candidate() { in_chroot apt-cache policy "$1" | awk '/Candidate:/ && $2 != "(none)" { print $2 }'; }
	# linux-binary-* has the image (linux-image-* may be a signed wrapper);
	# older kernels ship it in linux-image-* itself.
	for pkg in "linux-binary-$kver" "linux-image-$kver" ""; do
		[ -n "$pkg" ] || { in_chroot apt-get update -qq; continue; }
		ver=$(candidate "$pkg")
		[ -n "$ver" ] && break
	done
	if [ -z "$ver" ]; then
		for pkg in "linux-binary-$kver" "linux-image-$kver"; do
			ver=$(candidate "$pkg")
			[ -n "$ver" ] && break
		done
	fi
	[ -n "$ver" ] || die "neither linux-binary-$kver nor linux-image-$kver is in $suite-backports"
	BOOT=$dcache/boot-$kver-$ver
	if [ -e "$BOOT/.utrace-ready" ]; then
		return
	fi
	local old
	for old in "$dcache"/boot-*; do
		[ -d "$old" ] && [ "$old" != "$BOOT" ] && { log "removing stale $old"; rm -rf "$old"; }
	done
	local start=$SECONDS
	log "downloading $pkg $ver"
	rm -rf "$BOOT" "$ROOT/utrace/deb"
	mkdir -p "$BOOT/pkg" "$ROOT/utrace/deb"
	chmod 1777 "$ROOT/utrace/deb" # apt-get download runs as _apt
	in_chroot sh -c "cd /utrace/deb && apt-get download -qq '$pkg=$ver'" >&2 ||
		die "apt-get download $pkg=$ver failed"
	deb=$(echo "$ROOT"/utrace/deb/*.deb)
	[ -f "$deb" ] || die "no .deb downloaded for $pkg"
	dpkg-deb -x "$deb" "$BOOT/pkg"
	rm -rf "$ROOT/utrace/deb"
	local img
	img=$(find "$BOOT/pkg" -name "vmlinuz-$kver" -o -name vmlinuz -path "*$kver*" | head -n 1)
	[ -n "$img" ] || die "$pkg has no vmlinuz for $kver"
	ln -sf "${img#"$BOOT"/}" "$BOOT/vmlinuz"
	touch "$BOOT/.utrace-ready"
	log "kernel image ready in $((SECONDS - start)) s"
}

# Build the modules of SRC (a copy of the sources) in the chroot.
build_modules() {
	local src
	src=$(cd "$1" && pwd)
	local mk
	mk=$("$top/scripts/kernel-cc.sh" "$ROOT/$OBJ")
	# shellcheck disable=SC2086 # kernel-cc.sh prints separate words
	BIND_SRC=$src in_chroot nice make -s -C "/$OBJ" M=/utrace/src $mk modules >&2
}

# dkms_test SRC: dkms add + build of SRC's dkms.conf for the kernel in the
# chroot, as a Debian 13 user would run it. PRE_BUILD (rust-meta.sh) finds
# the metadata already made for this kernel (/var/lib/utrace-rs/KVER is the
# chroot's object dir, same key) and only checks it.
dkms_test() {
	local start=$SECONDS from modver src m
	from=$(cd "$1" && pwd)
	modver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
	[ -n "$modver" ] || die "no PACKAGE_VERSION in dkms.conf"
	src=$ROOT/usr/src/utrace-rs-$modver
	in_chroot sh -c "dkms remove -q utrace-rs/$modver --all >/dev/null 2>&1 || true"
	rm -rf "$src" "$ROOT/var/lib/dkms/utrace-rs"
	mkdir -p "$src/scripts" "$src/tools/testing/selftests/utrace" "$ROOT/var/lib/utrace-rs"
	cp "$top/dkms.conf" "$top/scripts/rust-meta.sh" "$top/scripts/kernel-cc.sh" \
		"$top/scripts/dkms.mk" "$src/scripts/"
	mv "$src/scripts/dkms.conf" "$src/"
	cp -r "$from/Kbuild" "$from/include" "$from/rust" "$from/samples" "$from/dev" "$src/"
	cp -r "$from/tools/testing/selftests/utrace/module" \
		"$from/tools/testing/selftests/utrace/module_rs" "$src/tools/testing/selftests/utrace/"
	find "$src" \( -name '*.o' -o -name '*.ko' -o -name '.*.cmd' -o -name '*.mod*' \) -delete
	ln -sfn "/$OBJ" "$ROOT/var/lib/utrace-rs/$kver"
	log "$(in_chroot dkms --version): add, build utrace-rs/$modver for $kver"
	local dlog=$dcache/dkms.log
	if ! { in_chroot dkms add "utrace-rs/$modver" &&
		in_chroot dkms build "utrace-rs/$modver" -k "$kver"; } >"$dlog" 2>&1; then
		cat "$dlog" >&2
		tail -n 60 "$ROOT/var/lib/dkms/utrace-rs/$modver/build/make.log" >&2 2>/dev/null || true
		die "dkms build failed (log: $dlog)"
	fi
	DKMS_OUT=$ROOT/var/lib/dkms/utrace-rs/$modver/$kver/x86_64/module
	local mods
	mods=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\(.*\)"$/\1/p' "$top/dkms.conf")
	for m in $mods; do
		compgen -G "$DKMS_OUT/$m.ko*" >/dev/null || die "dkms build made no $m.ko"
	done
	log "dkms build made the $(echo "$mods" | wc -w) modules of dkms.conf in $((SECONDS - start)) s: $DKMS_OUT"
	echo "DKMS_OUT=$DKMS_OUT"
}

cmd=${1:-prepare}
mkdir -p "$dcache"
exec 9>"$dcache/.lock"
flock 9
setup_chroot
case "$cmd" in
prepare)
	setup_meta
	setup_boot
	printf 'DISTRO_KVER=%q\nDISTRO_ROOT=%q\nDISTRO_KDIR=%q\nDISTRO_VMLINUZ=%q\n' \
		"$kver" "$ROOT" "$ROOT/$OBJ" "$BOOT/vmlinuz"
	;;
modules)
	[ -d "${2:-}" ] || die "usage: $0 modules SRC_DIR"
	setup_meta
	build_modules "$2"
	# The modules DKMS builds replace the plain build's: the guest loads
	# what a Debian 13 user's `dkms install` makes.
	dkms_test "$2"
	for ko in "$DKMS_OUT"/*.ko; do
		dest=$(find "$2" -name "$(basename "$ko")" -not -path '*/.tmp*' | head -n 1)
		[ -n "$dest" ] || die "dkms made $(basename "$ko"), the plain build did not"
		cp "$ko" "$dest"
	done
	;;
dkms-test)
	setup_meta
	dkms_test "${2:-$top}"
	;;
shell)
	in_chroot /bin/bash
	;;
*) die "unknown command '$cmd' (prepare, modules SRC, dkms-test [SRC], shell)" ;;
esac
