#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the Rust-enabled 6.12 test kernel and print its tree path.
#
#   scripts/kernel.sh [VARIANT]      VARIANT = test (default), or bench: the test
#                                    fragment plus configs/utrace-VARIANT.config
#
# The tree is built outside the checkout, in
#   ${UTRACE_CACHE:-${XDG_CACHE_HOME:-~/.cache}/utrace-rs}/linux-<version>-<VARIANT>-<key>
# where <key> hashes the kernel source version, the config fragment(s) and the
# rustc, clang and bindgen versions. Any change rebuilds; otherwise the tree is
# reused. Progress goes to stderr, the tree path alone to stdout.
set -euo pipefail

variant=${1:-test}
top=$(cd "$(dirname "$0")/.." && pwd)
llvm=${LLVM:--19}
tarball=/usr/src/linux-source-6.12.tar.xz
cache=${UTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/utrace-rs}
export PATH="$HOME/.cargo/bin:$PATH"

log() { printf 'kernel: %s\n' "$*" >&2; }
die() { printf 'kernel: error: %s\n' "$*" >&2; exit 1; }

[ -r "$tarball" ] || die "$tarball missing (run scripts/install-deps.sh)"

fragments=("$top/configs/utrace-test.config")
if [ "$variant" != test ]; then
	[ -r "$top/configs/utrace-$variant.config" ] || die "no configs/utrace-$variant.config"
	fragments+=("$top/configs/utrace-$variant.config")
fi

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
kver=${srcver%%-*}
sub=${kver##*.}
{ [ "${kver%.*}" = 6.12 ] && [ "$sub" -ge 85 ]; } ||
	die "linux-source-6.12 $srcver is too old: 6.12.85 or later builds with rustc 1.95"

key=$( {
	echo "source $srcver"
	cat "${fragments[@]}"
	rustc --version
	"clang$llvm" --version | head -n1
	bindgen --version
	echo "LLVM=$llvm"
} | sha256sum | cut -c1-12)

tree="$cache/linux-$kver-$variant-$key"
stamp="$tree/.utrace-built"
if [ -e "$stamp" ]; then
	log "reusing $tree"
	touch "$stamp" # its last use: see the clean-up below
	echo "$tree"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock-$variant"
flock 9
if [ -e "$stamp" ]; then
	echo "$tree"
	exit 0
fi

# Trees of the same variant built with another key: keep the one used last
# (another checkout, e.g. an older commit, may still be building against it:
# removing it would make that checkout rebuild it at once) and drop the rest.
keep=$(find "$cache" -maxdepth 2 -path "$cache/linux-*-$variant-*/.utrace-built" \
	-printf '%T@ %p\n' 2>/dev/null | sort -rn | head -n 1 | cut -d' ' -f2-)
for old in "$cache"/linux-*-"$variant"-*; do
	[ -d "$old" ] && [ "$old" != "$tree" ] && [ "$old/.utrace-built" != "$keep" ] &&
		{ log "removing stale $old"; rm -rf "$old"; }
done

start=$(date +%s)
rm -rf "$tree" "$tree.tmp"
mkdir -p "$tree.tmp"
log "unpacking linux $srcver"
tar -xJf "$tarball" -C "$tree.tmp" --strip-components=1
mv "$tree.tmp" "$tree"

cd "$tree"
make -s LLVM="$llvm" rustavailable >&2 || die "Rust is not available to this tree"
mkdir -p kernel/configs
names=()
for f in "${fragments[@]}"; do
	cp "$f" kernel/configs/
	names+=("$(basename "$f")")
done
make -s LLVM="$llvm" tinyconfig "${names[@]}" >&2

# Every line of the fragments must have survived Kconfig; a dropped line
# means a missing dependency and a kernel that silently lacks a feature.
missing=0
declare -A want=()
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) want[${line%%=*}]=$line ;;
	"# CONFIG_"*" is not set") opt=${line#\# }; want[${opt%% *}]=$line ;;
	esac
done < <(cat "${fragments[@]}")
# The last fragment's word on an option is the one that must hold.
for opt in "${!want[@]}"; do
	line=${want[$opt]}
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" .config || { log "config did not take: $line"; missing=1; } ;;
	*)
		! grep -q "^$opt=" .config || { log "config did not take: $line"; missing=1; } ;;
	esac
done
[ $missing -eq 0 ] || die "config fragment does not apply cleanly"

log "building bzImage + rust metadata on $(nproc) cores (about 10 minutes cold)"
make -s LLVM="$llvm" -j"$(nproc)" bzImage modules >&2
touch "$stamp"
log "built in $(( $(date +%s) - start )) s: $tree"
echo "$tree"
