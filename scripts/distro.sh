#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build for and boot a distribution's own Rust-enabled kernel: Debian's
# trixie-backports and sid kernels (see Documentation/utrace-rs/distro.rst).
#
#   scripts/distro.sh [prepare]   the suite's chroot with Debian's toolchain,
#                                 the kernel's Rust metadata, Debian's
#                                 vmlinuz; prints DISTRO_* shell assignments
#   scripts/distro.sh modules SRC build the modules in SRC (a copy of the
#                                 sources) in the chroot against that kernel,
#                                 then with dkms (dkms-test), whose modules
#                                 replace the plain build's
#   scripts/distro.sh dkms-test [SRC]  dkms add + build of dkms.conf (with
#                                 the sources of SRC, default the checkout)
#                                 in the chroot
#   scripts/distro.sh resolve     print the kernel's ABI name only
#   scripts/distro.sh shell       a shell in the chroot (for debugging)
#
# The kernel: DISTRO_KERNEL (make check-distro DISTRO_KERNEL=...), either
#   an ABI name         7.3.4+deb13-amd64 (+deb13: trixie-backports,
#                       +deb14: sid), or
#   SUITE[/FLAVOUR[/X.Y]]  trixie-backports (the default), sid,
#                       trixie-backports/cloud-amd64/7.2: the newest ABI of
#                       that suite, flavour (default amd64) and series, read
#                       from the archive (the linux-headers-FLAVOUR
#                       metapackage, or the newest linux-headers-X.Y.*
#                       package), so a new Debian upload is picked up
#                       without editing this file.
# (UTRACE_DISTRO_KVER, the older name, is read when DISTRO_KERNEL is unset.)
#
# Everything lives under ${UTRACE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/utrace-rs}/debian:
#   chroot-<suite>-<key>/       minbase + the suite's toolchain; key: the
#                               package list, the suites, the mirrors. Other
#                               chroot-<suite>-* are stale and removed.
#   chroot-.../utrace/obj/KVER/ the kernel's object dir with the Rust
#                               metadata (scripts/rust-meta.sh), rebuilt when
#                               the exact dpkg versions of the headers, kbuild,
#                               source, rustc, rust-src, bindgen, pahole,
#                               openssl change. Several kernels side by side;
#                               an older ABI of the same series and flavour is
#                               stale and removed (with its headers).
#   boot-<KVER>_<version>/vmlinuz  Debian's unmodified kernel image, key: the
#                               exact linux-binary package version; other
#                               versions of the same series and flavour are
#                               stale and removed.
# The kernel's packages (headers, kbuild, source) are installed into the
# chroot at the archive's version of the ABI; a name form (not an ABI)
# refreshes the chroot's package lists first (apt-get update).
# UTRACE_DISTRO_REFRESH=1 also runs apt-get upgrade in the chroot (new
# toolchain uploads then rebuild what depends on them).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/debian.sh"
cache=${UTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/utrace-rs}
dcache=$cache/debian
objsub=utrace/obj # inside the chroot

log() { printf 'distro: %s\n' "$*" >&2; }
die() { printf 'distro: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap --mode=root, chroot)"

spec=${DISTRO_KERNEL:-${UTRACE_DISTRO_KVER:-trixie-backports}}
kver='' flavour=amd64 series=''
abi_re='^([0-9]+)\.([0-9]+)\.[0-9]+\+deb([0-9]+)-([a-z0-9-]+)$'
if [[ $spec =~ $abi_re ]]; then
	kver=$spec
	series=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
	flavour=${BASH_REMATCH[4]}
	case ${BASH_REMATCH[3]} in
	13) dsuite=trixie-backports ;;
	14) dsuite=sid ;;
	*) die "DISTRO_KERNEL=$spec: +deb${BASH_REMATCH[3]} is no suite this script knows (+deb13: trixie-backports, +deb14: sid)" ;;
	esac
else
	IFS=/ read -r dsuite f s rest <<<"$spec"
	[ -z "${rest:-}" ] || die "DISTRO_KERNEL=$spec: want an ABI name (7.3.4+deb13-amd64) or SUITE[/FLAVOUR[/X.Y]]"
	[ -n "${f:-}" ] && flavour=$f
	[ -n "${s:-}" ] && series=$s
	[[ $flavour =~ ^[a-z0-9-]+$ ]] || die "DISTRO_KERNEL=$spec: bad flavour '$flavour' (amd64, cloud-amd64, rt-amd64)"
	[[ -z $series || $series =~ ^[0-9]+\.[0-9]+$ ]] || die "DISTRO_KERNEL=$spec: bad series '$series' (X.Y, e.g. 7.2)"
