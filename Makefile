# SPDX-License-Identifier: GPL-2.0
#
# utrace-rs top-level Makefile. The two commands a newcomer needs:
#
#   make check   install what is missing, build the test kernel (cached), the
#                modules and the guest programs, boot QEMU and run the selftests
#   make demo    the same set-up, then boot QEMU and show the engines working
#
#   make check-debug   the selftests on the debug kernel (KASAN, kmemleak,
#                      lockdep, DEBUG_OBJECTS, failslab; built and cached too)
#   make check-distro  the selftests on a Debian kernel booted unmodified
#                      (default: trixie-backports' newest; DISTRO_KERNEL=sid,
#                      =trixie-backports/cloud-amd64/7.2 or an ABI name such as
#                      =7.3.4+deb13-amd64), the modules built in the suite's
#                      chroot with Debian's toolchain (scripts/distro.sh, cached)
#   make dkms-test     dkms build of dkms.conf in that chroot
#   make distro-matrix build, load and smoke-test every Rust-enabled Debian
#                      kernel ABI (scripts/distro-matrix.sh; long)
#   make deb           the Debian package utrace-rs-dkms (build/deb/; debian/)
#   make newcomer-test README's Debian lines verbatim on a fresh trixie image,
#                      booted under QEMU (slow, not in CI; scripts/newcomer.sh)
#
#   make install-tools  the user tools (crash-suspend-list, crash-suspend-core,
#                       utrace-top) in $(DESTDIR)$(PREFIX)/sbin, PREFIX=/usr/local
#
# Other targets: modules (default), kernel, deps, guest, bench, bench-distro,
# bench-guard, bench-profile, bench-profile-distro, fmt,
# fmt-check, clippy, rust-analyzer, clean. KDIR=/path/to/your/rust-enabled/6.12/tree
# builds the modules against your own kernel instead of the cached one.

KDIR ?=
export PATH := $(HOME)/.cargo/bin:$(PATH)

# The kernel tree to build against: $(KDIR), or the cached test kernel
# (built on first use by scripts/kernel.sh).
kdir = kdir="$${KDIR:-$$(scripts/kernel.sh)}" && [ -n "$$kdir" ]
# The compiler is the kernel's own (scripts/kernel-cc.sh reads its .config):
# LLVM=-19 for the clang-built test kernel, never LLVM= for a GCC-built one.
kmake = $(MAKE) -C "$$kdir" M=$(CURDIR) $$(scripts/kernel-cc.sh "$$kdir")

.PHONY: all modules kernel deps guest check check-debug check-distro dkms-test deb newcomer-test distro-matrix demo bench bench-distro bench-guard bench-profile bench-profile-distro fmt fmt-check clippy rust-analyzer clean install-tools uninstall-tools

all: modules

deps:
	@scripts/install-deps.sh

kernel: deps
	@scripts/kernel.sh >/dev/null

modules: kernel
	@$(kdir) && $(kmake) modules

guest:
	@scripts/build-guest-programs.sh

check: modules guest
	@$(kdir) && KDIR="$$kdir" scripts/check.sh

check-debug: deps guest
	@kdir=$$(scripts/kernel.sh debug) && [ -n "$$kdir" ] && \
		KDIR="$$kdir" UTRACE_VARIANT=debug scripts/check.sh

check-distro: deps guest
	@eval "$$(scripts/distro.sh prepare)" && export DISTRO_KERNEL="$$DISTRO_KVER" DISTRO_SUITE && \
		KDIR="$$DISTRO_KDIR" BOOT_KERNEL="$$DISTRO_VMLINUZ" UTRACE_VARIANT=distro scripts/check.sh

dkms-test: deps
	@scripts/distro.sh dkms-test

deb:
	@scripts/deb.sh >/dev/null

newcomer-test:
	@scripts/newcomer.sh

distro-matrix: deps guest
	@scripts/distro-matrix.sh

demo: modules guest
	@$(kdir) && KDIR="$$kdir" scripts/demo.sh

# The kernel's own rustfmt settings, applied to our files (the kernel's
# rustfmt target only walks its own tree).
rs_files = $$(find rust samples dev tools -name '*.rs')

# Benchmarks: their own kernel (no lock debugging), one vCPU, QEMU -icount.
bench: deps guest
	@scripts/bench.sh

# The syscall, fork, attach and STOP rows on Debian's unmodified 7.3.4 kernel, booted and
# built for as make check-distro does (scripts/distro.sh), also one vCPU
# under -icount; BENCH_PLAN=full for every row. After a make bench of the
# same commit, build/bench-both.md has the two kernels side by side.
bench-distro: deps guest
	@scripts/bench.sh distro

# The hot-path regression guard (also part of make check): make bench's
# hot-path rows on the test kernel under -icount against the numbers in
# scripts/bench-guard-expected.txt; CALIBRATE=1 rewrites them.
bench-guard: modules guest
	@$(kdir) && KDIR="$$kdir" scripts/bench-guard.sh

# Where each hot path's instructions go: one iteration of each workload
# single-stepped through QEMU's gdbstub, every instruction counted by function.
bench-profile: deps guest
	@scripts/bench-profile.sh

# The same on Debian's 7.3.4 kernel (build/profile-distro/profile.md).
bench-profile-distro: deps guest
	@scripts/bench-profile.sh distro

fmt: kernel
	@$(kdir) && rustfmt --config-path "$$kdir/.rustfmt.toml" $(rs_files)

fmt-check: kernel
	@$(kdir) && rustfmt --check --config-path "$$kdir/.rustfmt.toml" $(rs_files)

# The user tools: root's (the devices they read are root-only), so sbin.
PREFIX ?= /usr/local
CC ?= cc
tools := tools/crash-suspend/crash-suspend-list tools/crash-suspend/crash-suspend-core

build/tools/utrace-top: tools/utrace-top/utrace-top.c
	@mkdir -p build/tools
	$(CC) -O2 -Wall -Wextra -o $@ $<

install-tools: build/tools/utrace-top
	install -d $(DESTDIR)$(PREFIX)/sbin
	install -m 0755 $(tools) build/tools/utrace-top $(DESTDIR)$(PREFIX)/sbin/

uninstall-tools:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/sbin/,$(notdir $(tools)) utrace-top)

clippy: kernel
	@$(kdir) && $(kmake) CLIPPY=1 W=1 modules

rust-analyzer: kernel
	@$(kdir) && $(kmake) rust-analyzer

clean:
	@if [ -n "$(KDIR)" ] || [ -x "$$(command -v rustc)" ]; then \
		$(kdir) && $(kmake) clean; fi
	rm -rf build
