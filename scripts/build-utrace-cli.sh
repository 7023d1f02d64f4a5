#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the utrace command (tools/utrace, a Cargo workspace) static for the
# guest (x86_64 glibc, -C target-feature=+crt-static: no shared library to
# ship) into build/guest/bin/utrace. Cargo's own build cache
# (build/utrace-target) makes a rebuild with nothing changed take a second.
#
#   scripts/build-utrace-cli.sh          build (dependencies from Cargo.lock)
#   scripts/build-utrace-cli.sh test     cargo test of the workspace (host)
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
ws=$top/tools/utrace
export PATH=$HOME/.cargo/bin:$PATH
export CARGO_TARGET_DIR=$top/build/utrace-target
case ${1:-build} in
test)
	exec cargo test --locked --quiet --manifest-path "$ws/Cargo.toml"
	;;
build)
	# --target: RUSTFLAGS then apply to the program, not to build.rs.
	RUSTFLAGS="-C target-feature=+crt-static" cargo build --locked --quiet --release \
		--target x86_64-unknown-linux-gnu --manifest-path "$ws/Cargo.toml" --bin utrace
	# Only a changed program is copied, and by rename: two runs at once
	# (.ci/run's two check-distro) each call this; a plain install over
	# the same file races (EEXIST) and could hand mkinitramfs half a file.
	bin=$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release/utrace dest=$top/build/guest/bin/utrace
	mkdir -p "$top/build/guest/bin"
	if ! cmp -s "$bin" "$dest"; then
		install -m 0755 "$bin" "$dest.$$" && mv -f "$dest.$$" "$dest"
	fi
	;;
*)
	echo "usage: $0 [build|test]" >&2
	exit 2
	;;
esac