fi

# The suites: where the kernel comes from, the chroot's suite and sources,
# the compiler Debian builds that suite's kernels with, the ABI tag.
case $dsuite in
trixie-backports | trixie)
	# trixie-backports is NotAutomatic/ButAutomaticUpgrades: rustc,
	# rust-src and bindgen come from trixie main (the versions the backported
	# kernels are built with); the kernel packages are named explicitly.
	dsuite=trixie-backports suite=trixie gcc=gcc-14 tag=deb13
	sources() { echo "deb $MIRROR trixie main" "deb $MIRROR trixie-updates main" \
		"deb $SECURITY trixie-security main" "deb $MIRROR trixie-backports main"; }
	;;
sid | unstable)
	dsuite=sid suite=sid gcc=gcc-16 tag=deb14
	sources() { echo "deb $MIRROR sid main"; }
	;;
*) die "DISTRO_KERNEL=$spec: unknown suite '$dsuite' (trixie-backports, sid)" ;;
esac

# The toolchain of the suite's kernels: the package names apt resolves.
PACKAGES=(build-essential "$gcc" make bc bison flex libelf-dev libssl-dev openssl
	rustc rust-src bindgen cpio kmod rsync xz-utils python3 pahole dkms)
# The toolchain packages whose exact versions are recorded.
KEYPKGS=("$gcc" rustc rust-src bindgen pahole openssl libssl-dev dkms)

# The host's Debian mirrors (scripts/lib/debian.sh).
mirrors() {
	host_mirrors
	[ -n "$HOST_CODENAME" ] || die "cannot read the host's Debian codename from /etc/os-release"
	[ -n "$MIRROR" ] || die "no '$HOST_CODENAME' entry in the host's apt sources to take a Debian mirror from"
	[ -n "$SECURITY" ] || SECURITY=$MIRROR-security
}

# in_chroot CMD...: run CMD in the chroot with /proc, /dev, the checkout
# read-only at /utrace/top and (when $BIND_SRC is set) $BIND_SRC at
# /utrace/src; private mounts, gone when CMD ends.
in_chroot() {
	if [ -n "${BIND_SRC:-}" ]; then
		chroot_run "$ROOT" "$top:/utrace/top:ro" "$BIND_SRC:/utrace/src" -- "$@"
	else
		chroot_run "$ROOT" "$top:/utrace/top:ro" -- "$@"
	fi
}
apt_q() { in_chroot env DEBIAN_FRONTEND=noninteractive apt-get -y -qq -o Dpkg::Use-Pty=0 "$@" >/dev/null; }

setup_chroot() {
	mirrors
	local key srcs
	mapfile -t srcs < <(sources | tr ' ' '\n' | paste -d' ' - - - -)
	key=$( {
		echo "recipe 2 $suite minbase no-valid-until"
		printf '%s\n' "${PACKAGES[@]}" "${srcs[@]}"
	} | sha256sum | cut -c1-12)
	ROOT=$dcache/chroot-$suite-$key
	local old
	for old in "$dcache/chroot-$suite-"*; do
		[ -d "$old" ] && [ "$old" != "$ROOT" ] && { log "removing stale $old"; rm -rf "$old"; }
	done
	if [ -e "$ROOT/.utrace-ready" ]; then
		if [ "${UTRACE_DISTRO_REFRESH:-0}" = 1 ]; then
			log "refreshing the chroot's packages"
			apt_q update
			apt_q upgrade
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
	# Valid-Until is not checked (the signatures are): a mirror that is a
	# dated snapshot of the archive serves sid's InRelease past its
	# one-week validity. mmdebstrap keeps the option in the chroot's apt.conf.
	mmdebstrap --variant=minbase --mode=root --components=main --quiet \
		--skip=cleanup/apt/lists --aptopt='Acquire::Check-Valid-Until "false"' \
		--include="$list" "$suite" "$ROOT" "${srcs[@]}" >&2 ||
		die "mmdebstrap of $suite failed"
	in_chroot apt-get clean
	record_versions
	touch "$ROOT/.utrace-ready"
	log "$suite chroot ready in $((SECONDS - start)) s"
	FRESH_LISTS=1
}

record_versions() {
	# shellcheck disable=SC2016 # dpkg-query's own ${field} syntax
	in_chroot dpkg-query -W -f='${Package} ${Version}\n' "${KEYPKGS[@]}" \
		>"$ROOT/.utrace-versions" || die "a toolchain package is missing in $ROOT"
}

