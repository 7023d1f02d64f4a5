#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs in the guest for `make demo`: each step says what it shows, then shows it.
M=/utrace/modules
step() { printf '\n=== %s\n' "$*"; }

step "kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) CPUs"
step "insmod utrace_rs.ko"
insmod $M/utrace_rs.ko || exit 1
grep '^utrace_rs ' /proc/modules
dmesg | grep 'utrace_rs:' | tail -n 5

step "rmmod utrace_rs"
rmmod utrace_rs || exit 1
dmesg | grep 'utrace_rs:' | tail -n 1
