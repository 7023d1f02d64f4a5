# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side helpers to boot the guest and read its results. Source it with
# KDIR set. boot_guest runs one boot; report_boot prints the guest's KTAP and
# the host's own checks of that boot, and adds to PASS/FAIL/SKIP.

: "${top:?scripts/lib/boot.sh: set top (the checkout) before sourcing}"
# The kernel splat pattern (an extended regex), shared with the guest: one
# alternative a line in splat.re.
SPLAT_RE=$(sed -e '/^#/d' -e '/^$/d' "$top/tools/testing/selftests/utrace/splat.re" | tr '\n' '|')
SPLAT_RE=${SPLAT_RE%|}
[ -n "$SPLAT_RE" ] || { echo "boot.sh: no splat pattern in tools/testing/selftests/utrace/splat.re" >&2; exit 1; }
PASS=0 FAIL=0 SKIP=0
HOST_N=0

# build_variant_modules VARIANT: copy the module sources to build/VARIANT-src
# and build them there against $KDIR (so the checkout's own build, for the
# test kernel, stays as it is) with the compiler the kernel was built with;
# the distro variant builds in its chroot (scripts/distro.sh). Sets MODULE_SRC.
# Further arguments go to make (e.g. KRUSTFLAGS=-Cdebuginfo=2).
build_variant_modules() {
	MODULE_SRC=$top/build/$1-src
	# One per distribution kernel (KDIR is .../obj/KVER): two can run at once.
	[ "$1" = distro ] && MODULE_SRC=$top/build/distro-$(basename "$KDIR")-src
	local d
	mkdir -p "$MODULE_SRC"
	for d in Kbuild include rust samples dev tools/testing/selftests/utrace/module \
		tools/testing/selftests/utrace/module_rs; do
		mkdir -p "$MODULE_SRC/$(dirname "$d")"
		rm -rf "${MODULE_SRC:?}/$d"
		cp -r "$top/$d" "$MODULE_SRC/$d"
	done
	if [ "$1" = distro ]; then
		DISTRO_KERNEL=$(basename "$KDIR") "$top/scripts/distro.sh" modules "$MODULE_SRC" >/dev/null
	else
		# shellcheck disable=SC2046 # kernel-cc.sh prints separate words
		make -s -C "$KDIR" M="$MODULE_SRC" $("$top/scripts/kernel-cc.sh" "$KDIR") "${@:2}" modules >/dev/null
	fi
}

# boot_guest NAME TIMEOUT_S KERNEL_ARGS... ; uses $INITRD and the kernel image
# $BOOT_KERNEL (default: KDIR's bzImage), writes build/NAME.log
boot_guest() {
	local name=$1 limit=$2
	shift 2
	BOOT_LOG=$top/build/$name.log
	local start
	start=$(date +%s.%N)
	"$top/scripts/qemu-run.sh" "${BOOT_KERNEL:-$KDIR/arch/x86/boot/bzImage}" "$INITRD" "$BOOT_LOG" "$limit" "$@"
	BOOT_RC=$?
	BOOT_SECS=$(echo "$(date +%s.%N) - $start" | bc)
	tr -d '\r' <"$BOOT_LOG" >"$BOOT_LOG.tmp" && mv "$BOOT_LOG.tmp" "$BOOT_LOG"
}

host_result() { # host_result OK|FAIL NAME [DETAIL]
	HOST_N=$((HOST_N + 1))
	if [ "$1" = OK ]; then
		echo "ok $HOST_N $2"
		PASS=$((PASS + 1))
	else
		[ -n "${3:-}" ] && printf '%s\n' "$3" | sed 's/^/# /'
		echo "not ok $HOST_N $2"
		FAIL=$((FAIL + 1))
	fi
}

# Counts from the guest's KTAP in $BOOT_LOG: sets G_PASS G_FAIL G_SKIP G_MISSING.
ktap_counts() {
	local ktap
	ktap=$(sed -n '/^### KTAP-BEGIN/,/^### KTAP-END/p' "$BOOT_LOG" |
		grep -E '^(TAP version|1\.\.[0-9]+|ok |not ok |#)')
	KTAP_TEXT=$ktap
	local plan
	plan=$(echo "$ktap" | sed -n 's/^1\.\.\([0-9]*\)$/\1/p' | head -n 1)
	G_SKIP=$(echo "$ktap" | grep -cE '^ok [0-9]+ .*# SKIP')
	G_PASS=$(( $(echo "$ktap" | grep -cE '^ok [0-9]+ ') - G_SKIP ))
	G_FAIL=$(echo "$ktap" | grep -cE '^not ok [0-9]+ ')
	G_MISSING=$(( ${plan:-0} - G_PASS - G_FAIL - G_SKIP ))
	[ -n "$plan" ] || G_MISSING=1
}

# report_boot NAME: print the guest's KTAP and check the boot as a whole.
report_boot() {
	local name=$1
	ktap_counts
	echo "$KTAP_TEXT" | grep -v '^TAP version'
	PASS=$((PASS + G_PASS)) FAIL=$((FAIL + G_FAIL)) SKIP=$((SKIP + G_SKIP))
	echo "# host checks of boot '$name' ($(printf '%.1f' "$BOOT_SECS") s, log build/$name.log)"
	if [ "$G_MISSING" -gt 0 ]; then
		host_result FAIL "$name: every planned guest test reported" \
			"$G_MISSING planned test(s) never reported; last console lines:
$(tail -n 15 "$BOOT_LOG")"
	else
		host_result OK "$name: every planned guest test reported"
	fi
	if [ "$BOOT_RC" = 124 ] || ! grep -q '^### END' "$BOOT_LOG"; then
		host_result FAIL "$name: guest finished within its time limit" \
			"qemu exit $BOOT_RC, no '### END' marker"
	else
		host_result OK "$name: guest finished within its time limit"
	fi
	local splat
	splat=$(grep -E "$SPLAT_RE" "$BOOT_LOG" | grep -v '^#' | head -n 20)
	if [ -n "$splat" ]; then
		host_result FAIL "$name: kernel log free of warnings, oopses and lockdep reports" "$splat"
	else
		host_result OK "$name: kernel log free of warnings, oopses and lockdep reports"
	fi
}