# candidate PKG: the version apt would install from $dsuite (empty if none).
candidate() {
	in_chroot apt-cache -o "APT::Default-Release=$dsuite" policy "$1" 2>/dev/null |
		awk '/Candidate:/ && $2 != "(none)" { print $2 }'
}

# The ABI to build for, from the archive's package lists.
resolve_kernel() {
	if [ -z "$kver" ] && [ -z "${FRESH_LISTS:-}" ]; then
		# A name, not an ABI: the archive decides, so ask it.
		apt_q update || log "warning: apt-get update failed: resolving $spec from the package lists of $(stat -c %y "$ROOT/var/lib/apt/lists" | cut -d. -f1)"
		FRESH_LISTS=1
	fi
	if [ -z "$kver" ] && [ -z "$series" ]; then
		# The metapackage names the suite's current ABI.
		kver=$(in_chroot apt-cache -o "APT::Default-Release=$dsuite" depends "linux-headers-$flavour" 2>/dev/null |
			{ grep -E '^ *Depends: linux-headers-[0-9]' || true; } | sed -n "s/^ *Depends: linux-headers-\([0-9][^ ]*+$tag-$flavour\)\$/\1/p" | head -n 1)
		[ -n "$kver" ] || die "$dsuite has no linux-headers-$flavour naming a +$tag kernel (flavours: amd64, cloud-amd64, rt-amd64)"
	elif [ -z "$kver" ]; then
		# (grep finds nothing for a series the archive has no headers of.)
		kver=$(in_chroot apt-cache pkgnames "linux-headers-$series." |
			{ grep -E "^linux-headers-${series//./\\.}\.[0-9]+\+$tag-$flavour\$" || true; } |
			sed 's/^linux-headers-//' | sort -V | tail -n 1)
		if [ -z "$kver" ]; then
			local img
			img=$(in_chroot apt-cache pkgnames "linux-image-$series." |
				{ grep -E "^linux-image-${series//./\\.}\.[0-9]+\+$tag-$flavour\$" || true; } |
				sed 's/^linux-image-//' | sort -V | tail -n 1)
			[ -z "$img" ] || die "$dsuite still has $img's image, but no linux-headers-$series.* for $flavour: its headers, kbuild and source are gone from the archive, so no module can be built for it (a newer ABI can)"
			die "$dsuite has no $series.x kernel for $flavour"
		fi
	fi
	kabi=${kver%-"$flavour"}           # 7.3.4+deb13
	kbase=${kver%%+*}                  # 7.3.4
	srcpkg=linux-source-${kbase%.*}    # linux-source-7.3
	[[ $kver =~ $abi_re ]] || die "unexpected kernel ABI name '$kver'"
	series=${BASH_REMATCH[1]}.${BASH_REMATCH[2]}
	KVERSION=$(candidate "linux-headers-$kver")
	if [ -z "$KVERSION" ] && [ -z "${FRESH_LISTS:-}" ]; then
		apt_q update || true
		FRESH_LISTS=1
		KVERSION=$(candidate "linux-headers-$kver")
	fi
	[ -n "$KVERSION" ] || die "no linux-headers-$kver in $dsuite: is the ABI still in the archive? (DISTRO_KERNEL=$dsuite/$flavour takes the newest)"
}

# The kernel's headers, kbuild and source at the archive's version of the
# ABI; older ABIs of the same series and flavour are stale.
setup_kernel_pkgs() {
	local want=("linux-headers-$kver=$KVERSION" "linux-kbuild-$kabi=$KVERSION" "$srcpkg=$KVERSION")
	local have
	# shellcheck disable=SC2016 # dpkg-query's own ${field} syntax
	have=$(in_chroot dpkg-query -W -f='${db:Status-Abbrev}${Package}=${Version}\n' \
		"linux-headers-$kver" "linux-kbuild-$kabi" "$srcpkg" 2>/dev/null | sed -n 's/^ii *//p' || true)
	if [ "$(printf '%s\n' "${want[@]}" | sort)" != "$(echo "$have" | sort)" ]; then
		log "installing $kver's headers, kbuild and source ($KVERSION) in the $suite chroot"
		# Nothing of ours stays in the chroot's dkms tree (dkms_test adds it):
		# the headers' postinst would run dkms autoinstall, which regenerates
		# the metadata a second time (rust-meta.sh, in /var/lib/utrace-rs)
		# and builds the modules.
		dkms_forget
		apt_q install --no-install-recommends "${want[@]}" ||
			die "cannot install ${want[*]} from $dsuite"
		apt_q clean
	fi
	local d old
	for d in "$ROOT/$objsub"/*; do
		[ -d "$d" ] || continue
		old=${d##*/}
		case $old in *.src) continue ;; esac
		[ "$old" != "$kver" ] || continue
		[ "$(kind "$old")" = "$(kind "$kver")" ] || continue
		log "removing stale $old (superseded by $kver)"
		rm -rf "$d" "$d.src"
		apt_q purge "linux-headers-$old" || true
	done
}

