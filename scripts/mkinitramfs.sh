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
chmod 755 "$stage" # the guest's root directory

mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc,utrace/{bin,modules}}
cp /bin/busybox "$stage/bin/busybox"
install -m 0755 "$top/scripts/guest/init.sh" "$stage/init"
echo 'root:x:0:0:root:/:/bin/sh' >"$stage/etc/passwd"
echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>"$stage/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$stage/etc/group"

# Every module the build produced, flat in /utrace/modules.
# UTRACE_MODULE_SRC: where the modules were built (default: the checkout).
modsrc=${UTRACE_MODULE_SRC:-$top}
for dir in rust samples tools dev; do
	[ -d "$modsrc/$dir" ] && find "$modsrc/$dir" -name '*.ko' -exec cp {} "$stage/utrace/modules/" \;
done
cp -r "$top/tools/testing/selftests/utrace" "$stage/utrace/selftests"
# The README: tests run the lines it tells a user to type (54-readme-session).
cp "$top/README.md" "$stage/utrace/README.md"
rm -rf "$stage/utrace/selftests/module"
[ -d "$top/scripts/guest/demo" ] && cp -r "$top/scripts/guest/demo" "$stage/utrace/demo"
[ -d "$top/scripts/guest/bench" ] && cp -r "$top/scripts/guest/bench" "$stage/utrace/bench"
[ -d "$top/build/guest/bin" ] && cp -r "$top/build/guest/bin/." "$stage/utrace/bin/"
# The crash_suspend tools (the list and the core_pattern helper).
mkdir -p "$stage/utrace/bin"
install -m 0755 "$top"/tools/crash-suspend/crash-suspend-core "$top"/tools/crash-suspend/crash-suspend-list "$stage/utrace/bin/"

# add_elf FILE DEST: copy an ELF program and the shared libraries it needs.
add_elf() {
	install -D -m 0755 "$1" "$stage/$2"
	ldd "$1" | grep -o '/[^ ]*' | while read -r lib; do
		[ -e "$stage$lib" ] || install -D -m 0755 "$lib" "$stage$lib"
	done
}

# gdb (gdb-minimal, unpacked by install-deps.sh): the guest's debugger.
cache=${UTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/utrace-rs}
if [ -x "$cache/guest-tools/usr/bin/gdb" ]; then
	add_elf "$cache/guest-tools/usr/bin/gdb" usr/bin/gdb
else
	echo "mkinitramfs: no guest gdb (run scripts/install-deps.sh)" >&2
	exit 1
fi

# strace (the host's, Debian's): the oracle utrace trace is compared with.
if [ -x /usr/bin/strace ]; then
	add_elf /usr/bin/strace usr/bin/strace
else
	echo "mkinitramfs: no /usr/bin/strace (run scripts/install-deps.sh)" >&2
	exit 1
fi

for pair in "$@"; do
	mkdir -p "$stage/${pair#*:}"
	cp -r "${pair%%:*}/." "$stage/${pair#*:}/"
done

(cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) >"$out"
