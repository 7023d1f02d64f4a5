# SPDX-License-Identifier: GPL-2.0
#
# Helpers shared by the guest-side selftests. Source it; every check prints
# what it saw when it fails, and `fail` ends the test with exit 1.

MODDIR=/utrace/modules
SPLAT_RE='WARNING:|BUG:|Oops|general protection|Call Trace:|INFO: possible|possible recursive locking|inconsistent lock state|circular locking|lockdep|KASAN|UBSAN|kmemleak|sleeping function called from invalid context|rcu_.*stall|blocked for more than'

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 4; }

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}

# mark: put a unique marker into the kernel log; dmesg_has then only looks
# at what came after the latest marker.
MARK=
mark() {
	MARK="utrace-selftest-mark-$$-$(cat /proc/sys/kernel/random/uuid 2>/dev/null || date +%s%N)"
	echo "$MARK" >/dev/kmsg
}
dmesg_since_mark() {
	if [ -n "$MARK" ]; then dmesg | sed -n "/$MARK/,\$p"; else dmesg; fi
}

# dmesg_has PATTERN: the kernel log (since the mark) has an extended-regex match.
dmesg_has() { dmesg_since_mark | grep -Eq "$1"; }

# loaded NAME: NAME is in the module list.
loaded() { grep -q "^$1 " /proc/modules; }

# load NAME [PARAMS...]: insmod from the module directory.
load() {
	local name=$1; shift
	insmod "$MODDIR/$name.ko" "$@" || fail "insmod $name $* failed"
}

# unload NAME: rmmod and check that it is gone.
unload() {
	rmmod "$1" || fail "rmmod $1 failed"
	! loaded "$1" || fail "$1 still listed after rmmod"
}

# modinfo_field FILE KEY: the value of KEY in a .ko's .modinfo section
# (NUL-separated KEY=value strings; the first may follow other bytes).
modinfo_field() {
	tr '\0' '\n' <"$1" | grep -a -o "$2=.*" | head -n 1 | cut -d= -f2-
}
