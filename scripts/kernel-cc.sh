#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the make variables that build external modules with the compiler the
# kernel in KDIR was built with: the C shim must be compiled by the kernel's
# own compiler (flags, plugins and ABI follow it).
#
#   scripts/kernel-cc.sh KDIR     e.g. "LLVM=-19" (clang-built test kernel) or
#                                 "CROSS_COMPILE=x86_64-linux-gnu- CC=x86_64-linux-gnu-gcc-14 HOSTCC=gcc-14"
#                                 (Debian's GCC-built kernel)
#
# Read from KDIR/.config: CONFIG_CC_IS_CLANG, CONFIG_CLANG_VERSION,
# CONFIG_GCC_VERSION, CONFIG_CC_VERSION_TEXT. LLVM= is never used for a
# GCC-built kernel.
set -euo pipefail

die() { printf 'kernel-cc: error: %s\n' "$*" >&2; exit 1; }

kdir=${1:?usage: kernel-cc.sh KDIR}
cfg=$kdir/.config
[ -r "$cfg" ] || die "no $cfg: is $kdir a configured kernel tree?"

val() { sed -n "s/^$1=\"\{0,1\}\([^\"]*\)\"\{0,1\}\$/\1/p" "$cfg"; }

if [ "$(val CONFIG_CC_IS_CLANG)" = y ]; then
	ver=$(val CONFIG_CLANG_VERSION)
	[ -n "$ver" ] || die "CONFIG_CC_IS_CLANG without CONFIG_CLANG_VERSION in $cfg"
	echo "LLVM=-$((ver / 10000))"
elif [ "$(val CONFIG_CC_IS_GCC)" = y ]; then
	ver=$(val CONFIG_GCC_VERSION)
	text=$(val CONFIG_CC_VERSION_TEXT)
	cc=${text%% *}
	if [ -z "$ver" ] || [ -z "$cc" ]; then
		die "CONFIG_CC_IS_GCC without its version in $cfg"
	fi
	case "$cc" in
	*-gcc*) cross=${cc%gcc*}; echo "CROSS_COMPILE=$cross CC=$cc HOSTCC=gcc-$((ver / 10000))" ;;
	*) echo "CC=$cc HOSTCC=$cc" ;;
	esac
else
	die "$cfg has neither CONFIG_CC_IS_CLANG nor CONFIG_CC_IS_GCC"
fi
