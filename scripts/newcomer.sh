#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make newcomer-test: README.md's Debian lines, verbatim, on a fresh Debian 13
# system, as a new user would type them (slow; not in CI).
#
#  1. a fresh trixie system with systemd (mmdebstrap; the apt sources trixie,
#     -updates, -security and -backports) and a copy of this checkout in
#     /root/utrace-rs;
#  2. the README's lines between the "newcomer-test" markers before `reboot`
#     run there in a chroot, on a terminal (script(1)), from /root/utrace-rs:
#     the kernel from backports, `make deb`, `apt install` of the package,
#     whose DKMS build regenerates the Rust metadata and builds the modules;
#  3. `reboot`: the system, as an ext4 disk image, boots Debian's 7.3.4
#     kernel (its vmlinuz and the initramfs the chroot made) under QEMU (TCG)
#     with systemd, which loads crash_suspend at boot (the README's
#     modules-load.d and modprobe.d lines); a unit then runs the README's
#     lines after `reboot`, verbatim, and the checks: the modules loaded by
#     modprobe, crash_suspend's settings from /etc/modprobe.d, a crashing
#     program held and listed by crash-suspend-list, then `apt purge` of the
#     package: the modules and the 2 GB /var/lib/utrace-rs gone.
#
# Why the chroot for step 2: the DKMS build (mostly the kernel's Rust crates)
# takes about 4 minutes on the host's cores and many times that under TCG;
# apt, dpkg and DKMS do the same there as on a booted system, but for which
# kernel DKMS builds (in a chroot: every kernel with headers; booted: the
# running and the newest one, the same 7.3.4 here). Everything that needs the
# booted kernel (modprobe, boot-time loading, a crash, removal) runs under QEMU.
#
# Needs root, mmdebstrap, qemu-system-x86_64, mke2fs (e2fsprogs), about 10 GB
# in UTRACE_NEWCOMER_DIR (default build/newcomer, emptied first). Knobs:
# UTRACE_NEWCOMER_TIMEOUT (seconds for the boot, default 1800),
# UTRACE_QEMU_SMP (default 2), UTRACE_QEMU_MEM (default 2G).
# Ends with "newcomer-test: PASS" or "newcomer-test: FAIL ..." (exit 1).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/lib/debian.sh"
work=${UTRACE_NEWCOMER_DIR:-$top/build/newcomer}
root=$work/root
img=$work/disk.img
suite=trixie
start=$SECONDS

log() { printf 'newcomer-test: %s\n' "$*" >&2; }
die() { printf 'newcomer-test: FAIL: %s\n' "$*" >&2; exit 1; }
phase() { log "[$((SECONDS - start)) s] $*"; }

[ "$(id -u)" = 0 ] || die "needs root (mmdebstrap --mode=root, chroot, mke2fs -d)"
for c in mmdebstrap qemu-system-x86_64 mke2fs script unshare; do
	command -v "$c" >/dev/null || die "$c missing (apt-get install mmdebstrap qemu-system-x86 e2fsprogs util-linux)"
done

