#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything utrace-rs needs to build its test kernel, its modules and
# run the QEMU selftests on a Debian 12 machine. Idempotent: a second run only
# checks and prints one line per tool.
set -euo pipefail

BINDGEN_VERSION=0.71.1

APT_PACKAGES=(
	linux-source-6.12
	clang-19 lld-19 llvm-19 libclang-19-dev
	bc bison flex libelf-dev libssl-dev cpio xz-utils make
	qemu-system-x86 busybox-static gdb strace shellcheck
	mmdebstrap python3
)

log() { printf 'deps: %s\n' "$*"; }

missing=()
for p in "${APT_PACKAGES[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	SUDO=
	[ "$(id -u)" -eq 0 ] || SUDO=sudo
	log "installing Debian packages: ${missing[*]}"
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >/dev/null
else
	log "Debian packages present"
fi

# The guest's debugger: gdb-minimal (no Python, so no stdlib to ship) is
# unpacked into the cache rather than installed, since it conflicts with the
# host's full gdb.
cache=${UTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/utrace-rs}
guestgdb=$cache/guest-tools/usr/bin/gdb
if [ ! -x "$guestgdb" ]; then
	log "unpacking gdb-minimal for the guest"
	mkdir -p "$cache/guest-tools"
	tmp=$(mktemp -d)
	chmod 755 "$tmp" # apt's download user must be able to write there
	(cd "$tmp" && apt-get download -qq gdb-minimal >/dev/null) ||
		{ apt-get update -qq && (cd "$tmp" && apt-get download -qq gdb-minimal >/dev/null); }
	dpkg-deb -x "$tmp"/gdb-minimal_*.deb "$cache/guest-tools"
	rm -rf "$tmp"
else
	log "guest gdb present"
fi

if ! command -v rustup >/dev/null 2>&1 && [ -x "$HOME/.cargo/bin/rustup" ]; then
	export PATH="$HOME/.cargo/bin:$PATH"
fi
if ! rustup component list --installed 2>/dev/null | grep -q '^rust-src'; then
	log "adding rustup component rust-src"
	rustup component add rust-src
else
	log "rust-src present"
fi

if ! bindgen --version 2>/dev/null | grep -q "bindgen $BINDGEN_VERSION\$"; then
	log "installing bindgen-cli $BINDGEN_VERSION (about 2 minutes)"
	cargo install --quiet --locked bindgen-cli --version "$BINDGEN_VERSION"
else
	log "bindgen $BINDGEN_VERSION present"
fi
