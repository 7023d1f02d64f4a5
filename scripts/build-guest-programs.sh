#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guest's test and demo programs (C, static, for the busybox guest)
# into build/guest/bin. Sources: tools/testing/selftests/utrace/progs/*.c and
# the user tools, tools/utrace-top/*.c.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
src=$top/tools/testing/selftests/utrace/progs
out=$top/build/guest/bin
mkdir -p "$out"
# Whether a header of progs/, or the uapi header they include, is newer
# than $1.
headers_newer() {
	local h
	for h in "$src"/*.h "$top/include/uapi/utrace_rs.h"; do
		if [ "$h" -nt "$1" ]; then
			return 0
		fi
	done
	return 1
}
for c in "$src"/*.c "$top"/tools/utrace-top/*.c; do
	[ -e "$c" ] || continue
	bin=$out/$(basename "$c" .c)
	if [ ! -e "$bin" ] || [ "$c" -nt "$bin" ] || headers_newer "$bin"; then
		# By rename: make check-distro may run twice at once (.ci/run).
		gcc -static -O2 -g -Wall -Wextra -Werror -pthread -I"$src" -I"$top/include/uapi" -o "$bin.$$" "$c"
		mv -f "$bin.$$" "$bin"
	fi
done
# The utrace command (Rust, tools/utrace), static.
"$top/scripts/build-utrace-cli.sh"