# The README's lines: the indented block between the markers, comments and
# blank lines dropped; the ones before `reboot` and the ones after it.
lines=$(awk '/<!-- newcomer-test: begin -->/ { on = 1; next }
	/<!-- newcomer-test: end -->/ { on = 0 }
	on && /^    / { sub(/^    /, ""); if ($0 !~ /^#/) print }' "$top/README.md")
before=$(awk '/^reboot([ \t]|$)/ { exit } { print }' <<<"$lines")
after=$(awk 'done { print } /^reboot([ \t]|$)/ { done = 1 }' <<<"$lines")
if [ -z "$before" ] || [ -z "$after" ]; then
	die "README.md has no newcomer-test block with a 'reboot' line in it"
fi
kver=$(sed -n 's/.*linux-image-\([^ ]*\).*/\1/p' <<<"$before" | head -n 1)
[ -n "$kver" ] || die "the README's lines install no linux-image-KVER"

# mkscript FILE LINES: a bash script that prints and runs each line, as
# typed, and stops at the first that fails.
mkscript() {
	local line
	{
		echo '#!/bin/bash'
		echo 'set -e'
		echo 'cd /root/utrace-rs'
		while IFS= read -r line; do
			# shellcheck disable=SC2016 # $SECONDS of the generated script
			printf 'printf "README# [%%d s] %%s\\n" "$SECONDS" %q\n' "$line"
			printf '%s\n' "$line"
		done <<<"$2"
	} >"$1"
	chmod +x "$1"
}

# 1. The fresh system.
host_mirrors
mirror=${MIRROR:-http://deb.debian.org/debian}
security=${SECURITY:-http://deb.debian.org/debian-security}
rm -rf "$work"
mkdir -p "$work"
phase "a fresh $suite system with systemd (mmdebstrap): $root"
mmdebstrap --variant=minbase --mode=root --components=main --quiet \
	--include=systemd-sysv,udev,kmod,procps,e2fsprogs,ca-certificates "$suite" "$root" \
	"deb $mirror $suite main" "deb $mirror $suite-updates main" \
	"deb $security $suite-security main" "deb $mirror $suite-backports main" ||
	die "mmdebstrap failed"
# What a person at the keyboard does: answers apt's question with yes.
echo 'APT::Get::Assume-Yes "true";' >"$root/etc/apt/apt.conf.d/90newcomer-test"
echo newcomer >"$root/etc/hostname"
# `make deb` fetches crates from crates.io (cargo vendor) over https. This
# network reaches it only through the certificate authorities the host was
# given: the fresh system trusts them too, as a machine here would.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
	mkdir -p "$root/usr/local/share/ca-certificates"
	cp /usr/local/share/ca-certificates/*.crt "$root/usr/local/share/ca-certificates/"
	chroot "$root" update-ca-certificates >/dev/null || die "update-ca-certificates failed"
fi
# The checkout, as cloned (with uncommitted changes, never build output).
mkdir -p "$root/root/utrace-rs"
copy_checkout "$top" "$root/root/utrace-rs"

# 2. The README's lines before `reboot`, in the chroot, on a terminal.
mkscript "$root/root/readme-before-reboot.sh" "$before"
phase "the README's lines before 'reboot', in the chroot:"
printf '    %s\n' "${before//$'\n'/$'\n'    }" >&2
# shellcheck disable=SC2016 # the inner script's own arguments
inner='root=$1; shift
	mount -t proc proc "$root/proc"
	mount -t sysfs sys "$root/sys"
	mount --rbind /dev "$root/dev"
	exec chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "$@"'
ok=1
SHELL=/bin/bash script -qefc "$(printf '%q ' unshare --mount --propagation private -- /bin/sh -eu -c "$inner" sh \
	"$root" /root/readme-before-reboot.sh)" "$work/before-reboot.log" </dev/null >/dev/null || ok=0
# The lines as run, DKMS's steps and the build's progress (the whole
# terminal output is in the log).
tr -d '\r' <"$work/before-reboot.log" |
	grep -aE '^README# |^utrace-rs: |^Building for|^Building initial module|^Running the pre_build|^Signing module|^Installing /|^Sign command|^Signing key|^Public certificate|^Module utrace|rust-meta: error' |
	sed 's/^/    /' >&2 || true
[ "$ok" = 1 ] || die "a README line before 'reboot' failed (log: $work/before-reboot.log)"
phase "the README's lines before 'reboot' passed"

# What they left: the product modules for the kernel, no selftest engine,
# and the Rust metadata cache.
upd=$root/lib/modules/$kver/updates/dkms
for m in utrace_rs crash_suspend global_trace syscall_trace; do
	compgen -G "$upd/$m.ko*" >/dev/null || die "DKMS installed no $m for $kver ($upd)"
done
for m in utrace_test probe_floor utrace_follow_rs utrace_api_rs; do
	! compgen -G "$upd/$m.ko*" >/dev/null || die "DKMS installed the selftest module $m"
done
[ -d "$root/var/lib/utrace-rs/$kver" ] || die "no Rust metadata in /var/lib/utrace-rs/$kver"
log "installed for $kver: $(cd "$upd" && echo *); /var/lib/utrace-rs: $(du -sh "$root/var/lib/utrace-rs" | cut -f1)"
grep -aq '^utrace-rs: regenerating the Rust metadata of .*: step 3 of 3' "$work/before-reboot.log" ||
	die "the build showed no progress on the terminal ('regenerating the Rust metadata ... step N of 3')"

# 3. `reboot`: the guest's part, run by a systemd unit after boot.
mkscript "$root/root/readme-after-reboot.sh" "$after"
cat >"$root/root/newcomer-guest.sh" <<EOF
#!/bin/bash
# The newcomer test's part on the booted system (scripts/newcomer.sh).
kver='$kver'
EOF
cat >>"$root/root/newcomer-guest.sh" <<'EOF'
fail=0
say() { echo "guest: $*"; }
check() {
	local what=$1
	shift
	if "$@"; then say "ok: $what"; else say "FAIL: $what"; fail=1; fi
}
echo
say "booted $(uname -r) with systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p')"
check "the kernel is Debian's $kver" [ "$(uname -r)" = "$kver" ]
check "systemd loaded crash_suspend at boot (/etc/modules-load.d)" grep -q '^crash_suspend ' /proc/modules
check "with its settings from /etc/modprobe.d (timeout=600 max=16)" \
	[ "$(cat /sys/module/crash_suspend/parameters/timeout 2>&1)/$(cat /sys/module/crash_suspend/parameters/max 2>&1)" = 600/16 ]
say "the README's lines after 'reboot':"
set -o pipefail
if /root/readme-after-reboot.sh 2>&1 | sed 's/^/guest:   /'; then
	say "ok: the README's lines after 'reboot'"
else
	say "FAIL: a README line after 'reboot' failed"
	fail=1
fi
for m in utrace_rs global_trace crash_suspend utrace_dev; do
	check "$m is loaded" grep -q "^$m " /proc/modules
done
say "modules: $(grep -E '^(utrace_rs|global_trace|crash_suspend|syscall_trace|utrace_dev) ' /proc/modules | cut -d' ' -f1,6 | tr '\n' ' ')"
# The package's utrace, as a user without privileges.
setpriv --reuid=nobody --regid=nogroup --clear-groups utrace trace -- /bin/true >/tmp/utrace.out 2>&1
sed 's/^/guest:   /' /tmp/utrace.out | tail -n 3
check "utrace trace -- /bin/true as nobody ends with its exit line" grep -q '^+++ exited with 0 +++' /tmp/utrace.out
say "kernel taint: $(cat /proc/sys/kernel/tainted)"
# A crash, held and listed.
printf 'int main(void) { return *(volatile int *)0; }\n' >/tmp/crasher.c
gcc -O0 -o /tmp/crasher /tmp/crasher.c
/tmp/crasher &
pid=$!
state=
for _ in $(seq 600); do
	state=$(awk '{ print $3 }' "/proc/$pid/stat" 2>/dev/null)
	[ "$state" = T ] && break
	sleep 0.1
done
check "the crashing program $pid is held (state T, not dead)" [ "$state" = T ]
crash-suspend-list | tee /tmp/list | sed 's/^/guest:   /'
check "crash-suspend-list lists it" grep -q "^$pid .*SIGSEGV.*crasher" /tmp/list
kill -KILL "$pid"
wait "$pid" 2>/dev/null
dmesg | grep -E 'crash_suspend|utrace' | tail -n 8 | sed 's/^/guest: dmesg: /'
# Removal: unload, then purge the package.
check "rmmod of the modules" rmmod utrace_dev global_trace crash_suspend utrace_rs
say "apt purge utrace-rs-dkms:"
apt-get purge utrace-rs-dkms 2>&1 | sed 's/^/guest:   /'
check "the package is gone" sh -c '! dpkg -s utrace-rs-dkms >/dev/null 2>&1'
check "the Rust metadata cache /var/lib/utrace-rs is gone" [ ! -e /var/lib/utrace-rs ]
check "DKMS's tree is gone" [ ! -e /var/lib/dkms/utrace-rs ]
check "the modules are gone (modinfo utrace_rs fails)" sh -c '! modinfo utrace_rs >/dev/null 2>&1'
check "the tools are gone" sh -c '! command -v crash-suspend-list && ! command -v utrace'
if dmesg | grep -E 'WARNING:|BUG:|Oops|Call Trace' >/tmp/splat; then
	sed 's/^/guest: dmesg: /' /tmp/splat
	check "no kernel warning" false
fi
if [ "$fail" = 0 ]; then say "RESULT: PASS"; else say "RESULT: FAIL"; fi
EOF
chmod +x "$root/root/newcomer-guest.sh"
cat >"$root/etc/systemd/system/newcomer-test.service" <<'EOF'
[Unit]
Description=utrace-rs newcomer test: the README's lines after reboot
After=multi-user.target
[Service]
Type=oneshot
ExecStart=/root/newcomer-guest.sh
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
ExecStopPost=/usr/bin/systemctl poweroff --no-block
[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/newcomer-test.service \
	"$root/etc/systemd/system/multi-user.target.wants/newcomer-test.service"
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"

cp "$root/boot/vmlinuz-$kver" "$root/boot/initrd.img-$kver" "$work/" ||
	die "no /boot/vmlinuz-$kver or initrd.img-$kver in the system"
phase "the disk image (mke2fs -d)"
size=$(($(du -sxm "$root" | cut -f1) + 3072))
mke2fs -q -t ext4 -L newcomer -d "$root" "$img" "${size}M" >/dev/null || die "mke2fs -d failed"
# Minutes of unlinking (the kernel's source, unpacked twice): while QEMU runs.
rm -rf "$root" &
rmpid=$!

phase "'reboot': Debian's $kver under QEMU (TCG) with systemd"
timeout "${UTRACE_NEWCOMER_TIMEOUT:-1800}" qemu-system-x86_64 -accel tcg,thread=single -cpu max \
	-smp "${UTRACE_QEMU_SMP:-2}" -m "${UTRACE_QEMU_MEM:-2G}" -nographic -no-reboot -nic none \
	-kernel "$work/vmlinuz-$kver" -initrd "$work/initrd.img-$kver" \
	-drive "file=$img,format=raw,if=virtio" \
	-append "root=/dev/vda rw console=ttyS0 loglevel=4 systemd.show_status=0 systemd.firstboot=off panic=-1" \
	</dev/null >"$work/console.log" 2>&1 || log "qemu exited with $? (log: $work/console.log)"
grep -a '^guest: ' "$work/console.log" | tr -d '\r' >&2 || true
wait "$rmpid" || true
phase "done"
grep -aq '^guest: RESULT: PASS' "$work/console.log" || die "the guest's part (log: $work/console.log)"
log "PASS"
