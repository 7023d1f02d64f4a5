#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: build the Debian package utrace-rs-dkms (debian/) into
# build/deb/utrace-rs-dkms_VERSION_amd64.deb, then run lintian on it.
#
# On Debian 13 (trixie) it builds natively: the build needs
# `apt-get install build-essential debhelper dh-dkms` (README.md, "Use it on
# Debian 13"). Anywhere else (the Debian 12 development machine) it builds in
# a trixie chroot of its own, made once with mmdebstrap (root) under
# ${UTRACE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/utrace-rs}/deb/chroot-<key>;
# UTRACE_DEB_CHROOT=0 forces the native build, =1 the chroot.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/debian.sh"
cache=${UTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/utrace-rs}
out=$top/build/deb
suite=trixie
PACKAGES=(build-essential debhelper dh-dkms cargo rustc lintian)

log() { printf 'deb: %s\n' "$*" >&2; }
die() { printf 'deb: error: %s\n' "$*" >&2; exit 1; }

# The sources: the checkout's files (git's list when it is a clone, with
# uncommitted changes), never its build output.
rm -rf "$out"
mkdir -p "$out/src"
copy_checkout "$top" "$out/src"

codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release 2>/dev/null || true)
use_chroot=${UTRACE_DEB_CHROOT:-}
if [ -z "$use_chroot" ]; then
	if [ "$codename" = "$suite" ]; then use_chroot=0; else use_chroot=1; fi
fi

# The crates of tools/utrace/Cargo.lock, fetched here with this system's
# cargo: the package builds offline from them (debian/rules).
command -v cargo >/dev/null || die "cargo missing: apt-get install cargo"
log "fetching the crates of tools/utrace/Cargo.lock (cargo vendor)"
(cd "$out/src/tools/utrace" && cargo vendor --locked --quiet vendor >/dev/null) ||
	die "cargo vendor failed: crates.io unreachable?"

build=(dpkg-buildpackage -b -us -uc)
if [ "$use_chroot" = 0 ]; then
	(cd "$out/src" && dpkg-checkbuilddeps) ||
		die "the build needs its Build-Depends (above): apt-get install build-essential debhelper dh-dkms cargo"
	log "building natively on $codename"
	(cd "$out/src" && "${build[@]}") >"$out/build.log" 2>&1 || {
		tail -n 40 "$out/build.log" >&2
		die "dpkg-buildpackage failed (log: $out/build.log)"
	}
	run_lintian() { lintian "$@"; }
else
	[ "$(id -u)" = 0 ] || die "building in a $suite chroot needs root (mmdebstrap, chroot); or build on Debian 13"
	command -v mmdebstrap >/dev/null || die "mmdebstrap missing: apt-get install mmdebstrap"
	host_mirrors
	mirror=$MIRROR
	[ -n "$mirror" ] || die "no '$codename' entry in the host's apt sources to take a Debian mirror from"
	key=$(printf '%s\n' "recipe 1 $suite" "${PACKAGES[@]}" "$mirror" | sha256sum | cut -c1-12)
	root=$cache/deb/chroot-$key
	for old in "$cache"/deb/chroot-*; do
		[ -d "$old" ] && [ "$old" != "$root" ] && { log "removing stale $old"; rm -rf "$old"; }
	done
	if [ ! -e "$root/.utrace-ready" ]; then
		log "creating the $suite build chroot (about a minute, 700 MB): $root"
		rm -rf "$root"
		mkdir -p "$cache/deb"
		mmdebstrap --variant=minbase --mode=root --components=main --quiet \
			--include="$(IFS=,; echo "${PACKAGES[*]}")" "$suite" "$root" \
			"deb $mirror $suite main" "deb $mirror $suite-updates main" >&2 ||
			die "mmdebstrap failed"
		touch "$root/.utrace-ready"
	fi
	# in_root CMD...: CMD in the chroot, with build/deb at /build.
	in_root() { chroot_run "$root" "$out:/build" -- "$@"; }
	log "building in the $suite chroot"
	in_root sh -c 'cd /build/src && "$@"' sh "${build[@]}" >"$out/build.log" 2>&1 || {
		tail -n 40 "$out/build.log" >&2
		die "dpkg-buildpackage failed (log: $out/build.log)"
	}
	# lintian as nobody (it warns against root)
	run_lintian() { in_root setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME=/tmp lintian "${@/#$out//build}"; }
fi

deb=$(echo "$out"/utrace-rs-dkms_*_amd64.deb)
[ -f "$deb" ] || die "dpkg-buildpackage made no utrace-rs-dkms_*_amd64.deb (log: $out/build.log)"
rm -rf "$out/src"
# lintian: every tag it reports is listed; the ones debian/ knowingly keeps
# are overridden there with the reason (debian/*.lintian-overrides).
if command -v lintian >/dev/null || [ "$use_chroot" = 1 ]; then
	run_lintian --fail-on error,warning --info "$deb" >&2 || die "lintian reports errors or warnings (above)"
	log "lintian: no errors or warnings"
fi
log "built $deb"
echo "$deb"
