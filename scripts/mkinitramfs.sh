#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest initramfs: busybox, /init, the modules, the selftests, the
# demo and the guest programs.
#
#   scripts/mkinitramfs.sh OUT.cpio.gz [EXTRA_DIR:GUEST_DIR ...]
#
# EXTRA_DIR:GUEST_DIR pairs copy more host directories into the image (the
# runner's own meta-tests use this to add a test that must fail).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$1; shift
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,utrace/{bin,modules}}
cp /bin/busybox "$stage/bin/busybox"
install -m 0755 "$top/scripts/guest-init.sh" "$stage/init"
echo 'root:x:0:0:root:/:/bin/sh' >"$stage/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"

# Every module the build produced, flat in /utrace/modules.
find "$top/rust" "$top/samples" "$top/tools" -name '*.ko' -exec cp {} "$stage/utrace/modules/" \;
cp -r "$top/tools/testing/selftests/utrace" "$stage/utrace/selftests"
rm -rf "$stage/utrace/selftests/module"
[ -d "$top/scripts/demo" ] && cp -r "$top/scripts/demo" "$stage/utrace/demo"
[ -d "$top/build/guest/bin" ] && cp -r "$top/build/guest/bin/." "$stage/utrace/bin/"

for pair in "$@"; do
	mkdir -p "$stage/${pair#*:}"
	cp -r "${pair%%:*}/." "$stage/${pair#*:}/"
done

(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
