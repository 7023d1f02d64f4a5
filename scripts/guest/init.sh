#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test initramfs. Mounts the usual file systems, runs what the
# kernel command line asks for (utrace.mode=check|demo|bench|profile), prints the kernel
# log between markers for the host to scan, and powers off.

/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin:/utrace/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mkdir -p /var/crash
hostname utrace-guest

mode=check
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case "$arg" in
	utrace.mode=*) mode=${arg#utrace.mode=} ;;
	esac
done

echo "### BOOTED mode=$mode cpus=$(grep -c ^processor /proc/cpuinfo)"
rc=0
case "$mode" in
check) sh /utrace/selftests/run.sh; rc=$? ;;
demo) sh /utrace/demo/demo.sh; rc=$? ;;
bench) sh /utrace/bench/bench.sh; rc=$? ;;
profile) sh /utrace/bench/profile.sh; rc=$? ;;
shell) setsid sh -c 'exec sh </dev/ttyS0 >/dev/ttyS0 2>&1' ;;
*) echo "unknown utrace.mode=$mode"; rc=2 ;;
esac

echo "### DMESG-BEGIN"
dmesg
echo "### DMESG-END"
echo "### END rc=$rc"
sync
poweroff -f