# dkms_forget: remove utrace-rs from the chroot's dkms tree.
dkms_forget() {
	# shellcheck disable=SC2016 # expanded in the chroot
	in_chroot sh -c 'for m in /var/lib/dkms/utrace-rs/*/source; do
		[ -e "$m" ] || continue
		m=${m%/source}; dkms remove -q "utrace-rs/${m##*/}" --all >/dev/null 2>&1 || true
	done'
	rm -rf "$ROOT/var/lib/dkms/utrace-rs"
}

# kind KVER: "series flavour tag": one cache entry of each kind is current.
kind() {
	[[ $1 =~ $abi_re ]] || { echo "$1"; return; }
	echo "${BASH_REMATCH[1]}.${BASH_REMATCH[2]} ${BASH_REMATCH[4]} ${BASH_REMATCH[3]}"
}

# The kernel's Rust metadata, regenerated in the chroot by rust-meta.sh (the
# same script dkms.conf runs on a real Debian machine): toolchain check,
# olddefconfig == Debian's .config, modules_prepare, symbol verification.
setup_meta() {
	OBJ=$objsub/$kver
	in_chroot nice /utrace/top/scripts/rust-meta.sh "$kver" "/$OBJ" >/dev/null
}

# The kernel image as Debian ships it.
setup_boot() {
	local pkg ver deb
	# linux-binary-* has the image (linux-image-* may be a signed wrapper);
	# older kernels ship it in linux-image-* itself.
	for pkg in "linux-binary-$kver" "linux-image-$kver"; do
		ver=$(candidate "$pkg")
		[ -n "$ver" ] && break
	done
	[ -n "$ver" ] || die "neither linux-binary-$kver nor linux-image-$kver is in $dsuite"
	BOOT=$dcache/boot-${kver}_$ver
	local old
	for old in "$dcache"/boot-*_*; do
		[ -d "$old" ] || continue
		[ "$old" != "$BOOT" ] || continue
		old=${old##*/boot-}
		[ "$(kind "${old%%_*}")" = "$(kind "$kver")" ] || continue
		log "removing stale boot-$old (now $kver $ver)"
		rm -rf "$dcache/boot-$old"
	done
	if [ -e "$BOOT/.utrace-ready" ]; then
		return
	fi
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
	dkms_forget
	rm -rf "$src"
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
	local dlog=$dcache/dkms-$suite.log
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
# The cache's layout before it moved to debian/ (one trixie chroot and its
# kernel under distro/): up to 10 GB nobody reads any more.
if [ -d "$cache/distro" ]; then
	log "removing $cache/distro (the old layout of this cache; now $dcache)"
	rm -rf "$cache/distro"
fi
# One lock per suite: its chroot (apt, dkms) and its kernels' entries. Two
# suites are prepared at the same time (make check-distro of each, in CI).
exec 9>"$dcache/.lock-$suite"
flock 9
setup_chroot
resolve_kernel
log "kernel $kver ($KVERSION) from $dsuite; the chroot's toolchain: $(grep -E '^(rustc|bindgen|gcc)' "$ROOT/.utrace-versions" | tr '\n' ' ')"
case "$cmd" in
resolve)
	echo "$kver"
	exit 0
	;;
shell)
	in_chroot /bin/bash
	exit 0
	;;
esac
setup_kernel_pkgs
case "$cmd" in
prepare)
	setup_meta
	setup_boot
	printf 'DISTRO_KVER=%q\nDISTRO_SUITE=%q\nDISTRO_ROOT=%q\nDISTRO_KDIR=%q\nDISTRO_VMLINUZ=%q\n' \
		"$kver" "$dsuite" "$ROOT" "$ROOT/$OBJ" "$BOOT/vmlinuz"
	;;
modules)
	[ -d "${2:-}" ] || die "usage: $0 modules SRC_DIR"
	setup_meta
	build_modules "$2"
	# The modules DKMS builds replace the plain build's: the guest loads
	# what a Debian user's `dkms install` makes.
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
*) die "unknown command '$cmd' (prepare, modules SRC, dkms-test [SRC], resolve, shell)" ;;
esac
